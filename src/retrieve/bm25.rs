//! Okapi BM25 retriever (seed 004) over every chunk's contextual text.

use super::ScoredChunk;
use crate::store::IndexedCorpus;

pub fn bm25(index: &IndexedCorpus, query: &str, k: usize) -> Vec<ScoredChunk> {
    index.bm25.search(query, k).into_iter().map(ScoredChunk::from).collect()
}
