//! CommonMark with YAML front matter, `[text](target)` links and `[[Target|alias]]` wiki links. Footnote
//! definitions, image alt text and the visible text and links of raw HTML are kept.

use pulldown_cmark::{Event, LinkType, Options, Parser, Tag, TagEnd};

use super::document::{BlockKind, DeclaredRelation, DocumentBuilder, LinkKind, Metadata};
use super::html;

mod front_matter;

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
        Some(yaml) => front_matter::read(&yaml).unwrap_or_else(|reason| {
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
    /// The cell of the table row being read: a table's header row is one block, said once, and each row
    /// another.
    cell_index: usize,
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
            cell_index: 0,
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
        self.builder.push_text(text);
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
            Tag::TableHead => self.start_row(BlockKind::TableHeader),
            Tag::TableRow => self.start_row(BlockKind::TableRow),
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
        self.builder.start_link(dest_url, kind);
    }

    fn end_markdown_link(&mut self) {
        let Some((opened, html_links_outside)) = self.markdown_links.pop() else { return };
        // Links nest in the builder: `<a>` tags left open inside the link close before it.
        while self.html_links > html_links_outside {
            self.html_links -= 1;
            self.builder.end_link();
        }
        if opened {
            self.builder.end_link();
        }
    }

    fn start_row(&mut self, kind: BlockKind) {
        self.builder.start_block(kind);
        self.cell_index = 0;
    }

    fn start_cell(&mut self) {
        if self.cell_index > 0 {
            self.builder.push_text(";");
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
                    self.builder.start_link(&href, LinkKind::Html);
                    self.html_links += 1;
                }
            }
            // A `</a>` closes only an `<a>` opened inside the innermost Markdown link, or outside any.
            (true, "a") if self.html_links > self.markdown_links.last().map_or(0, |link| link.1) => {
                self.html_links -= 1;
                self.builder.end_link();
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
            TagEnd::TableHead | TagEnd::TableRow => self.builder.end_block(),
            TagEnd::TableCell => self.cell_index += 1,
            _ => {}
        }
    }

    /// Inline tags left open when their block ends close with it.
    fn close_inline_html(&mut self) {
        self.hidden_until = None;
        for _ in 0..std::mem::take(&mut self.html_links) {
            self.builder.end_link();
        }
    }

    fn end_html_block(&mut self) {
        if let Some(block) = self.html_block.take() {
            let relations = html::parse_fragment(&block, self.builder);
            self.relations.extend(relations);
        }
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

#[cfg(test)]
mod tests;
