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
mod query;
pub mod reader;
mod registry;
mod retriever;
mod scored;
mod section;
pub mod trace;
mod triplet;

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
pub(crate) use query::nearest;
pub use query::{Query, Retrieval, SharedSearches};
pub use reader::IndexReader;
pub(crate) use reader::rank_chunks;
use reader::{chunks_about, citing_chunks};
pub use retriever::Retriever;
pub use scored::{FUSION_DEPTH, ScoredChunk};
pub use section::section;
pub use trace::{FusionRow, FusionTrace, RetrieverTrace, Step, Trace, TraceNode, TracedChunk};
pub use triplet::triplet;
