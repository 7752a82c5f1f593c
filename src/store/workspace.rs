//! The one pipeline every front end drives: parsed documents and removals in, an [`IndexBuilder`] out
//! (merge with the current index, structure, find what needs embedding), then the front end embeds at its
//! own pace (all cores natively, slices between browser frames) and finishes. Results come back as
//! [`ChunkView`]s, so the CLI and the app show the same provenance.

use std::collections::HashSet;

use serde::Serialize;

use crate::corpus::{ChunkId, Document, TokenCounter};
use crate::embed::ModelIdentity;

use super::{IndexBuilder, IndexSettings, IndexedCorpus, merge_documents, names_of_source};

/// Why an update cannot be made; the current index is left as it was.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum UpdateError {
    #[error("not in the index: {}", .0.join(", "))]
    UnknownSources(Vec<String>),
    #[error("no document could be indexed")]
    NothingToIndex,
    #[error("the index would have no documents left")]
    NothingLeft,
}

/// An update of `previous` (or a first index when `None`): `added` documents replace same-source ones or
/// join them, `removed` sources leave (a JSONL file's name removes all its records). Settings are the
/// previous index's unless `settings` overrides them. Only texts not embedded before are left to embed.
pub fn plan_update(
    previous: Option<&IndexedCorpus>,
    added: Vec<Document>,
    removed: &[String],
    counter: &dyn TokenCounter,
    model: ModelIdentity,
    settings: Option<IndexSettings>,
) -> Result<IndexBuilder, UpdateError> {
    let current = previous.map_or(&[][..], |p| p.corpus.documents.as_slice());
    let unknown = unknown_sources(current, removed);
    if !unknown.is_empty() {
        return Err(UpdateError::UnknownSources(unknown));
    }
    if previous.is_none() && added.is_empty() {
        return Err(UpdateError::NothingToIndex);
    }
    let documents = merge_documents(current, added, removed);
    if documents.is_empty() {
        return Err(UpdateError::NothingLeft);
    }
    let settings = settings.or_else(|| previous.map(|p| p.settings.clone())).unwrap_or_default();
    Ok(IndexBuilder::new(documents, counter, model, settings, previous))
}

/// A fresh index of `documents` (nothing else of `vectors_from` is kept): texts embedded there by the
/// same model, a previous build of the same output, are not embedded again.
pub fn plan_index(
    documents: Vec<Document>,
    vectors_from: Option<&IndexedCorpus>,
    counter: &dyn TokenCounter,
    model: ModelIdentity,
    settings: IndexSettings,
) -> Result<IndexBuilder, UpdateError> {
    if documents.is_empty() {
        return Err(UpdateError::NothingToIndex);
    }
    Ok(IndexBuilder::new(documents, counter, model, settings, vectors_from))
}

/// Names in `removed` that designate no document: neither a source nor the file of a record.
fn unknown_sources(current: &[Document], removed: &[String]) -> Vec<String> {
    let known: HashSet<&str> = current.iter().flat_map(|doc| names_of_source(&doc.source)).collect();
    removed.iter().filter(|name| !known.contains(name.as_str())).cloned().collect()
}

/// A retrieved chunk as every front end shows it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ChunkView {
    pub chunk: ChunkId,
    /// `Page › Section › #ordinal`.
    pub label: String,
    pub source: String,
    pub title: String,
    /// Character (not byte) range in the document text.
    pub chars: (usize, usize),
    pub page: Option<u32>,
    pub text: String,
}

impl IndexedCorpus {
    pub fn chunk_view(&self, chunk: ChunkId) -> ChunkView {
        let corpus = &self.corpus;
        let record = &corpus.chunks[chunk as usize];
        let document = &corpus.documents[record.document as usize];
        ChunkView {
            chunk,
            label: corpus.chunk_label(chunk),
            source: document.source.clone(),
            title: document.title.clone(),
            chars: document.char_span(record.span),
            page: record.page,
            text: corpus.chunk_text(chunk).to_string(),
        }
    }
}
