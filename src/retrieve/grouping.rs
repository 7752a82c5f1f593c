//! Results grouped by document, as search engines group them: each document once, at its best chunk, with
//! its other chunks in the list behind it ("2 more from this document"). Retrievers rank chunks, and one
//! long chapter can take every place of a chunk list; a reader wants the places to name different documents.
//!
//! A passage quoted in another document (a forwarded mail, a copy kept in another folder) is one result: the
//! method ranks its original (`corpus::copies`), and the result says it is "also in" the documents that copy
//! it. (A document that only repeats others is not indexed at all: `corpus::containment`.)

use std::collections::HashMap;

use super::execute::Ranking;
use super::reader::IndexReader;
use super::{FUSION_DEPTH, ScoredChunk, Trace};
use crate::corpus::DocId;

/// A document's place in a grouped list: its best chunk, then its other chunks the list held, best first,
/// and the other documents that copy its best chunk's passage.
#[derive(Clone, Debug, PartialEq)]
pub struct DocumentHit {
    pub best: ScoredChunk,
    pub more: Vec<ScoredChunk>,
    pub also_in: Vec<DocId>,
}

/// How deep to rank chunks for `documents` documents: [`FUSION_DEPTH`] at least, so that a few long
/// documents still leave places for others.
pub fn document_depth(documents: usize) -> usize {
    FUSION_DEPTH.max(documents)
}

/// The first `documents` documents of a ranked chunk list, in the order of their best chunks, each with
/// the documents that copy its best chunk.
pub fn group_by_document<R: IndexReader + ?Sized>(
    index: &R,
    chunks: &[ScoredChunk],
    documents: usize,
) -> Vec<DocumentHit> {
    let copies = index.copies();
    let document_of = |chunk| index.document_of(chunk);
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

impl Ranking {
    /// The `documents` best documents, each at its best chunk with the others behind it, and the trace
    /// (showing `documents` chunks per list, labelled by `index`). Rank [`document_depth`] chunks for it.
    pub fn grouped(self, index: &dyn IndexReader, documents: usize) -> (Vec<DocumentHit>, Trace) {
        let (chunks, trace) = self.trace(index, documents);
        (group_by_document(index, &chunks, documents), trace)
    }
}
