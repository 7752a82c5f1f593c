//! Errors more than one layer gives: a name that names nothing known (a provider, an answer style, an
//! LLM-assisted retrieval), and an index embedded by another model than the one loaded. Each layer's own
//! failures live with it (`corpus::IngestFailure`, `store::SnapshotError`, `retrieve::MethodError`, …).

use crate::embed::ModelIdentity;

/// A name that is none of the `known` things of its `kind`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown {kind} `{name}` ({known})")]
pub struct UnknownName {
    pub kind: &'static str,
    pub name: String,
    /// What it could have been, as the message lists it: `openai or ollama`, `one of: a, b, c`.
    pub known: String,
}

/// An index whose vectors another model made: searching it with this model's query vectors would rank
/// nonsense.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "this index was embedded with `{}` (model {}), but the loaded model is `{}` (model {}); re-index the documents",
    index.name, index.model_hash, loaded.name, loaded.model_hash
)]
pub struct ModelMismatch {
    pub index: Box<ModelIdentity>,
    pub loaded: Box<ModelIdentity>,
}
