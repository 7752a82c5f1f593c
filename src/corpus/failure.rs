//! Why a file could not be read into documents, in words that name the file and the reason.

use std::fmt;

use serde::{Deserialize, Serialize};

/// Why a file could not be ingested.
#[derive(Clone, Debug, PartialEq, thiserror::Error, Serialize, Deserialize)]
pub enum IngestFailure {
    #[error("the file is empty")]
    Empty,
    #[error("the file is {bytes} bytes, above the limit of {limit} bytes")]
    TooLarge { bytes: usize, limit: usize },
    #[error("binary content where {format} text was expected")]
    Binary { format: std::borrow::Cow<'static, str> },
    #[error(
        "unsupported file type `{extension}` (supported: md, markdown, txt, html, htm, csv, tsv, pdf, jsonl, docx, odt, epub)"
    )]
    Unsupported { extension: String },
    #[error("{0}")]
    Malformed(String),
    #[error("no text could be extracted")]
    NoText,
    /// A redirect stub: a page whose only content sends the reader to another address.
    #[error("a redirect to {target}, not indexed")]
    Redirect { target: String },
    /// The file could not be read at all (missing, a folder, no permission): the reader's own words.
    #[error("{0}")]
    Unreadable(String),
}

/// Why a file's content could not be read as its format, in the format parser's words (`not a valid DOCX
/// file: word/document.xml is missing`); becomes [`IngestFailure::Malformed`] for that file.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Malformed(pub String);

impl From<String> for Malformed {
    fn from(reason: String) -> Self {
        Malformed(reason)
    }
}

impl From<&str> for Malformed {
    fn from(reason: &str) -> Self {
        Malformed(reason.to_string())
    }
}

impl From<Malformed> for IngestFailure {
    fn from(malformed: Malformed) -> Self {
        IngestFailure::Malformed(malformed.0)
    }
}

/// A failure that names its file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
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
