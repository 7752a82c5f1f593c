//! Retrievers over an [`IndexedCorpus`] and their fusion, one file per retriever. Each returns scored chunks,
//! best first; [`Method`] names every way of ranking chunks that the CLI, `quire eval` and the app can ask for.

mod bm25;
mod dense;
pub mod fusion;

use serde::{Deserialize, Serialize};

use crate::corpus::ChunkId;
use crate::embed::{EmbedError, TextEmbedder};
use crate::store::IndexedCorpus;

pub use bm25::bm25;
pub use dense::dense;
pub use fusion::{FusedChunk, RRF_K, reciprocal_rank_fusion, standardised_sum};

/// How deep each retriever's list goes before fusion.
pub const FUSION_DEPTH: usize = 100;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ScoredChunk {
    pub chunk: ChunkId,
    pub score: f32,
}

/// A query as every retriever needs it: the text (lexical retrievers) and its embedding (dense ones).
#[derive(Clone, Copy, Debug)]
pub struct Query<'a> {
    pub text: &'a str,
    pub vector: &'a [f32],
}

/// A named way to rank chunks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Method {
    Dense,
    Bm25,
    /// Reciprocal-rank fusion of dense and BM25.
    Rrf,
    /// Equal-weight sum of dense and BM25 scores standardised per query.
    StandardisedSum,
}

impl Method {
    pub const ALL: [Method; 4] = [Self::Dense, Self::Bm25, Self::Rrf, Self::StandardisedSum];

    pub fn name(self) -> &'static str {
        match self {
            Self::Dense => "dense",
            Self::Bm25 => "bm25",
            Self::Rrf => "rrf",
            Self::StandardisedSum => "zsum",
        }
    }

    pub fn description(self) -> &'static str {
        match self {
            Self::Dense => "cosine of query and chunk embeddings",
            Self::Bm25 => "Okapi BM25 (k1 1.2, b 0.75), English analyzer",
            Self::Rrf => "reciprocal-rank fusion (k = 60) of dense and BM25",
            Self::StandardisedSum => "equal-weight sum of dense and BM25 scores standardised per query",
        }
    }

    pub fn parse(name: &str) -> Result<Self, String> {
        let wanted = name.trim().to_ascii_lowercase();
        Self::ALL.into_iter().find(|m| m.name() == wanted).ok_or_else(|| {
            let known: Vec<&str> = Self::ALL.iter().map(|m| m.name()).collect();
            format!("unknown retriever `{name}` (known: {})", known.join(", "))
        })
    }

    /// The `depth` best chunks for `query`.
    pub fn retrieve(self, index: &IndexedCorpus, query: Query<'_>, depth: usize) -> Vec<ScoredChunk> {
        let fusion_depth = FUSION_DEPTH.max(depth);
        let fused = |fuse: fn(&[&[ScoredChunk]], usize) -> Vec<FusedChunk>| {
            let dense_hits = dense(index, query.vector, fusion_depth);
            let bm25_hits = bm25(index, query.text, fusion_depth);
            fuse(&[&dense_hits, &bm25_hits], depth)
                .into_iter()
                .map(|f| ScoredChunk { chunk: f.chunk, score: f.score })
                .collect()
        };
        match self {
            Self::Dense => dense(index, query.vector, depth),
            Self::Bm25 => bm25(index, query.text, depth),
            Self::Rrf => fused(reciprocal_rank_fusion),
            Self::StandardisedSum => fused(standardised_sum),
        }
    }
}

/// Names of the lists [`hybrid`] fuses, in the order of [`FusedChunk::ranks`].
pub const HYBRID_LISTS: [&str; 2] = ["dense", "BM25"];

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
    fn method_names_round_trip() {
        for method in Method::ALL {
            assert_eq!(Method::parse(method.name()), Ok(method));
        }
        assert!(Method::parse("graph").unwrap_err().contains("known: dense, bm25, rrf, zsum"));
    }
}
