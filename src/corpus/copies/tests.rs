//! Unit tests of `copies`, on documents parsed from Markdown as a user's folder gives them.

use super::*;
use crate::corpus::chunking::tests::WordCounter;
use crate::corpus::{CorpusSettings, SourceFile, ingest};

const PASSAGE: &str = "Spring tides happen when the Sun, the Moon and the Earth line up, at new and full moon, twice a \
                       month; the range between high and low water is then at its largest, and harbour pilots plan \
                       the deepest ships around them.";

fn corpus(files: &[(&str, String)]) -> Corpus {
    let files: Vec<SourceFile> = files.iter().map(|(name, text)| SourceFile::new(*name, text.as_bytes())).collect();
    let settings = CorpusSettings::default();
    Corpus::build(ingest(&files, &settings).documents, &WordCounter, &settings)
}

fn chunk_of(corpus: &Corpus, source: &str, words: &str) -> ChunkId {
    (0..corpus.chunks.len() as ChunkId)
        .find(|&c| {
            corpus.documents[corpus.chunks[c as usize].document as usize].source == source
                && corpus.chunk_text(c).contains(words)
        })
        .unwrap_or_else(|| panic!("no chunk of {source} holds {words:?}"))
}

fn guide() -> String {
    let neap = "Neap tides come at the quarter moons, when the Sun and the Moon pull at right angles to each other \
                and the range between the tides is at its smallest of the month.";
    let mut long = String::from("# Tides\n\n");
    for n in 1..=12 {
        long.push_str(&format!(
            "## Part {n}\n\nPart {n} of the guide covers a different sea, with {n} harbours \
                                and their own tables of high and low water for every day of the year.\n\n"
        ));
    }
    long + &format!("## Spring tides\n\n{PASSAGE}\n\n## Neap tides\n\n{neap}\n")
}

#[test]
fn a_mail_that_quotes_a_guide_is_the_copy() {
    let mail = format!("# Fwd: tides for Thursday\n\nHi all, see below.\n\n{PASSAGE}\n");
    let corpus = corpus(&[("guide/tides.md", guide()), ("mail/fwd.md", mail)]);
    let copies = Copies::find(&corpus);
    let in_guide = chunk_of(&corpus, "guide/tides.md", "harbour pilots");
    let in_mail = chunk_of(&corpus, "mail/fwd.md", "harbour pilots");
    // The mail's one passage is the guide's; the guide holds much the mail does not.
    assert_eq!(copies.original(in_mail), in_guide);
    assert_eq!(copies.original(in_guide), in_guide);
    assert_eq!(copies.copies_of(in_guide), [in_mail]);
    assert_eq!(copies.len(), 1);
    let neap = chunk_of(&corpus, "guide/tides.md", "quarter moons");
    assert_eq!(copies.original(neap), neap, "a passage the mail does not quote is no copy");
}

#[test]
fn passages_that_share_little_or_are_short_are_not_copies() {
    let reworded = "Twice a month, at new and full moon, the Sun, Moon and Earth align and produce spring tides, \
                    which have the greatest range between high and low water of any tides.";
    let corpus = corpus(&[
        ("a.md", format!("# A\n\n{PASSAGE}\n")),
        ("b.md", format!("# B\n\n{reworded}\n")),
        ("c.md", "# C\n\nSee the tide tables for details.\n".into()),
        ("d.md", "# D\n\nSee the tide tables for details.\n".into()),
    ]);
    assert!(Copies::find(&corpus).is_empty());
}

#[test]
fn two_chapters_that_share_an_example_each_keep_it() {
    let chapter = |topic: &str, sentences: [&str; 3]| {
        let own: Vec<String> =
            sentences.iter().enumerate().map(|(n, text)| format!("## {topic} {n}\n\n{text}\n")).collect();
        format!("# {topic}\n\n{}\n## Example\n\n{PASSAGE}\n", own.join("\n"))
    };
    let moon = chapter(
        "moon",
        [
            "The Moon keeps one face towards the Earth because its rotation and its orbit take the same time, about \
         twenty-seven days, a lock that the tides themselves brought about over millions of years.",
            "Its craters were made by impacts over billions of years, and without weather or plate tectonics to erase \
         them, the oldest still show on the highlands that surround the dark volcanic plains called maria.",
            "Astronauts brought back rocks whose ages and make-up suggest the Moon formed from debris thrown out when a \
         body the size of Mars struck the young Earth.",
        ],
    );
    let harbours = chapter(
        "harbours",
        [
            "A harbour offers ships shelter from waves and wind, behind breakwaters of stone or concrete, or in a bay \
         whose headlands already break the swell before it reaches the moorings.",
            "Dredgers keep channels deep enough for the largest vessels, removing silt that rivers carry down and \
         that currents drop where the water slows near quays and basins.",
            "Pilots who know the local shoals board incoming ships at the outer buoy and steer them through the \
         channel to their berth, where tugs push them alongside.",
        ],
    );
    let corpus = corpus(&[("moon.md", moon), ("harbours.md", harbours)]);
    let example = |source: &str| corpus.chunk_text(chunk_of(&corpus, source, "harbour pilots"));
    assert_eq!(example("moon.md"), example("harbours.md"), "the example is a chunk of its own in both");
    assert!(Copies::find(&corpus).is_empty());
}

#[test]
fn a_passage_repeated_in_one_document_is_not_a_copy() {
    let corpus = corpus(&[("a.md", format!("# A\n\n## One\n\n{PASSAGE}\n\n## Two\n\n{PASSAGE}\n"))]);
    assert!(Copies::find(&corpus).is_empty());
}

fn notes(count: usize) -> Corpus {
    let files: Vec<(String, String)> =
        (0..count).map(|n| (format!("notes/{n}.md"), format!("# Note {n}\n\nNote {n} says:\n\n{PASSAGE}\n"))).collect();
    let files: Vec<(&str, String)> = files.iter().map(|(name, text)| (name.as_str(), text.clone())).collect();
    corpus(&files)
}

#[test]
fn every_copy_of_a_passage_names_one_original() {
    let corpus = notes(3);
    let copies = Copies::find(&corpus);
    let originals: std::collections::HashSet<ChunkId> =
        (0..corpus.chunks.len() as ChunkId).map(|c| copies.original(c)).collect();
    assert_eq!(originals.len(), 1, "one passage, one original");
    assert_eq!(copies.len(), 2);
}

#[test]
fn a_passage_most_documents_hold_is_boilerplate_and_each_keeps_it() {
    assert!(Copies::find(&notes(4)).is_empty());
}

#[test]
fn jaccard_counts_shared_members_of_sorted_sets() {
    assert_eq!(jaccard(&[1, 2, 3, 4], &[2, 3, 4, 5]), 0.6);
    assert_eq!(jaccard(&[], &[]), 0.0);
    assert_eq!(shingles("too short to count"), Vec::<u64>::new());
}
