//! A file as it arrives (its normalised path is the document's identity), and the settings that read the
//! files into a corpus.

use serde::{Deserialize, Serialize};

use super::path;

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
