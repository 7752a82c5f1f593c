//! HTML pages: headings, paragraphs, list items, tables (rows as `header: value`), `<a href>` links and
//! infobox rows as declared relations. Scripts, styles, navigation and form controls are dropped.

use ego_tree::NodeRef;
use scraper::{ElementRef, Html, Node, Selector};

use super::document::{BlockKind, DeclaredRelation, DocumentBuilder, LinkKind, Metadata, RelationOrigin};

const DROPPED: &[&str] = &[
    "script", "style", "nav", "noscript", "template", "svg", "iframe", "button", "select", "input", "textarea", "head",
];
const CONTAINERS: &[&str] = &[
    "div",
    "section",
    "article",
    "main",
    "aside",
    "header",
    "footer",
    "ul",
    "ol",
    "dl",
    "blockquote",
    "figure",
    "body",
    "html",
    "form",
    "fieldset",
    "details",
    "summary",
    "center",
];

pub fn parse(text: &str, builder: &mut DocumentBuilder) -> Metadata {
    let document = Html::parse_document(text);
    let mut metadata = Metadata { title: page_title(&document), ..Metadata::default() };
    let mut walker = Walker { builder, relations: Vec::new() };
    walker.children(*document.root_element());
    walker.builder.end_block();
    metadata.declared_relations = walker.relations;
    metadata
}

fn page_title(document: &Html) -> Option<String> {
    let selector = Selector::parse("title").expect("static selector");
    document
        .select(&selector)
        .next()
        .map(|t| t.text().collect::<String>())
        .map(|t| super::document::collapse_whitespace(&t))
        .filter(|t| !t.is_empty())
}

struct Walker<'b> {
    builder: &'b mut DocumentBuilder,
    relations: Vec<DeclaredRelation>,
}

impl Walker<'_> {
    fn children(&mut self, node: NodeRef<Node>) {
        for child in node.children() {
            self.node(child);
        }
    }

    fn node(&mut self, node: NodeRef<Node>) {
        match node.value() {
            Node::Text(text) => self.builder.push_text(text),
            Node::Element(_) => {
                if let Some(element) = ElementRef::wrap(node) {
                    self.element(element);
                }
            }
            _ => {}
        }
    }

    fn element(&mut self, element: ElementRef) {
        let name = element.value().name();
        if DROPPED.contains(&name) {
            return;
        }
        match name {
            "h1" | "h2" | "h3" | "h4" | "h5" | "h6" => {
                let level = name[1..].parse().unwrap_or(2);
                self.block(element, BlockKind::Heading { level });
            }
            "p" | "dt" | "dd" | "figcaption" | "caption" | "address" => self.block(element, BlockKind::Paragraph),
            "li" => self.block(element, BlockKind::ListItem),
            "pre" => self.block(element, BlockKind::Preformatted),
            "br" => self.builder.push_break(),
            "hr" => self.builder.end_block(),
            "table" => self.table(element),
            "a" => self.link(element),
            _ if CONTAINERS.contains(&name) => {
                self.builder.end_block();
                self.children(*element);
                self.builder.end_block();
            }
            _ => self.children(*element),
        }
    }

    fn block(&mut self, element: ElementRef, kind: BlockKind) {
        self.builder.start_block(kind);
        self.children(*element);
        self.builder.end_block();
    }

    fn link(&mut self, element: ElementRef) {
        match element.value().attr("href").filter(|href| is_followable(href)) {
            Some(href) => {
                self.builder.start_link(href, LinkKind::Html);
                self.children(*element);
                self.builder.end_link();
            }
            None => self.children(*element),
        }
    }

    /// Every row becomes one `header: value; ...` block; rows labelled by a `th` in an infobox also become
    /// declared relations from the page to each entity linked in the value cell.
    fn table(&mut self, table: ElementRef) {
        self.builder.end_block();
        let infobox = table.value().classes().any(|c| c.to_ascii_lowercase().contains("infobox"));
        let mut header: Vec<String> = Vec::new();
        for row in rows_of(table) {
            let cells: Vec<ElementRef> = row
                .children()
                .filter_map(ElementRef::wrap)
                .filter(|c| matches!(c.value().name(), "th" | "td"))
                .collect();
            let all_headers = !cells.is_empty() && cells.iter().all(|c| c.value().name() == "th");
            if all_headers && cells.len() > 1 && header.is_empty() {
                header = cells.iter().map(|c| cell_text(*c)).collect();
                continue;
            }
            if infobox {
                self.infobox_row(&cells);
            }
            self.table_row(&cells, &header);
        }
        self.builder.end_block();
    }

    fn table_row(&mut self, cells: &[ElementRef], header: &[String]) {
        self.builder.start_block(BlockKind::TableRow);
        let labelled_by_th = cells.len() == 2 && cells[0].value().name() == "th";
        for (index, cell) in cells.iter().enumerate() {
            if index > 0 {
                self.builder.push_text(if labelled_by_th { ":" } else { ";" });
                self.builder.push_break();
            }
            if let Some(label) = header.get(index).filter(|h| !h.is_empty() && !labelled_by_th) {
                self.builder.push_text(&format!("{label}: "));
            }
            self.children(**cell);
        }
        self.builder.end_block();
    }

    fn infobox_row(&mut self, cells: &[ElementRef]) {
        let (Some(label), Some(value)) = (cells.first(), cells.get(1)) else { return };
        if label.value().name() != "th" {
            return;
        }
        let label = cell_text(*label);
        if label.is_empty() {
            return;
        }
        let anchors = Selector::parse("a[href]").expect("static selector");
        for anchor in value.select(&anchors) {
            let Some(href) = anchor.value().attr("href").filter(|h| is_followable(h)) else { continue };
            self.relations.push(DeclaredRelation {
                label: label.clone(),
                target: href.to_string(),
                origin: RelationOrigin::Infobox,
            });
        }
    }
}

/// Rows of this table only, not of tables nested inside its cells.
fn rows_of(table: ElementRef) -> Vec<ElementRef> {
    let mut rows = Vec::new();
    for child in table.children().filter_map(ElementRef::wrap) {
        match child.value().name() {
            "tr" => rows.push(child),
            "thead" | "tbody" | "tfoot" => {
                rows.extend(child.children().filter_map(ElementRef::wrap).filter(|r| r.value().name() == "tr"))
            }
            _ => {}
        }
    }
    rows
}

fn cell_text(cell: ElementRef) -> String {
    super::document::collapse_whitespace(&cell.text().collect::<String>())
}

/// Same-page anchors, scripts and mail links name no entity.
fn is_followable(href: &str) -> bool {
    let href = href.trim();
    !(href.is_empty()
        || href.starts_with('#')
        || href.to_ascii_lowercase().starts_with("javascript:")
        || href.to_ascii_lowercase().starts_with("mailto:")
        || href.to_ascii_lowercase().starts_with("tel:"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::document::Format;

    fn parse_doc(html: &str) -> crate::corpus::Document {
        let mut builder = DocumentBuilder::new();
        let meta = parse(html, &mut builder);
        builder.finish("p.html".into(), [0; 16], Format::Html, meta, "p")
    }

    #[test]
    fn structure_links_and_dropped_elements() {
        let doc = parse_doc(
            "<html><head><title>Jupiter – Wiki</title><style>p{}</style></head><body><nav><a href='/'>Home</a></nav>\
             <h1>Jupiter</h1><p>Jupiter is orbited by <a href='/wiki/Io_(moon)'>Io</a> and <b>others</b>.</p>\
             <script>var x = 1;</script><h2>Moons</h2><ul><li>Io</li><li>Europa</li></ul><div>Loose text</div></body></html>",
        );
        assert_eq!(doc.title, "Jupiter – Wiki");
        assert!(!doc.text.contains("Home") && !doc.text.contains("var x"));
        assert_eq!(doc.text, "Jupiter\n\nJupiter is orbited by Io and others.\n\nMoons\n\nIo\n\nEuropa\n\nLoose text");
        assert_eq!(doc.links.len(), 1);
        assert_eq!(doc.links[0].target, "/wiki/Io_(moon)");
        assert_eq!(doc.slice(doc.links[0].span), "Io");
    }

    #[test]
    fn infobox_rows_become_relations_and_tables_rows() {
        let doc = parse_doc(
            "<h1>Apollo 11</h1><table class='infobox vevent'><tr><th>Operator</th><td><a href='NASA.html'>NASA</a></td></tr>\
             <tr><th>Crew</th><td><a href='armstrong.html'>Neil Armstrong</a>, <a href='#x'>note</a></td></tr></table>\
             <table><tr><th>Stage</th><th>Engine</th></tr><tr><td>S-IC</td><td>F-1</td></tr></table>",
        );
        let rels: Vec<(&str, &str)> =
            doc.declared_relations.iter().map(|r| (r.label.as_str(), r.target.as_str())).collect();
        assert_eq!(rels, vec![("Operator", "NASA.html"), ("Crew", "armstrong.html")]);
        let rows: Vec<&str> =
            doc.blocks.iter().filter(|b| b.kind == BlockKind::TableRow).map(|b| doc.slice(b.span)).collect();
        assert_eq!(rows, vec!["Operator: NASA", "Crew: Neil Armstrong, note", "Stage: S-IC; Engine: F-1"]);
    }
}
