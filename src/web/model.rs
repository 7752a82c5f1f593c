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
    reserve_memory(MEMORY_WITH_MODEL);
    let model = browser::fetch_bytes_with_progress(MODEL_URL, on_download).await.map_err(ModelLoadError::Fetch)?;
    let tokenizer = browser::fetch_bytes(TOKENIZER_URL).await.map_err(ModelLoadError::Fetch)?;
    MiniLmEmbedder::from_bytes(&model, &tokenizer).map_err(|e| ModelLoadError::Unusable(e.to_string()))
}

/// About what an engine worker holds once its model has loaded (170 MB with the planets demo, read from the
/// page's "The engine holds … of memory"): the model's bytes, tract's typed model and its plan.
const MEMORY_WITH_MODEL: usize = 160 << 20;

/// Grows the allocator's heap to `bytes` in one step, before the model's load grows it a piece at a time.
/// An engine without fast memory (WebKitGTK here) copies the whole linear memory on every `memory.grow`, so
/// loading the model through many small growths cost it seconds (docs/BENCHMARKS.md). The block is freed at
/// once and stays in the allocator for the model's allocations: wasm memory never shrinks.
fn reserve_memory(bytes: usize) {
    // Through `black_box`: an allocation freed unused is otherwise left out by the optimiser.
    let reserved: Vec<u8> = Vec::with_capacity(bytes);
    drop(std::hint::black_box(reserved));
}
