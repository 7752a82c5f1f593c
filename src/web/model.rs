//! The embedding model as the app serves it beside the page, and loading it: the engine worker and every
//! embedding worker of its pool load their own copy from here.

use crate::embed::MiniLmEmbedder;

use super::browser;
use super::error::ModelLoadError;

pub const MODEL_URL: &str = "models/model.onnx";
pub const TOKENIZER_URL: &str = "models/tokenizer.json";

/// The embedder; `on_download` hears the model's bytes fetched so far, and their total when the server
/// said it (the engine worker tells the page; a pool worker has no one to tell).
pub async fn load_embedder(on_download: impl FnMut(usize, Option<usize>)) -> Result<MiniLmEmbedder, ModelLoadError> {
    let model = browser::fetch_bytes_with_progress(MODEL_URL, on_download).await.map_err(ModelLoadError::Fetch)?;
    let tokenizer = browser::fetch_bytes(TOKENIZER_URL).await.map_err(ModelLoadError::Fetch)?;
    MiniLmEmbedder::from_bytes(&model, &tokenizer).map_err(|e| ModelLoadError::Unusable(e.to_string()))
}
