//! The fusions that need no training: (weighted) reciprocal-rank fusion and the (weighted) sum of scores
//! standardised within the query's candidate set, and the fused chunk every fusion produces.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use crate::corpus::ChunkId;
use crate::retrieve::scored::ScoredChunk;

/// Reciprocal-rank-fusion constant (`Σ 1 / (k + rank)`).
pub const RRF_K: f32 = 60.0;

/// How several ranked lists become one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Fusion {
    /// `Σ w / (RRF_K + rank)` over the lists in which a chunk appears.
    Rrf,
    /// `Σ w · z`, z a list's score standardised within the query's candidate set (seed 000 §3.2.2).
    Zsum,
}

impl Fusion {
    pub fn name(self) -> &'static str {
        match self {
            Fusion::Rrf => "rrf",
            Fusion::Zsum => "zsum",
        }
    }

    /// The `k` best candidates of `lists` (weighted by `weights`, one per list), with what each list gave.
    pub fn fuse(self, lists: &[&[ScoredChunk]], weights: &[f32], k: usize) -> Vec<FusedChunk> {
        let mut fused = candidates(lists);
        match self {
            Fusion::Rrf => {
                for entry in &mut fused {
                    entry.features = entry.ranks.iter().map(|r| r.map_or(0.0, |r| 1.0 / (RRF_K + r as f32))).collect();
                }
            }
            Fusion::Zsum => standardise(lists, &mut fused),
        }
        for entry in &mut fused {
            entry.score = entry.features.iter().zip(weights).map(|(f, w)| f * w).sum();
        }
        best_first(fused, k)
    }
}

/// A fused result with each input list's 1-based rank and raw score (`None` where the list missed it), the
/// per-list features the fusion combined, and the fused score.
#[derive(Clone, Debug, PartialEq)]
pub struct FusedChunk {
    pub chunk: ChunkId,
    pub score: f32,
    pub ranks: Vec<Option<usize>>,
    pub scores: Vec<Option<f32>>,
    pub features: Vec<f32>,
}

impl From<&FusedChunk> for ScoredChunk {
    fn from(fused: &FusedChunk) -> Self {
        ScoredChunk { chunk: fused.chunk, score: fused.score }
    }
}

impl FusedChunk {
    /// `dense #2 · BM25 –`: where each named input list ranked this chunk.
    pub fn describe_ranks(&self, names: &[&str]) -> String {
        describe_ranks(names, &self.ranks)
    }
}

/// `dense #2 · BM25 –`: where each named input list ranked a chunk.
pub fn describe_ranks(names: &[&str], ranks: &[Option<usize>]) -> String {
    let parts: Vec<String> = names
        .iter()
        .zip(ranks)
        .map(|(name, rank)| rank.map_or(format!("{name} –"), |r| format!("{name} #{r}")))
        .collect();
    parts.join(" · ")
}

/// Every chunk in any list, with its rank and score in each, in chunk order.
fn candidates(lists: &[&[ScoredChunk]]) -> Vec<FusedChunk> {
    let mut fused: HashMap<ChunkId, FusedChunk> = HashMap::new();
    for (list_index, list) in lists.iter().enumerate() {
        for (position, hit) in list.iter().enumerate() {
            let entry = fused.entry(hit.chunk).or_insert_with(|| FusedChunk {
                chunk: hit.chunk,
                score: 0.0,
                ranks: vec![None; lists.len()],
                scores: vec![None; lists.len()],
                features: vec![0.0; lists.len()],
            });
            if entry.ranks[list_index].is_none() {
                entry.ranks[list_index] = Some(position + 1);
                entry.scores[list_index] = Some(hit.score);
            }
        }
    }
    let mut fused: Vec<FusedChunk> = fused.into_values().collect();
    fused.sort_by_key(|f| f.chunk);
    fused
}

/// Every candidate of `lists` with each list's standardised score as its features (seed 000's inputs to
/// learned fusion), in chunk order.
pub fn standardised_candidates(lists: &[&[ScoredChunk]]) -> Vec<FusedChunk> {
    let mut fused = candidates(lists);
    standardise(lists, &mut fused);
    fused
}

fn standardise(lists: &[&[ScoredChunk]], fused: &mut [FusedChunk]) {
    let ids: Vec<ChunkId> = fused.iter().map(|f| f.chunk).collect();
    for (list_index, list) in lists.iter().enumerate() {
        for (entry, z) in fused.iter_mut().zip(standardised_scores(list, &ids)) {
            entry.features[list_index] = z;
        }
    }
}

/// The `k` best of `fused` by score, ties by chunk id.
pub(crate) fn best_first(mut fused: Vec<FusedChunk>, k: usize) -> Vec<FusedChunk> {
    fused.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.chunk.cmp(&b.chunk)));
    fused.truncate(k);
    fused
}

/// Unweighted RRF of `lists`.
pub fn reciprocal_rank_fusion(lists: &[&[ScoredChunk]], k: usize) -> Vec<FusedChunk> {
    Fusion::Rrf.fuse(lists, &vec![1.0; lists.len()], k)
}

/// Equal-weight sum of each list's standardised scores over the union of the lists.
pub fn standardised_sum(lists: &[&[ScoredChunk]], k: usize) -> Vec<FusedChunk> {
    Fusion::Zsum.fuse(lists, &vec![1.0; lists.len()], k)
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
        assert_eq!(fused[0].scores, vec![Some(0.8), Some(7.0)]);
    }

    #[test]
    fn weights_scale_each_list() {
        let a = hits(&[(1, 0.9), (2, 0.8)]);
        let b = hits(&[(2, 7.0), (1, 5.0)]);
        // Equal weights tie 1 and 2; doubling b's weight puts b's winner first, by exactly 1/61 - 1/62.
        let fused = Fusion::Rrf.fuse(&[&a, &b], &[1.0, 2.0], 2);
        assert_eq!(fused[0].chunk, 2);
        assert!((fused[0].score - fused[1].score - (1.0 / 61.0 - 1.0 / 62.0)).abs() < 1e-6);
        let z = Fusion::Zsum.fuse(&[&a, &b], &[0.0, 1.0], 2);
        assert_eq!(z[0].chunk, 2);
        assert_eq!(z[0].features.len(), 2);
        assert!((z[0].score - z[0].features[1]).abs() < 1e-6);
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
