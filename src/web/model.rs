//! The embedding model as the app serves it beside the page, and loading it: the engine worker and every
//! embedding worker of its pool load their own copy from here.

use crate::embed::{Embedder, EmbeddingModel};

use super::browser;
use super::error::ModelLoadError;

/// Where the app serves a model's file (`Trunk.toml` copies `models/` beside the page).
pub fn url(file: &str) -> String {
    format!("models/{file}")
}

/// `kind`'s embedder; `on_download` hears the model's bytes fetched so far, and their total when the
/// server said it (the engine worker tells the page; a pool worker has no one to tell).
pub async fn load_embedder(
    kind: EmbeddingModel,
    on_download: impl FnMut(usize, Option<usize>),
) -> Result<Embedder, ModelLoadError> {
    reserve_memory(memory_with(kind));
    let spec = kind.spec();
    let model =
        browser::fetch_bytes_with_progress(&url(spec.model_file), on_download).await.map_err(ModelLoadError::Fetch)?;
    let tokenizer = browser::fetch_bytes(&url(spec.tokenizer_file)).await.map_err(ModelLoadError::Fetch)?;
    Embedder::from_bytes(kind, &model, &tokenizer).map_err(|e| ModelLoadError::Unusable(e.to_string()))
}

/// About what a worker holds once `kind` has loaded: the model's bytes, tract's typed model and its plan
/// (MiniLM: 170 MB with the planets demo, read from the page's "The engine holds … of memory"), and for e5
/// its 250,000-piece vocabulary and its widened matrices.
fn memory_with(kind: EmbeddingModel) -> usize {
    match kind {
        EmbeddingModel::MiniLm => 160 << 20,
        EmbeddingModel::MultilingualE5 => 512 << 20,
    }
}

/// Grows the allocator's heap to `bytes` in one step, before the model's load grows it a piece at a time.
/// An engine without fast memory (WebKitGTK here) copies the whole linear memory on every `memory.grow`, so
/// loading the model through many small growths cost it seconds (docs/BENCHMARKS.md). The block is freed at
/// once and stays in the allocator for the model's allocations: wasm memory never shrinks.
fn reserve_memory(bytes: usize) {
    // Through `black_box`: an allocation freed unused is otherwise left out by the optimiser.
    let reserved: Vec<u8> = Vec::with_capacity(bytes);
    drop(std::hint::black_box(reserved));
}
