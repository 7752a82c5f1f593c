//! OpenDocument text (`.odt`): headings (`text:h` at their outline level), paragraphs, list items, tables as
//! their header row once, then one block of values per row (the header row where the document marks one), hyperlinks as links,
//! and the title from the document's metadata or its `Title` paragraph, which is not repeated in its text.

use std::collections::HashSet;

use roxmltree::Node;

use super::Malformed;
use super::document::{BlockKind, DocumentBuilder, LinkKind, Metadata, collapse_whitespace};
use super::package::{self, Nested, Package, children, parse_xml};
use super::table::table_rows;

const OFFICE: &str = "urn:oasis:names:tc:opendocument:xmlns:office:1.0";
const TEXT: &str = "urn:oasis:names:tc:opendocument:xmlns:text:1.0";
const TABLE: &str = "urn:oasis:names:tc:opendocument:xmlns:table:1.0";
const STYLE: &str = "urn:oasis:names:tc:opendocument:xmlns:style:1.0";
const XLINK: &str = "http://www.w3.org/1999/xlink";

pub fn parse(bytes: &[u8], builder: &mut DocumentBuilder) -> Result<Metadata, Malformed> {
    let mut package = Package::open(bytes, "ODT")?;
    let content_xml = package.required("content.xml")?;
    let meta = match package.part("meta.xml")? {
        Some(xml) => package::dublin_core(&parse_xml(&xml, "meta.xml")?),
        None => Metadata::default(),
    };
    let content = parse_xml(&content_xml, "content.xml")?;
    let text = content
        .descendants()
        .find(|n| n.has_tag_name((OFFICE, "text")))
        .ok_or("not an ODT text document: content.xml has no office:text")?;
    let mut walker = Walker { builder, title_styles: title_styles(&content), title: None, nesting: 0 };
    walker.blocks(text, false);
    walker.builder.end_block();
    Ok(Metadata { title: meta.title.or(walker.title), ..meta })
}

/// `Title`, and the automatic styles derived from it.
fn title_styles(content: &roxmltree::Document) -> HashSet<String> {
    let mut names = HashSet::from(["Title".to_string()]);
    for style in content.descendants().filter(|n| n.has_tag_name((STYLE, "style"))) {
        if style.attribute((STYLE, "parent-style-name")) == Some("Title")
            && let Some(name) = style.attribute((STYLE, "name"))
        {
            names.insert(name.to_string());
        }
    }
    names
}

struct Walker<'b> {
    builder: &'b mut DocumentBuilder,
    title_styles: HashSet<String>,
    title: Option<String>,
    /// Elements entered and not yet left (see `package::MAX_NESTING`).
    nesting: usize,
}

impl Nested for Walker<'_> {
    fn nesting(&mut self) -> &mut usize {
        &mut self.nesting
    }
}

impl Walker<'_> {
    fn blocks(&mut self, container: Node, in_list: bool) {
        self.nested(|walker| walker.blocks_in(container, in_list));
    }

    fn blocks_in(&mut self, container: Node, in_list: bool) {
        for node in container.children().filter(Node::is_element) {
            let namespace = node.tag_name().namespace();
            match (namespace, node.tag_name().name()) {
                (Some(TEXT), "h") => {
                    let level = node.attribute((TEXT, "outline-level")).and_then(|l| l.parse::<u8>().ok()).unwrap_or(1);
                    self.block(node, BlockKind::Heading { level: level.clamp(1, 6) });
                }
                (Some(TEXT), "p") if self.is_title(node) => {
                    package::keep_first_title(&mut self.title, &package::text_of(node))
                }
                (Some(TEXT), "p") => self.block(node, if in_list { BlockKind::ListItem } else { BlockKind::Paragraph }),
                (Some(TEXT), "list" | "list-item" | "list-header") => self.blocks(node, true),
                (Some(TABLE), "table") => self.table(node),
                (Some(TEXT), "section" | "index-body" | "table-of-content") => self.blocks(node, in_list),
                _ => {}
            }
        }
    }

    fn is_title(&self, paragraph: Node) -> bool {
        paragraph.attribute((TEXT, "style-name")).is_some_and(|style| self.title_styles.contains(style))
    }

    fn block(&mut self, node: Node, kind: BlockKind) {
        self.builder.start_block(kind);
        self.inline(node);
        self.builder.end_block();
    }

    fn inline(&mut self, node: Node) {
        self.nested(|walker| walker.inline_in(node));
    }

    fn inline_in(&mut self, node: Node) {
        for child in node.children() {
            if child.is_text() {
                self.builder.push_text(child.text().unwrap_or_default());
                continue;
            }
            match (child.tag_name().namespace(), child.tag_name().name()) {
                (Some(TEXT), "s" | "tab") => self.builder.push_text(" "),
                (Some(TEXT), "line-break") => self.builder.push_break(),
                (Some(TEXT), "a") => match child.attribute((XLINK, "href")) {
                    Some(target) => {
                        self.builder.start_link(target, LinkKind::Html);
                        self.inline(child);
                        self.builder.end_link();
                    }
                    None => self.inline(child),
                },
                // Footnotes and comments are not the sentence they sit in.
                (Some(TEXT), "note") | (Some(OFFICE), "annotation") => {}
                _ => self.inline(child),
            }
        }
    }

    /// One block per row, under the document's own header row (`table:table-header-rows`), else as
    /// `table_rows` decides.
    fn table(&mut self, table: Node) {
        let cells = |row: Node| -> Vec<String> {
            children(row, TABLE, "table-cell").map(|cell| collapse_whitespace(&package::text_of(cell))).collect()
        };
        let header =
            children(table, TABLE, "table-header-rows").flat_map(|h| children(h, TABLE, "table-row")).next().map(cells);
        let rows = children(table, TABLE, "table-row")
            .chain(children(table, TABLE, "table-rows").flat_map(|r| children(r, TABLE, "table-row")))
            .map(cells)
            .collect();
        table_rows(header, rows, self.builder);
    }
}
