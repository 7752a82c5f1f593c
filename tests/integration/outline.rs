//! A document's outline (what the app opens from a result) and vectors embedded elsewhere (what the browser's
//! embedding workers hand back), on real text through the real embedder.

use crate::common;

use quire::corpus::{self, CorpusSettings};
use quire::embed::TextEmbedder;
use quire::store::{IndexBuilder, IndexSettings, Vectors};

const MOON: &str = "# Moon\n\nThe Moon is Earth's only natural satellite.\n\n## Landings\n\nApollo 11 landed in \
    the Sea of Tranquility in July 1969.\n\n### Crew\n\nNeil Armstrong and Buzz Aldrin walked on the surface.\n\n\
    ## Tides\n\nThe Moon's gravity raises the ocean tides.\n";

#[test]
fn an_outline_lists_sections_in_order_with_their_chunks_and_their_relevance() {
    let index = common::index_files(
        &[("notes/moon.md", MOON), ("sun.txt", "The Sun is a star of hydrogen and helium.")],
        IndexSettings::default(),
    );
    let question = common::embedder().embed(&["Who walked on the Moon?"]).unwrap().remove(0);
    let outline = index.outline("notes/moon.md", Some(&question)).expect("the document is indexed");
    assert_eq!(outline.title, "Moon");
    let headings: Vec<Vec<&str>> =
        outline.sections.iter().map(|s| s.headings.iter().map(String::as_str).collect()).collect();
    // The first heading is the title; the lead under it hangs off the page, with no headings of its own.
    let expected: Vec<Vec<&str>> = vec![vec![], vec!["Landings"], vec!["Landings", "Crew"], vec!["Tides"]];
    assert_eq!(headings, expected);
    let chunks: Vec<&str> = outline.sections.iter().flat_map(|s| &s.chunks).map(|c| c.label.as_str()).collect();
    assert_eq!(chunks, vec!["Moon › #1", "Moon › Landings › #1", "Moon › Landings › Crew › #1", "Moon › Tides › #1"]);
    // The relevance is dense search's own score: the crew chunk answers the question best.
    let best =
        outline.sections.iter().flat_map(|s| &s.chunks).max_by(|a, b| a.relevance.partial_cmp(&b.relevance).unwrap());
    assert_eq!(best.unwrap().label, "Moon › Landings › Crew › #1");
    let hits = index.chunk_index().search(index.embeddings().vectors(), &question, 1);
    assert!((best.unwrap().relevance.unwrap() - hits[0].score).abs() < 1e-4);

    let plain = index.outline("sun.txt", None).unwrap();
    assert_eq!(plain.sections.len(), 1);
    assert!(plain.sections[0].headings.is_empty() && plain.sections[0].chunks[0].relevance.is_none());
    assert!(index.outline("missing.md", None).is_none());
}

#[test]
fn vectors_embedded_elsewhere_build_the_same_index_and_too_many_are_refused() {
    let embedder = common::embedder();
    let documents = corpus::ingest(&common::demo_files(), &CorpusSettings::default()).documents;
    let builder = || {
        IndexBuilder::new(
            documents.clone(),
            embedder,
            embedder.identity().clone(),
            IndexSettings::default(),
            None,
            Vectors::All,
        )
    };
    let mut here = builder();
    here.embed_all(embedder).unwrap();

    let mut elsewhere = builder();
    let texts: Vec<String> = elsewhere.texts_to_embed().to_vec();
    assert!(texts.len() > 64);
    // Batched as `embed_all` batches them, so the vectors are the same to the bit.
    for part in texts.chunks(64) {
        let part: Vec<&str> = part.iter().map(String::as_str).collect();
        assert_eq!(elsewhere.accept_next(embedder.embed(&part).unwrap()).unwrap(), part.len());
    }
    assert!(elsewhere.is_done());
    assert!(elsewhere.accept_next(vec![vec![0.0; 384]]).is_err());
    let same = here.finish().to_snapshot().unwrap() == elsewhere.finish().to_snapshot().unwrap();
    assert!(same, "the index built from vectors taken in differs from the one embedded in place");
}
