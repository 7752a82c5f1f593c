//! Answering by words over a whole index without the methods' machinery, as the engine by words does while
//! the embedding model loads: BM25's ranking grouped by document, and its trace, exactly as
//! `Method::Single(Retriever::Bm25).grouped` gives them. The page's module links neither the other
//! retrievers nor learned fusion's network through it.

use super::{DocumentHit, FUSION_DEPTH, Method, Query, Retrieval, Retriever, Trace, group_by_document};
use crate::store::IndexedCorpus;

/// As `Method::Single(Retriever::Bm25).grouped(index, …)`.
pub fn grouped(index: &IndexedCorpus, query: &str, documents: usize) -> (Vec<DocumentHit>, Trace) {
    let depth = FUSION_DEPTH.max(documents);
    let chunks = super::bm25(index, Query::new(query, &[]), depth);
    let run = Method::given(vec![(Retriever::Bm25, Retrieval { chunks, steps: Vec::new() })], index.copies(), depth);
    let corpus = index.corpus();
    let (chunks, trace) = run.trace(query, &|chunk| corpus.chunk_label(chunk), documents);
    (group_by_document(index, &chunks, documents), trace)
}
