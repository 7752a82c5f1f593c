//! Retrievers over an index and their fusion. One file per retriever (the seeds' graph retrievers next to
//! dense and BM25), each returning scored chunks (best first) and the steps it took for the [`trace`]; the
//! [`Retriever`] registry names them and says what each reads. Every retriever reads an [`IndexReader`]
//! (the whole index, its preview or its fragments), so one ranking function, [`Method::rank`]
//! (`execute.rs`), serves them all; a [`Method`] (`method.rs`) names every way of ranking chunks the CLI,
//! `quire eval` and the app can ask for, and [`fusion`] combines lists. This file holds what every retriever
//! shares: the query, a retriever's output, and ranking chunks.

pub mod assist;
mod bm25;
mod community;
mod default_method;
mod dense;
mod entity;
mod execute;
pub mod fusion;
mod grouping;
mod hub;
mod join;
pub mod lesson;
mod method;
mod one_hop;
pub mod over_fragments;
mod page;
mod path;
pub mod reader;
mod retriever;
mod section;
mod shared;
pub mod trace;
mod triplet;

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use crate::corpus::{ChunkId, EntityId};
use crate::index::Hit;
use crate::store::IndexedCorpus;

pub use bm25::bm25;
pub use community::community;
pub use default_method::{DEFAULT, WORDS};
pub use dense::dense;
pub use entity::entity;
pub use execute::{Ranking, labelled_candidates};
pub use fusion::learned::{FusionModel, FusionModelError, LearnedFusion};
pub use fusion::{FusedChunk, Fusion, RRF_K, reciprocal_rank_fusion, standardised_sum};
pub use grouping::{DocumentHit, document_depth, group_by_document};
pub use hub::{hub, hub_score};
pub(crate) use join::fill_below;
pub use join::{join, join_with_anchors};
pub use method::{LEARNED, Method, MethodError};
pub use one_hop::{linked_documents, one_hop};
pub use page::page;
pub use path::path;
pub(crate) use path::tier_chunks;
pub use reader::IndexReader;
pub use retriever::Retriever;
pub use section::section;
pub use shared::SharedSearches;
pub(crate) use shared::nearest;
pub use trace::{FusionRow, FusionTrace, RetrieverTrace, Step, Trace, TraceNode, TracedChunk};
pub use triplet::triplet;

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

impl From<&FusedChunk> for ScoredChunk {
    fn from(fused: &FusedChunk) -> Self {
        ScoredChunk { chunk: fused.chunk, score: fused.score }
    }
}

/// A query as every retriever needs it: the text (lexical retrievers, entity names) and its embedding,
/// where the searches its retrievers share are kept while they run, and a retriever's list ranked elsewhere
/// (by an LLM-assisted variant of it) that stands in for its own.
#[derive(Clone, Copy)]
pub struct Query<'a> {
    pub text: &'a str,
    pub vector: &'a [f32],
    shared: Option<&'a SharedSearches>,
    given: Option<(Retriever, &'a Retrieval)>,
}

impl<'a> Query<'a> {
    pub fn new(text: &'a str, vector: &'a [f32]) -> Self {
        Query { text, vector, shared: None, given: None }
    }

    /// The query with `list` standing in for `retriever`'s own: a method that does not read that retriever
    /// takes it as one more input, and a single retriever becomes the standardised sum of both.
    pub fn giving(self, retriever: Retriever, list: &'a Retrieval) -> Self {
        Query { given: Some((retriever, list)), ..self }
    }

    /// The query by its words alone: every retriever that reads vectors passes it by (an empty vector would
    /// score every chunk alike, and arbitrary chunks would fill their lists).
    pub fn without_vector(self) -> Self {
        Query { vector: &[], ..self }
    }

    /// Whether it has a vector to compare.
    pub fn has_vector(&self) -> bool {
        !self.vector.is_empty()
    }

    /// The query with its retrievers' searches kept in `shared`, unless it already keeps them somewhere.
    pub fn sharing<'b>(self, shared: &'b SharedSearches) -> Query<'b>
    where
        'a: 'b,
    {
        Query { shared: Some(self.shared.unwrap_or(shared)), ..self }
    }
}

impl std::fmt::Debug for Query<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Query").field("text", &self.text).finish_non_exhaustive()
    }
}

/// What one retriever returns: its chunks, best first, and what it did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Retrieval {
    pub chunks: Vec<ScoredChunk>,
    pub steps: Vec<Step>,
}

/// Chunks scored by a retriever, best first, each once with its best score; chunks with equal scores (every
/// chunk of a page scored by the page) are ordered by their own cosine with the query.
pub(crate) fn rank_chunks(
    index: &dyn reader::IndexReader,
    query: &[f32],
    scored: impl IntoIterator<Item = (ChunkId, f32)>,
    depth: usize,
) -> Vec<ScoredChunk> {
    let mut best: HashMap<ChunkId, f32> = HashMap::new();
    for (chunk, score) in scored {
        let entry = best.entry(chunk).or_insert(f32::NEG_INFINITY);
        *entry = entry.max(score);
    }
    let mut ranked: Vec<(ScoredChunk, f32)> =
        best.into_iter().map(|(chunk, score)| (ScoredChunk { chunk, score }, index.similarity(query, chunk))).collect();
    ranked.sort_by(|a, b| b.0.score.total_cmp(&a.0.score).then(b.1.total_cmp(&a.1)).then(a.0.chunk.cmp(&b.0.chunk)));
    ranked.truncate(depth);
    ranked.into_iter().map(|(hit, _)| hit).collect()
}

/// Chunks citing an entity.
fn citing_chunks(index: &IndexedCorpus, entity: EntityId) -> Vec<ChunkId> {
    index.graph().citing_chunks(entity)
}

/// Chunks about an entity: those citing it, and those of its page.
fn chunks_about(index: &IndexedCorpus, entity: EntityId) -> Vec<ChunkId> {
    let mut chunks = citing_chunks(index, entity);
    if let Some(document) = index.corpus().entities[entity as usize].document {
        chunks.extend(index.corpus().document_chunks(document));
    }
    chunks
}
