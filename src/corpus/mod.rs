//! Ingest and structure: files in any supported format become [`Document`]s (normalised text with block
//! and link spans), and a set of documents becomes a [`Corpus`]: the section tree, token-bounded chunks,
//! entities, mentions and relations that the knowledge graph is made of.

mod build;
pub mod chunking;
pub mod document;
mod entities;
mod html;
mod jsonl;
mod markdown;
pub mod path;
mod pdf;
mod table;
mod text;

pub use build::{
    Chunk, ChunkId, Corpus, DocId, Entity, EntityId, Mention, Relation, RelationSource, RelationType, RelationTypeId,
    Section, SectionId,
};
pub use chunking::TokenCounter;
pub use document::{Document, Format, Span};
pub use entities::Gazetteer;

use serde::{Deserialize, Serialize};
use std::fmt;

/// One input file as the user supplied it.
#[derive(Clone, Debug)]
pub struct SourceFile {
    /// A normalised relative path (or absolute where nothing better is known).
    pub path: String,
    pub bytes: Vec<u8>,
}

impl SourceFile {
    /// `path` is normalised ([`path::normalize`]): it is the document's identity.
    pub fn new(path: impl AsRef<str>, bytes: impl Into<Vec<u8>>) -> Self {
        Self { path: path::normalize(path.as_ref()), bytes: bytes.into() }
    }
}

/// Settings that shape ingest and structure; stored in every snapshot.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CorpusSettings {
    /// Short neighbouring paragraphs are merged into one chunk up to this many word-pieces.
    pub chunk_target_tokens: usize,
    /// Hard limit per chunk, special tokens included: the embedder reads no more.
    pub chunk_max_tokens: usize,
    /// Dictionary matches of titles shorter than this many characters are ignored.
    pub min_mention_chars: usize,
    /// Largest phrase, in words, that links two mentions in one sentence into a relation.
    pub max_relation_phrase_words: usize,
    /// Connecting phrases are grouped by their stemmed content words; the most frequent groups (seen at
    /// least twice) up to this many become relation types, the rest `related_to`.
    pub max_phrase_relation_types: usize,
    /// Files larger than this are refused with an error instead of exhausting memory.
    pub max_file_bytes: usize,
}

impl Default for CorpusSettings {
    fn default() -> Self {
        Self {
            chunk_target_tokens: 192,
            chunk_max_tokens: 256,
            min_mention_chars: 4,
            max_relation_phrase_words: 8,
            max_phrase_relation_types: 256,
            max_file_bytes: 64 * 1024 * 1024,
        }
    }
}

/// Why a file could not be ingested.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum IngestFailure {
    #[error("the file is empty")]
    Empty,
    #[error("the file is {bytes} bytes, above the limit of {limit} bytes")]
    TooLarge { bytes: usize, limit: usize },
    #[error("binary content where {format} text was expected")]
    Binary { format: &'static str },
    #[error("not valid UTF-8 text (first invalid byte at offset {offset})")]
    NotUtf8 { offset: usize },
    #[error("unsupported file type `{extension}` (supported: md, markdown, txt, html, htm, csv, tsv, pdf, jsonl)")]
    Unsupported { extension: String },
    #[error("{0}")]
    Malformed(String),
    #[error("no text could be extracted")]
    NoText,
}

/// A failure that names its file.
#[derive(Clone, Debug, PartialEq)]
pub struct IngestError {
    pub file: String,
    pub failure: IngestFailure,
}

impl fmt::Display for IngestError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.file, self.failure)
    }
}

impl std::error::Error for IngestError {}

/// Documents read from one file, with non-fatal problems (a skipped CSV row, a malformed JSONL line).
#[derive(Debug, Default)]
pub struct ParsedFile {
    pub documents: Vec<Document>,
    pub warnings: Vec<String>,
}

/// What ingesting many files produced: every good document, and one error per bad file.
#[derive(Debug, Default)]
pub struct IngestReport {
    pub documents: Vec<Document>,
    pub errors: Vec<IngestError>,
    /// `(file, message)` pairs.
    pub warnings: Vec<(String, String)>,
}

/// Parses every file independently: one bad file never loses the others.
pub fn ingest(files: &[SourceFile], settings: &CorpusSettings) -> IngestReport {
    let mut report = IngestReport::default();
    for file in files {
        report.add(file, settings);
    }
    report
}

impl IngestReport {
    /// Parses one more file into the report (the browser's engine worker goes file by file, to report
    /// progress and to know which file a crash came from).
    pub fn add(&mut self, file: &SourceFile, settings: &CorpusSettings) {
        match parse_file(file, settings) {
            Ok(parsed) => {
                self.documents.extend(parsed.documents);
                self.warnings.extend(parsed.warnings.into_iter().map(|w| (file.path.clone(), w)));
            }
            Err(error) => self.errors.push(error),
        }
    }
}

pub fn detect_format(path: &str, bytes: &[u8]) -> Result<Format, IngestFailure> {
    let extension = path.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase()).unwrap_or_default();
    Ok(match extension.as_str() {
        "md" | "markdown" | "mdown" | "mkd" => Format::Markdown,
        "html" | "htm" | "xhtml" => Format::Html,
        "txt" | "text" => Format::Text,
        "csv" => Format::Csv,
        "tsv" | "tab" => Format::Tsv,
        "pdf" => Format::Pdf,
        "jsonl" | "ndjson" => Format::Jsonl,
        _ if bytes.starts_with(b"%PDF-") => Format::Pdf,
        _ => {
            return Err(IngestFailure::Unsupported {
                extension: if extension.is_empty() { "(none)".into() } else { extension },
            });
        }
    })
}

pub fn parse_file(file: &SourceFile, settings: &CorpusSettings) -> Result<ParsedFile, IngestError> {
    let fail = |failure| IngestError { file: file.path.clone(), failure };
    if file.bytes.is_empty() {
        return Err(fail(IngestFailure::Empty));
    }
    if file.bytes.len() > settings.max_file_bytes {
        return Err(fail(IngestFailure::TooLarge { bytes: file.bytes.len(), limit: settings.max_file_bytes }));
    }
    let format = detect_format(&file.path, &file.bytes).map_err(fail)?;
    let parsed = parse_known_format(file, format).map_err(fail)?;
    if parsed.documents.is_empty() || parsed.documents.iter().all(|d| d.blocks.is_empty()) {
        return Err(fail(IngestFailure::NoText));
    }
    Ok(parsed)
}

fn parse_known_format(file: &SourceFile, format: Format) -> Result<ParsedFile, IngestFailure> {
    let hash = document::content_hash(&file.bytes);
    let fallback_title = document::title_from_file_name(&file.path);
    let single = |builder: document::DocumentBuilder, metadata, warnings| ParsedFile {
        documents: vec![builder.finish(file.path.clone(), hash, format, metadata, &fallback_title)],
        warnings,
    };
    let mut builder = document::DocumentBuilder::new();
    match format {
        Format::Pdf => {
            pdf::parse(&file.bytes, &mut builder).map_err(IngestFailure::Malformed)?;
            Ok(single(
                builder,
                document::Metadata { title: Some(fallback_title.clone()), ..Default::default() },
                vec![],
            ))
        }
        Format::Markdown => {
            let (metadata, warnings) = markdown::parse(as_text(&file.bytes, "Markdown")?, &mut builder);
            Ok(single(builder, metadata, warnings))
        }
        Format::Html => {
            let metadata = html::parse(as_text(&file.bytes, "HTML")?, &mut builder);
            Ok(single(builder, metadata, vec![]))
        }
        Format::Text => {
            text::parse(as_text(&file.bytes, "plain")?, None, &mut builder);
            Ok(single(builder, document::Metadata::default(), vec![]))
        }
        Format::Csv | Format::Tsv => {
            let delimiter = if format == Format::Csv { b',' } else { b'\t' };
            let section = file.path.rsplit(['/', '\\']).next().unwrap_or(&file.path);
            let warnings = table::parse(as_text(&file.bytes, "CSV")?, delimiter, section, &mut builder)
                .map_err(IngestFailure::Malformed)?;
            Ok(single(
                builder,
                document::Metadata { title: Some(fallback_title.clone()), ..Default::default() },
                warnings,
            ))
        }
        Format::Jsonl => jsonl_documents(file, as_text(&file.bytes, "JSONL")?),
    }
}

fn jsonl_documents(file: &SourceFile, text: &str) -> Result<ParsedFile, IngestFailure> {
    let (records, mut warnings) = jsonl::records(text);
    if records.is_empty() {
        let first = warnings.first().cloned().unwrap_or_else(|| "no records".into());
        return Err(IngestFailure::Malformed(format!("no valid JSONL record ({first})")));
    }
    let mut documents = Vec::with_capacity(records.len());
    for record in records {
        let mut builder = document::DocumentBuilder::new();
        text::parse(&record.text, None, &mut builder);
        if builder.is_empty() {
            warnings.push(format!("record `{}` has no text", record.id));
            continue;
        }
        let untitled = record.title.trim().is_empty();
        let title = if untitled { record.id.clone() } else { record.title };
        let metadata = document::Metadata { title: Some(title), ..Default::default() };
        let source = format!("{}#{}", file.path, record.id);
        let mut document =
            builder.finish(source, document::content_hash(record.line.as_bytes()), Format::Jsonl, metadata, &record.id);
        document.title_is_identifier = untitled;
        documents.push(document);
    }
    Ok(ParsedFile { documents, warnings })
}

fn as_text<'a>(bytes: &'a [u8], format: &'static str) -> Result<&'a str, IngestFailure> {
    let sample = &bytes[..bytes.len().min(8192)];
    if sample.contains(&0) {
        return Err(IngestFailure::Binary { format });
    }
    let text = std::str::from_utf8(bytes).map_err(|e| IngestFailure::NotUtf8 { offset: e.valid_up_to() })?;
    Ok(text.strip_prefix('\u{feff}').unwrap_or(text))
}
