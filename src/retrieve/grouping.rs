//! Results grouped by document, as search engines group them: each document once, at its best chunk, with
//! its other chunks in the list behind it ("2 more from this document"). Retrievers rank chunks, and one
//! long chapter can take every place of a chunk list; a reader wants the places to name different documents.
//!
//! A passage quoted in another document (a forwarded mail, a copy kept in another folder) is one result: the
//! method ranks its original (`corpus::copies`), and the result says it is "also in" the documents that copy
//! it. (A document that only repeats others is not indexed at all: `corpus::containment`.)

use std::collections::HashMap;

use super::{FUSION_DEPTH, Method, Query, ScoredChunk, Trace};
use crate::corpus::copies::Copies;
use crate::corpus::{ChunkId, DocId};
use crate::store::IndexedCorpus;

/// A document's place in a grouped list: its best chunk, then its other chunks the list held, best first,
/// and the other documents that copy its best chunk's passage.
#[derive(Clone, Debug, PartialEq)]
pub struct DocumentHit {
    pub best: ScoredChunk,
    pub more: Vec<ScoredChunk>,
    pub also_in: Vec<DocId>,
}

/// The first `documents` documents of a ranked chunk list, in the order of their best chunks, each with
/// the documents that copy its best chunk.
pub fn group_by_document(index: &IndexedCorpus, chunks: &[ScoredChunk], documents: usize) -> Vec<DocumentHit> {
    let corpus = index.corpus();
    group_chunks(&|chunk| corpus.chunks[chunk as usize].document, index.copies(), chunks, documents)
}

/// As [`group_by_document`], for an index known by each chunk's document and the copies alone (the engine
/// by words, over an index's fragments).
pub fn group_chunks(
    document_of: &dyn Fn(ChunkId) -> DocId,
    copies: &Copies,
    chunks: &[ScoredChunk],
    documents: usize,
) -> Vec<DocumentHit> {
    let mut hits: Vec<DocumentHit> = Vec::new();
    let mut place: HashMap<DocId, usize> = HashMap::new();
    for &chunk in chunks {
        let document = document_of(chunk.chunk);
        match place.get(&document) {
            Some(&at) => hits[at].more.push(chunk),
            None if hits.len() < documents => {
                place.insert(document, hits.len());
                let mut also_in: Vec<DocId> = Vec::new();
                for copy in copies.copies_of(chunk.chunk).iter().map(|&c| document_of(c)) {
                    if copy != document && !also_in.contains(&copy) {
                        also_in.push(copy);
                    }
                }
                hits.push(DocumentHit { best: chunk, more: Vec::new(), also_in });
            }
            None => {}
        }
    }
    hits
}

impl Method {
    /// The `documents` best documents for `query`, each at its best chunk with the others behind it, and
    /// the trace (showing `documents` chunks per list). The method ranks [`FUSION_DEPTH`] chunks, so that
    /// a few long documents still leave places for others.
    pub fn grouped(&self, index: &IndexedCorpus, query: Query<'_>, documents: usize) -> (Vec<DocumentHit>, Trace) {
        let (chunks, trace) = self.trace(index, query, FUSION_DEPTH.max(documents), documents);
        (group_by_document(index, &chunks, documents), trace)
    }
}
