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
    lay_out(&Html::parse_document(text), builder)
}

/// A page the caller has parsed already (an EPUB chapter, whose headings it looked at first).
pub fn lay_out(document: &Html, builder: &mut DocumentBuilder) -> Metadata {
    let mut metadata = Metadata { title: page_title(document), ..Metadata::default() };
    let mut walker = Walker { builder, relations: Vec::new() };
    walker.walk(*document.root_element());
    walker.builder.end_block();
    metadata.declared_relations = walker.relations;
    metadata
}

/// Lays out an HTML fragment (raw HTML inside Markdown) into the block open in `builder`; returns the
/// infobox relations it declares.
pub fn parse_fragment(html: &str, builder: &mut DocumentBuilder) -> Vec<DeclaredRelation> {
    let fragment = Html::parse_fragment(html);
    let mut walker = Walker { builder, relations: Vec::new() };
    walker.walk(*fragment.root_element());
    walker.relations
}

/// The followable `href` of an `<a ...>` start tag, entities decoded.
pub fn anchor_href(tag: &str) -> Option<String> {
    let fragment = Html::parse_fragment(tag);
    let anchor =
        fragment.root_element().descendants().filter_map(ElementRef::wrap).find(|e| e.value().name() == "a")?;
    anchor.value().attr("href").filter(|href| is_followable(href)).map(str::to_string)
}

/// Whether the content of an element with this tag name is never page text (`script`, `style`, ...).
pub fn hides_content(name: &str) -> bool {
    // `input` is dropped too, but has no content: it must not hide what follows it.
    name != "input" && DROPPED.contains(&name)
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

/// What is left to do of the walk. The walk keeps these on its own stack instead of recursing per element:
/// pages nested tens of thousands of elements deep overflowed the browser build's 1 MiB stack.
enum Step<'a> {
    Visit(NodeRef<'a, Node>),
    /// Cell separator: text, then a soft break.
    Separator(&'static str),
    Label(String),
    StartBlock(BlockKind),
    EndBlock,
    EndLink,
    Relations(Vec<DeclaredRelation>),
}

struct Walker<'b> {
    builder: &'b mut DocumentBuilder,
    relations: Vec<DeclaredRelation>,
}

impl Walker<'_> {
    /// Lays out the children of `root` in document order.
    fn walk<'a>(&mut self, root: NodeRef<'a, Node>) {
        let mut stack = Vec::new();
        push_children(&mut stack, root);
        while let Some(step) = stack.pop() {
            match step {
                Step::Visit(node) => self.node(node, &mut stack),
                Step::Separator(text) => {
                    self.builder.push_text(text);
                    self.builder.push_break();
                }
                Step::Label(label) => self.builder.push_text(&label),
                Step::StartBlock(kind) => self.builder.start_block(kind),
                Step::EndBlock => self.builder.end_block(),
                Step::EndLink => self.builder.end_link(),
                Step::Relations(relations) => self.relations.extend(relations),
            }
        }
    }

    fn node<'a>(&mut self, node: NodeRef<'a, Node>, stack: &mut Vec<Step<'a>>) {
        match node.value() {
            Node::Text(text) => self.builder.push_text(text),
            Node::Element(_) => {
                if let Some(element) = ElementRef::wrap(node) {
                    self.element(element, stack);
                }
            }
            _ => {}
        }
    }

    fn element<'a>(&mut self, element: ElementRef<'a>, stack: &mut Vec<Step<'a>>) {
        let name = element.value().name();
        if DROPPED.contains(&name) {
            return;
        }
        match name {
            "h1" | "h2" | "h3" | "h4" | "h5" | "h6" if is_credit(element) => {
                self.block(element, BlockKind::Paragraph, stack)
            }
            "h1" | "h2" | "h3" | "h4" | "h5" | "h6" => {
                let level = name[1..].parse().unwrap_or(2);
                self.block(element, BlockKind::Heading { level }, stack);
            }
            "p" | "dt" | "dd" | "figcaption" | "caption" | "address" => {
                self.block(element, BlockKind::Paragraph, stack)
            }
            "li" => self.block(element, BlockKind::ListItem, stack),
            "pre" => self.block(element, BlockKind::Preformatted, stack),
            "br" => self.builder.push_break(),
            "hr" => self.builder.end_block(),
            "table" => self.table(element, stack),
            "a" => self.link(element, stack),
            _ if CONTAINERS.contains(&name) => {
                self.builder.end_block();
                stack.push(Step::EndBlock);
                push_children(stack, *element);
            }
            _ => push_children(stack, *element),
        }
    }

    fn block<'a>(&mut self, element: ElementRef<'a>, kind: BlockKind, stack: &mut Vec<Step<'a>>) {
        self.builder.start_block(kind);
        stack.push(Step::EndBlock);
        push_children(stack, *element);
    }

    fn link<'a>(&mut self, element: ElementRef<'a>, stack: &mut Vec<Step<'a>>) {
        if let Some(href) = element.value().attr("href").filter(|href| is_followable(href)) {
            self.builder.start_link(href, LinkKind::Html);
            stack.push(Step::EndLink);
        }
        push_children(stack, *element);
    }

    /// Every row becomes one `header: value; ...` block; rows labelled by a `th` in an infobox also become
    /// declared relations from the page to each entity linked in the value cell.
    fn table<'a>(&mut self, table: ElementRef<'a>, stack: &mut Vec<Step<'a>>) {
        self.builder.end_block();
        let infobox = table.value().classes().any(|c| c.to_ascii_lowercase().contains("infobox"));
        let mut header: Vec<String> = Vec::new();
        let mut steps = Vec::new();
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
                steps.push(Step::Relations(infobox_relations(&cells)));
            }
            table_row(&cells, &header, &mut steps);
        }
        steps.push(Step::EndBlock);
        stack.extend(steps.into_iter().rev());
    }
}

/// Children go on the stack last first, so that they are visited in document order.
fn push_children<'a>(stack: &mut Vec<Step<'a>>, node: NodeRef<'a, Node>) {
    stack.extend(node.children().rev().map(Step::Visit));
}

fn table_row<'a>(cells: &[ElementRef<'a>], header: &[String], steps: &mut Vec<Step<'a>>) {
    steps.push(Step::StartBlock(BlockKind::TableRow));
    let labelled_by_th = cells.len() == 2 && cells[0].value().name() == "th";
    for (index, cell) in cells.iter().enumerate() {
        if index > 0 {
            steps.push(Step::Separator(if labelled_by_th { ":" } else { ";" }));
        }
        if let Some(label) = header.get(index).filter(|h| !h.is_empty() && !labelled_by_th) {
            steps.push(Step::Label(format!("{label}: ")));
        }
        steps.push(Step::Visit(**cell));
    }
    steps.push(Step::EndBlock);
}

fn infobox_relations(cells: &[ElementRef]) -> Vec<DeclaredRelation> {
    let (Some(label), Some(value)) = (cells.first(), cells.get(1)) else { return Vec::new() };
    if label.value().name() != "th" {
        return Vec::new();
    }
    let label = cell_text(*label);
    if label.is_empty() {
        return Vec::new();
    }
    let anchors = Selector::parse("a[href]").expect("static selector");
    value
        .select(&anchors)
        .filter_map(|anchor| anchor.value().attr("href").filter(|h| is_followable(h)))
        .map(|href| DeclaredRelation {
            label: label.clone(),
            target: href.to_string(),
            origin: RelationOrigin::Infobox,
        })
        .collect()
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

/// A title page's author, editor or subtitle set as a heading (DocBook's `<h3 class="author">`): a line of
/// the title page, not the start of a section.
fn is_credit(element: ElementRef) -> bool {
    const CREDITS: &[&str] = &["author", "authorgroup", "editor", "othercredit", "corpauthor", "subtitle", "byline"];
    element.value().classes().any(|class| CREDITS.contains(&class.to_ascii_lowercase().as_str()))
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

    #[test]
    fn nested_tables_links_and_breaks_keep_their_layout() {
        let doc = parse_doc(
            "<h2>Saturn <a href='saturn.html'>V</a></h2><table class='infobox'><tr><th>Stages</th><td>\
             <table class='infobox'><tr><th>First</th><td><a href='s-ic.html'>S-IC</a></td></tr></table>\
             <a href='three.html'>three</a></td></tr><tr><th>Maker</th><td><a href='boeing.html'>Boeing</a></td></tr></table>\
             <p>Line one<br>line two<hr>after rule</p><pre>a  b\n c</pre><ol><li>x<ul><li>y</li></ul></li></ol>",
        );
        let rels: Vec<(&str, &str)> =
            doc.declared_relations.iter().map(|r| (r.label.as_str(), r.target.as_str())).collect();
        assert_eq!(
            rels,
            vec![("Stages", "s-ic.html"), ("Stages", "three.html"), ("First", "s-ic.html"), ("Maker", "boeing.html")]
        );
        let blocks: Vec<(BlockKind, &str)> = doc.blocks.iter().map(|b| (b.kind, doc.slice(b.span))).collect();
        assert_eq!(
            blocks,
            vec![
                (BlockKind::Heading { level: 2 }, "Saturn V"),
                (BlockKind::TableRow, "Stages:"),
                (BlockKind::TableRow, "First: S-IC"),
                (BlockKind::Paragraph, "three"),
                (BlockKind::TableRow, "Maker: Boeing"),
                (BlockKind::Paragraph, "Line one line two"),
                (BlockKind::Paragraph, "after rule"),
                (BlockKind::Preformatted, "a  b\n c"),
                (BlockKind::ListItem, "x"),
                (BlockKind::ListItem, "y")
            ]
        );
        let links: Vec<(&str, &str)> = doc.links.iter().map(|l| (l.target.as_str(), doc.slice(l.span))).collect();
        assert_eq!(
            links,
            vec![("saturn.html", "V"), ("s-ic.html", "S-IC"), ("three.html", "three"), ("boeing.html", "Boeing")]
        );
    }

    #[test]
    fn deeply_nested_elements_do_not_overflow_a_small_stack() {
        // The browser build runs on a 1 MiB stack; one frame per nesting level overflowed it.
        // html5ever scans its whole open-element stack for every `<div>` (quadratic: 45 s for 100,000), so most
        // levels are inline elements, which it nests in constant time.
        let page = "<div>".repeat(1_000) + &"<span><b>".repeat(49_500) + "Deep <a href='bottom.html'>text</a>";
        let doc = std::thread::Builder::new()
            .stack_size(1 << 20)
            .spawn(move || parse_doc(&page))
            .expect("thread spawns")
            .join()
            .expect("parsing does not overflow the stack");
        assert_eq!(doc.text, "Deep text");
        assert_eq!(doc.slice(doc.links[0].span), "text");
    }
}
