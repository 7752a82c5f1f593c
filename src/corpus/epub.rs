//! EPUB books: the chapters in spine order, each through the HTML path, under the book's table of contents
//! (EPUB 3's `nav`, else EPUB 2's NCX) as the section tree: a chapter whose first heading is its contents
//! entry keeps its headings, moved to the entry's depth; one without gets the entry as its heading and its
//! own headings below it. Cover and title pages (marked as such, or the short pages before the first page
//! of real length) are the book's title, not its text. Title from the package metadata.

use std::collections::HashMap;

use roxmltree::Node;
use scraper::{Html, Selector};

use super::Malformed;
use super::document::{DocumentBuilder, Metadata, collapse_whitespace};
use super::package::{self, Package, parse_xml};

const CONTAINER: &str = "urn:oasis:names:tc:opendocument:xmlns:container";
const OPF: &str = "http://www.idpf.org/2007/opf";
const OPS: &str = "http://www.idpf.org/2007/ops";
const NCX: &str = "http://www.daisy.org/z3986/2005/ncx/";
const XHTML: &str = "http://www.w3.org/1999/xhtml";

/// A contents entry: its depth (1 at the top), label and target file.
struct Entry {
    depth: u8,
    label: String,
    file: String,
}

struct Item {
    href: String,
    properties: String,
}

impl Item {
    /// EPUB 3's navigation document: the contents and the landmarks.
    fn is_nav(&self) -> bool {
        self.properties.split_whitespace().any(|p| p == "nav")
    }
}

/// EPUB 3's navigation document, parsed, and the folder its hrefs start from.
type Nav<'x> = (roxmltree::Document<'x>, &'x str);

pub fn parse(bytes: &[u8], builder: &mut DocumentBuilder) -> Result<Metadata, Malformed> {
    let mut package = Package::open(bytes, "EPUB")?;
    let container = package.required("META-INF/container.xml")?;
    let container = parse_xml(&container, "META-INF/container.xml")?;
    let opf_path = container
        .descendants()
        .find(|n| n.has_tag_name((CONTAINER, "rootfile")))
        .and_then(|n| n.attribute("full-path"))
        .ok_or("not an EPUB file: META-INF/container.xml names no package document")?
        .to_string();
    let opf_text = package.required(&opf_path)?;
    let opf = parse_xml(&opf_text, &opf_path)?;
    let items: HashMap<&str, Item> = opf
        .descendants()
        .filter(|n| n.has_tag_name((OPF, "item")))
        .filter_map(|n| {
            let href = resolve(directory_of(&opf_path), n.attribute("href")?);
            Some((n.attribute("id")?, Item { href, properties: n.attribute("properties").unwrap_or("").to_string() }))
        })
        .collect();
    let nav_item = items.values().find(|item| item.is_nav());
    let nav_text = match nav_item {
        Some(item) => package.part(&item.href)?,
        None => None,
    };
    let nav = match (nav_item, &nav_text) {
        (Some(item), Some(text)) => Some((parse_xml(text, &item.href)?, directory_of(&item.href))),
        _ => None,
    };
    let contents = table_of_contents(&mut package, &opf, &items, nav.as_ref())?;
    let skipped = front_pages(&opf, directory_of(&opf_path), nav.as_ref());
    let mut seen = std::collections::HashSet::new();
    let spine: Vec<&Item> = opf
        .descendants()
        .filter(|n| n.has_tag_name((OPF, "itemref")))
        .filter_map(|n| items.get(n.attribute("idref")?))
        .filter(|item| !item.is_nav() && !skipped.contains(&item.href))
        .filter(|item| seen.insert(item.href.clone()))
        .collect();
    let mut chapters = Vec::new();
    for item in spine {
        if let Some(chapter) = package.part(&item.href)? {
            super::html::depth::check(&chapter).map_err(|reason| format!("chapter {}: {reason}", item.href))?;
            chapters.push((item, chapter));
        }
    }
    // Short pages before the first page of real length are a cover, a title page or a notice, whatever the
    // book calls them (EPUB 2 books often mark none, and list the title page in their contents). A book of
    // short pages only is all text.
    let start = chapters.iter().position(|(_, chapter)| !is_short_front_page(chapter)).unwrap_or(0);
    for (item, chapter) in &chapters[start..] {
        let entry = contents.iter().find(|e| e.file == item.href);
        lay_out_chapter(chapter, entry, builder);
    }
    builder.set_heading_offset(0);
    builder.end_block();
    Ok(package::dublin_core(&opf))
}

/// Words a front page may have and still be only a cover, a title page or a notice.
const FRONT_PAGE_WORDS: usize = 100;

fn is_short_front_page(chapter: &str) -> bool {
    let html = Html::parse_document(chapter);
    let body = Selector::parse("body").expect("static selector");
    let words = html.select(&body).flat_map(|b| b.text()).flat_map(str::split_whitespace).count();
    words <= FRONT_PAGE_WORDS
}

/// `Chapter%201.xhtml` → `Chapter 1.xhtml`: hrefs are URLs, archive names are not.
fn decode(href: &str) -> String {
    percent_encoding::percent_decode_str(href).decode_utf8_lossy().into_owned()
}

const VOID_ELEMENTS: &[&str] =
    &["area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"];

/// XHTML's self-closed elements written out (`<title/>` → `<title></title>`): an HTML parser reads
/// `<title/>` or `<script src="…"/>` as an opening tag, and the rest of the chapter as its text.
fn expand_self_closing(xhtml: &str) -> String {
    let mut out = String::with_capacity(xhtml.len());
    let mut rest = xhtml;
    while let Some(open) = rest.find('<') {
        out.push_str(&rest[..open]);
        rest = &rest[open..];
        let name_len = rest[1..].find(|c: char| !(c.is_ascii_alphanumeric() || c == ':' || c == '-')).map_or(0, |n| n);
        let name = &rest[1..1 + name_len];
        let Some(end) = tag_end(rest) else { break };
        let tag = &rest[..=end];
        match tag.strip_suffix("/>") {
            Some(open_tag) if !name.is_empty() && !VOID_ELEMENTS.contains(&name.to_ascii_lowercase().as_str()) => {
                out.push_str(open_tag.trim_end());
                out.push_str("></");
                out.push_str(name);
                out.push('>');
            }
            _ => out.push_str(tag),
        }
        rest = &rest[end + 1..];
    }
    out.push_str(rest);
    out
}

/// Where a tag starting at the beginning of `text` ends (its `>`), quoted attribute values skipped.
fn tag_end(text: &str) -> Option<usize> {
    let mut quote = None;
    for (i, c) in text.char_indices().skip(1) {
        match (quote, c) {
            (None, '"' | '\'') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            (None, '>') => return Some(i),
            _ => {}
        }
    }
    None
}

/// A chapter's headings moved under its contents entry (see the module's doc).
fn lay_out_chapter(chapter: &str, entry: Option<&Entry>, builder: &mut DocumentBuilder) {
    let chapter = &expand_self_closing(chapter);
    let html = Html::parse_document(chapter);
    let headings = Selector::parse("h1, h2, h3, h4, h5, h6").expect("static selector");
    let found: Vec<(u8, String)> = html
        .select(&headings)
        .map(|h| (h.value().name()[1..].parse().unwrap_or(1), collapse_whitespace(&h.text().collect::<String>())))
        .collect();
    let top = found.iter().map(|(level, _)| *level).min().unwrap_or(1) as i8;
    let offset = match entry {
        Some(entry) if found.first().is_some_and(|(_, text)| text.eq_ignore_ascii_case(&entry.label)) => {
            entry.depth as i8 - found[0].0 as i8
        }
        Some(entry) => {
            builder.set_heading_offset(0);
            builder.heading(entry.depth, &entry.label);
            entry.depth as i8 + 1 - top
        }
        None => 0,
    };
    builder.set_heading_offset(offset);
    super::html::lay_out(&html, builder);
}

/// The contents as entries in reading order: EPUB 3's `nav` document, else the spine's NCX.
fn table_of_contents(
    package: &mut Package,
    opf: &roxmltree::Document,
    items: &HashMap<&str, Item>,
    nav: Option<&Nav>,
) -> Result<Vec<Entry>, Malformed> {
    let toc = nav.and_then(|(document, directory)| {
        let toc = document
            .descendants()
            .find(|n| n.has_tag_name((XHTML, "nav")) && n.attribute((OPS, "type")).is_some_and(|t| t.contains("toc")));
        toc.map(|toc| (toc, *directory))
    });
    if let Some((toc, directory)) = toc {
        let mut entries = Vec::new();
        nav_entries(toc, (0, 0), directory, &mut entries);
        return Ok(entries);
    }
    let ncx = opf
        .descendants()
        .find(|n| n.has_tag_name((OPF, "spine")))
        .and_then(|spine| spine.attribute("toc"))
        .and_then(|id| items.get(id));
    let Some(ncx) = ncx else { return Ok(Vec::new()) };
    let Some(text) = package.part(&ncx.href)? else { return Ok(Vec::new()) };
    let document = parse_xml(&text, &ncx.href)?;
    let mut entries = Vec::new();
    if let Some(map) = document.descendants().find(|n| n.has_tag_name((NCX, "navMap"))) {
        ncx_entries(map, 1, directory_of(&ncx.href), &mut entries);
    }
    Ok(entries)
}

fn directory_of(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(dir, _)| dir)
}

/// `text/ch001.xhtml#intro` relative to `EPUB` → `EPUB/text/ch001.xhtml`, `..` resolved.
fn resolve(directory: &str, href: &str) -> String {
    let file = decode(href.split('#').next().unwrap_or(href));
    let mut parts: Vec<&str> = directory.split('/').filter(|p| !p.is_empty()).collect();
    for part in file.split('/') {
        match part {
            ".." => {
                parts.pop();
            }
            "." | "" => {}
            _ => parts.push(part),
        }
    }
    parts.join("/")
}

/// Entries under `node`, `depth` being the list depth and `nesting` the element depth (bounded, see
/// `package::MAX_NESTING`).
fn nav_entries(node: Node, (depth, nesting): (u8, usize), directory: &str, entries: &mut Vec<Entry>) {
    if nesting > package::MAX_NESTING {
        return;
    }
    for child in node.children().filter(Node::is_element) {
        let inside = (depth, nesting + 1);
        match child.tag_name().name() {
            "ol" => nav_entries(child, (depth.saturating_add(1), nesting + 1), directory, entries),
            "li" => {
                let anchor = child.children().find(|n| n.has_tag_name((XHTML, "a")) || n.has_tag_name((XHTML, "span")));
                if let Some(anchor) = anchor {
                    entries.push(Entry {
                        depth: depth.clamp(1, 6),
                        label: collapse_whitespace(&package::text_of(anchor)),
                        file: anchor.attribute("href").map(|h| resolve(directory, h)).unwrap_or_default(),
                    });
                }
                nav_entries(child, inside, directory, entries);
            }
            _ => nav_entries(child, inside, directory, entries),
        }
    }
}

fn ncx_entries(node: Node, depth: usize, directory: &str, entries: &mut Vec<Entry>) {
    if depth > package::MAX_NESTING {
        return;
    }
    for point in node.children().filter(|n| n.has_tag_name((NCX, "navPoint"))) {
        let label =
            point.descendants().find(|n| n.has_tag_name((NCX, "text"))).map(package::text_of).unwrap_or_default();
        let file = point
            .children()
            .find(|n| n.has_tag_name((NCX, "content")))
            .and_then(|n| n.attribute("src"))
            .map(|src| resolve(directory, src))
            .unwrap_or_default();
        entries.push(Entry { depth: depth.clamp(1, 6) as u8, label: collapse_whitespace(&label), file });
        ncx_entries(point, depth + 1, directory, entries);
    }
}

/// Cover and title pages: the landmarks' `cover` and `titlepage` (EPUB 3), the guide's `cover` and
/// `title-page` (EPUB 2), and a manifest item marked `cover-image`'s page.
fn front_pages(opf: &roxmltree::Document, opf_directory: &str, nav: Option<&Nav>) -> Vec<String> {
    let mut pages: Vec<String> = opf
        .descendants()
        .filter(|n| n.has_tag_name((OPF, "reference")))
        .filter(|n| matches!(n.attribute("type"), Some("cover" | "title-page")))
        .filter_map(|n| n.attribute("href"))
        .map(|href| resolve(opf_directory, href))
        .collect();
    if let Some((document, directory)) = nav {
        for anchor in document.descendants().filter(|n| n.has_tag_name((XHTML, "a"))) {
            let landmark = anchor.attribute((OPS, "type")).is_some_and(|t| t == "cover" || t == "titlepage");
            if landmark && let Some(href) = anchor.attribute("href") {
                pages.push(resolve(directory, href));
            }
        }
    }
    pages
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn self_closed_xhtml_elements_do_not_swallow_the_chapter() {
        let xhtml = "<html><head><title/><script src=\"a.js\"/><link href='x' rel=\"a/b\"/></head>\
            <body><a id=\"top\"/><p>Text after.</p><br/></body></html>";
        assert_eq!(
            expand_self_closing(xhtml),
            "<html><head><title></title><script src=\"a.js\"></script><link href='x' rel=\"a/b\"/></head>\
            <body><a id=\"top\"></a><p>Text after.</p><br/></body></html>"
        );
        let mut builder = DocumentBuilder::new();
        lay_out_chapter(xhtml, None, &mut builder);
        let document = builder.finish("c.xhtml".into(), [0; 16], super::super::Format::Epub, Metadata::default(), "c");
        assert_eq!(document.text, "Text after.");
    }

    #[test]
    fn contents_hrefs_resolve_against_their_document() {
        assert_eq!(resolve("EPUB", "text/ch001.xhtml#howto"), "EPUB/text/ch001.xhtml");
        assert_eq!(resolve("OEBPS/nav", "../Text/Chapter%201.xhtml"), "OEBPS/Text/Chapter 1.xhtml");
        assert_eq!(resolve("", "ch2.html"), "ch2.html");
    }
}
