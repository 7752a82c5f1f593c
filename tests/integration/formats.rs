//! Every input format, including empty, binary, malformed and oversized files: clear errors naming the
//! file, never a panic, and one bad file never loses the others.

use crate::common;

use std::sync::atomic::{AtomicUsize, Ordering};

use proptest::prelude::*;
use proptest::test_runner::TestRunner;
use quire::corpus::{self, CorpusSettings, Format, IngestFailure, SourceFile, document::BlockKind};

fn parse_one(path: &str, bytes: &[u8]) -> Result<corpus::ParsedFile, corpus::IngestError> {
    corpus::parse_file(&SourceFile::new(path, bytes.to_vec()), &CorpusSettings::default())
}

fn only_document(path: &str, text: &str) -> corpus::Document {
    let mut parsed = parse_one(path, text.as_bytes()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(parsed.documents.len(), 1);
    parsed.documents.remove(0)
}

fn blocks(doc: &corpus::Document) -> Vec<(BlockKind, &str)> {
    doc.blocks.iter().map(|b| (b.kind, doc.slice(b.span))).collect()
}

#[test]
fn demo_corpus_parses_in_every_format() {
    let report = corpus::ingest(&common::demo_files(), &CorpusSettings::default());
    assert!(report.errors.is_empty(), "{:?}", report.errors);
    let titles: Vec<(&str, Format)> = report.documents.iter().map(|d| (d.title.as_str(), d.format)).collect();
    assert_eq!(
        titles,
        vec![
            ("Moon", Format::Markdown),
            ("Earth", Format::Markdown),
            ("Apollo 11", Format::Markdown),
            ("Jupiter", Format::Html),
            ("The Sun", Format::Text),
            ("planets", Format::Csv),
        ]
    );
}

#[test]
fn tsv_rows_are_read_under_their_header() {
    let doc = only_document("data/moons.tsv", "moon\tplanet\nTitan\tSaturn\nIo\tJupiter\n");
    assert_eq!(doc.title, "moons");
    assert_eq!(
        blocks(&doc),
        vec![
            (BlockKind::Heading { level: 1 }, "moons.tsv"),
            (BlockKind::TableHeader, "moon; planet"),
            (BlockKind::TableRow, "Titan; Saturn"),
            (BlockKind::TableRow, "Io; Jupiter")
        ]
    );
}

#[test]
fn jsonl_records_become_documents_and_bad_lines_become_warnings() {
    let text = "{\"_id\": \"d1\", \"title\": \"Vega\", \"text\": \"Vega is a bright star.\"}\nnot json\n{\"_id\": 7, \"text\": \"Untitled record text.\"}\n{\"title\": \"no id\", \"text\": \"x\"}\n\n";
    let parsed = parse_one("beir/corpus.jsonl", text.as_bytes()).unwrap();
    let docs: Vec<(&str, &str)> = parsed.documents.iter().map(|d| (d.source.as_str(), d.title.as_str())).collect();
    assert_eq!(docs, vec![("beir/corpus.jsonl#d1", "Vega"), ("beir/corpus.jsonl#7", "7")]);
    assert_eq!(parsed.warnings.len(), 2, "{:?}", parsed.warnings);
    assert!(parsed.warnings[0].starts_with("line 2:"), "{:?}", parsed.warnings);
    assert!(parsed.warnings[1].starts_with("line 4:"), "{:?}", parsed.warnings);
    let failure = parse_one("bad.jsonl", b"{\"x\": 1}\nnope\n").unwrap_err();
    assert!(
        matches!(failure.failure, IngestFailure::Malformed(ref m) if m.starts_with("no valid JSONL record (line 1:")),
        "{failure}"
    );
}

/// A two-page PDF with real text content, written with lopdf.
fn two_page_pdf() -> Vec<u8> {
    pdf_with_outline(|_, _| None)
}

/// [`two_page_pdf`] with the outline `outline` adds, given the document and its two pages.
fn pdf_with_outline(
    outline: impl FnOnce(&mut lopdf::Document, &[lopdf::ObjectId]) -> Option<lopdf::ObjectId>,
) -> Vec<u8> {
    use lopdf::content::{Content, Operation};
    use lopdf::{Document, Object, Stream, dictionary};
    let mut doc = Document::with_version("1.5");
    let pages_id = doc.new_object_id();
    let font_id = doc.add_object(dictionary! { "Type" => "Font", "Subtype" => "Type1", "BaseFont" => "Helvetica" });
    let resources_id = doc.add_object(dictionary! { "Font" => dictionary! { "F1" => font_id } });
    let mut kids = Vec::new();
    for line in
        ["Comets are icy bodies that release gas near the Sun.", "Asteroids are rocky remnants of planet formation."]
    {
        let content = Content {
            operations: vec![
                Operation::new("BT", vec![]),
                Operation::new("Tf", vec!["F1".into(), 12.into()]),
                Operation::new("Td", vec![72.into(), 700.into()]),
                Operation::new("Tj", vec![Object::string_literal(line)]),
                Operation::new("ET", vec![]),
            ],
        };
        let content_id = doc.add_object(Stream::new(dictionary! {}, content.encode().unwrap()));
        let page_id = doc.add_object(dictionary! { "Type" => "Page", "Parent" => pages_id, "Contents" => content_id });
        kids.push(page_id);
    }
    let outlines = outline(&mut doc, &kids);
    let kids: Vec<Object> = kids.into_iter().map(Object::from).collect();
    let pages = dictionary! {
        "Type" => "Pages", "Kids" => kids, "Count" => 2, "Resources" => resources_id,
        "MediaBox" => vec![0.into(), 0.into(), 595.into(), 842.into()],
    };
    doc.objects.insert(pages_id, Object::Dictionary(pages));
    let mut catalog = dictionary! { "Type" => "Catalog", "Pages" => pages_id };
    if let Some(outlines) = outlines {
        catalog.set("Outlines", outlines);
    }
    let catalog_id = doc.add_object(catalog);
    doc.trailer.set("Root", catalog_id);
    let mut bytes = Vec::new();
    doc.save_to(&mut bytes).unwrap();
    bytes
}

/// Two outline items, one per page; `tamper` may then rewire them (given the outline root and the items).
fn pdf_with_two_bookmarks(tamper: fn(&mut lopdf::Document, lopdf::ObjectId, [lopdf::ObjectId; 2])) -> Vec<u8> {
    use lopdf::{Object, dictionary};
    pdf_with_outline(|doc, pages| {
        let root = doc.new_object_id();
        let (comets, asteroids) = (doc.new_object_id(), doc.new_object_id());
        let item = |title: &str, page: lopdf::ObjectId| {
            dictionary! { "Title" => Object::string_literal(title), "Parent" => root,
            "Dest" => vec![page.into(), "Fit".into()] }
        };
        let mut first = item("Comets", pages[0]);
        first.set("Next", asteroids);
        doc.objects.insert(comets, Object::Dictionary(first));
        doc.objects.insert(asteroids, Object::Dictionary(item("Asteroids", pages[1])));
        let outlines = dictionary! { "Type" => "Outlines", "First" => comets, "Last" => asteroids, "Count" => 2 };
        doc.objects.insert(root, Object::Dictionary(outlines));
        tamper(doc, root, [comets, asteroids]);
        Some(root)
    })
}

#[test]
fn a_pdf_outline_is_read_in_order_and_one_that_refers_to_itself_ends() {
    use quire::corpus::pdf::outline;
    let plain = pdf_with_two_bookmarks(|_, _, _| {});
    assert_eq!(outline(&plain), [(1, "Comets".to_string()), (1, "Asteroids".to_string())]);
    // Each item its own first child, and the second's next the first: lopdf's walk recursed until the
    // stack overflowed, which aborts the whole run (a stack overflow cannot be caught).
    let looping = pdf_with_two_bookmarks(|doc, _, items| {
        for (item, next) in [(items[0], items[0]), (items[1], items[0])] {
            let dictionary = doc.get_object_mut(item).unwrap().as_dict_mut().unwrap();
            dictionary.set("First", item);
            dictionary.set("Next", next);
        }
    });
    assert_eq!(outline(&looping), [(1, "Comets".to_string())]);
    let parsed = parse_one("loop.pdf", &looping).unwrap().documents.remove(0);
    assert!(parsed.text.contains("Comets are icy bodies"), "{}", parsed.text);
}

/// pdf-extract panics on this file (a font with an encoding it does not know) instead of returning an error.
/// The browser test adds the same file to show that the app survives it (tests/browser/app.test.mjs).
const PANICKING_PDF: &str = "tests/fixtures/pdf-extract-panics.pdf";

#[test]
fn a_pdf_that_panics_the_extractor_is_an_error_for_that_file_alone() {
    let bytes = std::fs::read(PANICKING_PDF).unwrap();
    let files = vec![SourceFile::new("report.pdf", bytes), SourceFile::new("notes.md", "# Notes\n\nStill here.")];
    let report = corpus::ingest(&files, &CorpusSettings::default());
    let errors: Vec<String> = report.errors.iter().map(ToString::to_string).collect();
    // The caught panic's wording, not the library's error: the file really does panic the extractor.
    assert_eq!(errors, vec!["report.pdf: unreadable PDF: the file is malformed"]);
    assert_eq!(report.documents.len(), 1);
}

#[test]
fn pdf_text_keeps_page_numbers() {
    let doc = parse_one("papers/small_bodies.pdf", &two_page_pdf()).unwrap().documents.remove(0);
    assert_eq!(doc.title, "small bodies");
    let pages: Vec<(Option<u32>, &str)> = doc.blocks.iter().map(|b| (b.page, doc.slice(b.span))).collect();
    assert_eq!(
        pages,
        vec![
            (Some(1), "Comets are icy bodies that release gas near the Sun."),
            (Some(2), "Asteroids are rocky remnants of planet formation.")
        ]
    );
}

#[test]
fn bad_files_fail_clearly_and_alone() {
    let settings = CorpusSettings { max_file_bytes: 1000, ..CorpusSettings::default() };
    let files = vec![
        SourceFile::new("good.md", "# Good\n\nFine text."),
        SourceFile::new("empty.md", ""),
        SourceFile::new("image.md", vec![0x89, b'P', b'N', b'G', 0, 0, 1, 2]),
        SourceFile::new("latin1.txt", vec![b'c', b'a', b'f', 0xe9]),
        SourceFile::new("huge.txt", "word ".repeat(300)),
        SourceFile::new("archive.zip", vec![b'P', b'K', 3, 4]),
        SourceFile::new("scan.pdf", b"%PDF-1.4\n%broken\n".to_vec()),
        SourceFile::new("blank.html", "<html><body><script>x()</script></body></html>"),
        SourceFile::new("headers-only.csv", ",,\n"),
        SourceFile::new("also-good.txt", "Another fine paragraph."),
    ];
    let report = corpus::ingest(&files, &settings);
    let good: Vec<&str> = report.documents.iter().map(|d| d.source.as_str()).collect();
    assert_eq!(good, vec!["good.md", "latin1.txt", "also-good.txt"]);
    // Not UTF-8 is not an error: the text is decoded in the encoding it most likely has, and the report says so.
    assert_eq!(report.documents[1].text, "café");
    assert!(
        report.warnings.contains(&("latin1.txt".into(), "not UTF-8: read as windows-1252 (detected)".into())),
        "{:?}",
        report.warnings
    );
    let errors: Vec<String> = report.errors.iter().map(ToString::to_string).collect();
    // The PDF library's own wording follows the prefix; everything else is ours and exact.
    let expected = [
        ("empty.md: the file is empty", true),
        ("image.md: binary content where Markdown text was expected", true),
        ("huge.txt: the file is 1500 bytes, above the limit of 1000 bytes", true),
        (
            "archive.zip: unsupported file type `zip` (supported: md, markdown, txt, html, htm, csv, tsv, pdf, jsonl, docx, odt, epub)",
            true,
        ),
        ("scan.pdf: unreadable PDF: ", false),
        ("blank.html: no text could be extracted", true),
        ("headers-only.csv: the header row is empty", true),
    ];
    assert_eq!(errors.len(), expected.len(), "{errors:#?}");
    for (actual, (wanted, exact)) in errors.iter().zip(expected) {
        assert!(if exact { actual == wanted } else { actual.starts_with(wanted) }, "{actual:?} vs {wanted:?}");
    }
}

#[test]
fn a_large_document_is_parsed_and_chunked_within_limits() {
    let section = "## Part\n\n".to_string() + &"A sentence about orbits and moons that repeats. ".repeat(200) + "\n\n";
    let text = format!("# Big\n\n{}", section.repeat(60));
    assert!(text.len() > 500_000);
    let doc = only_document("big.md", &text);
    let corpus = quire::corpus::Corpus::build(vec![doc], common::embedder(), &CorpusSettings::default());
    assert_eq!(corpus.sections.len(), 60);
    for (id, chunk) in corpus.chunks.iter().enumerate() {
        let tokens = quire::corpus::TokenCounter::count_tokens(common::embedder(), corpus.chunk_text(id as u32));
        assert!(tokens + 2 <= 256, "chunk {id} has {tokens} word-pieces");
        assert_eq!(tokens as u32, chunk.tokens);
        // The context line the chunk is embedded behind fits in the same budget: nothing is cut.
        let search_text = corpus.chunk_search_text(id as u32);
        assert!(search_text.starts_with("Big > Part"), "{search_text:.40}");
        let searched = quire::corpus::TokenCounter::count_tokens(common::embedder(), &search_text);
        assert!(searched + 2 <= 256, "chunk {id} is searched as {searched} word-pieces");
    }
}

#[test]
fn titles_and_headings_are_searchable_but_not_displayed() {
    let doc = only_document("moon.md", "# Moon\n\n## Landings\n\nApollo 11 landed in 1969.\n");
    let corpus = quire::corpus::Corpus::build(vec![doc], common::embedder(), &CorpusSettings::default());
    assert_eq!(corpus.chunk_text(0), "Apollo 11 landed in 1969.");
    assert_eq!(corpus.chunk_search_text(0), "Moon > Landings\nApollo 11 landed in 1969.");
    let records = "{\"_id\": \"7\", \"title\": \"\", \"text\": \"Untitled record text.\"}\n\
                   {\"_id\": \"8\", \"title\": \"Tides\", \"text\": \"The Moon raises tides.\"}\n";
    let report = corpus::ingest(&[corpus::SourceFile::new("c.jsonl", records)], &CorpusSettings::default());
    let corpus = quire::corpus::Corpus::build(report.documents, common::embedder(), &CorpusSettings::default());
    // A record id says nothing about the content and stays out; a real title goes in.
    assert_eq!(corpus.chunk_search_text(0), "Untitled record text.");
    assert_eq!(corpus.chunk_search_text(1), "Tides\nThe Moon raises tides.");
}

/// Invariants every parsed document keeps, whatever the input.
fn check_document(doc: &corpus::Document) {
    for block in &doc.blocks {
        assert!(block.span.end as usize <= doc.text.len());
        assert!(
            doc.text.is_char_boundary(block.span.start as usize) && doc.text.is_char_boundary(block.span.end as usize)
        );
        assert!(!block.span.is_empty());
    }
    for link in &doc.links {
        assert!(link.span.end as usize <= doc.text.len() && doc.text.is_char_boundary(link.span.start as usize));
    }
}

const EXTENSIONS: &[&str] = &["md", "html", "txt", "csv", "tsv", "jsonl", "docx", "odt", "epub", "pdf"];

/// Whether every ASCII letter and digit of `text` is a byte of one of `sources`: parsers lay out what they
/// read and add no words of their own. (Bytes, not strings: the text may have been decoded from another
/// encoding, which keeps ASCII as it is; a table's heading is its file name.)
fn letters_drawn_from(text: &str, sources: &[&[u8]]) -> bool {
    text.bytes().filter(u8::is_ascii_alphanumeric).all(|letter| sources.iter().any(|source| source.contains(&letter)))
}

/// Whether `failure` is a reason a file of `extension` may be refused for: an empty file's, no text, a
/// text format's binary content, or the parser's own words, never the note of a caught panic (only the PDF
/// library is known to panic).
fn refusal_fits(extension: &str, failure: &IngestFailure, empty: bool) -> bool {
    let text_format = match extension {
        "md" => "Markdown",
        "html" => "HTML",
        "csv" | "tsv" => "CSV",
        "jsonl" => "JSONL",
        "txt" => "plain",
        _ => "",
    };
    match failure {
        IngestFailure::Empty => empty,
        IngestFailure::NoText => !empty,
        IngestFailure::Binary { format } => !text_format.is_empty() && format == text_format,
        IngestFailure::Malformed(reason) if extension == "pdf" => !reason.is_empty(),
        IngestFailure::Malformed(reason) => {
            let kind = extension.to_ascii_uppercase();
            let own = match extension {
                "docx" | "odt" | "epub" => reason.starts_with(&format!("not a valid {kind} file")),
                "csv" | "tsv" | "jsonl" | "html" => !reason.is_empty(),
                _ => false,
            };
            own && !reason.ends_with("the file is malformed")
        }
        IngestFailure::Redirect { .. } => extension == "html",
        IngestFailure::TooLarge { .. } | IngestFailure::Unsupported { .. } | IngestFailure::Unreadable(_) => false,
    }
}

/// Bytes read as the file `path`: documents whose text comes from them, or a refusal naming the file and
/// a reason its format gives. Whether they were read.
fn read_or_refused(path: &str, bytes: &[u8]) -> Result<bool, TestCaseError> {
    let extension = path.rsplit_once('.').map_or("", |(_, extension)| extension);
    match parse_one(path, bytes) {
        Ok(parsed) => {
            for doc in &parsed.documents {
                check_document(doc);
                prop_assert!(
                    letters_drawn_from(&doc.text, &[bytes, path.as_bytes()]),
                    "{:?} from {:?}",
                    doc.text,
                    bytes
                );
            }
            Ok(true)
        }
        Err(error) => {
            prop_assert_eq!(&error.file, path);
            prop_assert!(error.to_string().starts_with(&format!("{path}: ")), "{}", error);
            prop_assert!(refusal_fits(extension, &error.failure, bytes.is_empty()), "{}", error);
            Ok(false)
        }
    }
}

/// Any bytes are read as documents whose text comes from them, or refused naming the file and a reason its
/// format gives; never a panic, caught or not (only the PDF library is known to panic).
#[test]
fn arbitrary_bytes_never_panic() {
    let strategy = (proptest::collection::vec(any::<u8>(), 0..2048), proptest::sample::select(EXTENSIONS));
    let [refused, read]: [AtomicUsize; 2] = Default::default();
    let config = ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() };
    let result = TestRunner::new(config).run(&strategy, |(bytes, extension)| {
        let counted = if read_or_refused(&format!("f.{extension}"), &bytes)? { &read } else { &refused };
        counted.fetch_add(1, Ordering::Relaxed);
        Ok(())
    });
    if let Err(failure) = result {
        panic!("{failure}");
    }
    let [refused, read] = [refused, read].map(AtomicUsize::into_inner);
    eprintln!("arbitrary bytes: {read} read, {refused} refused");
    // Short inputs without a zero byte are text to the text formats; otherwise no text was ever checked.
    assert!(read > 0 && refused > 0, "{read} read, {refused} refused");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn markup_like_text_parses_into_consistent_structure(
        text in "(# |## |### |- |\\| a \\| b \\||\\[\\[[A-Za-z ]{0,8}(\\|[a-z]{0,4})?\\]\\]|\\[[a-z ]{0,6}\\]\\([a-z./#]{0,10}\\)|<p>|</p>|<h2>|<a href='x.html'>|</a>|<table class='infobox'><tr><th>k</th><td>|---\n|title: [A-Z][a-z]{0,5}\n|[A-Za-z,.;:!?'\"]{1,12}| |\n|\n\n|é|東){0,60}",
        ext in 0..EXTENSIONS.len() - 1,
    ) {
        if let Ok(parsed) = parse_one(&format!("f.{}", EXTENSIONS[ext]), text.as_bytes()) {
            parsed.documents.iter().for_each(check_document);
            let corpus = quire::corpus::Corpus::build(parsed.documents, common::embedder(), &CorpusSettings::default());
            for chunk in &corpus.chunks {
                let doc = &corpus.documents[chunk.document as usize];
                prop_assert!(chunk.span.end as usize <= doc.text.len());
                let recounted = quire::corpus::TokenCounter::count_tokens(common::embedder(), doc.slice(chunk.span));
                prop_assert_eq!(recounted, chunk.tokens as usize);
                prop_assert!(recounted + 2 <= 256);
                // Only a run of tiny sections joins across headings: whole headings, inside a chunk of the
                // normal size.
                let mut headings = doc.blocks.iter().filter(|b| chunk.span.overlaps(b.span) && matches!(b.kind, BlockKind::Heading { .. }));
                let target = CorpusSettings::default().chunk_target_tokens;
                prop_assert!(headings.all(|b| chunk.span.contains(b.span) && b.span.start > chunk.span.start && recounted <= target), "a chunk cut a heading");
            }
            for mention in &corpus.mentions {
                prop_assert!(corpus.chunks[mention.chunk as usize].span.contains(mention.span));
            }
        }
    }
}

/// Markdown and HTML fragments, raw HTML inside Markdown included, that exercise every event the two
/// parsers handle.
const MARKUP: &str = "(# |- |\\| a \\| b \\||\\|---\\|---\\|\n|\\[\\^1\\]|\\[\\^1\\]: |!\\[[a-z ]{0,6}\\]\\([a-z.]{0,6}\\)|\\[[a-z ]{0,6}\\]\\([a-z./#]{0,10}\\)|\\[\\[[A-Za-z]{0,6}\\]\\]|<div>|</div>|<p>|</p>|<b>|</b>|<br>|<hr>|<pre>|</pre>|<h2>|</h2>|<a href='x.html'>|</a>|<script>|</script>|<style>|<!-- |-->|<table class='infobox'>|<tr>|<th>|<td>|</td>|</table>|<li>|```\n|    |> |[A-Za-z,.;:!?'\"]{1,12}| |\n|\n\n|é|東|\u{0}|\t){0,80}";

/// Spans inside the text on char boundaries, blocks non-empty, links inside their blocks.
fn check_spans(doc: &corpus::Document) -> Result<(), TestCaseError> {
    let on_boundaries = |span: quire::corpus::document::Span| {
        span.start <= span.end
            && (span.end as usize) <= doc.text.len()
            && doc.text.is_char_boundary(span.start as usize)
            && doc.text.is_char_boundary(span.end as usize)
    };
    for block in &doc.blocks {
        prop_assert!(on_boundaries(block.span) && !block.span.is_empty(), "block {:?} in {:?}", block, doc.text);
    }
    for link in &doc.links {
        prop_assert!(on_boundaries(link.span) && !link.span.is_empty(), "link {:?} in {:?}", link, doc.text);
        prop_assert!(doc.blocks.iter().any(|b| b.span.contains(link.span)), "link {:?} outside blocks", link);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn markdown_and_html_parsers_keep_spans_on_arbitrary_text(
        text in prop_oneof![any::<String>(), MARKUP],
        html in any::<bool>(),
    ) {
        let path = if html { "f.html" } else { "f.md" };
        if let Ok(parsed) = parse_one(path, text.as_bytes()) {
            for doc in &parsed.documents {
                check_spans(doc)?;
            }
        }
    }
}

#[test]
fn deeply_nested_markup_parses_on_a_small_stack() {
    // The browser build runs on a 1 MiB stack. 100,000 nested elements, mostly inline ones: html5ever is
    // quadratic in nested `<div>`s.
    let nested = "<div>".repeat(1_000) + &"<span><em>".repeat(49_500) + "Deep <a href='bottom.html'>text</a>";
    let parsed = std::thread::Builder::new()
        .stack_size(1 << 20)
        .spawn(move || [only_document("deep.html", &nested), only_document("deep.md", &nested)])
        .expect("thread spawns")
        .join()
        .expect("parsing does not overflow the stack");
    for doc in &parsed {
        assert_eq!(doc.text, "Deep text", "{}", doc.source);
        let links: Vec<(&str, &str)> = doc.links.iter().map(|l| (l.target.as_str(), doc.slice(l.span))).collect();
        assert_eq!(links, vec![("bottom.html", "text")], "{}", doc.source);
    }
}

#[test]
fn identical_files_under_two_paths_are_indexed_once_and_reported() {
    let notes = "# Moon\n\nThe Moon is Earth's only natural satellite.\n";
    let files = vec![
        SourceFile::new("notes/moon.md", notes),
        SourceFile::new("backup/moon-copy.md", notes),
        SourceFile::new("sun.md", "# Sun\n\nThe Sun is a star.\n"),
    ];
    let report = corpus::ingest(&files, &CorpusSettings::default());
    let sources: Vec<&str> = report.documents.iter().map(|d| d.source.as_str()).collect();
    assert_eq!(sources, vec!["notes/moon.md", "sun.md"]);
    assert_eq!(
        report.warnings,
        vec![(
            "backup/moon-copy.md".to_string(),
            "the same content as notes/moon.md: indexed once, as notes/moon.md".to_string()
        )]
    );
}

#[test]
fn a_page_without_a_title_or_h1_is_named_by_its_first_top_level_heading() {
    let html = "<html><body><h2>Installing the widget</h2><p>Unpack it.</p><h3>On Debian</h3><p>Use apt.</p>\
        <h2>Removing it</h2><p>Delete it.</p></body></html>";
    assert_eq!(only_document("docs/page-7.html", html).title, "Installing the widget");
    let markdown = "Some lead text.\n\n## Getting started\n\nRun it.\n";
    assert_eq!(only_document("README.md", markdown).title, "Getting started");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    #[test]
    fn text_saved_as_utf16_reads_back_as_written(
        words in "[A-Za-z0-9éèüßøÆ]{1,12}( [A-Za-z0-9éèüßøÆ]{1,12}){1,30}",
        big_endian in any::<bool>(),
        bom in any::<bool>(),
    ) {
        let units = words.encode_utf16();
        let mut bytes: Vec<u8> = if big_endian {
            units.flat_map(u16::to_be_bytes).collect()
        } else {
            units.flat_map(u16::to_le_bytes).collect()
        };
        if bom {
            bytes.splice(0..0, if big_endian { [0xFE, 0xFF] } else { [0xFF, 0xFE] });
        }
        let parsed = parse_one("notes.txt", &bytes).unwrap();
        prop_assert_eq!(&parsed.documents[0].text, &words);
        prop_assert!(parsed.warnings[0].contains("UTF-16"), "{:?}", parsed.warnings);
    }
}

/// A zip holding `parts` (name, text), stored uncompressed.
fn zipped(parts: &[(&str, &str)]) -> Vec<u8> {
    use std::io::Write;
    let mut archive = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let stored = zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    for (name, text) in parts {
        archive.start_file(*name, stored).unwrap();
        archive.write_all(text.as_bytes()).unwrap();
    }
    archive.finish().unwrap().into_inner()
}

const W: &str = "xmlns:w='http://schemas.openxmlformats.org/wordprocessingml/2006/main' \
    xmlns:r='http://schemas.openxmlformats.org/officeDocument/2006/relationships'";
const ODF: &str = "xmlns:office='urn:oasis:names:tc:opendocument:xmlns:office:1.0' \
    xmlns:text='urn:oasis:names:tc:opendocument:xmlns:text:1.0' \
    xmlns:table='urn:oasis:names:tc:opendocument:xmlns:table:1.0' xmlns:xlink='http://www.w3.org/1999/xlink'";

/// Whether `text`, its whitespace left out, is drawn in order from `source`: a parser drops markup and
/// lays out what is left, adding nothing (an entity such as `&amp;` becomes its first character).
fn drawn_in_order(text: &str, source: &str) -> bool {
    let mut source = source.chars().filter(|c| !c.is_whitespace());
    text.chars().filter(|c| !c.is_whitespace()).all(|c| source.any(|s| s == c))
}

/// Word, OpenDocument and EPUB containers around `body`, which may be anything.
fn office_files(body: &str) -> Vec<(&'static str, Vec<u8>)> {
    let docx = format!("<w:document {W}><w:body>{body}</w:body></w:document>");
    let odt = format!(
        "<office:document-content {ODF}><office:body><office:text>{body}</office:text></office:body></office:document-content>"
    );
    let container = "<container xmlns='urn:oasis:names:tc:opendocument:xmlns:container'><rootfiles>\
        <rootfile full-path='OEBPS/book.opf'/></rootfiles></container>";
    let opf = "<package xmlns='http://www.idpf.org/2007/opf'><manifest><item id='c' href='c.xhtml'/></manifest>\
        <spine><itemref idref='c'/></spine></package>";
    let chapter = format!("<html><body>{body}</body></html>");
    vec![
        ("f.docx", zipped(&[("word/document.xml", &docx)])),
        ("f.odt", zipped(&[("content.xml", &odt)])),
        (
            "f.epub",
            zipped(&[("META-INF/container.xml", container), ("OEBPS/book.opf", opf), ("OEBPS/c.xhtml", &chapter)]),
        ),
    ]
}

/// Any token of the three formats, opened, closed or stray: mostly XML errors.
const TOKEN_SOUP: &str = "(<w:p>|</w:p>|<w:r>|</w:r>|<w:t>|</w:t>|<w:tbl><w:tr><w:tc>|</w:tc></w:tr></w:tbl>|<w:hyperlink r:id='x'>|</w:hyperlink>|<w:pPr><w:outlineLvl w:val='[0-9]{1,3}'/></w:pPr>|<text:h text:outline-level='-?[0-9]{1,4}'>|</text:h>|<text:p>|</text:p>|<text:list><text:list-item>|</text:list-item></text:list>|<text:a xlink:href='y'>|</text:a>|<text:s/>|<table:table><table:table-row><table:table-cell>|</table:table-cell></table:table-row></table:table>|<h1>|</h1>|<p>|</p>|&amp;|&bogus;|<|>|[A-Za-z ]{1,10}|é){0,40}";

/// Word's elements (and HTML's `h1`, to its XML an element of no namespace), each with what closes it,
/// and what stands alone among them: a paragraph of text.
const WORD_ELEMENTS: (&[(&str, &str)], &str) = (
    &[
        ("<w:p>", "</w:p>"),
        ("<w:r>", "</w:r>"),
        ("<w:t>", "</w:t>"),
        ("<w:tbl><w:tr><w:tc>", "</w:tc></w:tr></w:tbl>"),
        ("<w:hyperlink r:id='x'>", "</w:hyperlink>"),
        ("<h1>", "</h1>"),
    ],
    "<w:p><w:r><w:t>[A-Za-z ]{1,10}</w:t></w:r></w:p>",
);
/// OpenDocument's elements (and HTML's `p`), each with what closes it, and what stands alone: a space.
const ODF_ELEMENTS: (&[(&str, &str)], &str) = (
    &[
        ("<text:h text:outline-level='2'>", "</text:h>"),
        ("<text:p>", "</text:p>"),
        ("<text:list><text:list-item>", "</text:list-item></text:list>"),
        ("<text:a xlink:href='y'>", "</text:a>"),
        ("<table:table><table:table-row><table:table-cell>", "</table:table-cell></table:table-row></table:table>"),
        ("<p>", "</p>"),
    ],
    "<text:s/>",
);

/// Elements of one format nested at random around text: well-formed, so that its parser walks them rather
/// than stopping at an XML error.
fn well_formed(
    (elements, alone): (&'static [(&'static str, &'static str)], &'static str),
) -> impl Strategy<Value = String> {
    let leaf = prop_oneof!["[A-Za-z ]{1,10}", Just("é".to_string()), Just("&amp;".to_string()), alone];
    let tree = leaf.prop_recursive(4, 40, 4, move |inner| {
        (proptest::sample::select(elements), proptest::collection::vec(inner, 0..4))
            .prop_map(|((open, close), children)| format!("{open}{}{close}", children.concat()))
    });
    // What stands alone at the top too: Word reads only the body's own paragraphs (and its tables').
    proptest::collection::vec(prop_oneof![alone, tree], 0..6).prop_map(|trees| trees.concat())
}

/// `bytes`, the container `name` around `body`: a consistent document laying out `body`'s text, or an
/// error naming `part`, the container's part at fault. Whether it was read.
fn read_or_named(name: &str, bytes: &[u8], part: &str, body: &str) -> Result<bool, TestCaseError> {
    match parse_one(name, bytes) {
        Ok(parsed) => {
            for doc in &parsed.documents {
                check_document(doc);
                prop_assert!(drawn_in_order(&doc.text, body), "{}: {:?} from {:?}", name, doc.text, body);
            }
            Ok(true)
        }
        Err(error) => {
            // A caught panic reads "unreadable DOCX: the file is malformed", which names no part.
            let named = matches!(&error.failure, IngestFailure::Malformed(reason) if reason.contains(part));
            prop_assert!(named || error.failure == IngestFailure::NoText, "{}", error);
            prop_assert_eq!(error.file, name);
            Ok(false)
        }
    }
}

/// Any content inside a well-formed container: a consistent document laying out that content, or an
/// error naming the part at fault; never a panic, caught or not.
#[test]
fn office_and_epub_parsers_never_panic_on_any_content() {
    let body = prop_oneof![TOKEN_SOUP, well_formed(WORD_ELEMENTS), well_formed(ODF_ELEMENTS)];
    let read: [AtomicUsize; 3] = Default::default();
    let config = ProptestConfig { cases: 128, failure_persistence: None, ..ProptestConfig::default() };
    let result = TestRunner::new(config).run(&body, |body| {
        let parts = ["word/document.xml", "content.xml", "c.xhtml"];
        for (((name, bytes), part), read) in office_files(&body).into_iter().zip(parts).zip(&read) {
            if read_or_named(name, &bytes, part, &body)? {
                read.fetch_add(1, Ordering::Relaxed);
            }
        }
        Ok(())
    });
    if let Err(failure) = result {
        panic!("{failure}");
    }
    let [docx, odt, epub] = read.map(AtomicUsize::into_inner);
    eprintln!("read of 128: {docx} DOCX, {odt} ODT, {epub} EPUB");
    // Otherwise a parser's layout of what it read went unchecked.
    assert!(docx > 0 && odt > 0 && epub > 0, "read of 128: {docx} DOCX, {odt} ODT, {epub} EPUB");
}

#[test]
fn office_documents_with_parts_missing_are_named_errors() {
    let empty = zipped(&[("mimetype", "application/zip")]);
    let errors: Vec<String> = ["notes.docx", "notes.odt", "book.epub"]
        .iter()
        .map(|name| {
            corpus::ingest(&[SourceFile::new(*name, empty.clone())], &CorpusSettings::default()).errors[0].to_string()
        })
        .collect();
    assert_eq!(
        errors,
        [
            "notes.docx: not a valid DOCX file: word/document.xml is missing",
            "notes.odt: not a valid ODT file: content.xml is missing",
            "book.epub: not a valid EPUB file: META-INF/container.xml is missing",
        ]
    );
    let body = "<w:p><w:r><w:t>Hello from Word.</w:t></w:r></w:p>";
    let docx = &office_files(body)[0].1;
    assert_eq!(parse_one("hello.docx", docx).unwrap().documents[0].text, "Hello from Word.");
}

#[test]
fn a_document_already_indexed_under_another_name_is_not_indexed_again() {
    let settings = CorpusSettings::default();
    let moon = "# Moon\n\nThe Moon is Earth's only natural satellite.\n";
    let indexed = corpus::ingest(&[SourceFile::new("notes/moon.md", moon)], &settings).documents;
    let mut update = corpus::ingest(
        &[SourceFile::new("copy/moon.md", moon), SourceFile::new("sun.md", "# Sun\n\nA star.\n")],
        &settings,
    );
    let dropped = update.drop_indexed_duplicates(&indexed, &[]);
    let note = "the same content as notes/moon.md: indexed once, as notes/moon.md".to_string();
    assert_eq!(dropped, vec![("copy/moon.md".to_string(), note)]);
    assert_eq!(update.documents.iter().map(|d| d.source.as_str()).collect::<Vec<_>>(), ["sun.md"]);
    // Re-adding a document under its own name replaces it; a copy whose original is being removed takes its place.
    let mut again = corpus::ingest(&[SourceFile::new("notes/moon.md", moon)], &settings);
    assert!(again.drop_indexed_duplicates(&indexed, &[]).is_empty());
    let mut moved = corpus::ingest(&[SourceFile::new("copy/moon.md", moon)], &settings);
    assert!(moved.drop_indexed_duplicates(&indexed, &["notes/moon.md".to_string()]).is_empty());
    assert_eq!(moved.documents.len(), 1);
    // A new version of an indexed document that now equals another is kept: dropping it would leave the old one.
    let both =
        [indexed.clone(), corpus::ingest(&[SourceFile::new("sun.md", "# Sun\n\nA star.\n")], &settings).documents]
            .concat();
    let mut rewritten = corpus::ingest(&[SourceFile::new("sun.md", moon)], &settings);
    assert!(rewritten.drop_indexed_duplicates(&both, &[]).is_empty());
    assert_eq!(rewritten.documents.len(), 1);
}

#[test]
fn deeply_nested_office_documents_parse_on_a_small_stack() {
    // 50,000 nested content controls (Word) and spans (OpenDocument): a few hundred kilobytes that must not
    // exhaust a 1 MiB stack. What lies deeper than any real document nests is skipped.
    let word = "<w:sdt><w:sdtContent>".repeat(50_000) + &"</w:sdtContent></w:sdt>".repeat(50_000);
    let word = format!("<w:p><w:r><w:t>Shallow text.</w:t></w:r></w:p>{word}");
    let spans = "<text:span>".repeat(50_000) + "deep" + &"</text:span>".repeat(50_000);
    let odt = format!("<text:p>Shallow text.</text:p><text:p>{spans}</text:p>");
    let files = [office_files(&word).swap_remove(0), office_files(&odt).swap_remove(1)];
    let parsed = std::thread::Builder::new()
        .stack_size(1 << 20)
        .spawn(move || files.map(|(name, bytes)| parse_one(name, &bytes).map(|p| p.documents[0].text.clone())))
        .expect("thread spawns")
        .join()
        .expect("parsing does not overflow the stack");
    assert_eq!(parsed[0].as_deref(), Ok("Shallow text."));
    assert_eq!(parsed[1].as_deref(), Ok("Shallow text."));
}
