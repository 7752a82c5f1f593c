//! Quire's native integration tests, one module per concern, in one binary: as twenty binaries each linked
//! the whole engine (about 75 MB apiece) and ran one after another, so a long test (`eval`) held the machine
//! while the rest waited; in one binary the test harness runs them all side by side, and the model loads once.
//! The wasm32 parity tests are their own binary (tests/wasm_parity), which also runs under wasm-bindgen.

mod common;
mod snapshot_support;

mod ask;
mod chunk_graph;
mod cli;
mod embedding_parity;
mod eval;
mod formats;
mod fragments;
mod graph_schema;
mod incremental;
mod learned_fusion;
mod limits;
mod multilingual;
mod outline;
mod overview;
mod pipeline;
mod real_documents;
mod retrievers;
mod site_search;
mod snapshot;
mod snapshot_fuzz;
