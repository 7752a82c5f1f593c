//! Within one document: each chunk's most similar chunks (the `similar_to` edges), the percentile that
//! calibrates their threshold, and the document's graph, ranked by weighted PageRank and split into
//! communities by Leiden.

use crate::corpus::{ChunkId, Corpus, DocId};
use crate::index::vectors::dot;
use leiden_rs::{GraphDataBuilder, Leiden, LeidenConfig};
use std::collections::{BTreeMap, HashMap};

use super::parts::{ChunkGraphSettings, SimilarEdge};

/// Chunks a chunk is compared with on each side, in document order: every pair of a document of up to 513
/// chunks is compared (the labelled sets' documents are within it, and their figures are unchanged). Past
/// it, comparing all pairs costs the square of the length: a 30,000-row table or a 32 MiB text never
/// finished building its graph.
pub(super) const NEIGHBOURHOOD: usize = 512;

/// Each chunk's `similar_per_chunk` most similar chunks of the same document (`chunks`), each pair once.
pub(super) fn nearest_in_document(
    vectors: &[&[f32]],
    chunks: std::ops::Range<ChunkId>,
    settings: &ChunkGraphSettings,
) -> Vec<SimilarEdge> {
    let members: Vec<ChunkId> = chunks.collect();
    let mut kept: BTreeMap<(ChunkId, ChunkId), f32> = BTreeMap::new();
    // Chunks that share a text share one decoded vector: its cosine with `a` is computed once, so a table of
    // a few texts repeated over thousands of rows costs a few products a chunk, not a thousand.
    let mut cosines: HashMap<*const f32, f32> = HashMap::new();
    for (at, &a) in members.iter().enumerate() {
        let reach = at.saturating_sub(NEIGHBOURHOOD)..(at + NEIGHBOURHOOD + 1).min(members.len());
        cosines.clear();
        let mut cosine_with_a = |b: ChunkId| {
            let vector = vectors[b as usize];
            *cosines.entry(vector.as_ptr()).or_insert_with(|| dot(vectors[a as usize], vector))
        };
        let mut nearest: Vec<(ChunkId, f32)> = members[reach]
            .iter()
            .filter(|&&b| b != a)
            .map(|&b| (b, cosine_with_a(b)))
            .filter(|&(_, cosine)| cosine > 0.0)
            .collect();
        nearest.sort_by(|x, y| y.1.total_cmp(&x.1).then(x.0.cmp(&y.0)));
        for (b, cosine) in nearest.into_iter().take(settings.similar_per_chunk) {
            kept.insert((a.min(b), a.max(b)), cosine);
        }
    }
    kept.into_iter().map(|((first, second), similarity)| SimilarEdge { first, second, similarity }).collect()
}

/// The value below which a share `quantile` of `values` lies (infinite for no values: nothing passes).
pub(super) fn percentile(mut values: Vec<f32>, quantile: f32) -> f32 {
    if values.is_empty() {
        return f32::INFINITY;
    }
    let at = ((values.len() - 1) as f32 * quantile.clamp(0.0, 1.0)).round() as usize;
    *values.select_nth_unstable_by(at, f32::total_cmp).1
}

pub(super) fn group_by_document(corpus: &Corpus, edges: &[SimilarEdge]) -> BTreeMap<DocId, Vec<SimilarEdge>> {
    let mut grouped: BTreeMap<DocId, Vec<SimilarEdge>> = BTreeMap::new();
    for edge in edges {
        grouped.entry(corpus.chunks[edge.first as usize].document).or_default().push(*edge);
    }
    grouped
}

/// One document's chunk graph, undirected, over local node numbers (chunk − first chunk).
pub(super) struct DocumentGraph {
    pub(super) nodes: usize,
    /// Each undirected edge once, `next` and `similar_to` weights added where both join a pair.
    pub(super) edges: BTreeMap<(usize, usize), f32>,
}

impl DocumentGraph {
    pub(super) fn new(
        chunks: std::ops::Range<ChunkId>,
        similar: Option<Vec<SimilarEdge>>,
        settings: &ChunkGraphSettings,
    ) -> Self {
        let nodes = chunks.len();
        let mut edges: BTreeMap<(usize, usize), f32> = (1..nodes).map(|i| ((i - 1, i), settings.next_weight)).collect();
        for edge in similar.into_iter().flatten() {
            let pair = ((edge.first - chunks.start) as usize, (edge.second - chunks.start) as usize);
            *edges.entry(pair).or_default() += edge.similarity;
        }
        Self { nodes, edges }
    }

    /// Weighted PageRank by power iteration. Hand-written: petgraph's `page_rank` ignores edge weights
    /// (and compares every pair of nodes each iteration). A node without edges spreads its rank evenly.
    pub(super) fn pagerank(&self, damping: f32) -> Vec<f32> {
        let n = self.nodes;
        if n == 0 {
            return Vec::new();
        }
        let mut strength = vec![0f32; n];
        for (&(a, b), &w) in &self.edges {
            strength[a] += w;
            strength[b] += w;
        }
        let mut ranks = vec![1.0 / n as f32; n];
        for _ in 0..100 {
            let dangling: f32 = (0..n).filter(|&i| strength[i] == 0.0).map(|i| ranks[i]).sum();
            let base = (1.0 - damping) / n as f32 + damping * dangling / n as f32;
            let mut next = vec![base; n];
            for (&(a, b), &w) in &self.edges {
                next[b] += damping * ranks[a] * w / strength[a];
                next[a] += damping * ranks[b] * w / strength[b];
            }
            let change: f32 = next.iter().zip(&ranks).map(|(x, y)| (x - y).abs()).sum();
            ranks = next;
            if change < 1e-7 {
                break;
            }
        }
        ranks
    }

    /// Leiden communities (modularity) as lists of local node numbers, in order of their first node.
    pub(super) fn communities(&self, settings: &ChunkGraphSettings) -> Vec<Vec<usize>> {
        let whole = || vec![(0..self.nodes).collect::<Vec<usize>>()];
        if self.nodes < 2 {
            return if self.nodes == 0 { Vec::new() } else { whole() };
        }
        let mut builder = GraphDataBuilder::new(self.nodes);
        for (&(a, b), &w) in &self.edges {
            if builder.add_edge(a, b, w as f64).is_err() {
                return whole();
            }
        }
        let config =
            LeidenConfig { resolution: settings.resolution, seed: Some(settings.seed), ..LeidenConfig::default() };
        // Weights are finite and positive by construction, so Leiden does not fail; if it ever did, the
        // document stays one community rather than losing the index.
        let Ok(partition) = builder.build().and_then(|graph| Leiden::new(config).run(&graph)).map(|r| r.partition)
        else {
            return whole();
        };
        let mut by_label: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
        for node in 0..self.nodes {
            by_label.entry(partition.community_of(node)).or_default().push(node);
        }
        let mut groups: Vec<Vec<usize>> = by_label.into_values().collect();
        groups.sort_by_key(|members| members[0]);
        groups
    }
}
