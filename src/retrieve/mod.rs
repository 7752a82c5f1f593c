//! Retrievers over an [`IndexedCorpus`] and their fusion. Each returns scored chunks, best first.

use std::collections::HashMap;

use crate::corpus::ChunkId;
use crate::embed::{EmbedError, TextEmbedder};
use crate::store::IndexedCorpus;

/// Reciprocal-rank-fusion constant (`Σ 1 / (k + rank)`).
pub const RRF_K: f32 = 60.0;
/// How deep each retriever's list goes before fusion.
const FUSION_DEPTH: usize = 100;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ScoredChunk {
    pub chunk: ChunkId,
    pub score: f32,
}

/// A fused result with the 1-based rank it had in each input list.
#[derive(Clone, Debug, PartialEq)]
pub struct FusedChunk {
    pub chunk: ChunkId,
    pub score: f32,
    pub ranks: Vec<Option<usize>>,
}

impl FusedChunk {
    /// `dense #2 · BM25 –`: where each named input list ranked this chunk.
    pub fn describe_ranks(&self, names: &[&str]) -> String {
        names
            .iter()
            .zip(&self.ranks)
            .map(|(name, rank)| rank.map_or(format!("{name} –"), |r| format!("{name} #{r}")))
            .collect::<Vec<_>>()
            .join(" · ")
    }
}

/// Names of the lists [`hybrid`] fuses, in the order of [`FusedChunk::ranks`].
pub const HYBRID_LISTS: [&str; 2] = ["dense", "BM25"];

/// Cosine similarity between the query and every chunk.
pub fn dense(index: &IndexedCorpus, query_vector: &[f32], k: usize) -> Vec<ScoredChunk> {
    index
        .chunk_index
        .search(index.embeddings.vectors(), query_vector, k)
        .into_iter()
        .map(|hit| ScoredChunk { chunk: hit.row, score: hit.score })
        .collect()
}

pub fn bm25(index: &IndexedCorpus, query: &str, k: usize) -> Vec<ScoredChunk> {
    index.bm25.search(query, k).into_iter().map(|hit| ScoredChunk { chunk: hit.row, score: hit.score }).collect()
}

/// `Σ 1 / (RRF_K + rank)` over the lists in which a chunk appears.
pub fn reciprocal_rank_fusion(lists: &[&[ScoredChunk]], k: usize) -> Vec<FusedChunk> {
    let mut fused: HashMap<ChunkId, FusedChunk> = HashMap::new();
    for (list_index, list) in lists.iter().enumerate() {
        for (position, hit) in list.iter().enumerate() {
            let entry = fused.entry(hit.chunk).or_insert_with(|| FusedChunk {
                chunk: hit.chunk,
                score: 0.0,
                ranks: vec![None; lists.len()],
            });
            entry.score += 1.0 / (RRF_K + position as f32 + 1.0);
            entry.ranks[list_index] = Some(position + 1);
        }
    }
    let mut fused: Vec<FusedChunk> = fused.into_values().collect();
    fused.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.chunk.cmp(&b.chunk)));
    fused.truncate(k);
    fused
}

/// Dense, BM25 and their RRF for one query.
pub struct HybridResult {
    pub dense: Vec<ScoredChunk>,
    pub bm25: Vec<ScoredChunk>,
    pub fused: Vec<FusedChunk>,
}

pub fn hybrid(
    index: &IndexedCorpus,
    embedder: &dyn TextEmbedder,
    query: &str,
    k: usize,
) -> Result<HybridResult, EmbedError> {
    let query_vector = embedder.embed(&[query])?.remove(0);
    let depth = FUSION_DEPTH.max(k);
    let dense_hits = dense(index, &query_vector, depth);
    let bm25_hits = bm25(index, query, depth);
    let fused = reciprocal_rank_fusion(&[&dense_hits, &bm25_hits], k);
    Ok(HybridResult {
        dense: dense_hits.into_iter().take(k).collect(),
        bm25: bm25_hits.into_iter().take(k).collect(),
        fused,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rrf_rewards_agreement() {
        let a = [ScoredChunk { chunk: 1, score: 0.9 }, ScoredChunk { chunk: 2, score: 0.8 }];
        let b = [ScoredChunk { chunk: 2, score: 7.0 }, ScoredChunk { chunk: 3, score: 5.0 }];
        let fused = reciprocal_rank_fusion(&[&a, &b], 10);
        assert_eq!(fused.iter().map(|f| f.chunk).collect::<Vec<_>>(), vec![2, 1, 3]);
        assert!((fused[0].score - (1.0 / 62.0 + 1.0 / 61.0)).abs() < 1e-7);
        assert_eq!(fused[0].ranks, vec![Some(2), Some(1)]);
        assert_eq!(fused[2].describe_ranks(&HYBRID_LISTS), "dense – · BM25 #2");
    }
}
