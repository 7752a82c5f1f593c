//! Vector retriever (seed 000): cosine between the query and every chunk's contextual text.

use super::query::ChunkList;
use super::reader::IndexReader;
use super::{Query, ScoredChunk};

/// What this retriever does, for the CLI's and the app's lists; built from its constants where it has them.
pub fn description() -> String {
    "cosine of query and chunk embeddings (seed 000)".to_string()
}

/// The `k` chunks nearest the query's vector (the chunk index: exact or HNSW), searched once for all a
/// question's retrievers; none for a query without one.
pub fn dense(index: &dyn IndexReader, query: Query<'_>, k: usize) -> Vec<ScoredChunk> {
    if !query.has_vector() {
        return Vec::new();
    }
    let search = || index.dense(query, k);
    match query.shared {
        Some(shared) => shared.chunks(ChunkList::Dense, (index, query), k, search),
        None => search(),
    }
}

#[cfg(test)]
mod tests {
    use crate::index::{QuantizedVectors, VectorIndex, VectorIndexKind};
    use crate::retrieve::FUSION_DEPTH;

    /// A search returns at most the HNSW index's `ef_search` results, and fusion reads `FUSION_DEPTH`.
    #[test]
    fn an_hnsw_index_returns_as_many_chunks_as_fusion_reads() {
        let mut store = QuantizedVectors::new(8);
        for i in 0..400u32 {
            let mut v: Vec<f32> = (0..8u32).map(|d| ((i * 7 + d * 13) % 17) as f32 - 7.5).collect();
            crate::embed::normalize(&mut v);
            store.push(&v).expect("eight dimensions");
        }
        let index = VectorIndex::build_kind(&store, (0..400).collect(), VectorIndexKind::Hnsw);
        assert_eq!(index.search(&store, &store.get(7), FUSION_DEPTH).len(), FUSION_DEPTH);
    }
}
