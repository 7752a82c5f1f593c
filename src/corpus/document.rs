//! The laid-out document every parser produces: one normalised plain text with typed block spans and link
//! spans into it. Chunks, mentions and provenance are all byte ranges of this one string, so a document's
//! text is stored once.
//!
//! Over 400 lines: the document model and the one builder every parser writes it with, whose invariants (spans inside the text, blocks in order) are kept in one place.

use serde::{Deserialize, Serialize};

use crate::language::{Language, SAMPLE_CHARS};

/// A byte range `[start, end)` into a document's text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Span {
    pub start: u32,
    pub end: u32,
}

impl Span {
    pub fn new(start: usize, end: usize) -> Self {
        Self { start: start as u32, end: end as u32 }
    }
    pub fn range(self) -> std::ops::Range<usize> {
        self.start as usize..self.end as usize
    }
    pub fn len(self) -> usize {
        (self.end - self.start) as usize
    }
    pub fn is_empty(self) -> bool {
        self.start == self.end
    }
    pub fn contains(self, other: Span) -> bool {
        self.start <= other.start && other.end <= self.end
    }
    pub fn overlaps(self, other: Span) -> bool {
        self.start < other.end && other.start < self.end
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum BlockKind {
    Heading {
        level: u8,
    },
    Paragraph,
    ListItem,
    /// A table row's values, `value; value; ...`: rows merge with the rows beside them under their header.
    TableRow,
    Preformatted,
    /// A table's header row, `label; label; ...`, said once: every chunk of the rows under it carries it in
    /// its context. Last, so that snapshots written before it decode as they were.
    TableHeader,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TextBlock {
    pub kind: BlockKind,
    pub span: Span,
    /// 1-based page number for paginated sources (PDF).
    pub page: Option<u32>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum LinkKind {
    Markdown,
    Wiki,
    Html,
}

/// A hyperlink as written: `span` covers its anchor text.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Link {
    pub target: String,
    pub kind: LinkKind,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum RelationOrigin {
    FrontMatter,
    Infobox,
}

/// A relation the author stated explicitly (`key: [[Target]]` in front matter, an infobox row).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DeclaredRelation {
    pub label: String,
    pub target: String,
    pub origin: RelationOrigin,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Format {
    Markdown,
    Html,
    Text,
    Csv,
    Tsv,
    Pdf,
    Jsonl,
    Docx,
    Odt,
    Epub,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Document {
    /// File path, or `path#id` for a record of a JSONL corpus.
    pub source: String,
    /// Hash of the bytes this document came from: an unchanged file is recognised on re-index.
    pub content_hash: [u8; 16],
    pub format: Format,
    pub title: String,
    /// True when the title is only a record id (a JSONL record without a title): it says nothing about the
    /// content, so it is left out of the chunks' searchable context.
    pub title_is_identifier: bool,
    pub aliases: Vec<String>,
    pub type_hint: Option<String>,
    pub declared_relations: Vec<DeclaredRelation>,
    pub text: String,
    pub blocks: Vec<TextBlock>,
    pub links: Vec<Link>,
    /// What its words are analysed as (`language`): declared by the file, or read from its text.
    pub language: Language,
}

impl Document {
    pub fn slice(&self, span: Span) -> &str {
        &self.text[span.range()]
    }

    /// Character (not byte) offsets of a span, for display and provenance.
    pub fn char_span(&self, span: Span) -> (usize, usize) {
        let start = self.text[..span.start as usize].chars().count();
        (start, start + self.slice(span).chars().count())
    }
}

/// Everything a parser found except the laid-out text.
#[derive(Clone, Debug, Default)]
pub struct Metadata {
    pub title: Option<String>,
    /// The language the file says it is in, as written (`de-AT`, `fr`).
    pub language: Option<String>,
    pub aliases: Vec<String>,
    pub type_hint: Option<String>,
    pub declared_relations: Vec<DeclaredRelation>,
}

const BLOCK_SEPARATOR: &str = "\n\n";

/// Accumulates normalised text and spans while a parser walks its input.
///
/// Inline whitespace is collapsed to single spaces and blocks are trimmed, so every format yields the same
/// shape of text whatever its source formatting.
#[derive(Debug, Default)]
pub struct DocumentBuilder {
    text: String,
    blocks: Vec<TextBlock>,
    links: Vec<Link>,
    open_block: Option<OpenBlock>,
    open_links: Vec<(String, LinkKind, usize)>,
    pending_space: bool,
    page: Option<u32>,
    /// Added to every heading level from now on (an EPUB chapter's headings under its contents entry).
    heading_offset: i8,
    /// Bytes of link targets recorded so far.
    link_bytes: usize,
    /// Whether text was left out past [`MAX_TEXT_BYTES`].
    cut_short: bool,
}

/// Bytes of text one document may hold: a package inflates (a DOCX to 256 MiB of XML) and tables repeat
/// their labels, so a small file could otherwise produce gigabytes. 32 MiB is five million words, twenty
/// thousand chunks: reading it takes seconds, embedding it a quarter of an hour on two cores; the largest
/// real documents here (a 4.4 MB all-in-one book) hold a tenth of it.
pub const MAX_TEXT_BYTES: usize = 32 * 1024 * 1024;

/// The longest link target kept: browsers and servers stop near 8 KB; a longer one is data, not an address.
pub const MAX_LINK_TARGET_BYTES: usize = 8 * 1024;
/// Bytes of link targets one document may record: one long target used by every link of a small compressed
/// file (a DOCX relationship, a Markdown reference) would otherwise be copied gigabytes of times.
pub const MAX_LINK_BYTES: usize = 8 * 1024 * 1024;

#[derive(Debug)]
struct OpenBlock {
    kind: BlockKind,
    text_len_before: usize,
    content_start: usize,
    preserve_whitespace: bool,
}

impl DocumentBuilder {
    pub fn new() -> Self {
        Self::default()
    }

    /// Page number attached to blocks started from now on.
    pub fn set_page(&mut self, page: Option<u32>) {
        self.page = page;
    }

    /// Headings started from now on are `offset` levels deeper (or shallower), within 1..=6.
    pub fn set_heading_offset(&mut self, offset: i8) {
        self.heading_offset = offset;
    }

    pub fn start_block(&mut self, kind: BlockKind) {
        self.end_block();
        let kind = match kind {
            BlockKind::Heading { level } => {
                BlockKind::Heading { level: (level as i8).saturating_add(self.heading_offset).clamp(1, 6) as u8 }
            }
            other => other,
        };
        let text_len_before = self.text.len();
        if !self.text.is_empty() {
            self.text.push_str(BLOCK_SEPARATOR);
        }
        self.open_block = Some(OpenBlock {
            kind,
            text_len_before,
            content_start: self.text.len(),
            preserve_whitespace: kind == BlockKind::Preformatted,
        });
        self.pending_space = false;
    }

    pub fn end_block(&mut self) {
        let Some(block) = self.open_block.take() else { return };
        self.close_links_at(self.text.len());
        let trimmed_end = block.content_start + self.text[block.content_start..].trim_end().len();
        self.text.truncate(trimmed_end);
        if trimmed_end == block.content_start {
            self.text.truncate(block.text_len_before);
            // This block's links were recorded after every earlier one: they are a suffix of the list, and
            // dropping them from the end keeps an empty block's cost independent of the document's links.
            while self.links.last().is_some_and(|link| link.span.start as usize >= block.text_len_before) {
                self.links.pop();
            }
            return;
        }
        self.blocks.push(TextBlock {
            kind: block.kind,
            span: Span::new(block.content_start, trimmed_end),
            page: self.page,
        });
        self.pending_space = false;
    }

    pub fn heading(&mut self, level: u8, title: &str) {
        self.start_block(BlockKind::Heading { level });
        self.push_text(title);
        self.end_block();
    }

    pub fn paragraph(&mut self, kind: BlockKind, text: &str) {
        self.start_block(kind);
        self.push_text(text);
        self.end_block();
    }

    pub fn in_block(&self) -> bool {
        self.open_block.is_some()
    }

    pub fn push_text(&mut self, fragment: &str) {
        if self.open_block.is_none() {
            self.start_block(BlockKind::Paragraph);
        }
        let preserve = self.open_block.as_ref().is_some_and(|b| b.preserve_whitespace);
        let room = MAX_TEXT_BYTES.saturating_sub(self.text.len());
        let fragment = if fragment.len() > room {
            self.cut_short = true;
            let mut cut = room;
            while !fragment.is_char_boundary(cut) {
                cut -= 1;
            }
            &fragment[..cut]
        } else {
            fragment
        };
        for ch in fragment.chars() {
            if preserve {
                // Code blocks keep their layout, but no other control characters reach the stored text.
                if !ch.is_control() || ch == '\n' || ch == '\t' {
                    self.text.push(ch);
                }
            } else if ch.is_whitespace() || ch.is_control() {
                self.pending_space = true;
            } else {
                let block_has_content = self.open_block.as_ref().is_some_and(|b| self.text.len() > b.content_start);
                if self.pending_space && block_has_content {
                    self.text.push(' ');
                }
                self.pending_space = false;
                self.text.push(ch);
            }
        }
    }

    /// A soft separator (table cell boundary, `<br>`): a space unless whitespace is preserved.
    pub fn push_break(&mut self) {
        if self.open_block.as_ref().is_some_and(|b| b.preserve_whitespace) {
            self.text.push('\n');
        } else {
            self.pending_space = true;
        }
    }

    /// A link's anchor text starts here. A target longer than [`MAX_LINK_TARGET_BYTES`], or past the
    /// document's [`MAX_LINK_BYTES`], links nothing (its anchor text stays).
    pub fn start_link(&mut self, target: &str, kind: LinkKind) {
        if self.open_block.is_none() {
            self.start_block(BlockKind::Paragraph);
        }
        let target = target.trim();
        let allowed = target.len() <= MAX_LINK_TARGET_BYTES && self.link_bytes + target.len() <= MAX_LINK_BYTES;
        self.link_bytes += if allowed { target.len() } else { 0 };
        self.open_links.push((if allowed { target.to_string() } else { String::new() }, kind, self.text.len()));
    }

    pub fn end_link(&mut self) {
        if let Some((target, kind, start)) = self.open_links.pop() {
            self.record_link(target, kind, start, self.text.len());
        }
    }

    fn close_links_at(&mut self, end: usize) {
        while let Some((target, kind, start)) = self.open_links.pop() {
            self.record_link(target, kind, start, end);
        }
    }

    fn record_link(&mut self, target: String, kind: LinkKind, start: usize, end: usize) {
        let end = end.min(self.text.len());
        let start = start.min(end);
        let anchor = &self.text[start..end];
        let leading = anchor.len() - anchor.trim_start().len();
        let trailing = anchor.len() - anchor.trim_end().len();
        let span = Span::new(start + leading, end - trailing);
        // A whitespace-only anchor in preformatted text trims to an inverted span: nothing to record.
        if target.is_empty() || span.start >= span.end {
            return;
        }
        self.links.push(Link { target, kind, span });
    }

    pub fn is_empty(&self) -> bool {
        self.blocks.is_empty() && self.open_block.is_none()
    }

    /// The warning for a document whose text passed [`MAX_TEXT_BYTES`], if it did.
    pub fn cut_short_warning(&self) -> Option<String> {
        self.cut_short
            .then(|| format!("its text passes {} MiB: only the first {0} MiB are indexed", MAX_TEXT_BYTES >> 20))
    }

    /// The first of the top-level headings: the conventional title of a Markdown or HTML page is its `h1`,
    /// and a page that starts at `h2` is named by its first `h2`.
    pub fn first_heading(&self) -> Option<String> {
        let level = |b: &TextBlock| match b.kind {
            BlockKind::Heading { level } => Some(level),
            _ => None,
        };
        let top = self.blocks.iter().filter_map(level).min()?;
        self.blocks.iter().find(|b| level(b) == Some(top)).map(|b| self.text[b.span.range()].to_string())
    }

    /// About [`SAMPLE_CHARS`] of the document's paragraphs and list items, taken evenly from all of them:
    /// what its language is read from (a table of contents, code or a table of commands says little).
    fn prose_sample(&self) -> String {
        let prose: Vec<&str> = (self.blocks.iter())
            .filter(|b| matches!(b.kind, BlockKind::Paragraph | BlockKind::ListItem))
            .map(|b| &self.text[b.span.range()])
            .collect();
        let total: usize = prose.iter().map(|text| text.len()).sum();
        let every = (total / SAMPLE_CHARS).max(1);
        let mut sample = String::new();
        for text in prose.iter().step_by(every) {
            sample.push_str(text);
            sample.push('\n');
        }
        if sample.is_empty() { self.text.clone() } else { sample }
    }

    pub fn finish(
        mut self,
        source: String,
        content_hash: [u8; 16],
        format: Format,
        metadata: Metadata,
        fallback_title: &str,
    ) -> Document {
        self.end_block();
        let title = metadata
            .title
            .filter(|t| !t.trim().is_empty())
            .or_else(|| self.first_heading())
            .unwrap_or_else(|| fallback_title.to_string());
        let language = Language::of(metadata.language.as_deref(), &self.prose_sample());
        Document {
            language,
            source,
            content_hash,
            format,
            title: soften_capitals(&bounded_name(&collapse_whitespace(&title))),
            title_is_identifier: false,
            aliases: metadata
                .aliases
                .iter()
                .map(|a| bounded_name(&collapse_whitespace(a)))
                .filter(|a| !a.is_empty())
                .collect(),
            type_hint: metadata.type_hint.map(|t| bounded_name(&collapse_whitespace(&t))).filter(|t| !t.is_empty()),
            declared_relations: metadata.declared_relations,
            text: self.text,
            blocks: self.blocks,
            links: self.links,
        }
    }
}

/// Characters a title, heading, alias or type may have. A name joins the search text of every chunk under
/// it and is tokenised with each: a megabyte-long "title" (a paragraph marked as a heading, a crafted
/// file) would make structuring quadratic. No real title comes near it.
pub const MAX_NAME_CHARS: usize = 300;

/// `name` cut after [`MAX_NAME_CHARS`] characters (at a word where there is one) and marked `…`; as it is
/// when shorter.
pub fn bounded_name(name: &str) -> String {
    let Some((cut, _)) = name.char_indices().nth(MAX_NAME_CHARS) else { return name.to_string() };
    let kept = &name[..cut];
    let kept = kept.rfind(char::is_whitespace).filter(|&space| space > cut / 2).map_or(kept, |space| &kept[..space]);
    format!("{kept}…")
}

/// `THE SOLAR SYSTEM` → `The Solar System`: all-caps headings of plain text make poor entity names.
/// Single words stay as written: they are usually acronyms (`NASA`).
fn soften_capitals(title: &str) -> String {
    if !title.contains(' ') || title.chars().any(char::is_lowercase) {
        return title.to_string();
    }
    title
        .split(' ')
        .map(|word| {
            let mut chars = word.chars();
            chars.next().map(|first| first.to_string() + &chars.as_str().to_lowercase()).unwrap_or_default()
        })
        .collect::<Vec<_>>()
        .join(" ")
}

pub fn collapse_whitespace(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `solar_system-notes.md` → `solar system notes`: a readable title from a file name.
pub fn title_from_file_name(path: &str) -> String {
    let name = path.rsplit(['/', '\\']).next().unwrap_or(path);
    let stem = name.rsplit_once('.').map_or(name, |(stem, _)| if stem.is_empty() { name } else { stem });
    let readable = collapse_whitespace(&stem.replace(['_', '-'], " "));
    if readable.is_empty() { name.to_string() } else { readable }
}

pub fn content_hash(bytes: &[u8]) -> [u8; 16] {
    let digest = blake3::hash(bytes);
    let mut out = [0u8; 16];
    out.copy_from_slice(&digest.as_bytes()[..16]);
    out
}

#[cfg(test)]
mod tests;
