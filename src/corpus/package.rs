//! Zipped XML documents (DOCX, ODT, EPUB): their parts read from the archive (`zip`) with a size limit, so a
//! zip bomb is an error and not an exhausted tab, and parsed as XML (`roxmltree`); plus the few XML helpers
//! the three formats share.

use std::io::{Cursor, Read};

use roxmltree::{Document, Node, ParsingOptions};

use super::Malformed;
use super::document::Metadata;

/// The most bytes one part may inflate to, and all the parts of one file together (a PDF's compressed
/// streams too).
pub const MAX_PART_BYTES: u64 = 64 * 1024 * 1024;
pub const MAX_TOTAL_BYTES: u64 = 256 * 1024 * 1024;
/// The most XML nodes one part may have.
const MAX_NODES: u32 = 8_000_000;
/// Elements nested deeper than this are skipped by the walkers, which recurse: a document is never that
/// deep, and a crafted one must not exhaust the stack.
pub const MAX_NESTING: usize = 256;

pub const DUBLIN_CORE: &str = "http://purl.org/dc/elements/1.1/";

pub struct Package<'a> {
    archive: zip::ZipArchive<Cursor<&'a [u8]>>,
    kind: &'static str,
    /// Bytes inflated so far.
    inflated: u64,
}

impl<'a> Package<'a> {
    pub fn open(bytes: &'a [u8], kind: &'static str) -> Result<Self, Malformed> {
        let archive = zip::ZipArchive::new(Cursor::new(bytes)).map_err(|e| format!("not a valid {kind} file ({e})"))?;
        Ok(Package { archive, kind, inflated: 0 })
    }

    /// The part `name` as text; `None` when the archive has no such part.
    pub fn part(&mut self, name: &str) -> Result<Option<String>, Malformed> {
        let kind = self.kind;
        let mut file = match self.archive.by_name(name) {
            Ok(file) => file,
            Err(zip::result::ZipError::FileNotFound) => return Ok(None),
            Err(e) => return Err(format!("unreadable {kind} part {name}: {e}").into()),
        };
        // What one part may inflate to: its own limit, and what is left of the file's.
        let limit = MAX_PART_BYTES.min(MAX_TOTAL_BYTES.saturating_sub(self.inflated));
        if file.size() > limit {
            return Err(
                format!("{kind} part {name} inflates to {} bytes, above the limit of {limit}", file.size()).into()
            );
        }
        let mut bytes = Vec::new();
        (&mut file)
            .take(limit + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| format!("unreadable {kind} part {name}: {e}"))?;
        if bytes.len() as u64 > limit {
            return Err(format!("{kind} part {name} inflates past the limit of {limit} bytes").into());
        }
        self.inflated += bytes.len() as u64;
        String::from_utf8(bytes).map(Some).map_err(|_| Malformed(format!("{kind} part {name} is not UTF-8 XML")))
    }

    /// A part the format cannot do without.
    pub fn required(&mut self, name: &str) -> Result<String, Malformed> {
        let kind = self.kind;
        self.part(name)?.ok_or_else(|| Malformed(format!("not a valid {kind} file: {name} is missing")))
    }
}

/// A walker over XML that recurses once per element level, bounded by [`MAX_NESTING`].
pub trait Nested: Sized {
    /// Elements entered and not yet left.
    fn nesting(&mut self) -> &mut usize;

    /// Runs `walk` one level deeper, unless that is deeper than [`MAX_NESTING`].
    fn nested(&mut self, walk: impl FnOnce(&mut Self)) {
        *self.nesting() += 1;
        if *self.nesting() <= MAX_NESTING {
            walk(self);
        }
        *self.nesting() -= 1;
    }
}

/// A `Title`-styled paragraph's text becomes the document's title when it is the first with any text.
pub fn keep_first_title(title: &mut Option<String>, paragraph_text: &str) {
    let text = super::document::collapse_whitespace(paragraph_text);
    if title.is_none() && !text.is_empty() {
        *title = Some(text);
    }
}

/// Parses a part's XML; DTDs are allowed (EPUB 2's NCX has one), external entities are never fetched.
pub fn parse_xml<'x>(text: &'x str, part: &str) -> Result<Document<'x>, Malformed> {
    let options = ParsingOptions { allow_dtd: true, nodes_limit: MAX_NODES, ..ParsingOptions::default() };
    Document::parse_with_options(text, options).map_err(|e| Malformed(format!("{part} is not well-formed XML: {e}")))
}

/// The title (`dc:title`) and language (`dc:language`) a metadata part declares.
pub fn dublin_core(document: &Document) -> Metadata {
    Metadata {
        title: dublin_core_element(document, "title"),
        language: dublin_core_element(document, "language"),
        ..Metadata::default()
    }
}

/// The first `dc:<name>` in a metadata part, whitespace collapsed.
fn dublin_core_element(document: &Document, name: &str) -> Option<String> {
    document
        .descendants()
        .find(|n| n.has_tag_name((DUBLIN_CORE, name)))
        .map(|n| super::document::collapse_whitespace(&text_of(n)))
        .filter(|t| !t.is_empty())
}

/// All the text under a node.
pub fn text_of(node: Node) -> String {
    node.descendants().filter(Node::is_text).filter_map(|n| n.text()).collect()
}

/// Child elements of `node` named `name` in `namespace`.
pub fn children<'n, 'x>(node: Node<'n, 'x>, namespace: &'n str, name: &'n str) -> impl Iterator<Item = Node<'n, 'x>> {
    node.children().filter(move |n| n.has_tag_name((namespace, name)))
}
