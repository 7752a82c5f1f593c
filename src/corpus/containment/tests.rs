//! Unit tests of `containment`, on documents parsed from Markdown as a user's folder gives them.

use super::*;
use crate::corpus::{CorpusSettings, SourceFile, ingest};

fn paragraph(topic: &str, n: usize) -> String {
    format!("The {topic} chapter explains point number {n} at some length, so that it reads as a passage of its own.")
}

fn chapter(topic: &str) -> String {
    let body: Vec<String> = (1..=6).map(|n| paragraph(topic, n)).collect();
    format!("# {topic}\n\n{}\n", body.join("\n\n"))
}

fn parse(files: &[(&str, String)]) -> Vec<Document> {
    let files: Vec<SourceFile> = files.iter().map(|(name, text)| SourceFile::new(*name, text.as_bytes())).collect();
    ingest(&files, &CorpusSettings::default()).documents
}

fn sources(documents: &[Document]) -> Vec<&str> {
    documents.iter().map(|d| d.source.as_str()).collect()
}

#[test]
fn the_all_in_one_page_goes_and_the_chapters_stay() {
    let all_in_one = format!("# The book\n\n{}\n{}\n{}", chapter("Cargo"), chapter("Crates"), chapter("Builds"));
    let mut added = parse(&[
        ("book/cargo.md", chapter("Cargo")),
        ("book/print.md", all_in_one),
        ("book/crates.md", chapter("Crates")),
        ("book/builds.md", chapter("Builds")),
    ]);
    let notes = drop_repeating_pages(&mut added, &[]);
    assert_eq!(sources(&added), ["book/cargo.md", "book/crates.md", "book/builds.md"]);
    assert_eq!(notes.len(), 1);
    assert_eq!(notes[0].0, "book/print.md");
    assert!(notes[0].1.contains("book/builds.md, book/cargo.md, book/crates.md (100 % of its passages)"), "{notes:?}");
}

#[test]
fn a_page_inside_a_larger_one_stays_and_so_does_the_larger_one() {
    let larger = format!("{}\n\n{}\n\n{}", chapter("Cargo"), paragraph("Other", 1), paragraph("Other", 2));
    let mut added = parse(&[("cargo.md", chapter("Cargo")), ("guide.md", larger)]);
    assert!(drop_repeating_pages(&mut added, &[]).is_empty());
    assert_eq!(added.len(), 2);
}

#[test]
fn of_two_near_copies_one_stays_and_the_index_counts_as_a_holder() {
    // One passage of six edited: the copy still holds 5 / 6 of the page.
    let edited = chapter("Cargo").replace("number 4", "number four");
    let mut added = parse(&[("v1/cargo.md", chapter("Cargo")), ("v2/cargo.md", edited)]);
    let notes = drop_repeating_pages(&mut added, &[]);
    assert_eq!(added.len(), 1, "{notes:?}");
    assert_eq!(notes.len(), 1);
    assert!(notes[0].1.ends_with("of its passages): not indexed, so it answers instead"), "{notes:?}");

    let indexed = parse(&[("cargo.md", chapter("Cargo")), ("crates.md", chapter("Crates"))]);
    let all_in_one = format!("{}\n{}", chapter("Cargo"), chapter("Crates"));
    let mut added = parse(&[("print.md", all_in_one)]);
    assert_eq!(drop_repeating_pages(&mut added, &indexed).len(), 1);
    assert!(added.is_empty());
}

#[test]
fn short_documents_and_short_blocks_are_never_compilations() {
    let note = "# Cargo\n\nThe Cargo chapter explains point number 1 at some length, so that it reads as a passage of its own.\n";
    let mut added = parse(&[("note.md", note.to_string()), ("cargo.md", chapter("Cargo"))]);
    assert!(drop_repeating_pages(&mut added, &[]).is_empty());
    let links = "# Links\n\n- [Next](a.md)\n- [Previous](b.md)\n- [Index](c.md)\n- [Search](d.md)\n";
    let mut added = parse(&[("nav.md", links.to_string()), ("nav-copy.md", format!("{links}\n- [Home](e.md)\n"))]);
    assert!(drop_repeating_pages(&mut added, &[]).is_empty(), "navigation lines are no passages");
}

#[test]
fn boilerplate_many_pages_share_makes_no_page_a_compilation() {
    let options: Vec<String> = (1..=5).map(|n| paragraph("Common options", n)).collect();
    let page = |command: &str| format!("# {command}\n\n{}\n\n{}\n", paragraph(command, 1), options.join("\n\n"));
    let files: Vec<(String, String)> =
        ["build", "check", "remove", "info", "report"].iter().map(|c| (format!("{c}.md"), page(c))).collect();
    let files: Vec<(&str, String)> = files.iter().map(|(name, text)| (name.as_str(), text.clone())).collect();
    let mut added = parse(&files);
    assert!(drop_repeating_pages(&mut added, &[]).is_empty(), "each page has its own first paragraph");
    assert_eq!(added.len(), 5);
}

#[test]
fn an_old_edition_s_stubs_go_and_pages_with_text_of_their_own_stay() {
    let gone = "The 2018 edition of the book is no longer distributed with Rust's documentation.\n\n\
                If you came here via a link or web search, you may want to check out the current version of the book instead.";
    let stub = |title: &str| format!("# {title}\n\n{gone}\n");
    let mut files: Vec<(String, String)> = ["Ownership", "Borrowing", "Slices", "Structs", "Enums"]
        .iter()
        .map(|t| (format!("2018/{t}.md"), stub(t)))
        .collect();
    // The same notice above a page's own text keeps the page.
    files.push(("old/traits.md".into(), format!("# Traits\n\n{gone}\n\n{}\n", paragraph("Traits", 1))));
    files.push(("ownership.md".into(), chapter("Ownership")));
    let named: Vec<(&str, String)> = files.iter().map(|(name, text)| (name.as_str(), text.clone())).collect();
    let mut added = parse(&named);
    let notes = drop_repeating_pages(&mut added, &[]);
    assert_eq!(sources(&added), ["old/traits.md", "ownership.md"], "{notes:?}");
    assert_eq!(notes.len(), 5);
    assert_eq!(notes[0].1, "holds only text that 6 documents repeat (a stub or a navigation page): not indexed");
}
