//! Planning an update (merge the new documents with the current index, check what is removed, find what
//! needs embedding) for [`super::pipeline`], and the views of an index every front end shows: results as
//! [`ChunkView`]s and documents as [`DocumentOutline`]s, so the CLI and the app show the same provenance.

use std::collections::{HashMap, HashSet};

use serde::{Deserialize, Serialize};

use crate::corpus::{ChunkId, Document, TokenCounter};
use crate::embed::ModelIdentity;
use crate::language::Language;

use super::builder::IndexBuilder;
use super::indexed::{IndexSettings, IndexedCorpus, Vectors};

/// Every name that designates the document `source`: the source itself and, for a JSONL record
/// `file.jsonl#id`, its file. Removal and the check for unknown names both go by this one rule.
pub fn names_of_source(source: &str) -> impl Iterator<Item = &str> {
    std::iter::once(source).chain(source.match_indices('#').map(|(at, _)| &source[..at]))
}

/// Current documents with `added` replacing same-source documents (or appended) and `removed` sources
/// dropped; removing `file.jsonl` drops every record `file.jsonl#id`. Linear in the number of documents.
pub fn merge_documents(current: &[Document], added: Vec<Document>, removed: &[String]) -> Vec<Document> {
    let removed: std::collections::HashSet<&str> = removed.iter().map(String::as_str).collect();
    let added_at: HashMap<String, usize> = added.iter().enumerate().map(|(i, d)| (d.source.clone(), i)).collect();
    let mut added: Vec<Option<Document>> = added.into_iter().map(Some).collect();
    let mut merged: Vec<Document> = Vec::with_capacity(current.len() + added.len());
    for doc in current.iter().filter(|d| !names_of_source(&d.source).any(|name| removed.contains(name))) {
        let replacement = added_at.get(&doc.source).and_then(|&i| added[i].take());
        merged.push(replacement.unwrap_or_else(|| doc.clone()));
    }
    merged.extend(added.into_iter().flatten());
    merged
}

/// Why an update cannot be made; the current index is left as it was.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize, thiserror::Error)]
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
    let vectors = previous.map_or(Vectors::Chunks, IndexedCorpus::vectors);
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
    Ok(IndexBuilder::new(documents, counter, model, settings, previous, vectors))
}

/// A fresh index of `documents` (nothing else of `vectors_from` is kept): texts embedded there by the
/// same model, a previous build of the same output, are not embedded again.
pub fn plan_index(
    documents: Vec<Document>,
    vectors_from: Option<&IndexedCorpus>,
    counter: &dyn TokenCounter,
    model: ModelIdentity,
    settings: IndexSettings,
    vectors: Vectors,
) -> Result<IndexBuilder, UpdateError> {
    if documents.is_empty() {
        return Err(UpdateError::NothingToIndex);
    }
    Ok(IndexBuilder::new(documents, counter, model, settings, vectors_from, vectors))
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
    /// Its document's language: what its excerpt is marked by.
    pub language: Language,
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
            language: document.language,
        }
    }
}

/// A document as its reader sees it: its sections in document order (the lead before the first heading
/// first, with no headings), each with its own chunks and, when a query is given, their relevance to it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DocumentOutline {
    pub source: String,
    pub title: String,
    pub sections: Vec<OutlineSection>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OutlineSection {
    /// The headings from the top of the document down to this section; empty for the lead.
    pub headings: Vec<String>,
    pub chunks: Vec<OutlineChunk>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OutlineChunk {
    pub chunk: ChunkId,
    pub label: String,
    pub text: String,
    /// Cosine similarity of the chunk's vector (context line and text) with the query's.
    pub relevance: Option<f32>,
}

impl IndexedCorpus {
    /// The outline of the document whose source is `source`, or `None` when no document has it. With
    /// `query`, a query vector, each chunk carries its cosine with it: what dense search saw of it.
    pub fn outline(&self, source: &str, query: Option<&[f32]>) -> Option<DocumentOutline> {
        let corpus = &self.corpus;
        let document = corpus.documents.iter().position(|d| d.source == source)? as u32;
        let chunk = |id: usize| OutlineChunk {
            chunk: id as ChunkId,
            label: corpus.chunk_label(id as ChunkId),
            text: corpus.chunk_text(id as ChunkId).to_string(),
            relevance: query.map(|q| self.embeddings.vectors().dot(q, self.rows.chunks[id])),
        };
        let in_document: Vec<usize> =
            (0..corpus.chunks.len()).filter(|&id| corpus.chunks[id].document == document).collect();
        let chunks_of = |section: Option<u32>| -> Vec<OutlineChunk> {
            in_document.iter().filter(|&&id| corpus.chunks[id].section == section).map(|&id| chunk(id)).collect()
        };
        let lead = OutlineSection { headings: Vec::new(), chunks: chunks_of(None) };
        let sections = (0..corpus.sections.len()).filter(|&id| corpus.sections[id].document == document).map(|id| {
            OutlineSection {
                headings: corpus.section_path(id as u32).into_iter().map(str::to_string).collect(),
                chunks: chunks_of(Some(id as u32)),
            }
        });
        let sections = std::iter::once(lead).filter(|lead| !lead.chunks.is_empty()).chain(sections).collect();
        let record = &corpus.documents[document as usize];
        Some(DocumentOutline { source: record.source.clone(), title: record.title.clone(), sections })
    }
}

#[cfg(test)]
mod tests;
