//! Fusion of several retrievers' lists: reciprocal-rank fusion, and the equal-weight sum of scores
//! standardised within the query's candidate set (seed 000 §3.2.2's standardisation, nothing learned).

use std::collections::HashMap;

use super::ScoredChunk;
use crate::corpus::ChunkId;

/// Reciprocal-rank-fusion constant (`Σ 1 / (k + rank)`).
pub const RRF_K: f32 = 60.0;

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

fn sort_fused(mut fused: Vec<FusedChunk>, k: usize) -> Vec<FusedChunk> {
    fused.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.chunk.cmp(&b.chunk)));
    fused.truncate(k);
    fused
}

/// Every chunk in any list, with its 1-based rank in each.
fn candidates(lists: &[&[ScoredChunk]]) -> Vec<FusedChunk> {
    let mut fused: HashMap<ChunkId, FusedChunk> = HashMap::new();
    for (list_index, list) in lists.iter().enumerate() {
        for (position, hit) in list.iter().enumerate() {
            let entry = fused.entry(hit.chunk).or_insert_with(|| FusedChunk {
                chunk: hit.chunk,
                score: 0.0,
                ranks: vec![None; lists.len()],
            });
            entry.ranks[list_index] = Some(position + 1);
        }
    }
    fused.into_values().collect()
}

/// `Σ 1 / (RRF_K + rank)` over the lists in which a chunk appears.
pub fn reciprocal_rank_fusion(lists: &[&[ScoredChunk]], k: usize) -> Vec<FusedChunk> {
    let mut fused = candidates(lists);
    for entry in &mut fused {
        entry.score = entry.ranks.iter().flatten().map(|&rank| 1.0 / (RRF_K + rank as f32)).sum();
    }
    sort_fused(fused, k)
}

/// Scores of one list over the candidate set, standardised: a candidate the list did not return gets a
/// value just below the list's minimum (it ranked below everything the list returned), then
/// `(x - mean) / σ` within the set, 0 when σ = 0.
pub fn standardised_scores(list: &[ScoredChunk], candidates: &[ChunkId]) -> Vec<f32> {
    let by_chunk: HashMap<ChunkId, f32> = list.iter().map(|hit| (hit.chunk, hit.score)).collect();
    let (min, max) =
        list.iter().fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), h| (lo.min(h.score), hi.max(h.score)));
    let fill = if list.is_empty() { 0.0 } else { min - MISSING_MARGIN * (max - min).max(f32::EPSILON) };
    let raw: Vec<f32> = candidates.iter().map(|c| by_chunk.get(c).copied().unwrap_or(fill)).collect();
    let n = raw.len().max(1) as f32;
    let mean = raw.iter().sum::<f32>() / n;
    let sigma = (raw.iter().map(|x| (x - mean).powi(2)).sum::<f32>() / n).sqrt();
    raw.iter().map(|x| if sigma > 0.0 { (x - mean) / sigma } else { 0.0 }).collect()
}

/// How far below a list's lowest score a missing candidate is filled, as a fraction of the list's range.
const MISSING_MARGIN: f32 = 0.01;

/// Equal-weight sum of each list's standardised scores over the union of the lists.
pub fn standardised_sum(lists: &[&[ScoredChunk]], k: usize) -> Vec<FusedChunk> {
    let mut fused = candidates(lists);
    fused.sort_by_key(|f| f.chunk);
    let ids: Vec<ChunkId> = fused.iter().map(|f| f.chunk).collect();
    for list in lists {
        for (entry, z) in fused.iter_mut().zip(standardised_scores(list, &ids)) {
            entry.score += z;
        }
    }
    sort_fused(fused, k)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hits(pairs: &[(u32, f32)]) -> Vec<ScoredChunk> {
        pairs.iter().map(|&(chunk, score)| ScoredChunk { chunk, score }).collect()
    }

    #[test]
    fn rrf_rewards_agreement() {
        let a = hits(&[(1, 0.9), (2, 0.8)]);
        let b = hits(&[(2, 7.0), (3, 5.0)]);
        let fused = reciprocal_rank_fusion(&[&a, &b], 10);
        assert_eq!(fused.iter().map(|f| f.chunk).collect::<Vec<_>>(), vec![2, 1, 3]);
        assert!((fused[0].score - (1.0 / 62.0 + 1.0 / 61.0)).abs() < 1e-7);
        assert_eq!(fused[0].ranks, vec![Some(2), Some(1)]);
        assert_eq!(fused[2].describe_ranks(&["dense", "BM25"]), "dense – · BM25 #2");
    }

    /// List a scores chunks 1, 2 with 0.9, 0.5; candidates 1, 2, 3. Fill for 3 = 0.5 - 0.01 · 0.4 = 0.496.
    /// Values 0.9, 0.5, 0.496: mean 0.632, deviations 0.268, -0.132, -0.136, σ = sqrt(0.107744 / 3) = 0.1895115.
    #[test]
    fn standardisation_by_hand() {
        let z = standardised_scores(&hits(&[(1, 0.9), (2, 0.5)]), &[1, 2, 3]);
        let expected = [0.268 / 0.1895115, -0.132 / 0.1895115, -0.136 / 0.1895115];
        for (got, want) in z.iter().zip(expected) {
            assert!((got - want).abs() < 1e-4, "{z:?}");
        }
        assert_eq!(standardised_scores(&hits(&[(1, 0.3)]), &[1]), vec![0.0]);
    }

    #[test]
    fn standardised_sum_weighs_scores_not_ranks() {
        // Chunk 1 wins list a by a mile and is second in b by a hair: it beats 2, which RRF would tie.
        let a = hits(&[(1, 10.0), (2, 1.0), (3, 0.9)]);
        let b = hits(&[(2, 0.81), (1, 0.80), (3, 0.1)]);
        let fused = standardised_sum(&[&a, &b], 3);
        assert_eq!(fused.iter().map(|f| f.chunk).collect::<Vec<_>>(), vec![1, 2, 3]);
    }
}
