//! Sentence embeddings with the quantised all-MiniLM-L6-v2: `tokenizers` WordPiece, `tract-onnx` inference,
//! mean pooling over the attention mask, L2 normalisation (`minilm`). Model and tokenizer arrive as bytes
//! (the browser fetches them, the CLI reads files), so this module is platform-neutral. A build without the
//! `embedder` feature (the browser page's module) has the same types and no model (`without_model`).

mod embedder;
pub mod jobs;
#[cfg(feature = "embedder")]
mod lookup;
#[cfg(feature = "embedder")]
mod minilm;
#[cfg(feature = "embedder")]
mod plans;
#[cfg(all(feature = "embedder", target_arch = "wasm32", target_feature = "simd128"))]
pub mod wasm_kernel;
#[cfg(not(feature = "embedder"))]
mod without_model;

pub use embedder::{
    DIMENSION, EmbedError, MAX_TOKENS, MODEL_BLAKE3, MODEL_FILE, MODEL_NAME, ModelIdentity, TOKENIZER_BLAKE3,
    TOKENIZER_FILE, TextEmbedder, blake3_hex, normalize,
};
#[cfg(feature = "embedder")]
pub use minilm::{MiniLmEmbedder, read_model};
#[cfg(not(feature = "embedder"))]
pub use without_model::MiniLmEmbedder;
