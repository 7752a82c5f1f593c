//! Okapi BM25 retriever (seed 004) over every chunk's contextual text.

use super::shared::ChunkList;
use super::{Query, ScoredChunk};
use crate::store::IndexedCorpus;

/// The `k` chunks BM25 scores best for the query's text.
pub fn bm25(index: &IndexedCorpus, query: Query<'_>, k: usize) -> Vec<ScoredChunk> {
    let search = || index.bm25().search(query.text, k).into_iter().map(ScoredChunk::from).collect();
    match query.shared {
        Some(shared) => shared.chunks(ChunkList::Lexical, (index, query), k, search),
        None => search(),
    }
}
