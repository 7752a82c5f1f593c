//! Sentence embeddings: the models the engine runs and which one an index gets (`catalogue`), and the
//! embedder that runs them: `tokenizers` word pieces, `tract-onnx` inference, mean pooling over the attention
//! mask, L2 normalisation (`encoder`). Model and tokenizer arrive as bytes (the browser fetches them, the CLI
//! reads files), so this module is platform-neutral. A build without the `embedder` feature (the browser
//! page's module) has the same types and no model (`without_model`).

mod catalogue;
mod embedder;
#[cfg(feature = "embedder")]
mod encoder;
pub mod jobs;
#[cfg(feature = "embedder")]
mod lookup;
#[cfg(feature = "embedder")]
mod plans;
#[cfg(all(feature = "embedder", target_arch = "wasm32", target_feature = "simd128"))]
pub mod wasm_kernel;
#[cfg(feature = "embedder")]
mod widen;
#[cfg(not(feature = "embedder"))]
mod without_model;

pub use catalogue::{EmbeddingModel, ModelSpec};
pub use embedder::{DIMENSION, EmbedError, ModelIdentity, TextEmbedder, blake3_hex, normalize};
#[cfg(feature = "embedder")]
pub use encoder::{Embedder, read_model};
#[cfg(not(feature = "embedder"))]
pub use without_model::Embedder;
