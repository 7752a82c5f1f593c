//! Across documents: each community's vector (the PageRank-weighted mean of its chunks) and extractive
//! summary, and its links to the most similar communities of other documents, exactly or through HNSW.

use crate::corpus::Corpus;
use crate::index::vectors::dot;
use crate::index::{HnswParams, QuantizedVectors, VectorIndex};

use super::documents::percentile;
use super::parts::{ChunkGraphSettings, Community, CommunityLink};

/// Each community's PageRank-weighted mean chunk vector, normalised. A mean rather than the embedding of
/// the summary text: the embedder reads 256 word-pieces, so a summary of several chunks would be cut to
/// its first, while the mean speaks for every chunk.
pub(super) fn community_vectors(
    communities: &[Community],
    chunk_vectors: &[&[f32]],
    pagerank: &[f32],
    dimension: usize,
) -> Vec<Vec<f32>> {
    communities
        .iter()
        .map(|community| {
            let mut mean = vec![0f32; dimension];
            for &chunk in &community.chunks {
                for (m, x) in mean.iter_mut().zip(chunk_vectors[chunk as usize]) {
                    *m += pagerank[chunk as usize] * x;
                }
            }
            let norm = dot(&mean, &mean).sqrt();
            if norm > 0.0 {
                mean.iter_mut().for_each(|m| *m /= norm);
            }
            mean
        })
        .collect()
}

pub(super) fn summary_text(corpus: &Corpus, community: &Community, chunks: usize) -> String {
    let texts: Vec<String> = community.chunks.iter().take(chunks).map(|&c| corpus.chunk_search_text(c)).collect();
    texts.join("\n")
}

/// Each community's `links_per_community` most similar communities of other documents, by an exact scan
/// over every pair.
pub(super) fn nearest_communities_exactly(
    communities: &[Community],
    vectors: &[Vec<f32>],
    settings: &ChunkGraphSettings,
) -> Vec<Vec<CommunityLink>> {
    let keep = settings.links_per_community;
    let mut nearest: Vec<Vec<CommunityLink>> = vec![Vec::new(); communities.len()];
    for a in 0..communities.len() {
        for b in a + 1..communities.len() {
            if communities[a].document != communities[b].document {
                offer_both(&mut nearest, a, b, dot(&vectors[a], &vectors[b]), keep);
            }
        }
    }
    nearest
}

/// As [`nearest_communities_exactly`], each community asking an HNSW index over every community vector
/// for its nearest instead: linear in the communities rather than quadratic, at the HNSW index's recall.
pub(super) fn nearest_communities_approximately(
    communities: &[Community],
    vectors: &[Vec<f32>],
    stored: &QuantizedVectors,
    settings: &ChunkGraphSettings,
) -> Vec<Vec<CommunityLink>> {
    // Cheaper than the chunk index's: a link is a hint for the coarse search, not an answer, so 95 % of the
    // exact neighbours found at a quarter of the build time is the better trade (docs/BENCHMARKS.md's sweep).
    let params = HnswParams { ef_construction: 32, ef_search: 64 };
    let keep = settings.links_per_community;
    let index = VectorIndex::build_hnsw(stored, (0..communities.len() as u32).collect(), params);
    let mut pairs: Vec<(usize, usize, f32)> = Vec::new();
    for (a, vector) in vectors.iter().enumerate() {
        // Every candidate the search examined: communities of the same document may crowd the first `keep`.
        let hits = index.search(stored, vector, params.ef_search);
        let others = hits.into_iter().filter(|hit| communities[hit.id as usize].document != communities[a].document);
        pairs.extend(others.take(keep).map(|hit| (a.min(hit.id as usize), a.max(hit.id as usize), hit.score)));
    }
    // Each pair once, as the exact scan offers it, however many of its two ends found it.
    pairs.sort_by_key(|&(a, b, _)| (a, b));
    pairs.dedup_by_key(|&mut (a, b, _)| (a, b));
    let mut nearest: Vec<Vec<CommunityLink>> = vec![Vec::new(); communities.len()];
    for (a, b, similarity) in pairs {
        offer_both(&mut nearest, a, b, similarity, keep);
    }
    nearest
}

/// Offers the link between communities `a` and `b` to both, so links are symmetric candidates.
pub(super) fn offer_both(nearest: &mut [Vec<CommunityLink>], a: usize, b: usize, similarity: f32, keep: usize) {
    if similarity > 0.0 {
        offer(&mut nearest[a], CommunityLink { community: b as u32, similarity }, keep);
        offer(&mut nearest[b], CommunityLink { community: a as u32, similarity }, keep);
    }
}

/// The candidate links kept above the calibrated threshold, and that threshold.
pub(super) fn keep_links_above_percentile(
    mut nearest: Vec<Vec<CommunityLink>>,
    settings: &ChunkGraphSettings,
) -> (Vec<Vec<CommunityLink>>, f32) {
    let threshold = percentile(nearest.iter().flatten().map(|l| l.similarity).collect(), settings.link_percentile);
    for links in &mut nearest {
        links.retain(|l| l.similarity >= threshold);
    }
    (nearest, threshold)
}

/// Inserts `link` into `best` (most similar first, ties by community) if it is among the `keep` best.
pub(super) fn offer(best: &mut Vec<CommunityLink>, link: CommunityLink, keep: usize) {
    let before = |x: &CommunityLink| {
        x.similarity > link.similarity || (x.similarity == link.similarity && x.community < link.community)
    };
    let at = best.partition_point(before);
    if at < keep {
        best.insert(at, link);
        best.truncate(keep);
    }
}
