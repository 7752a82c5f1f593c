//! Quire: private knowledge-graph retrieval that runs entirely in the browser.
//!
//! The engine is platform-neutral and builds natively (tests, CLI, benchmarks) and for wasm32:
//! [`corpus`] turns files into documents and their structure, [`graph`] is the knowledge graph over it,
//! [`embed`] computes sentence embeddings, [`index`] holds vector and BM25 indexes, [`store`] assembles an
//! indexed corpus and persists it as one snapshot file, [`retrieve`] answers queries, [`eval`] measures how
//! well it does on labelled questions, and [`generate`] asks the user's LLM endpoint for answers from the
//! retrieved chunks. The browser's engine (its workers, their calls, storage) lives in `web`, the page in `app` (both wasm32
//! only); neither holds retrieval logic.

pub mod analyzer;
pub mod chat;
pub mod corpus;
pub mod embed;
pub mod error;
pub mod eval;
pub mod generate;
pub mod graph;
pub mod index;
pub mod language;
pub mod retrieve;
pub mod site_search;
pub mod store;
pub mod yaml;

#[cfg(target_arch = "wasm32")]
pub mod app;
#[cfg(target_arch = "wasm32")]
pub mod web;

#[cfg(feature = "bench")]
pub mod bench;
