//! Answering by words without the methods' machinery, as the engine by words does while the embedding model
//! loads: [`Method::Words`] (the default without dense: BM25, the community retriever and the node-set join,
//! each seeding from BM25), over the whole index or over its fragments on a static site
//! (`over_fragments`), exactly as `Method::Words.grouped` ranks. It runs those three retrievers itself, so
//! the page's module links neither the others nor learned fusion's network.

use super::reader::IndexReader;
use super::{
    DocumentHit, FUSION_DEPTH, GivenRun, Method, Query, Retrieval, Retriever, SharedSearches, Trace, community,
    group_by_document, join,
};
use crate::store::IndexedCorpus;

/// As `Method::Words.grouped(index, …)`.
pub fn grouped(index: &IndexedCorpus, query: &str, documents: usize) -> (Vec<DocumentHit>, Trace) {
    let corpus = index.corpus();
    let (chunks, trace) = run(index, query, documents).trace(query, &|chunk| corpus.chunk_label(chunk), documents);
    (group_by_document(index, &chunks, documents), trace)
}

/// [`Method::Words`]'s run for `query` over `index`, ranked `documents` deep at least, before its trace is
/// labelled.
pub(crate) fn run(index: &dyn IndexReader, query: &str, documents: usize) -> GivenRun {
    let shared = SharedSearches::default();
    let words = Query::new(query, &[]).sharing(&shared);
    let bm25 = Retrieval { chunks: index.lexical(words, FUSION_DEPTH), steps: Vec::new() };
    let inputs = vec![
        (Retriever::Bm25, bm25),
        (Retriever::Community, community(index, words, FUSION_DEPTH)),
        (Retriever::Join, join(index, words, FUSION_DEPTH)),
    ];
    let document = |chunk| index.document_of(chunk);
    Method::given_words(inputs, &document, index.copies(), FUSION_DEPTH.max(documents))
}
