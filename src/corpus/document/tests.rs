//! Unit tests of `document`, beside it so the module itself reads in one sitting.

use super::*;

#[test]
fn builder_collapses_whitespace_and_tracks_links() {
    let mut b = DocumentBuilder::new();
    b.heading(2, "  Early   life ");
    b.start_block(BlockKind::Paragraph);
    b.push_text("Born in\n ");
    b.start_link("Ulm", LinkKind::Markdown);
    b.push_text(" Ulm ");
    b.end_link();
    b.push_text(", Germany.");
    b.end_block();
    b.start_block(BlockKind::Paragraph);
    b.push_text("   ");
    b.end_block();
    let doc = b.finish("a.md".into(), [0; 16], Format::Markdown, Metadata::default(), "a");
    assert_eq!(doc.text, "Early life\n\nBorn in Ulm , Germany.");
    assert_eq!(doc.blocks.len(), 2);
    assert_eq!(doc.slice(doc.links[0].span), "Ulm");
    // No title and no h1: the first top-level heading names the page before its file name does.
    assert_eq!(doc.title, "Early life");
}

#[test]
fn an_empty_block_drops_only_its_own_links() {
    let mut b = DocumentBuilder::new();
    b.start_block(BlockKind::Paragraph);
    b.start_link("a.md", LinkKind::Markdown);
    b.push_text("kept");
    b.end_link();
    b.end_block();
    for _ in 0..3 {
        b.start_block(BlockKind::Paragraph);
        b.start_link("b.md", LinkKind::Markdown);
        b.push_text("   ");
        b.end_link();
        b.end_block();
    }
    let doc = b.finish("a.md".into(), [0; 16], Format::Markdown, Metadata::default(), "a");
    assert_eq!(doc.links.iter().map(|l| l.target.as_str()).collect::<Vec<_>>(), vec!["a.md"]);
    assert_eq!(doc.slice(doc.links[0].span), "kept");
}

#[test]
fn a_blank_link_in_preformatted_text_records_nothing() {
    // `<pre>x<a href='y.html'> </a></pre>`: the anchor is a space that the block's trimming removes.
    let mut b = DocumentBuilder::new();
    b.start_block(BlockKind::Preformatted);
    b.push_text("x");
    b.start_link("y.html", LinkKind::Html);
    b.push_text(" ");
    b.end_link();
    let doc = b.finish("a.html".into(), [0; 16], Format::Html, Metadata::default(), "a");
    assert_eq!(doc.text, "x");
    assert!(doc.links.is_empty(), "{:?}", doc.links);
}

#[test]
fn preformatted_blocks_keep_layout_without_control_characters() {
    let mut b = DocumentBuilder::new();
    b.start_block(BlockKind::Preformatted);
    b.push_text("fn main() {\n\tbeep(\u{7});\r\n}");
    b.push_text("\u{1b}[0m // done");
    let doc = b.finish("a.md".into(), [0; 16], Format::Markdown, Metadata::default(), "a");
    assert_eq!(doc.text, "fn main() {\n\tbeep();\n}[0m // done");
}

#[test]
fn appending_to_a_preformatted_block_does_not_rescan_it() {
    // Each line arrives as its own fragment (as pulldown-cmark delivers code blocks). Rescanning the
    // block on every append made this quadratic: an hour for these 8 MB instead of milliseconds.
    let line = "let value = compute(input, 42); // a line of code\n";
    let mut b = DocumentBuilder::new();
    b.start_block(BlockKind::Preformatted);
    for _ in 0..160_000 {
        b.push_text(line);
    }
    let started = std::time::Instant::now();
    for _ in 0..1_000 {
        b.push_text(line);
    }
    let per_append = started.elapsed() / 1_000;
    let doc = b.finish("a.md".into(), [0; 16], Format::Markdown, Metadata::default(), "a");
    assert_eq!(doc.text.len(), 161_000 * line.len() - 1);
    // A scan of the 8 MB before it takes tens of milliseconds; an append takes well under a microsecond.
    // The bound sits a hundredfold away from both, so machine load cannot flip the outcome.
    assert!(per_append < std::time::Duration::from_millis(1), "{per_append:?} per append");
}

#[test]
fn file_names_become_titles() {
    assert_eq!(title_from_file_name("docs/solar_system-notes.md"), "solar system notes");
    assert_eq!(title_from_file_name(".hidden"), ".hidden");
    assert_eq!(title_from_file_name("C:\\x\\Apollo_11.html"), "Apollo 11");
    assert_eq!(soften_capitals("THE SUN"), "The Sun");
    assert_eq!(soften_capitals("NASA"), "NASA");
    assert_eq!(soften_capitals("Apollo 11"), "Apollo 11");
}

#[test]
fn a_megabyte_heading_is_a_bounded_title_and_section_name() {
    let heading = "word ".repeat(200_000);
    let body: Vec<String> = (0..300).map(|n| format!("Paragraph {n} says something of its own.")).collect();
    let text = format!("# {heading}\n\n{}\n", body.join("\n\n"));
    let settings = crate::corpus::CorpusSettings::default();
    let report = crate::corpus::ingest(&[crate::corpus::SourceFile::new("long.md", text.as_bytes())], &settings);
    let document = &report.documents[0];
    assert_eq!(document.title.chars().count(), MAX_NAME_CHARS, "cut at the last word within the bound, marked");
    assert!(document.title.ends_with("word…"), "{}", &document.title[document.title.len() - 20..]);
    let corpus =
        crate::corpus::Corpus::build(report.documents, &crate::corpus::chunking::tests::WordCounter, &settings);
    assert!(corpus.sections.iter().all(|s| s.title.chars().count() <= MAX_NAME_CHARS + 1));
    assert!(corpus.chunk_search_text(0).len() < 2_000, "the context line is bounded too");
    assert_eq!(bounded_name("Apollo 11"), "Apollo 11");
}

#[test]
fn link_targets_are_bounded_per_link_and_per_document() {
    let mut b = DocumentBuilder::new();
    let huge = format!("https://example.org/{}", "x".repeat(MAX_LINK_TARGET_BYTES));
    b.start_link(&huge, LinkKind::Html);
    b.push_text("kept as text");
    b.end_link();
    let long = format!("https://example.org/{}", "y".repeat(1000));
    for _ in 0..20_000 {
        b.start_link(&long, LinkKind::Html);
        b.push_text("a ");
        b.end_link();
    }
    let doc = b.finish("l.html".into(), [0; 16], Format::Html, Metadata::default(), "l");
    assert!(doc.text.starts_with("kept as text"));
    assert!(doc.links.iter().all(|link| link.target.len() <= MAX_LINK_TARGET_BYTES));
    let recorded: usize = doc.links.iter().map(|link| link.target.len()).sum();
    assert!(recorded <= MAX_LINK_BYTES && doc.links.len() > 1_000, "{} links, {recorded} bytes", doc.links.len());
}

#[test]
fn a_document_s_text_stops_at_its_budget_with_a_warning() {
    let mut b = DocumentBuilder::new();
    let paragraph = "tide ".repeat(200_000);
    for _ in 0..20 {
        b.paragraph(BlockKind::Paragraph, &paragraph);
    }
    assert!(b.cut_short_warning().is_none());
    b.paragraph(BlockKind::Paragraph, &"ebb ".repeat(MAX_TEXT_BYTES / 4));
    b.paragraph(BlockKind::Paragraph, "left out");
    let warning = b.cut_short_warning().expect("a warning");
    assert!(warning.contains("only the first 32 MiB"), "{warning}");
    let doc = b.finish("t.txt".into(), [0; 16], Format::Text, Metadata::default(), "t");
    assert!(doc.text.len() <= MAX_TEXT_BYTES && doc.text.len() > MAX_TEXT_BYTES - 16, "{}", doc.text.len());
    assert!(doc.text.ends_with("ebb") && doc.blocks.len() == 21, "the long paragraph is kept in part");
}
