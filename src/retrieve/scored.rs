//! What every retriever's list is made of: chunks with their scores, and how deep a list goes before fusion.

use serde::{Deserialize, Serialize};

use crate::corpus::ChunkId;
use crate::index::Hit;

/// How deep each retriever's list goes before fusion, whatever depth is asked of the fusion.
pub const FUSION_DEPTH: usize = 100;

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct ScoredChunk {
    pub chunk: ChunkId,
    pub score: f32,
}

impl From<Hit> for ScoredChunk {
    fn from(hit: Hit) -> Self {
        ScoredChunk { chunk: hit.id, score: hit.score }
    }
}
