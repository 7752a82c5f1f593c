//! Unit tests of `markdown`, beside it so the module itself reads in one sitting.

use super::*;
use crate::corpus::document::Format;

fn parse_doc(text: &str) -> (crate::corpus::Document, Vec<String>) {
    let mut builder = DocumentBuilder::new();
    let (meta, warnings) = parse(text, &mut builder);
    (builder.finish("t.md".into(), [0; 16], Format::Markdown, meta, "t"), warnings)
}

#[test]
fn front_matter_title_aliases_and_relations() {
    let (doc, warnings) = parse_doc(
        "---\ntitle: Apollo 11\naliases: [Apollo Eleven]\ntype: mission\nlaunched_by: \"[[Saturn V]]\"\ncrew: [\"[[Neil Armstrong]]\", \"[[Buzz Aldrin|Buzz]]\"]\ndestination: [[Moon]]\n---\n# Apollo 11\n\nText.\n",
    );
    assert!(warnings.is_empty());
    assert_eq!(doc.title, "Apollo 11");
    assert_eq!(doc.aliases, vec!["Apollo Eleven"]);
    assert_eq!(doc.type_hint.as_deref(), Some("mission"));
    let rels: Vec<(&str, &str)> =
        doc.declared_relations.iter().map(|r| (r.label.as_str(), r.target.as_str())).collect();
    assert_eq!(
        rels,
        vec![("launched_by", "Saturn V"), ("crew", "Neil Armstrong"), ("crew", "Buzz Aldrin"), ("destination", "Moon")]
    );
}

#[test]
fn links_wiki_links_and_tables() {
    let (doc, _) = parse_doc(
        "# Mars\n\nMars has two moons, [Phobos](phobos.md) and [[Deimos|the small one]].\n\n## Data\n\n| Moon | Diameter |\n|---|---|\n| Phobos | 22 km |\n| Deimos | 12 km |\n",
    );
    let links: Vec<(&str, &str)> = doc.links.iter().map(|l| (l.target.as_str(), doc.slice(l.span))).collect();
    assert_eq!(links, vec![("phobos.md", "Phobos"), ("Deimos", "the small one")]);
    assert_eq!(doc.links[1].kind, LinkKind::Wiki);
    let table: Vec<(BlockKind, &str)> = doc.blocks.iter().skip(3).map(|b| (b.kind, doc.slice(b.span))).collect();
    assert_eq!(
        table,
        vec![
            (BlockKind::TableHeader, "Moon; Diameter"),
            (BlockKind::TableRow, "Phobos; 22 km"),
            (BlockKind::TableRow, "Deimos; 12 km")
        ]
    );
}

#[test]
fn invalid_front_matter_is_a_warning_not_a_failure() {
    let (doc, warnings) = parse_doc("---\ntitle: [unclosed\n---\nBody text here.\n");
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert_eq!(doc.text, "Body text here.");
}

#[test]
fn front_matter_aliases_are_refused_before_they_expand() {
    // Ten levels of ten aliases each: loaded, a billion copies of "lol".
    let mut yaml = String::from("a0: &a0 lol\n");
    for level in 1..10 {
        let uses = vec![format!("*a{}", level - 1); 10].join(", ");
        yaml.push_str(&format!("a{level}: &a{level} [{uses}]\n"));
    }
    let started = std::time::Instant::now();
    let (doc, warnings) = parse_doc(&format!("---\ntitle: Laughs\n{yaml}---\n# Laughs\n\nBody text here.\n"));
    assert!(started.elapsed().as_secs() < 5);
    assert_eq!(
        warnings,
        ["front matter ignored: it repeats values by YAML aliases (*name), which Quire does not expand"]
    );
    assert!(doc.text.ends_with("Body text here."), "the document itself is read: {:?}", doc.text);
}

#[test]
fn list_items_are_blocks() {
    let (doc, _) = parse_doc("Intro.\n\n- first item\n- second **bold** item\n");
    let kinds: Vec<BlockKind> = doc.blocks.iter().map(|b| b.kind).collect();
    assert_eq!(kinds, vec![BlockKind::Paragraph, BlockKind::ListItem, BlockKind::ListItem]);
    assert_eq!(doc.slice(doc.blocks[2].span), "second bold item");
}

fn links(doc: &crate::corpus::Document) -> Vec<(&str, &str)> {
    doc.links.iter().map(|l| (l.target.as_str(), doc.slice(l.span))).collect()
}

fn blocks(doc: &crate::corpus::Document) -> Vec<(BlockKind, &str)> {
    doc.blocks.iter().map(|b| (b.kind, doc.slice(b.span))).collect()
}

#[test]
fn footnotes_image_alt_text_and_raw_html_are_kept() {
    let (doc, _) = parse_doc(
        "# Foxes\n\nA fox[^1] sleeps. ![A red fox](fox.png)\n\n\
             <div class=\"note\">Some <b>bold</b> text near <a href=\"den.md\">the den</a>.<script>track()</script><style>p{}</style></div>\n\n\
             Inline <span>html <em>stays</em></span> and a <a href=\"burrow.md\">burrow</a> link.<script>x()</script> Done.\n\n\
             [^1]: Foxes sleep in dens.\n\n    Cubs stay near.\n",
    );
    assert_eq!(
        blocks(&doc),
        vec![
            (BlockKind::Heading { level: 1 }, "Foxes"),
            (BlockKind::Paragraph, "A fox sleeps. A red fox"),
            (BlockKind::Paragraph, "Some bold text near the den."),
            (BlockKind::Paragraph, "Inline html stays and a burrow link. Done."),
            (BlockKind::Paragraph, "Foxes sleep in dens. Cubs stay near."),
        ]
    );
    assert_eq!(links(&doc), vec![("den.md", "the den"), ("burrow.md", "burrow")]);
    assert_eq!(doc.links[0].kind, LinkKind::Html);
}

#[test]
fn links_in_headings_and_table_headers_are_kept() {
    let (doc, _) = parse_doc(
        "# About [Mars](mars.md)\n\n| [Moon](moon.md) | Size |\n|---|---|\n| Phobos | 22 km |\n| Deimos | 12 km |\n\n\
             | [[Deimos]] | <a href=\"notes.md\">Notes</a> |\n|---|---|\n",
    );
    assert_eq!(
        blocks(&doc),
        vec![
            (BlockKind::Heading { level: 1 }, "About Mars"),
            (BlockKind::TableHeader, "Moon; Size"),
            (BlockKind::TableRow, "Phobos; 22 km"),
            (BlockKind::TableRow, "Deimos; 12 km"),
            (BlockKind::TableHeader, "Deimos; Notes"),
        ]
    );
    assert_eq!(
        links(&doc),
        vec![("mars.md", "Mars"), ("moon.md", "Moon"), ("Deimos", "Deimos"), ("notes.md", "Notes")]
    );
}

#[test]
fn unclosed_inline_script_hides_only_the_rest_of_its_paragraph() {
    let (doc, _) = parse_doc(
        "Before <script>hidden() and <a href=\"x.md\">gone</a>\n\nAfter [kept <a href=\"in.md\">inner](k.md) tail.\n",
    );
    assert_eq!(doc.text, "Before\n\nAfter kept inner tail.");
    // The `<a>` left open inside the Markdown link closes with it.
    assert_eq!(links(&doc), vec![("in.md", "inner"), ("k.md", "kept inner")]);
}

#[test]
fn paragraphs_of_one_list_item_keep_their_words_apart() {
    let (doc, _) = parse_doc("- First paragraph.\n\n  Second paragraph.\n- Next\n");
    assert_eq!(
        blocks(&doc),
        vec![(BlockKind::ListItem, "First paragraph. Second paragraph."), (BlockKind::ListItem, "Next")]
    );
}

#[test]
fn a_header_row_of_megabytes_is_said_once() {
    let long = "h".repeat(2 * 1024 * 1024);
    let rows: String = (0..2_000).map(|n| format!("| {n} | x |\n")).collect();
    let (doc, _) = parse_doc(&format!("# T\n\n| {long} | kind |\n|---|---|\n{rows}"));
    assert!(doc.text.len() < long.len() + rows.len(), "{} bytes", doc.text.len());
    assert_eq!(doc.blocks.iter().filter(|b| b.kind == BlockKind::TableHeader).count(), 1);
    assert!(doc.text.ends_with("1999; x"), "each row is its values");
}
