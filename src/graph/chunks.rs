//! Seed 004's semantic chunk graph (§5.2.3). Within each document, chunks are joined by `next` edges
//! (weight 0.1) and `similar_to` edges (each chunk's 5 most similar chunks of its document, weighted by
//! cosine, above a threshold calibrated as a percentile of the corpus's own same-document similarities).
//! Weighted PageRank (d = 0.85) ranks the chunks of each document; Leiden splits each document into
//! communities, its sub-topics. A community is summarised extractively by its best chunks by PageRank (no
//! LLM) and represented by the PageRank-weighted mean of its chunk vectors. Communities of different
//! documents are linked to their 5 most similar (`comm_similar_to`) above a threshold calibrated the same
//! way. Built at index time from the corpus and its chunk vectors, stored in the snapshot, rebuilt with the
//! rest of the index on every add or remove.

use std::collections::BTreeMap;

use leiden_rs::{GraphDataBuilder, Leiden, LeidenConfig};
use serde::{Deserialize, Serialize};

use crate::corpus::{ChunkId, Corpus, DocId};
use crate::index::bm25::Bm25Params;
use crate::index::vectors::dot;
use crate::index::{Bm25Index, HnswParams, QuantizedVectors, VectorIndex};

/// The parameters of seed 004's chunk graph; stored with the graph they built.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ChunkGraphSettings {
    /// Weight of the `next` edge between consecutive chunks: enough to keep a chunk from being isolated,
    /// too little to override similarity.
    pub next_weight: f32,
    /// `similar_to` edges kept per chunk, at most.
    pub similar_per_chunk: usize,
    /// Share of same-document chunk pairs less similar than the `similar_to` threshold.
    pub similar_percentile: f32,
    pub damping: f32,
    /// Chunks (best PageRank first) that make a community's extractive summary.
    pub summary_chunks: usize,
    /// `comm_similar_to` links kept per community, at most.
    pub links_per_community: usize,
    /// Share of candidate community links less similar than the link threshold.
    pub link_percentile: f32,
    /// Leiden's resolution (modularity's γ) and random seed.
    pub resolution: f64,
    pub seed: u64,
}

impl Default for ChunkGraphSettings {
    fn default() -> Self {
        Self {
            next_weight: 0.1,
            similar_per_chunk: 5,
            similar_percentile: 0.5,
            damping: 0.85,
            summary_chunks: 3,
            links_per_community: 5,
            link_percentile: 0.5,
            resolution: 1.0,
            seed: 0,
        }
    }
}

/// Two chunks of one document and their cosine (`first < second`).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct SimilarEdge {
    pub first: ChunkId,
    pub second: ChunkId,
    pub similarity: f32,
}

/// A sub-topic of one document: its chunks, best PageRank first (the first `summary_chunks` are its
/// extractive summary).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Community {
    pub document: DocId,
    pub chunks: Vec<ChunkId>,
}

/// A `comm_similar_to` link to a community of another document.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Link {
    pub community: u32,
    pub similarity: f32,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ChunkGraph {
    pub settings: ChunkGraphSettings,
    /// The calibrated `similar_to` threshold (infinite when no document has two chunks).
    pub similar_threshold: f32,
    /// The calibrated `comm_similar_to` threshold (infinite when there is one document).
    pub link_threshold: f32,
    pub similar: Vec<SimilarEdge>,
    /// Each chunk's PageRank within its document's graph (a document's ranks sum to 1).
    pub pagerank: Vec<f32>,
    /// Each chunk's community.
    pub community_of: Vec<u32>,
    pub communities: Vec<Community>,
    /// One unit vector per community.
    pub vectors: QuantizedVectors,
    /// BM25 over the communities' summaries.
    pub summaries: Bm25Index,
    /// Each community's links, most similar first.
    pub links: Vec<Vec<Link>>,
}

/// How large a chunk graph is, for `quire stats` and the app.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ChunkGraphStats {
    pub communities: usize,
    pub largest_community: usize,
    pub similar_edges: usize,
    pub community_links: usize,
    /// The calibrated thresholds; `None` where nothing could be calibrated (no pairs to compare).
    pub similar_threshold: Option<f32>,
    pub link_threshold: Option<f32>,
}

impl ChunkGraph {
    pub fn stats(&self) -> ChunkGraphStats {
        let finite = |t: f32| t.is_finite().then_some(t);
        ChunkGraphStats {
            communities: self.communities.len(),
            largest_community: self.communities.iter().map(|c| c.chunks.len()).max().unwrap_or(0),
            similar_edges: self.similar.len(),
            community_links: self.links.iter().map(Vec::len).sum(),
            similar_threshold: finite(self.similar_threshold),
            link_threshold: finite(self.link_threshold),
        }
    }

    /// The chunk graph of `corpus`, whose chunk `c` has the vector in row `chunk_rows[c]` of `vectors`.
    /// From `approximate_from` communities on, their links are found through an HNSW index instead of an
    /// exact scan over every pair (quadratic: about 4·10⁹ pairs at 100,000 chunks).
    pub fn build(
        corpus: &Corpus,
        vectors: &QuantizedVectors,
        chunk_rows: &[u32],
        bm25: Bm25Params,
        settings: ChunkGraphSettings,
        approximate_from: usize,
    ) -> Self {
        let chunk_vectors: Vec<Vec<f32>> = chunk_rows.iter().map(|&row| vectors.get(row)).collect();
        let documents: Vec<std::ops::Range<ChunkId>> =
            (0..corpus.documents.len()).map(|d| corpus.document_chunks(d as DocId)).collect();
        let candidates: Vec<Vec<SimilarEdge>> =
            documents.iter().map(|chunks| nearest_in_document(&chunk_vectors, chunks.clone(), &settings)).collect();
        let similar_threshold =
            percentile(candidates.iter().flatten().map(|e| e.similarity).collect(), settings.similar_percentile);
        let similar: Vec<SimilarEdge> =
            candidates.into_iter().flatten().filter(|e| e.similarity >= similar_threshold).collect();
        let mut pagerank = vec![0.0; corpus.chunks.len()];
        let mut community_of = vec![0; corpus.chunks.len()];
        let mut communities = Vec::new();
        let mut edges_of_document = group_by_document(corpus, &similar);
        for (document, chunks) in documents.iter().enumerate() {
            let graph = DocumentGraph::new(chunks.clone(), edges_of_document.remove(&(document as DocId)), &settings);
            let ranks = graph.pagerank(settings.damping);
            for membership in graph.communities(&settings) {
                let mut members: Vec<ChunkId> = membership.iter().map(|&i| chunks.start + i as ChunkId).collect();
                members.sort_by(|&a, &b| {
                    let rank = |c: ChunkId| ranks[(c - chunks.start) as usize];
                    rank(b).total_cmp(&rank(a)).then(a.cmp(&b))
                });
                for &chunk in &members {
                    community_of[chunk as usize] = communities.len() as u32;
                }
                communities.push(Community { document: document as DocId, chunks: members });
            }
            for (i, rank) in ranks.into_iter().enumerate() {
                pagerank[chunks.start as usize + i] = rank;
            }
        }
        let community_vectors = community_vectors(&communities, &chunk_vectors, &pagerank, vectors.dimension());
        let summary_texts: Vec<String> =
            communities.iter().map(|c| summary_text(corpus, c, settings.summary_chunks)).collect();
        let summaries = Bm25Index::build(summary_texts.iter().map(String::as_str), bm25);
        let mut stored = QuantizedVectors::new(vectors.dimension());
        for vector in &community_vectors {
            // Same dimension as the chunk vectors they average, so the push cannot be refused.
            let _ = stored.push(vector);
        }
        let candidates = if communities.len() >= approximate_from {
            nearest_communities_approximately(&communities, &community_vectors, &stored, &settings)
        } else {
            nearest_communities_exactly(&communities, &community_vectors, &settings)
        };
        let (links, link_threshold) = keep_links_above_percentile(candidates, &settings);
        Self {
            settings,
            similar_threshold,
            link_threshold,
            similar,
            pagerank,
            community_of,
            communities,
            vectors: stored,
            summaries,
            links,
        }
    }

    /// A community's extractive summary: its best chunks by PageRank.
    pub fn summary(&self, corpus: &Corpus, community: u32) -> String {
        summary_text(corpus, &self.communities[community as usize], self.settings.summary_chunks)
    }

    /// Whether decoded parts agree with each other and with a corpus of `documents` documents and `chunks`
    /// chunks embedded in `dimension` dimensions, so that nothing indexes out of range later.
    pub fn check(&self, documents: usize, chunks: usize, dimension: usize) -> Result<(), String> {
        let count = self.communities.len();
        if self.pagerank.len() != chunks || self.community_of.len() != chunks {
            return Err("the chunk graph does not cover every chunk".into());
        }
        if self.vectors.len() != count || self.links.len() != count || self.summaries.len() != count {
            return Err("the chunk graph's communities, vectors, summaries and links disagree".into());
        }
        self.vectors.check()?;
        if count > 0 && self.vectors.dimension() != dimension {
            return Err("community vectors are not of the chunk vectors' dimension".into());
        }
        self.summaries.check(count)?;
        for (id, community) in self.communities.iter().enumerate() {
            if community.document as usize >= documents
                || community.chunks.is_empty()
                || community.chunks.iter().any(|&c| self.community_of.get(c as usize) != Some(&(id as u32)))
            {
                return Err(format!("community {id} does not match its chunks"));
            }
        }
        if self.links.iter().flatten().any(|l| l.community as usize >= count) {
            return Err("a community link points past the communities".into());
        }
        if self.similar.iter().any(|e| e.first >= e.second || e.second as usize >= chunks) {
            return Err("a similar_to edge points past the chunks".into());
        }
        Ok(())
    }
}

/// Each chunk's `similar_per_chunk` most similar chunks of the same document (`chunks`), each pair once.
fn nearest_in_document(
    vectors: &[Vec<f32>],
    chunks: std::ops::Range<ChunkId>,
    settings: &ChunkGraphSettings,
) -> Vec<SimilarEdge> {
    let members: Vec<ChunkId> = chunks.collect();
    let mut kept: BTreeMap<(ChunkId, ChunkId), f32> = BTreeMap::new();
    for &a in &members {
        let mut nearest: Vec<(ChunkId, f32)> = members
            .iter()
            .filter(|&&b| b != a)
            .map(|&b| (b, dot(&vectors[a as usize], &vectors[b as usize])))
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
fn percentile(mut values: Vec<f32>, quantile: f32) -> f32 {
    if values.is_empty() {
        return f32::INFINITY;
    }
    let at = ((values.len() - 1) as f32 * quantile.clamp(0.0, 1.0)).round() as usize;
    *values.select_nth_unstable_by(at, f32::total_cmp).1
}

fn group_by_document(corpus: &Corpus, edges: &[SimilarEdge]) -> BTreeMap<DocId, Vec<SimilarEdge>> {
    let mut grouped: BTreeMap<DocId, Vec<SimilarEdge>> = BTreeMap::new();
    for edge in edges {
        grouped.entry(corpus.chunks[edge.first as usize].document).or_default().push(*edge);
    }
    grouped
}

/// One document's chunk graph, undirected, over local node numbers (chunk − first chunk).
struct DocumentGraph {
    nodes: usize,
    /// Each undirected edge once, `next` and `similar_to` weights added where both join a pair.
    edges: BTreeMap<(usize, usize), f32>,
}

impl DocumentGraph {
    fn new(chunks: std::ops::Range<ChunkId>, similar: Option<Vec<SimilarEdge>>, settings: &ChunkGraphSettings) -> Self {
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
    fn pagerank(&self, damping: f32) -> Vec<f32> {
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
    fn communities(&self, settings: &ChunkGraphSettings) -> Vec<Vec<usize>> {
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

/// Each community's PageRank-weighted mean chunk vector, normalised. A mean rather than the embedding of
/// the summary text: the embedder reads 256 word-pieces, so a summary of several chunks would be cut to
/// its first, while the mean speaks for every chunk.
fn community_vectors(
    communities: &[Community],
    chunk_vectors: &[Vec<f32>],
    pagerank: &[f32],
    dimension: usize,
) -> Vec<Vec<f32>> {
    communities
        .iter()
        .map(|community| {
            let mut mean = vec![0f32; dimension];
            for &chunk in &community.chunks {
                for (m, x) in mean.iter_mut().zip(&chunk_vectors[chunk as usize]) {
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

fn summary_text(corpus: &Corpus, community: &Community, chunks: usize) -> String {
    let texts: Vec<String> = community.chunks.iter().take(chunks).map(|&c| corpus.chunk_search_text(c)).collect();
    texts.join("\n")
}

/// Each community's `links_per_community` most similar communities of other documents, by an exact scan
/// over every pair.
fn nearest_communities_exactly(
    communities: &[Community],
    vectors: &[Vec<f32>],
    settings: &ChunkGraphSettings,
) -> Vec<Vec<Link>> {
    let keep = settings.links_per_community;
    let mut nearest: Vec<Vec<Link>> = vec![Vec::new(); communities.len()];
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
fn nearest_communities_approximately(
    communities: &[Community],
    vectors: &[Vec<f32>],
    stored: &QuantizedVectors,
    settings: &ChunkGraphSettings,
) -> Vec<Vec<Link>> {
    // Cheaper than the chunk index's: a link is a hint for the coarse search, not an answer, so 95 % of the
    // exact neighbours found at a quarter of the build time is the better trade (docs/BENCHMARKS.md's sweep).
    let params = HnswParams { ef_construction: 32, ef_search: 64 };
    let keep = settings.links_per_community;
    let index = VectorIndex::build_hnsw(stored, (0..communities.len() as u32).collect(), params);
    let mut pairs: Vec<(usize, usize, f32)> = Vec::new();
    for (a, vector) in vectors.iter().enumerate() {
        // Every candidate the search examined: communities of the same document may crowd the first `keep`.
        let hits = index.search(stored, vector, params.ef_search);
        let others = hits.into_iter().filter(|hit| communities[hit.row as usize].document != communities[a].document);
        pairs.extend(others.take(keep).map(|hit| (a.min(hit.row as usize), a.max(hit.row as usize), hit.score)));
    }
    // Each pair once, as the exact scan offers it, however many of its two ends found it.
    pairs.sort_by_key(|&(a, b, _)| (a, b));
    pairs.dedup_by_key(|&mut (a, b, _)| (a, b));
    let mut nearest: Vec<Vec<Link>> = vec![Vec::new(); communities.len()];
    for (a, b, similarity) in pairs {
        offer_both(&mut nearest, a, b, similarity, keep);
    }
    nearest
}

/// Offers the link between communities `a` and `b` to both, so links are symmetric candidates.
fn offer_both(nearest: &mut [Vec<Link>], a: usize, b: usize, similarity: f32, keep: usize) {
    if similarity > 0.0 {
        offer(&mut nearest[a], Link { community: b as u32, similarity }, keep);
        offer(&mut nearest[b], Link { community: a as u32, similarity }, keep);
    }
}

/// The candidate links kept above the calibrated threshold, and that threshold.
fn keep_links_above_percentile(mut nearest: Vec<Vec<Link>>, settings: &ChunkGraphSettings) -> (Vec<Vec<Link>>, f32) {
    let threshold = percentile(nearest.iter().flatten().map(|l| l.similarity).collect(), settings.link_percentile);
    for links in &mut nearest {
        links.retain(|l| l.similarity >= threshold);
    }
    (nearest, threshold)
}

/// Inserts `link` into `best` (most similar first, ties by community) if it is among the `keep` best.
fn offer(best: &mut Vec<Link>, link: Link, keep: usize) {
    let before =
        |x: &Link| x.similarity > link.similarity || (x.similarity == link.similarity && x.community < link.community);
    let at = best.partition_point(before);
    if at < keep {
        best.insert(at, link);
        best.truncate(keep);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn graph(nodes: usize, edges: &[(usize, usize, f32)]) -> DocumentGraph {
        DocumentGraph { nodes, edges: edges.iter().map(|&(a, b, w)| ((a, b), w)).collect() }
    }

    /// Path a–b–c with weights 3 and 1, d = 0.85, teleport 0.05 each. b passes 3/4 of its rank to a and
    /// 1/4 to c; a and c pass all theirs to b. So b = 0.05 + 0.85 (a + c) and a + c = 0.1 + 0.85 b:
    /// b = 0.135 / 0.2775 = 0.486486, a = 0.05 + 0.6375 b = 0.360135, c = 0.05 + 0.2125 b = 0.153378.
    #[test]
    fn pagerank_follows_edge_weights() {
        let ranks = graph(3, &[(0, 1, 3.0), (1, 2, 1.0)]).pagerank(0.85);
        for (rank, expected) in ranks.iter().zip([0.360135, 0.486486, 0.153378]) {
            assert!((rank - expected).abs() < 1e-5, "{ranks:?}");
        }
        let isolated = graph(2, &[]).pagerank(0.85);
        assert_eq!(isolated, vec![0.5, 0.5]);
    }

    /// Two triangles joined by one weak edge: the known partition is the two triangles.
    #[test]
    fn leiden_finds_the_two_triangles() {
        let two_triangles =
            graph(6, &[(0, 1, 1.0), (1, 2, 1.0), (0, 2, 1.0), (3, 4, 1.0), (4, 5, 1.0), (3, 5, 1.0), (2, 3, 0.1)]);
        assert_eq!(two_triangles.communities(&ChunkGraphSettings::default()), vec![vec![0, 1, 2], vec![3, 4, 5]]);
        assert_eq!(graph(1, &[]).communities(&ChunkGraphSettings::default()), vec![vec![0]]);
        assert!(graph(0, &[]).communities(&ChunkGraphSettings::default()).is_empty());
    }

    #[test]
    fn percentiles_and_best_links() {
        assert_eq!(percentile(vec![0.4, 0.1, 0.3, 0.2, 0.5], 0.5), 0.3);
        assert_eq!(percentile(vec![0.4, 0.1, 0.3, 0.2, 0.5], 1.0), 0.5);
        assert_eq!(percentile(Vec::new(), 0.5), f32::INFINITY);
        let mut best = Vec::new();
        for (community, similarity) in [(7, 0.2), (3, 0.9), (5, 0.5), (1, 0.5), (9, 0.1)] {
            offer(&mut best, Link { community, similarity }, 3);
        }
        let kept: Vec<u32> = best.iter().map(|l| l.community).collect();
        assert_eq!(kept, vec![3, 1, 5]);
    }
}
