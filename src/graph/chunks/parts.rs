//! What a chunk graph is made of, below the code that builds it: its settings, the `similar_to` edges
//! within a document, the communities and their links across documents.

use serde::{Deserialize, Serialize};

use crate::corpus::{ChunkId, DocId};

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
pub struct CommunityLink {
    pub community: u32,
    pub similarity: f32,
}
