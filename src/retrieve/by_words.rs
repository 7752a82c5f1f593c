//! Answering by words over a whole index without the methods' machinery, as the engine by words does while
//! the embedding model loads: [`Method::Words`] (the default without dense: BM25, the community retriever
//! and the node-set join, each seeding from BM25) grouped by document, and its trace, exactly as
//! `Method::Words.grouped` gives them. It runs those three retrievers itself, so the page's module links
//! neither the others nor learned fusion's network.

use super::{
    DocumentHit, FUSION_DEPTH, Method, Query, Retrieval, Retriever, SharedSearches, Trace, bm25, community,
    group_by_document, join,
};
use crate::store::IndexedCorpus;

/// As `Method::Words.grouped(index, …)`.
pub fn grouped(index: &IndexedCorpus, query: &str, documents: usize) -> (Vec<DocumentHit>, Trace) {
    let shared = SharedSearches::default();
    let words = Query::new(query, &[]).sharing(&shared);
    let bm25 = Retrieval { chunks: bm25(index, words, FUSION_DEPTH), steps: Vec::new() };
    let inputs = vec![
        (Retriever::Bm25, bm25),
        (Retriever::Community, community(index, words, FUSION_DEPTH)),
        (Retriever::Join, join(index, words, FUSION_DEPTH)),
    ];
    let corpus = index.corpus();
    let document = |chunk: u32| corpus.chunks[chunk as usize].document;
    let run = Method::given_words(inputs, &document, index.copies(), FUSION_DEPTH.max(documents));
    let (chunks, trace) = run.trace(query, &|chunk| corpus.chunk_label(chunk), documents);
    (group_by_document(index, &chunks, documents), trace)
}
