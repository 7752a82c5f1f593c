//! HTML pages: headings, paragraphs, list items, tables (the header row once, then each row's values),
//! `<a href>` links and infobox rows as declared relations. A page's own content is read: its `main` where it has one, and never
//! scripts, styles, navigation, menus, sidebars, dialogs or form controls. A redirect stub is no document.

use ego_tree::NodeRef;
use scraper::{ElementRef, Html, Node, Selector};

pub mod depth;

use super::IngestFailure;
use super::document::{BlockKind, DeclaredRelation, DocumentBuilder, LinkKind, Metadata, RelationOrigin};

const DROPPED: &[&str] = &[
    "script", "style", "nav", "noscript", "template", "svg", "iframe", "button", "select", "input", "textarea", "head",
];
/// Elements that hold a site's chrome, not the page's content: sidebars, dialogs (a generated site's
/// "Keyboard shortcuts" box is one on every page) and menus.
const CHROME: &[&str] = &["aside", "dialog", "menu"];
/// ARIA roles of the same chrome, for sites that build it from `div`s.
const CHROME_ROLES: &[&str] = &[
    "navigation",
    "menu",
    "menubar",
    "dialog",
    "alertdialog",
    "search",
    "toolbar",
    "banner",
    "contentinfo",
    "complementary",
];
/// A page with a refresh to another address and less text than this is a redirect stub.
const STUB_TEXT_CHARS: usize = 300;
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

/// The page's layout, or [`IngestFailure::Redirect`] for a stub that only sends the reader elsewhere (its
/// target is indexed as itself).
pub fn parse(text: &str, builder: &mut DocumentBuilder) -> Result<Metadata, IngestFailure> {
    depth::check(text).map_err(|too_costly| IngestFailure::Malformed(too_costly.to_string()))?;
    let document = Html::parse_document(text);
    if let Some(target) = redirect_target(&document) {
        return Err(IngestFailure::Redirect { target });
    }
    Ok(lay_out(&document, builder))
}

/// A page the caller has parsed already (an EPUB chapter, whose headings it looked at first).
pub fn lay_out(document: &Html, builder: &mut DocumentBuilder) -> Metadata {
    let language = document.root_element().attr("lang").map(str::to_string);
    let mut metadata = Metadata { title: page_title(document), language, ..Metadata::default() };
    let mut walker = Walker { builder, relations: Vec::new() };
    walker.walk(content_root(document));
    walker.builder.end_block();
    metadata.declared_relations = walker.relations;
    metadata
}

/// Lays out an HTML fragment (raw HTML inside Markdown) into the block open in `builder`; returns the
/// infobox relations it declares.
pub fn parse_fragment(html: &str, builder: &mut DocumentBuilder) -> Vec<DeclaredRelation> {
    // Nested beyond any page, a fragment is left out; the document around it is read.
    if depth::check(html).is_err() {
        return Vec::new();
    }
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

/// Where the page's own content is: its `main` (or `role=main`) element, else its only `article`, else the
/// whole page. Generated sites wrap every page in the same title bar, help box and sidebar; `main` leaves
/// them out, and section paths then start at the page's own heading, not the site's name.
fn content_root(document: &Html) -> NodeRef<'_, Node> {
    let has_text = |e: &ElementRef| e.text().any(|t| !t.trim().is_empty());
    let main = Selector::parse("main, [role=main]").expect("static selector");
    if let Some(main) = document.select(&main).find(has_text) {
        return *main;
    }
    let article = Selector::parse("article").expect("static selector");
    let mut articles = document.select(&article);
    match (articles.next(), articles.next()) {
        (Some(article), None) if has_text(&article) => *article,
        _ => *document.root_element(),
    }
}

/// Whether an element is a site's chrome around the content (see [`CHROME`]).
fn is_chrome(element: ElementRef) -> bool {
    let role = element.value().attr("role").map(|r| r.trim().to_ascii_lowercase());
    CHROME.contains(&element.value().name()) || role.is_some_and(|r| CHROME_ROLES.contains(&r.as_str()))
}

/// The address a redirect stub sends its reader to: a `<meta http-equiv="refresh">` naming a URL, on a
/// page with almost no text of its own.
fn redirect_target(document: &Html) -> Option<String> {
    let refresh = Selector::parse("meta[http-equiv]").expect("static selector");
    let content = document
        .select(&refresh)
        .filter(|meta| meta.value().attr("http-equiv").is_some_and(|v| v.trim().eq_ignore_ascii_case("refresh")))
        .find_map(|meta| meta.value().attr("content"))?;
    let (_, target) = content.split_once([';', ','])?;
    let target = target.trim().trim_start_matches(|c: char| c.is_ascii_alphabetic()).trim_start();
    let target = target.strip_prefix('=')?.trim().trim_matches(['\'', '"']).trim();
    let body = Selector::parse("body").expect("static selector");
    let text_chars: usize = document
        .select(&body)
        .flat_map(|b| b.descendants())
        .filter(|n| n.parent().and_then(ElementRef::wrap).is_none_or(|p| !DROPPED.contains(&p.value().name())))
        .filter_map(|n| n.value().as_text())
        .map(|t| t.trim().chars().count())
        .sum();
    (!target.is_empty() && text_chars < STUB_TEXT_CHARS).then(|| target.to_string())
}

/// What is left to do of the walk. The walk keeps these on its own stack instead of recursing per element:
/// pages nested tens of thousands of elements deep overflowed the browser build's 1 MiB stack.
enum Step<'a> {
    Visit(NodeRef<'a, Node>),
    /// Cell separator: text, then a soft break.
    Separator(&'static str),
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
        if DROPPED.contains(&name) || is_chrome(element) {
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

    /// The first row of `th` cells alone is the table's header, one block said once; every other row is one
    /// block of its values. Rows labelled by a `th` in an infobox also become declared relations from the
    /// page to each entity linked in the value cell.
    fn table<'a>(&mut self, table: ElementRef<'a>, stack: &mut Vec<Step<'a>>) {
        self.builder.end_block();
        let infobox = table.value().classes().any(|c| c.to_ascii_lowercase().contains("infobox"));
        let mut headed = false;
        let mut steps = Vec::new();
        for row in rows_of(table) {
            let cells: Vec<ElementRef> = row
                .children()
                .filter_map(ElementRef::wrap)
                .filter(|c| matches!(c.value().name(), "th" | "td"))
                .collect();
            let header = !headed && cells.len() > 1 && cells.iter().all(|c| c.value().name() == "th");
            headed |= header;
            if infobox && !header {
                steps.push(Step::Relations(infobox_relations(&cells)));
            }
            table_row(&cells, if header { BlockKind::TableHeader } else { BlockKind::TableRow }, &mut steps);
        }
        steps.push(Step::EndBlock);
        stack.extend(steps.into_iter().rev());
    }
}

/// Children go on the stack last first, so that they are visited in document order.
fn push_children<'a>(stack: &mut Vec<Step<'a>>, node: NodeRef<'a, Node>) {
    stack.extend(node.children().rev().map(Step::Visit));
}

fn table_row<'a>(cells: &[ElementRef<'a>], kind: BlockKind, steps: &mut Vec<Step<'a>>) {
    steps.push(Step::StartBlock(kind));
    let labelled_by_th = kind == BlockKind::TableRow && cells.len() == 2 && cells[0].value().name() == "th";
    for (index, cell) in cells.iter().enumerate() {
        if index > 0 {
            steps.push(Step::Separator(if labelled_by_th { ":" } else { ";" }));
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
mod tests;
