//! Files into documents: each file's format detected and its parser run, guarded so that one bad file is
//! one error and never costs the others, and the report of a batch (documents, errors, warnings, copies
//! left out, languages).

use serde::{Deserialize, Serialize};

use super::document::{self, Document, Format};
use super::failure::{IngestError, IngestFailure, Malformed};
use super::source::{CorpusSettings, SourceFile};
use super::{docx, encoding, epub, html, jsonl, markdown, odt, pdf, table, text};

/// Documents read from one file, with non-fatal problems (a skipped CSV row, a malformed JSONL line).
#[derive(Debug, Default, Serialize, Deserialize)]
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
    /// Documents left out as copies of another, as `(file, the source kept)`; also among the warnings.
    pub duplicates: Vec<(String, String)>,
    /// Every document read, with the language it was read as: the report's languages line, which stays
    /// when the documents move into an index.
    pub languages: Vec<(String, crate::language::Language)>,
    /// Each document's content hash, and where it is in `documents`.
    seen: std::collections::HashMap<[u8; 16], usize>,
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
    ///
    /// A document identical to one already read (the same bytes under another path) is reported and kept
    /// once, so it is embedded once and never answers twice.
    pub fn add(&mut self, file: &SourceFile, settings: &CorpusSettings) {
        self.add_parsed(&file.path, parse_file(file, settings));
    }

    /// One more file's outcome, parsed elsewhere (natively, the CLI parses each file in a child process).
    pub fn add_parsed(&mut self, file: &str, parsed: Result<ParsedFile, IngestError>) {
        match parsed {
            Ok(parsed) => {
                self.warnings.extend(parsed.warnings.into_iter().map(|w| (file.to_string(), w)));
                for document in parsed.documents {
                    match self.seen.get(&document.content_hash) {
                        Some(&first) => {
                            let kept = self.documents[first].source.clone();
                            self.warnings.push((document.source.clone(), duplicate_note(&kept)));
                            self.duplicates.push((document.source, kept));
                        }
                        None => {
                            self.seen.insert(document.content_hash, self.documents.len());
                            self.languages.push((document.source.clone(), document.language));
                            self.documents.push(document);
                        }
                    }
                }
            }
            Err(error) => self.errors.push(error),
        }
    }

    /// Drops documents whose content an index already holds under another source that stays (not removed,
    /// not replaced by this update), each with a warning; returns those warnings.
    pub fn drop_indexed_duplicates(&mut self, indexed: &[Document], removed: &[String]) -> Vec<(String, String)> {
        let replaced: std::collections::HashSet<String> = self.documents.iter().map(|d| d.source.clone()).collect();
        let removed: std::collections::HashSet<&str> = removed.iter().map(String::as_str).collect();
        let indexed_sources: std::collections::HashSet<&str> = indexed.iter().map(|d| d.source.as_str()).collect();
        let staying: std::collections::HashMap<[u8; 16], &str> = indexed
            .iter()
            .filter(|d| !removed.contains(d.source.as_str()) && !replaced.contains(&d.source))
            .map(|d| (d.content_hash, d.source.as_str()))
            .collect();
        let mut dropped = Vec::new();
        // A new version of an indexed document is kept even when it now equals another: dropping it would
        // leave its old version in the index.
        self.documents.retain(|document| match staying.get(&document.content_hash) {
            Some(first) if *first != document.source && !indexed_sources.contains(document.source.as_str()) => {
                dropped.push((document.source.clone(), first.to_string()));
                false
            }
            _ => true,
        });
        self.seen = self.documents.iter().enumerate().map(|(i, d)| (d.content_hash, i)).collect();
        self.duplicates.extend(dropped.iter().cloned());
        let notes: Vec<(String, String)> =
            dropped.into_iter().map(|(copy, kept)| (copy, duplicate_note(&kept))).collect();
        self.warnings.extend(notes.iter().cloned());
        notes
    }
}

pub(super) fn duplicate_note(first: &str) -> String {
    format!("the same content as {first}: indexed once, as {first}")
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
        "docx" => Format::Docx,
        "odt" => Format::Odt,
        "epub" => Format::Epub,
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
    let parsed = parse_guarded(file, format).map_err(fail)?;
    if parsed.documents.is_empty() || parsed.documents.iter().all(|d| d.blocks.is_empty()) {
        return Err(fail(IngestFailure::NoText));
    }
    Ok(parsed)
}

/// [`parse_known_format`], where a parser's panic (a library's bug on a malformed file: pdf-extract has
/// them) fails this file only. Natively the unwind is caught here, so one bad file cannot take the others
/// down; the process-wide panic hook is left alone (swapping it would race with every other thread). In the
/// browser a panic aborts the module: there, the page restarts its engine worker and skips the file.
fn parse_guarded(file: &SourceFile, format: Format) -> Result<ParsedFile, IngestFailure> {
    let parse = || parse_known_format(file, format);
    #[cfg(not(target_arch = "wasm32"))]
    let parsed = std::panic::catch_unwind(std::panic::AssertUnwindSafe(parse)).unwrap_or_else(|_| {
        Err(IngestFailure::Malformed(format!("unreadable {}: the file is malformed", format_name(format))))
    });
    #[cfg(target_arch = "wasm32")]
    let parsed = parse();
    parsed
}

/// A format as a message names it.
#[cfg(not(target_arch = "wasm32"))]
fn format_name(format: Format) -> &'static str {
    match format {
        Format::Pdf => "PDF",
        Format::Docx => "DOCX",
        Format::Odt => "ODT",
        Format::Epub => "EPUB",
        Format::Tsv => "TSV",
        other => text_format_name(other),
    }
}

fn parse_known_format(file: &SourceFile, format: Format) -> Result<ParsedFile, IngestFailure> {
    let packaged = match format {
        Format::Pdf => {
            Some(pdf::parse as fn(&[u8], &mut document::DocumentBuilder) -> Result<document::Metadata, Malformed>)
        }
        Format::Docx => Some(docx::parse as _),
        Format::Odt => Some(odt::parse as _),
        Format::Epub => Some(epub::parse as _),
        _ => None,
    };
    if let Some(parse) = packaged {
        let mut builder = document::DocumentBuilder::new();
        let metadata = parse(&file.bytes, &mut builder)?;
        return Ok(single_document(file, format, builder, metadata, Vec::new()));
    }
    let decoded = encoding::decode(&file.bytes, text_format_name(format))?;
    let text = decoded.text.as_ref();
    let mut parsed = if format == Format::Jsonl {
        jsonl_documents(file, text)?
    } else {
        let mut builder = document::DocumentBuilder::new();
        let (metadata, warnings) = parse_text_format(file, format, text, &mut builder)?;
        single_document(file, format, builder, metadata, warnings)
    };
    parsed.warnings.extend(decoded.assumed);
    Ok(parsed)
}

fn text_format_name(format: Format) -> &'static str {
    match format {
        Format::Markdown => "Markdown",
        Format::Html => "HTML",
        Format::Csv | Format::Tsv => "CSV",
        Format::Jsonl => "JSONL",
        Format::Text | Format::Pdf | Format::Docx | Format::Odt | Format::Epub => "plain",
    }
}

/// One text file's single document: its metadata, and the problems met on the way.
fn parse_text_format(
    file: &SourceFile,
    format: Format,
    text: &str,
    builder: &mut document::DocumentBuilder,
) -> Result<(document::Metadata, Vec<String>), IngestFailure> {
    Ok(match format {
        Format::Markdown => markdown::parse(text, builder),
        Format::Html => (html::parse(text, builder)?, Vec::new()),
        Format::Csv | Format::Tsv => {
            let delimiter = if format == Format::Csv { b',' } else { b'\t' };
            let section = file.path.rsplit(['/', '\\']).next().unwrap_or(&file.path);
            let warnings = table::parse(text, delimiter, section, builder)?;
            let title = Some(document::title_from_file_name(&file.path));
            (document::Metadata { title, ..Default::default() }, warnings)
        }
        _ => {
            text::parse(text, None, builder);
            (document::Metadata::default(), Vec::new())
        }
    })
}

fn single_document(
    file: &SourceFile,
    format: Format,
    builder: document::DocumentBuilder,
    metadata: document::Metadata,
    warnings: Vec<String>,
) -> ParsedFile {
    let hash = document::content_hash(&file.bytes);
    let fallback_title = document::title_from_file_name(&file.path);
    let mut warnings = warnings;
    warnings.extend(builder.cut_short_warning());
    ParsedFile { documents: vec![builder.finish(file.path.clone(), hash, format, metadata, &fallback_title)], warnings }
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
