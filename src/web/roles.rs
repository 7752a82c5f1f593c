//! The roles a worker of the app starts in (`browser::start_worker` names one, `web::start_engine` serves
//! it), and which engine an engine worker runs: what the page's side and the workers' side both name, kept
//! below both.

use crate::embed::EmbeddingModel;

/// The role `main` takes in an engine worker.
pub const ENGINE: &str = "engine";
/// The role `main` takes in a worker of the embedding pool that embeds with `model`.
pub fn embedder(model: EmbeddingModel) -> String {
    format!("{EMBEDDER}{model}")
}

/// The model an embedding worker's role names, if `role` is one.
pub fn embedder_model(role: &str) -> Option<EmbeddingModel> {
    role.strip_prefix(EMBEDDER).and_then(EmbeddingModel::named)
}

const EMBEDDER: &str = "embed:";

/// Which engine a worker runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// The page's own module: opens an index and answers by words at once.
    ByWords,
    /// The engine's module: everything, answering by words until its model has loaded.
    Full,
}
