//! An index split into fragments for a static host (`store::fragments`) answers by words and through the
//! graph as the whole index does: the same documents, chunks, scores, texts, trace and teaching graph for
//! every question, fetching the graph once and only the term buckets and text runs each question needs. By meaning, its partitioned vectors find what exact search
//! finds when every partition is scanned, scored alike, and the hybrid of dense and BM25 over them is the
//! whole index's; scanning fewer fetches only the nearest partitions. A fragment of another index, a
//! damaged one or one under another part's name is refused, and no byte of a fragment makes the reader
//! panic.

use crate::common;

use std::collections::HashMap;
use std::sync::OnceLock;

use proptest::prelude::*;
use quire::corpus::SourceFile;
use quire::embed::TextEmbedder;
use quire::index::{VectorIndex, VectorIndexKind};
use quire::retrieve::{DocumentHit, Fusion, Method, Query, Retriever, Step, Trace};
use quire::retrieve::{by_words, over_fragments};
use quire::store::fragments::{self, Fragment, FragmentError, FragmentedIndex, LEXICON, Sizes};
use quire::store::{IndexBuilder, IndexSettings, IndexedCorpus, Vectors};

/// Small parts, so that the demo corpus spans many buckets and runs.
const SMALL: Sizes = Sizes { bucket_bytes: 128, text_run_bytes: 256, partition_bytes: 800 };

/// Signature, version, index id and checksum (`store::fragments`).
const HEADER_LEN: usize = 8 + 4 + 16 + 32;

const PASSAGE: &str = "Spring tides happen when the Sun, the Moon and the Earth line up, at new and full moon, twice \
                       a month; the range between high and low water is then at its largest, and harbour pilots \
                       plan the deepest ships around them.";

/// The demo corpus, with a guide and a mail that forwards a passage of it (a copy, shown "also in").
fn index() -> &'static IndexedCorpus {
    static INDEX: OnceLock<IndexedCorpus> = OnceLock::new();
    INDEX.get_or_init(|| {
        let mut files = common::demo_files();
        let guide = format!(
            "# Tides\n\n## Spring tides\n\n{PASSAGE}\n\n## Neap tides\n\nNeap tides come at the quarter moons, when \
             the Sun and the Moon pull at right angles and the range is smallest.\n"
        );
        files.push(SourceFile::new("guide/tides.md", guide));
        let mail = format!("# Fwd: tides for Thursday\n\nHi all, see below.\n\n{PASSAGE}\n");
        files.push(SourceFile::new("mail/fwd-tides.md", mail));
        let settings = IndexSettings::default();
        let report = quire::corpus::ingest(&files, &settings.corpus);
        assert!(report.errors.is_empty(), "{:?}", report.errors);
        let embedder = common::embedder();
        let mut builder =
            IndexBuilder::new(report.documents, embedder, embedder.identity().clone(), settings, None, Vectors::Chunks);
        builder.embed_all(embedder).unwrap();
        builder.finish()
    })
}

fn split(index: &IndexedCorpus, sizes: Sizes) -> HashMap<String, Vec<u8>> {
    fragments::split(index, &index.to_snapshot().unwrap(), sizes).unwrap().into_iter().collect()
}

/// What the engine by words does for a question: the buckets of its terms, its ranking, the runs of what it
/// shows, then the answer; and the paths it fetched.
fn answer(
    fragmented: &mut FragmentedIndex,
    files: &HashMap<String, Vec<u8>>,
    question: &str,
    documents: usize,
) -> ((Vec<DocumentHit>, Trace), Vec<String>) {
    answer_with(fragmented, files, question, documents, None)
}

/// As [`answer`], by meaning, as the full engine does: the centroids and the partitions too.
fn answer_by_meaning(
    fragmented: &mut FragmentedIndex,
    files: &HashMap<String, Vec<u8>>,
    question: &str,
    documents: usize,
) -> ((Vec<DocumentHit>, Trace), Vec<String>) {
    let vector = common::embedder().embed(&[question]).unwrap().remove(0);
    answer_with(fragmented, files, question, documents, Some(&vector))
}

fn answer_with(
    fragmented: &mut FragmentedIndex,
    files: &HashMap<String, Vec<u8>>,
    question: &str,
    documents: usize,
    vector: Option<&[f32]>,
) -> ((Vec<DocumentHit>, Trace), Vec<String>) {
    let mut fetched = Vec::new();
    let mut fetch = |fragmented: &mut FragmentedIndex, wanted: Vec<Fragment>| {
        for fragment in wanted {
            fragmented.add(fragment, &files[&fragment.path()]).unwrap();
            fetched.push(fragment.path());
        }
    };
    match vector {
        // The centroids, then the partitions they point to.
        Some(vector) => {
            fetch(fragmented, fragmented.missing_for_query(question));
            fetch(fragmented, fragmented.missing_for_meaning(vector));
            fetch(fragmented, fragmented.missing_for_meaning(vector));
        }
        // The graph, then the buckets of the community summaries.
        None => {
            fetch(fragmented, fragmented.missing_for_words(question));
            fetch(fragmented, fragmented.missing_for_words(question));
        }
    }
    let ranked = match vector {
        Some(vector) => over_fragments::rank_by_meaning(fragmented, question, vector, documents),
        None => over_fragments::rank_by_words(fragmented, question, documents),
    }
    .expect("its buckets, centroids and partitions were fetched");
    fetch(fragmented, fragmented.missing_for_chunks(ranked.shown_chunks(fragmented)));
    (ranked.finish(fragmented).expect("its runs were fetched"), fetched)
}

fn questions() -> Vec<String> {
    let listed: Vec<serde_json::Value> =
        serde_json::from_slice(&std::fs::read(common::root().join("public/demo/questions.json")).unwrap()).unwrap();
    let mut questions: Vec<String> = listed.iter().map(|q| q["text"].as_str().unwrap().to_string()).collect();
    questions.extend(index().corpus().documents.iter().map(|d| d.title.clone()));
    questions.extend(
        ["When is the range between high and low water largest?", "moon", "zzzz unknown words", "", "the of and"]
            .map(String::from),
    );
    questions
}

#[test]
fn fragments_answer_by_words_as_the_whole_index_does() {
    let index = index();
    let (mut joined, mut communities) = (0, 0);
    for sizes in [SMALL, Sizes::default()] {
        let files = split(index, sizes);
        let mut fragmented = FragmentedIndex::open(&files[LEXICON]).unwrap();
        assert_eq!(fragmented.summary(), &index.summary());
        for question in questions() {
            for documents in [1, 3, 10] {
                let whole = Method::Words.grouped(index, Query::new(&question, &[]), documents);
                let (by_fragments, _) = answer(&mut fragmented, &files, &question, documents);
                assert_eq!(by_fragments, whole, "{question:?} at {documents}");
                assert_eq!(by_words::grouped(index, &question, documents), whole, "{question:?} at {documents}");
                let trace = &whole.1;
                assert_eq!(over_fragments::trace_graph(&fragmented, trace), trace.graph(index.corpus()));
                for retriever in &trace.retrievers {
                    for step in &retriever.steps {
                        match step {
                            Step::Seeds { note, nodes } if note.starts_with("entities named") => {
                                joined += usize::from(!nodes.is_empty())
                            }
                            Step::Expand { relation, .. } if relation == "comm_similar_to" => communities += 1,
                            _ => {}
                        }
                    }
                }
                for hit in &whole.0 {
                    for chunk in std::iter::once(&hit.best).chain(&hit.more) {
                        assert_eq!(fragmented.chunk_view(chunk.chunk), Some(index.chunk_view(chunk.chunk)));
                    }
                }
            }
        }
    }
    // The graph took part: questions naming pages joined from them, and communities led to their neighbours.
    assert!(joined > 10 && communities > 10, "{joined} joins from named entities, {communities} community hops");
}

/// The demo corpus is far below [`fragments::PROBED_VECTORS`]: every partition is scanned, and the answer
/// is exactly the whole index's.
#[test]
fn fragments_answer_by_meaning_as_the_whole_index_does_when_every_partition_is_scanned() {
    let index = index();
    assert!(index.corpus().chunks.len() < fragments::PROBED_VECTORS);
    let hybrid = Method::Fused { fusion: Fusion::Zsum, inputs: vec![(Retriever::Dense, 1.0), (Retriever::Bm25, 1.0)] };
    let exact =
        VectorIndex::build_kind(index.embeddings().vectors(), index.rows().chunks.clone(), VectorIndexKind::Flat);
    for sizes in [SMALL, Sizes::default()] {
        let files = split(index, sizes);
        let mut fragmented = FragmentedIndex::open(&files[LEXICON]).unwrap();
        for question in questions() {
            let vector = common::embedder().embed(&[question.as_str()]).unwrap().remove(0);
            for documents in [1, 3, 10] {
                let whole = hybrid.grouped(index, Query::new(&question, &vector), documents);
                let (by_fragments, _) = answer_by_meaning(&mut fragmented, &files, &question, documents);
                assert_eq!(by_fragments, whole, "{question:?} at {documents}");
            }
            let nearest = exact.search(index.embeddings().vectors(), &vector, 10);
            assert_eq!(fragmented.dense_hits(&vector, 10), Some(nearest), "{question:?}");
        }
        assert_eq!(fragmented.model(), Some(index.model()));
    }
}

/// Scanning a few vectors fetches the partitions of the nearest centroids only, and still finds the
/// chunk a question is about.
#[test]
fn a_question_by_meaning_fetches_the_nearest_partitions_only() {
    let index = index();
    let files = split(index, SMALL);
    let partitions = files.keys().filter(|path| path.starts_with("vectors/") && !path.contains("centroids")).count();
    assert!(partitions > 10, "{partitions} partitions");
    let mut fragmented = FragmentedIndex::open(&files[LEXICON]).unwrap();
    fragmented.probe(4);
    let question = "Which planet has the Great Red Spot?";
    let ((hits, _), fetched) = answer_by_meaning(&mut fragmented, &files, question, 3);
    assert_eq!(fragmented.chunk_view(hits[0].best.chunk).unwrap().source, "jupiter.html");
    let scanned = fetched.iter().filter(|path| path.starts_with("vectors/") && !path.contains("centroids")).count();
    assert!((1..partitions / 2).contains(&scanned), "{scanned} of {partitions} partitions: {fetched:?}");
    let vector = common::embedder().embed(&[question]).unwrap().remove(0);
    assert!(fragmented.missing_for_meaning(&vector).is_empty(), "asked again, it fetches nothing");
}

#[test]
fn a_question_fetches_only_the_parts_it_needs() {
    let index = index();
    let files = split(index, SMALL);
    let buckets = files.keys().filter(|path| path.starts_with("terms/")).count();
    let runs = files.keys().filter(|path| path.starts_with("texts/")).count();
    assert!(buckets > 20 && runs > 10, "{buckets} buckets and {runs} runs");
    let mut fragmented = FragmentedIndex::open(&files[LEXICON]).unwrap();
    let ((hits, _), fetched) = answer(&mut fragmented, &files, "Which planet has the Great Red Spot?", 3);
    assert_eq!(index.chunk_view(hits[0].best.chunk).source, "jupiter.html");
    let terms = fetched.iter().filter(|path| path.starts_with("terms/")).count();
    assert!((1..=5).contains(&terms), "a bucket per term at most: {fetched:?}");
    assert!(fetched.len() < buckets / 2 + runs / 2, "{fetched:?}");
    let (_, again) = answer(&mut fragmented, &files, "Which planet has the Great Red Spot?", 3);
    assert!(again.is_empty(), "a question asked again fetches nothing: {again:?}");
}

#[test]
fn a_copied_passage_is_one_result_also_in_its_copy() {
    let index = index();
    let files = split(index, SMALL);
    let mut fragmented = FragmentedIndex::open(&files[LEXICON]).unwrap();
    let ((hits, _), _) = answer(&mut fragmented, &files, "When is the range between high and low water largest?", 3);
    let best = fragmented.chunk_view(hits[0].best.chunk).unwrap();
    assert_eq!(best.source, "guide/tides.md");
    let also_in: Vec<String> = hits[0].also_in.iter().map(|&d| fragmented.source(d)).collect();
    assert_eq!(also_in, ["mail/fwd-tides.md"]);
}

#[test]
fn a_fragment_of_another_index_a_damaged_one_or_a_misplaced_one_is_refused() {
    let index = index();
    let files = split(index, SMALL);
    let other = common::index_files(&[("notes.md", "# Notes\n\nThe moon and the tides.\n")], IndexSettings::default());
    let other_files = split(&other, SMALL);
    let mut fragmented = FragmentedIndex::open(&files[LEXICON]).unwrap();
    let bucket = fragmented.missing_for_query("moon")[0];
    assert_eq!(fragmented.add(bucket, &other_files["terms/000.bin"]), Err(FragmentError::OtherIndex));
    let mut damaged = files[&bucket.path()].clone();
    *damaged.last_mut().unwrap() ^= 1;
    assert_eq!(fragmented.add(bucket, &damaged), Err(FragmentError::ChecksumMismatch));
    let elsewhere = files.keys().find(|path| path.starts_with("terms/") && **path != bucket.path()).unwrap();
    assert!(matches!(fragmented.add(bucket, &files[elsewhere]), Err(FragmentError::Inconsistent(_))));
    assert!(matches!(
        fragmented.add(Fragment::Texts(0), &files[&bucket.path()]),
        Err(FragmentError::Decode(_)) | Err(FragmentError::Inconsistent(_))
    ));
    assert_eq!(FragmentedIndex::open(&files[LEXICON][..40]).err(), Some(FragmentError::NotAFragment));
    assert!(over_fragments::rank_by_words(&fragmented, "moon", 3).is_none(), "no ranking without its buckets");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    /// Flipped, cut or extended fragments are refused or read; nothing panics, whatever is asked of them.
    #[test]
    fn no_fragment_makes_the_reader_panic(
        at in any::<usize>(),
        value in any::<u8>(),
        cut in any::<bool>(),
        reframe in any::<bool>(),
        which in 0usize..5,
    ) {
        let files = split(index(), SMALL);
        let mut names: Vec<&String> = files.keys().filter(|path| path.as_str() != LEXICON).collect();
        names.sort();
        let mutate = |bytes: &[u8]| {
            let mut bytes = bytes.to_vec();
            let at = at % bytes.len();
            if cut { bytes.truncate(at) } else { bytes[at] ^= value.max(1) }
            // Mostly past the checksum, so that the decoder and the checks behind it see the change.
            if reframe && bytes.len() >= HEADER_LEN {
                let checksum = *blake3::hash(&bytes[HEADER_LEN..]).as_bytes();
                bytes[HEADER_LEN - 32..HEADER_LEN].copy_from_slice(&checksum);
            }
            bytes
        };
        let lexicon = if which == 0 { mutate(&files[LEXICON]) } else { files[LEXICON].clone() };
        let Ok(mut fragmented) = FragmentedIndex::open(&lexicon) else { return Ok(()) };
        for question in ["moon", "Which planet has the Great Red Spot?"] {
            for _ in 0..2 {
                for fragment in fragmented.missing_for_words(question) {
                    let bytes = &files[&fragment.path()];
                    let graph = matches!(fragment, Fragment::Graph | Fragment::Summaries(_));
                    let mutated = (which == 1 && !graph) || (which == 3 && graph);
                    let _ = fragmented.add(fragment, &if mutated { mutate(bytes) } else { bytes.clone() });
                }
            }
            let Some(ranked) = over_fragments::rank_by_words(&fragmented, question, 3) else { continue };
            for fragment in fragmented.missing_for_chunks(ranked.shown_chunks(&fragmented)) {
                let bytes = files.get(&fragment.path()).unwrap_or(&files[names[at % names.len()]]);
                let _ = fragmented.add(fragment, &if which == 2 { mutate(bytes) } else { bytes.clone() });
            }
            let _ = ranked.finish(&fragmented);
        }
        let vector = common::embedder().embed(&["Which planet has the Great Red Spot?"]).unwrap().remove(0);
        for _ in 0..2 {
            for fragment in fragmented.missing_for_meaning(&vector) {
                let bytes = &files[&fragment.path()];
                let _ = fragmented.add(fragment, &if which == 4 { mutate(bytes) } else { bytes.clone() });
            }
        }
        let _ = over_fragments::rank_by_meaning(&fragmented, "Which planet has the Great Red Spot?", &vector, 3);
    }
}
