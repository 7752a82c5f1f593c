//! What must come out the same natively and in wasm32: the shipped fusion network's scores and the embedder
//! with Quire's wasm32 matrix kernel, each against values the native build recorded. One test binary, so the
//! wasm32 run (`scripts/test.sh`, under wasm-bindgen-test-runner in Node, in the release profile whose
//! dependencies the app's build has compiled already) links once.

#[cfg(not(target_arch = "wasm32"))]
#[path = "../integration/common/mod.rs"]
mod common;

mod fusion_scores;
mod matrix_kernel;
