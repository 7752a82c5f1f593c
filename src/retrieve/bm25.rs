//! Okapi BM25 retriever (seed 004) over every chunk's contextual text.

use super::query::ChunkList;
use super::reader::IndexReader;
use super::{Query, ScoredChunk};

/// What this retriever does, for the CLI's and the app's lists; built from its constants where it has them.
pub fn description() -> String {
    let crate::index::bm25::Bm25Params { k1, b } = crate::index::bm25::Bm25Params::default();
    format!("Okapi BM25 (k1 {k1}, b {b}), English analyzer (seed 004)")
}

/// The `k` chunks BM25 scores best for the query's text, searched once for all a question's retrievers.
pub fn bm25(index: &dyn IndexReader, query: Query<'_>, k: usize) -> Vec<ScoredChunk> {
    let search = || index.lexical(query, k);
    match query.shared {
        Some(shared) => shared.chunks(ChunkList::Lexical, (index, query), k, search),
        None => search(),
    }
}
