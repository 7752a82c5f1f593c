//! Structure read from real documents nobody here wrote (Debian package documentation, fetched by
//! `scripts/fetch_real_documents.sh`; see tests/real-documents/README.md): each file's title and the first
//! levels of its section tree, as its own table of contents gives them.

use crate::common;

use std::path::PathBuf;

use quire::corpus::{self, Corpus, CorpusSettings, SourceFile, document::BlockKind};

fn folder() -> PathBuf {
    std::env::var_os("QUIRE_REAL_DOCUMENTS").map(PathBuf::from).unwrap_or_else(|| {
        PathBuf::from(std::env::var_os("HOME").expect("HOME is set")).join(".cache/quire/real-documents")
    })
}

fn read(name: &str) -> Vec<u8> {
    let path = folder().join(name);
    std::fs::read(&path).unwrap_or_else(|e| {
        panic!("{}: {e} (scripts/fetch_real_documents.sh fetches it; setup runs it)", path.display())
    })
}

/// The file as Quire indexes it: its title, and its sections (depth, title) down to `depth`.
fn structure(name: &str, depth: u8) -> (String, Vec<(u8, String)>) {
    let report = corpus::ingest(&[SourceFile::new(name, read(name))], &CorpusSettings::default());
    assert!(report.errors.is_empty(), "{:?}", report.errors);
    let corpus = Corpus::build(report.documents, common::embedder(), &CorpusSettings::default());
    let sections = corpus.sections.iter().filter(|s| s.depth <= depth).map(|s| (s.depth, s.title.clone())).collect();
    (corpus.documents[0].title.clone(), sections)
}

fn owned(sections: &[(u8, &str)]) -> Vec<(u8, String)> {
    sections.iter().map(|&(depth, title)| (depth, title.to_string())).collect()
}

#[test]
fn a_specification_pdf_gets_its_outline_as_sections_its_title_and_no_table_rows_as_headings() {
    let (title, sections) = structure("shared-mime-info-spec.pdf", 1);
    assert_eq!(title, "Shared MIME-info Database");
    assert_eq!(sections, owned(&[(1, "1. Introduction"), (1, "2. Unified system"), (1, "3. Contributors")]));
    let (_, all) = structure("shared-mime-info-spec.pdf", 6);
    let unified: Vec<&str> = all.iter().filter(|(d, _)| *d == 2).map(|(_, t)| t.as_str()).skip(3).take(4).collect();
    assert_eq!(
        unified,
        [
            "2.1. Directory layout",
            "2.2. The source XML files",
            "2.3. The MEDIA/SUBTYPE.xml files",
            "2.4. The glob files"
        ]
    );
    assert!(all.iter().any(|(d, t)| *d == 2 && t == "2.10. Storing the MIME type using Extended Attributes"));
    // The magic file's format table has rows like `4 CARD32 FIRST_MATCHLET_OFFSET`: never a section.
    assert!(all.iter().all(|(_, t)| !t.contains("CARD32") && !t.contains("OFFSET")), "{all:?}");

    let bytes = read("shared-mime-info-spec.pdf");
    let outline = corpus::pdf::outline(&bytes);
    let titles: Vec<&str> = all.iter().map(|(_, t)| t.as_str()).collect();
    assert_eq!((corpus::pdf::outline_recovered(&outline, &titles), outline.len()), (24, 24));
}

#[test]
fn a_manual_pdf_loses_its_running_headers_and_keeps_its_chapters() {
    let (title, sections) = structure("libtasn1.pdf", 1);
    assert_eq!(title, "Libtasn1");
    let chapters: Vec<&str> = sections.iter().map(|(_, t)| t.as_str()).collect();
    assert_eq!(
        chapters,
        [
            "1 Introduction",
            "2 ASN.1 structure handling",
            "3 Utilities",
            "4 Function reference",
            "A Copying Information",
            "Concept Index",
            "Function and Data Index"
        ]
    );
    let report = corpus::ingest(&[SourceFile::new("libtasn1.pdf", read("libtasn1.pdf"))], &CorpusSettings::default());
    let text = &report.documents[0].text;
    // `Chapter 2: ASN.1 structure handling 3` heads every page of chapter 2: a running header, not text.
    assert!(!text.contains("Chapter 2: ASN.1 structure handling"), "running headers are kept");
    // Words broken across lines by hyphenation are whole again.
    // (`…VALUE will specify the alternative se-` ends a line on page 18.)
    assert!(text.contains("will specify the alternative selected"), "hyphenated words are not rejoined");
    // Every block knows its page, for citations.
    assert!(report.documents[0].blocks.iter().all(|b| b.page.is_some()));
    let outline = corpus::pdf::outline(&read("libtasn1.pdf"));
    let (_, all) = structure("libtasn1.pdf", 6);
    let titles: Vec<&str> = all.iter().map(|(_, t)| t.as_str()).collect();
    let recovered = corpus::pdf::outline_recovered(&outline, &titles);
    assert!(recovered * 10 >= outline.len() * 9, "{recovered} of {} outline entries", outline.len());
}

#[test]
fn a_docbook_html_manual_keeps_its_title_page_out_of_the_sections() {
    let (title, sections) = structure("users-and-groups.html", 1);
    assert_eq!(title, "Users and Groups in the Debian System");
    assert_eq!(sections, owned(&[(1, "Chapter 1. Introduction"), (1, "Chapter 2. Users and Groups")]));
}

#[test]
fn a_markdown_readme_is_titled_by_its_heading() {
    let (title, sections) = structure("pyyaml-README.md", 1);
    assert_eq!(title, "PyYAML");
    assert_eq!(sections, owned(&[(1, "Installation"), (1, "Testing"), (1, "Further Information"), (1, "License")]));
}

/// One document as its author wrote it (Markdown with front matter) and as pandoc writes it for Word,
/// LibreOffice and e-readers: the same title, sections, lists and links from each.
#[test]
fn one_document_reads_the_same_from_markdown_docx_odt_and_epub() {
    let sections = owned(&[
        (1, "HOWTO"),
        (1, "Compilation options"),
        (1, "NTP Pool"),
        (1, "DNS Servers"),
        (1, "PAM"),
        (1, "Contributing Upstream"),
    ]);
    for format in ["md", "docx", "odt", "epub", "-epub2.epub"] {
        let name = format!("systemd-DISTRO_PORTING{}{format}", if format.starts_with('-') { "" } else { "." });
        let (title, found) = structure(&name, 1);
        assert_eq!(title, "Porting systemd To New Distributions", "{name}");
        assert_eq!(found, sections, "{name}");

        let report = corpus::ingest(&[SourceFile::new(&name, read(&name))], &CorpusSettings::default());
        let document = &report.documents[0];
        let list_items = document.blocks.iter().filter(|b| b.kind == BlockKind::ListItem).count();
        assert!(list_items >= 10, "{name}: {list_items} list items");
        let targets: Vec<&str> = document.links.iter().map(|l| l.target.as_str()).collect();
        assert!(targets.contains(&"https://developers.google.com/time/smear"), "{name}: {targets:?}");
        let smear = document.links.iter().find(|l| l.target.ends_with("/smear")).unwrap();
        assert_eq!(document.slice(smear.span), "leap second smear", "{name}");
        // The title is the document's name, not a line of its text.
        assert_eq!(document.text.matches("Porting systemd To New Distributions").count(), 1, "{name}");
    }
}

/// A Markdown table, and the same table as pandoc writes it in Word, OpenDocument and EPUB: its header said
/// once, then one block per row.
#[test]
fn table_rows_read_the_same_from_markdown_docx_odt_and_epub() {
    for format in ["md", "docx", "odt", "epub", "-epub2.epub"] {
        let name = format!("systemd-UIDS-GIDS{}{format}", if format.starts_with('-') { "" } else { "." });
        let (title, sections) = structure(&name, 1);
        assert_eq!(title, "Users, Groups, UIDs and GIDs on systemd Systems", "{name}");
        assert_eq!(sections.first().map(|(_, t)| t.as_str()), Some("Special Linux UIDs"), "{name}");
        let report = corpus::ingest(&[SourceFile::new(&name, read(&name))], &CorpusSettings::default());
        let document = &report.documents[0];
        let of_kind = |kind| -> Vec<&str> {
            document.blocks.iter().filter(|b| b.kind == kind).map(|b| document.slice(b.span)).collect()
        };
        let headers = of_kind(BlockKind::TableHeader);
        assert!(headers.contains(&"UID/GID; Purpose; Defined By; Listed in"), "{name}: {headers:#?}");
        let rows = of_kind(BlockKind::TableRow);
        assert!(rows.contains(&"5; tty group; systemd; /etc/passwd"), "{name}: {rows:#?}");
        assert!(rows.len() >= 10, "{name}: {} rows", rows.len());
    }
}

/// The sections of depth 1 and, under each, its sections of depth 2: (chapter, [sub-sections]).
fn chapters(name: &str, bytes: Vec<u8>) -> (String, Vec<(String, Vec<String>)>) {
    let report = corpus::ingest(&[SourceFile::new(name, bytes)], &CorpusSettings::default());
    let corpus = Corpus::build(report.documents, common::embedder(), &CorpusSettings::default());
    let mut chapters: Vec<(String, Vec<String>)> = Vec::new();
    for section in &corpus.sections {
        match (section.depth, chapters.last_mut()) {
            (1, _) => chapters.push((section.title.clone(), Vec::new())),
            (2, Some((_, subsections))) => subsections.push(section.title.clone()),
            _ => {}
        }
    }
    (corpus.documents[0].title.clone(), chapters)
}

/// The PDF with its outline (bookmarks) taken out of its catalog.
fn without_outline(name: &str) -> Vec<u8> {
    let mut document = lopdf::Document::load_mem(&read(name)).unwrap();
    document.catalog_mut().unwrap().remove(b"Outlines");
    let mut bytes = Vec::new();
    document.save_to(&mut bytes).unwrap();
    bytes
}

/// groff's PDFs have outlines that lopdf's own outline walk gave up on (it read none of their entries); read
/// here, they are the sections, the book's parts at depth 1 and its numbered chapters beneath.
#[test]
fn pdfs_take_their_sections_from_their_outline() {
    let (title, found) = chapters("groff-automake.pdf", read("groff-automake.pdf"));
    assert_eq!(title, "Using Automake in the Groff project");
    let parts: Vec<&str> = found.iter().map(|(t, _)| t.as_str()).collect();
    assert_eq!(
        parts,
        ["Title Page: Using Automake in the Groff project", "Contents", "Using Automake in the Groff project"]
    );
    assert_eq!(
        found[2].1,
        [
            "1. Overview, the initial build",
            "2. Building a program",
            "3. Non-recursive make schema",
            "4. Installing data",
            "5. Extending Automake’s rules"
        ]
    );
}

/// PDFs without an outline (groff's, their outline taken out): headings from the layout, numbered ones at
/// their numbering's depth, the table of contents' copies of them not taken for headings.
#[test]
fn pdfs_without_an_outline_get_their_headings_from_the_layout() {
    let (title, found) = chapters("groff-automake.pdf", without_outline("groff-automake.pdf"));
    assert_eq!(title, "Using Automake in the Groff project");
    let numbered: Vec<&(String, Vec<String>)> = found.iter().filter(|(t, _)| t.starts_with(char::is_numeric)).collect();
    let titles: Vec<&str> = numbered.iter().map(|(t, _)| t.as_str()).collect();
    assert_eq!(
        titles,
        [
            "1. Overview, the initial build",
            "2. Building a program",
            "3. Non-recursive make schema",
            "4. Installing data",
            "5. Extending Automake’s rules"
        ]
    );
    assert_eq!(
        numbered[1].1,
        [
            "2.1. A program and its source files",
            "2.2. Linking against a library",
            "2.3. Preprocessor flags",
            "2.4. Cleaning",
            "2.5. Dependencies",
            "2.6. Scripts"
        ]
    );

    let (title, found) = chapters("groff-mon_premier_doc.pdf", without_outline("groff-mon_premier_doc.pdf"));
    assert_eq!(title, "Mon Premier Document");
    let expected = [
        ("Table des matières", vec![]),
        ("1. Les différentes versions", vec!["1.1. La version originale", "1.2. La version moderne"]),
        ("2. Les évolutions du Lorem", vec![]),
    ];
    let expected: Vec<(String, Vec<String>)> =
        expected.iter().map(|(t, s)| (t.to_string(), s.iter().map(|s| s.to_string()).collect())).collect();
    assert_eq!(found, expected);
}

#[test]
fn a_plain_text_readme_and_a_csv_table_keep_their_structure() {
    let (title, sections) = structure("base-passwd-README.txt", 1);
    assert_eq!(title, "base-passwd for Debian");
    assert_eq!(sections, owned(&[(1, "base-passwd for Debian")]));

    let (title, sections) = structure("distro-info-debian.csv", 1);
    assert_eq!(title, "distro info debian");
    assert_eq!(sections, owned(&[(1, "distro-info-debian.csv")]));
    let report = corpus::ingest(
        &[SourceFile::new("distro-info-debian.csv", read("distro-info-debian.csv"))],
        &CorpusSettings::default(),
    );
    let document = &report.documents[0];
    let of_kind = |kind| -> Vec<&str> {
        document.blocks.iter().filter(|b| b.kind == kind).map(|b| document.slice(b.span)).collect()
    };
    assert_eq!(
        of_kind(BlockKind::TableHeader),
        ["version; codename; series; created; release; eol; eol-lts; eol-elts"]
    );
    assert!(of_kind(BlockKind::TableRow).contains(&"1.2; Rex; rex; 1996-06-17; 1996-12-12; 1998-06-05"));
}

/// The chunks BM25 ranks best for `question` in the file `name`, analysed in the language Quire reads the
/// file as (returned too).
fn best_chunks_by_words(name: &str, question: &str, k: usize) -> (quire::language::Language, Vec<String>) {
    use quire::index::bm25::{Bm25Index, Bm25Params, query_terms};
    let report = corpus::ingest(&[SourceFile::new(name, read(name))], &CorpusSettings::default());
    assert!(report.errors.is_empty(), "{:?}", report.errors);
    let corpus = Corpus::build(report.documents, common::embedder(), &CorpusSettings::default());
    let language = corpus.documents[0].language;
    let texts = (0..corpus.chunks.len() as u32).map(|chunk| (corpus.chunk_text(chunk), language));
    let index = Bm25Index::build(texts, Bm25Params::default());
    let hits = index.search(&query_terms(question, &[language]), k);
    (language, hits.iter().map(|hit| corpus.chunk_text(hit.id).to_string()).collect())
}

/// Debian Reference's chapter on packages in German and in Japanese (neither page declares its language):
/// each is read as its language, and a question asked in it, in a user's words, finds the passage that
/// answers it: German by its stems, Japanese by its character pairs.
#[test]
fn a_german_and_a_japanese_manual_answer_questions_in_their_language() {
    use quire::language::Language;
    let (german, found) = best_chunks_by_words(
        "debian-reference-ch02.de.html",
        "Wie kann ich die Download-Bandbreite von APT begrenzen?",
        3,
    );
    assert_eq!(german, Language::German);
    assert!(found.iter().any(|text| text.contains("Dl-Limit")), "{found:#?}");
    let (japanese, found) =
        best_chunks_by_words("debian-reference-ch02.ja.html", "APT のダウンロードの帯域幅を制限したい", 3);
    assert_eq!(japanese, Language::Japanese);
    assert!(found.iter().any(|text| text.contains("Dl-Limit")), "{found:#?}");
}
