//! What every embedder shares, whether it holds the model or not: the model an index's vectors came from (its
//! identity), the `TextEmbedder` trait and why embedding fails.

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
    /// Vectors of passages: the texts an index holds.
    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError>;
    /// Vectors of questions. The same as passages' by default; a model trained with a query prefix (e5's
    /// `query: `) puts it first.
    fn embed_queries(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        self.embed(texts)
    }
    fn embed_query(&self, text: &str) -> Result<Vec<f32>, EmbedError> {
        self.embed_queries(&[text])?.pop().ok_or_else(|| EmbedError::Inference("no vector came back".into()))
    }
}

/// The dimension of every model of the catalogue (`catalogue.rs`; a test there checks).
pub const DIMENSION: usize = 384;

pub fn blake3_hex(bytes: &[u8]) -> String {
    blake3::hash(bytes).to_hex().to_string()
}

pub fn normalize(vector: &mut [f32]) {
    let norm = vector.iter().map(|x| x * x).sum::<f32>().sqrt().max(1e-12);
    vector.iter_mut().for_each(|x| *x /= norm);
}
