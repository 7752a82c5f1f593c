//! CommonMark with YAML front matter, `[text](target)` links and `[[Target|alias]]` wiki links. Footnote
//! definitions, image alt text and the visible text and links of raw HTML are kept.

use pulldown_cmark::{Event, LinkType, Options, Parser, Tag, TagEnd};
use yaml_rust2::{Yaml, YamlLoader};

use super::document::{BlockKind, DeclaredRelation, DocumentBuilder, LinkKind, Metadata, RelationOrigin};
use super::html;

/// Parses Markdown into `builder`; returns the front-matter metadata and any warnings.
pub fn parse(text: &str, builder: &mut DocumentBuilder) -> (Metadata, Vec<String>) {
    let options = Options::ENABLE_TABLES
        | Options::ENABLE_YAML_STYLE_METADATA_BLOCKS
        | Options::ENABLE_WIKILINKS
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_FOOTNOTES;
    let mut walker = Walker::new(builder);
    for event in Parser::new_ext(text, options) {
        walker.event(event);
    }
    walker.builder.end_block();
    let mut warnings = Vec::new();
    let mut metadata = match walker.front_matter {
        Some(yaml) => front_matter(&yaml).unwrap_or_else(|reason| {
            warnings.push(format!("front matter ignored: {reason}"));
            Metadata::default()
        }),
        None => Metadata::default(),
    };
    metadata.declared_relations.extend(walker.relations);
    (metadata, warnings)
}

struct Walker<'b> {
    builder: &'b mut DocumentBuilder,
    front_matter: Option<String>,
    in_metadata: bool,
    /// Open list items and footnote definitions: each is one block, however many paragraphs it holds.
    item_depth: usize,
    /// Per open Markdown link: whether it opened a link (e-mail autolinks do not), and how many inline
    /// `<a href>` tags were open outside it.
    markdown_links: Vec<(bool, usize)>,
    /// Inline `<a href>` tags not yet closed.
    html_links: usize,
    /// The tag name (`script`, `style`) whose inline content is being dropped, until its closing tag.
    hidden_until: Option<String>,
    /// An HTML block arrives line by line, but its elements span lines: it is laid out whole at its end.
    html_block: Option<String>,
    relations: Vec<DeclaredRelation>,
    table: Table,
}

/// The Markdown table being read: its header cells label every body row.
#[derive(Default)]
struct Table {
    header: Vec<HeaderCell>,
    in_head: bool,
    cell: HeaderCell,
    cell_index: usize,
    body_rows: usize,
}

/// A header cell's text with the links inside it, laid out again wherever the cell labels a value.
#[derive(Default)]
struct HeaderCell {
    text: String,
    links: Vec<HeaderLink>,
    open: Vec<HeaderLink>,
}

struct HeaderLink {
    target: String,
    kind: LinkKind,
    start: usize,
    end: usize,
}

impl HeaderCell {
    fn start_link(&mut self, target: &str, kind: LinkKind) {
        let at = self.text.len();
        self.open.push(HeaderLink { target: target.to_string(), kind, start: at, end: at });
    }

    fn end_link(&mut self) {
        if let Some(mut link) = self.open.pop() {
            link.end = self.text.len();
            self.links.push(link);
        }
    }

    /// Trims the text, keeping the links on the same characters; links left open are dropped.
    fn finish(mut self) -> Self {
        let leading = self.text.len() - self.text.trim_start().len();
        self.text = self.text.trim().to_string();
        let len = self.text.len();
        for link in &mut self.links {
            link.start = link.start.saturating_sub(leading).min(len);
            link.end = link.end.saturating_sub(leading).min(len);
        }
        self.links.sort_by_key(|link| link.start);
        self.open.clear();
        self
    }

    fn emit(&self, builder: &mut DocumentBuilder) {
        let mut at = 0;
        // Spans cannot be nested again from here: a link inside an earlier one (an `<a>` in a Markdown link)
        // is left out.
        for link in &self.links {
            if link.start < at {
                continue;
            }
            builder.push_text(&self.text[at..link.start]);
            builder.start_link(&link.target, link.kind);
            builder.push_text(&self.text[link.start..link.end]);
            builder.end_link();
            at = link.end;
        }
        builder.push_text(&self.text[at..]);
    }
}

impl<'b> Walker<'b> {
    fn new(builder: &'b mut DocumentBuilder) -> Self {
        Self {
            builder,
            front_matter: None,
            in_metadata: false,
            item_depth: 0,
            markdown_links: Vec::new(),
            html_links: 0,
            hidden_until: None,
            html_block: None,
            relations: Vec::new(),
            table: Table::default(),
        }
    }

    fn event(&mut self, event: Event) {
        match event {
            Event::Start(tag) => self.start(tag),
            Event::End(tag) => self.end(tag),
            Event::Text(text) if self.in_metadata => {
                self.front_matter.get_or_insert_with(String::new).push_str(&text);
            }
            Event::Text(text) | Event::Code(text) | Event::InlineMath(text) | Event::DisplayMath(text) => {
                self.text(&text)
            }
            Event::Html(html) => self.html_block.get_or_insert_with(String::new).push_str(&html),
            Event::InlineHtml(tag) => self.inline_html(&tag),
            Event::SoftBreak | Event::HardBreak => self.builder.push_break(),
            // A reference's label (`[^1]`) names nothing; the definition's text is kept where it stands.
            Event::FootnoteReference(_) | Event::TaskListMarker(_) => {}
            Event::Rule => self.builder.end_block(),
        }
    }

    fn text(&mut self, text: &str) {
        if self.hidden_until.is_some() {
            return;
        }
        if self.table.in_head {
            self.table.cell.text.push_str(text);
        } else {
            self.builder.push_text(text);
        }
    }

    fn start(&mut self, tag: Tag) {
        match tag {
            Tag::MetadataBlock(_) => self.in_metadata = true,
            Tag::Heading { level, .. } => self.builder.start_block(BlockKind::Heading { level: level as u8 }),
            Tag::Paragraph if self.item_depth == 0 => self.builder.start_block(BlockKind::Paragraph),
            // Paragraphs of one item share its block; a break keeps their words apart.
            Tag::Paragraph => self.builder.push_break(),
            Tag::Item => self.start_item(BlockKind::ListItem),
            Tag::FootnoteDefinition(_) => self.start_item(BlockKind::Paragraph),
            Tag::CodeBlock(_) => self.builder.start_block(BlockKind::Preformatted),
            Tag::HtmlBlock => self.html_block = Some(String::new()),
            Tag::Link { link_type, dest_url, .. } => self.start_markdown_link(link_type, &dest_url),
            Tag::Table(_) => self.table = Table::default(),
            Tag::TableHead => self.table.in_head = true,
            Tag::TableRow => {
                self.builder.start_block(BlockKind::TableRow);
                self.table.cell_index = 0;
                self.table.body_rows += 1;
            }
            Tag::TableCell => self.start_cell(),
            // An image's alt text arrives as text events and is kept; the image itself names no entity.
            _ => {}
        }
    }

    fn start_item(&mut self, kind: BlockKind) {
        self.item_depth += 1;
        self.builder.start_block(kind);
    }

    fn start_markdown_link(&mut self, link_type: LinkType, dest_url: &str) {
        let kind = match link_type {
            LinkType::WikiLink { .. } => LinkKind::Wiki,
            LinkType::Email => {
                self.markdown_links.push((false, self.html_links));
                return;
            }
            _ => LinkKind::Markdown,
        };
        self.markdown_links.push((true, self.html_links));
        self.open_link(dest_url, kind);
    }

    fn end_markdown_link(&mut self) {
        let Some((opened, html_links_outside)) = self.markdown_links.pop() else { return };
        // Links nest in the builder: `<a>` tags left open inside the link close before it.
        while self.html_links > html_links_outside {
            self.html_links -= 1;
            self.close_link();
        }
        if opened {
            self.close_link();
        }
    }

    fn open_link(&mut self, target: &str, kind: LinkKind) {
        if self.table.in_head {
            self.table.cell.start_link(target, kind);
        } else {
            self.builder.start_link(target, kind);
        }
    }

    fn close_link(&mut self) {
        if self.table.in_head {
            self.table.cell.end_link();
        } else {
            self.builder.end_link();
        }
    }

    fn start_cell(&mut self) {
        if self.table.in_head {
            self.table.cell = HeaderCell::default();
            return;
        }
        if self.table.cell_index > 0 {
            self.builder.push_text(";");
            self.builder.push_break();
        }
        if let Some(header) = self.table.header.get(self.table.cell_index).filter(|h| !h.text.is_empty()) {
            header.emit(self.builder);
            self.builder.push_text(": ");
            self.builder.push_break();
        }
    }

    /// Keeps the text between tags (pulldown-cmark delivers it as text events) but drops the content of
    /// `script`-like elements, and turns `<a href>` into a link.
    fn inline_html(&mut self, tag: &str) {
        let Some((closing, name)) = tag_name(tag) else { return };
        if let Some(hidden) = &self.hidden_until {
            if closing && *hidden == name {
                self.hidden_until = None;
            }
            return;
        }
        match (closing, name.as_str()) {
            (false, "a") => {
                if let Some(href) = html::anchor_href(tag) {
                    self.open_link(&href, LinkKind::Html);
                    self.html_links += 1;
                }
            }
            // A `</a>` closes only an `<a>` opened inside the innermost Markdown link, or outside any.
            (true, "a") if self.html_links > self.markdown_links.last().map_or(0, |link| link.1) => {
                self.html_links -= 1;
                self.close_link();
            }
            (false, "br") => self.builder.push_break(),
            (false, _) if html::hides_content(&name) && !tag.ends_with("/>") => self.hidden_until = Some(name),
            _ => {}
        }
    }

    fn end(&mut self, tag: TagEnd) {
        if !is_inline(tag) {
            self.close_inline_html();
        }
        match tag {
            TagEnd::MetadataBlock(_) => self.in_metadata = false,
            TagEnd::Heading(_) | TagEnd::CodeBlock => self.builder.end_block(),
            TagEnd::Paragraph if self.item_depth == 0 => self.builder.end_block(),
            TagEnd::Item | TagEnd::FootnoteDefinition => {
                self.item_depth = self.item_depth.saturating_sub(1);
                self.builder.end_block();
            }
            TagEnd::HtmlBlock => self.end_html_block(),
            TagEnd::Link => self.end_markdown_link(),
            TagEnd::Table => self.end_table(),
            TagEnd::TableHead => self.table.in_head = false,
            TagEnd::TableRow => self.builder.end_block(),
            TagEnd::TableCell if self.table.in_head => {
                let cell = std::mem::take(&mut self.table.cell).finish();
                self.table.header.push(cell);
            }
            TagEnd::TableCell => self.table.cell_index += 1,
            _ => {}
        }
    }

    /// Inline tags left open when their block ends close with it.
    fn close_inline_html(&mut self) {
        self.hidden_until = None;
        for _ in 0..std::mem::take(&mut self.html_links) {
            self.close_link();
        }
    }

    fn end_html_block(&mut self) {
        if let Some(block) = self.html_block.take() {
            let relations = html::parse_fragment(&block, self.builder);
            self.relations.extend(relations);
        }
    }

    /// A table without body rows has nothing its header could label: the header becomes the row.
    fn end_table(&mut self) {
        if self.table.body_rows > 0 {
            return;
        }
        self.builder.start_block(BlockKind::TableRow);
        for (index, cell) in self.table.header.iter().filter(|cell| !cell.text.is_empty()).enumerate() {
            if index > 0 {
                self.builder.push_text(";");
                self.builder.push_break();
            }
            cell.emit(self.builder);
        }
        self.builder.end_block();
    }
}

fn is_inline(tag: TagEnd) -> bool {
    matches!(
        tag,
        TagEnd::Emphasis
            | TagEnd::Strong
            | TagEnd::Strikethrough
            | TagEnd::Superscript
            | TagEnd::Subscript
            | TagEnd::Link
            | TagEnd::Image
    )
}

/// `<a href=..>` → `(false, "a")`, `</SCRIPT>` → `(true, "script")`; `None` for comments and the like.
fn tag_name(tag: &str) -> Option<(bool, String)> {
    let rest = tag.strip_prefix('<')?;
    let (closing, rest) = rest.strip_prefix('/').map_or((false, rest), |rest| (true, rest));
    let name: String = rest.chars().take_while(char::is_ascii_alphanumeric).collect();
    (!name.is_empty()).then(|| (closing, name.to_ascii_lowercase()))
}

/// Reads `title`, `aliases`, `type` and every other key whose values hold `[[Target]]` wiki links.
fn front_matter(yaml: &str) -> Result<Metadata, String> {
    let docs = YamlLoader::load_from_str(yaml).map_err(|e| format!("invalid YAML: {e}"))?;
    let Some(Yaml::Hash(map)) = docs.into_iter().next() else {
        return Ok(Metadata::default());
    };
    let mut metadata = Metadata::default();
    for (key, value) in map {
        let Some(key) = key.as_str().map(str::trim) else { continue };
        let values = scalar_strings(&value);
        match key.to_lowercase().as_str() {
            "title" => metadata.title = values.into_iter().next(),
            "aliases" | "alias" => metadata.aliases.extend(values),
            "type" | "category" | "kind" => metadata.type_hint = values.into_iter().next(),
            _ => {
                for target in values.iter().flat_map(|v| wiki_targets(v)) {
                    metadata.declared_relations.push(DeclaredRelation {
                        label: key.to_string(),
                        target,
                        origin: RelationOrigin::FrontMatter,
                    });
                }
            }
        }
    }
    Ok(metadata)
}

fn scalar_strings(value: &Yaml) -> Vec<String> {
    match value {
        Yaml::String(s) => vec![s.clone()],
        Yaml::Integer(i) => vec![i.to_string()],
        Yaml::Real(r) => vec![r.clone()],
        Yaml::Boolean(b) => vec![b.to_string()],
        // YAML reads an unquoted `[[Target]]` as a nested one-element list.
        Yaml::Array(items) => {
            let nested: Vec<String> = items.iter().flat_map(scalar_strings).collect();
            if items.len() == 1 && matches!(items[0], Yaml::Array(_)) && nested.len() == 1 {
                vec![format!("[[{}]]", nested[0])]
            } else {
                nested
            }
        }
        _ => Vec::new(),
    }
}

/// Targets of `[[Target]]` / `[[Target|shown]]` occurrences in a front-matter value.
pub fn wiki_targets(value: &str) -> Vec<String> {
    let mut targets = Vec::new();
    let mut rest = value;
    while let Some(open) = rest.find("[[") {
        let after = &rest[open + 2..];
        let Some(close) = after.find("]]") else { break };
        let inner = &after[..close];
        let target = inner.split('|').next().unwrap_or("").trim();
        if !target.is_empty() {
            targets.push(target.to_string());
        }
        rest = &after[close + 2..];
    }
    targets
}

#[cfg(test)]
mod tests {
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
            vec![
                ("launched_by", "Saturn V"),
                ("crew", "Neil Armstrong"),
                ("crew", "Buzz Aldrin"),
                ("destination", "Moon")
            ]
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
        let rows: Vec<&str> =
            doc.blocks.iter().filter(|b| b.kind == BlockKind::TableRow).map(|b| doc.slice(b.span)).collect();
        assert_eq!(rows, vec!["Moon: Phobos; Diameter: 22 km", "Moon: Deimos; Diameter: 12 km"]);
    }

    #[test]
    fn invalid_front_matter_is_a_warning_not_a_failure() {
        let (doc, warnings) = parse_doc("---\ntitle: [unclosed\n---\nBody text here.\n");
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert_eq!(doc.text, "Body text here.");
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
                (BlockKind::TableRow, "Moon: Phobos; Size: 22 km"),
                (BlockKind::TableRow, "Moon: Deimos; Size: 12 km"),
                (BlockKind::TableRow, "Deimos; Notes"),
            ]
        );
        assert_eq!(
            links(&doc),
            vec![
                ("mars.md", "Mars"),
                ("moon.md", "Moon"),
                ("moon.md", "Moon"),
                ("Deimos", "Deimos"),
                ("notes.md", "Notes")
            ]
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
}
