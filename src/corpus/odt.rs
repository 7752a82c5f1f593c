//! OpenDocument text (`.odt`): headings (`text:h` at their outline level), paragraphs, list items, tables as
//! one `header: value; …` block per row (header rows where the document marks them), hyperlinks as links,
//! and the title from the document's metadata or its `Title` paragraph, which is not repeated in its text.

use std::collections::HashSet;

use roxmltree::Node;

use super::document::{BlockKind, DocumentBuilder, LinkKind, Metadata, collapse_whitespace};
use super::package::{self, Package, children, parse_xml};
use super::table::row_text;

const OFFICE: &str = "urn:oasis:names:tc:opendocument:xmlns:office:1.0";
const TEXT: &str = "urn:oasis:names:tc:opendocument:xmlns:text:1.0";
const TABLE: &str = "urn:oasis:names:tc:opendocument:xmlns:table:1.0";
const STYLE: &str = "urn:oasis:names:tc:opendocument:xmlns:style:1.0";
const XLINK: &str = "http://www.w3.org/1999/xlink";

pub fn parse(bytes: &[u8], builder: &mut DocumentBuilder) -> Result<Metadata, String> {
    let mut package = Package::open(bytes, "ODT")?;
    let content_xml = package.required("content.xml")?;
    let meta_title = match package.part("meta.xml")? {
        Some(xml) => package::dublin_core_title(&parse_xml(&xml, "meta.xml")?),
        None => None,
    };
    let content = parse_xml(&content_xml, "content.xml")?;
    let text = content
        .descendants()
        .find(|n| n.has_tag_name((OFFICE, "text")))
        .ok_or("not an ODT text document: content.xml has no office:text")?;
    let mut walker = Walker { builder, title_styles: title_styles(&content), title: None, nesting: 0 };
    walker.blocks(text, false);
    walker.builder.end_block();
    Ok(Metadata { title: meta_title.or(walker.title), ..Metadata::default() })
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

impl Walker<'_> {
    fn blocks(&mut self, container: Node, in_list: bool) {
        self.nesting += 1;
        if self.nesting <= package::MAX_NESTING {
            self.blocks_in(container, in_list);
        }
        self.nesting -= 1;
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
                    let text = collapse_whitespace(&package::text_of(node));
                    if self.title.is_none() && !text.is_empty() {
                        self.title = Some(text);
                    }
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
        self.nesting += 1;
        if self.nesting <= package::MAX_NESTING {
            self.inline_in(node);
        }
        self.nesting -= 1;
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

    /// One block per row; header rows are the document's own, else the first row of a table with more rows
    /// and columns than one.
    fn table(&mut self, table: Node) {
        self.builder.end_block();
        let cells = |row: Node| -> Vec<String> {
            children(row, TABLE, "table-cell").map(|cell| collapse_whitespace(&package::text_of(cell))).collect()
        };
        let marked: Vec<Node> =
            children(table, TABLE, "table-header-rows").flat_map(|h| children(h, TABLE, "table-row")).collect();
        let mut rows: Vec<Node> = children(table, TABLE, "table-row").collect();
        rows.extend(children(table, TABLE, "table-rows").flat_map(|r| children(r, TABLE, "table-row")));
        let header = match (marked.first(), rows.first()) {
            (Some(&row), _) => cells(row),
            (None, Some(&row)) if rows.len() > 1 && cells(row).len() > 1 => {
                rows.remove(0);
                cells(row)
            }
            _ => Vec::new(),
        };
        for row in rows {
            let values = cells(row);
            self.builder.paragraph(BlockKind::TableRow, &row_text(&header, values.iter().map(String::as_str)));
        }
    }
}
