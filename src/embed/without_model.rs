//! The embedder of a build without the `embedder` feature: the browser page's module (`quire-page`), whose
//! engine answers by words while the full engine, with the model, loads. The type is uninhabited, so the
//! code that would embed compiles here and can never run, and the build links neither tract nor the
//! tokenizer (whose registries would otherwise keep most of them in the module).

use super::{EmbedError, EmbeddingModel, ModelIdentity, TextEmbedder};
use crate::corpus::TokenCounter;

pub enum Embedder {}

fn absent() -> EmbedError {
    EmbedError::Model("this build of Quire carries no embedder (the page's module answers by words)".into())
}

impl Embedder {
    pub fn from_bytes(_kind: EmbeddingModel, _model: &[u8], _tokenizer: &[u8]) -> Result<Self, EmbedError> {
        Err(absent())
    }

    pub fn from_unpinned_bytes(_kind: EmbeddingModel, _model: &[u8], _tokenizer: &[u8]) -> Result<Self, EmbedError> {
        Err(absent())
    }

    #[cfg(not(target_arch = "wasm32"))]
    pub fn from_dir(_dir: &std::path::Path, _kind: EmbeddingModel) -> Result<Self, EmbedError> {
        Err(absent())
    }

    pub fn model(&self) -> EmbeddingModel {
        match *self {}
    }

    #[cfg(feature = "bench")]
    pub fn token_ids(&self, _text: &str) -> Result<Vec<u32>, EmbedError> {
        match *self {}
    }
}

impl TextEmbedder for Embedder {
    fn identity(&self) -> &ModelIdentity {
        match *self {}
    }

    fn embed(&self, _texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        match *self {}
    }
}

impl TokenCounter for Embedder {
    fn count_tokens(&self, _text: &str) -> usize {
        match *self {}
    }

    fn token_spans(&self, _text: &str) -> Option<Vec<(usize, usize)>> {
        match *self {}
    }
}
