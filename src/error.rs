//! Errors several layers give, in a leaf every layer may use: a name that names nothing known (a provider,
//! an answer style, an LLM-assisted retrieval), and a part of an index that does not hang together with the
//! rest (what a crafted or damaged snapshot holds). Each layer's own failures live with it
//! (`corpus::IngestFailure`, `store::SnapshotError`, `store::ModelMismatch`, `retrieve::MethodError`, …).

/// A name that is none of the `known` things of its `kind`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown {kind} `{name}` ({known})")]
pub struct UnknownName {
    pub kind: &'static str,
    pub name: String,
    /// What it could have been, as the message lists it: `openai or ollama`, `one of: a, b, c`.
    pub known: String,
}

/// Why a part of an index (the corpus, a vector index, BM25, the chunk graph) does not hang together with
/// the rest: `a chunk outside its document`. A snapshot that decodes into such parts is refused with it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Inconsistent(pub String);

impl From<&str> for Inconsistent {
    fn from(problem: &str) -> Self {
        Inconsistent(problem.to_string())
    }
}

impl From<String> for Inconsistent {
    fn from(problem: String) -> Self {
        Inconsistent(problem)
    }
}
