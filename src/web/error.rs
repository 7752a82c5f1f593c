//! Why the web engine could not do what it was asked. [`EngineError`] crosses the page ↔ engine-worker
//! protocol (MessagePack, as every message does), so the page tells one refusal from another and shows each
//! in the engine's own words. What the page's side of a call meets itself (no engine running, a reply that
//! did not decode) is [`ClientError`]; [`Failure`] holds either, or the engine's crash. The failures it is made of live here too: a fetch ([`FetchError`]), this
//! browser's storage ([`StorageError`]), the model ([`ModelLoadError`], [`ModelUnavailable`]), the pool of
//! embedding workers ([`PoolError`], [`EmbedderDown`]), an evaluation ([`EvaluationRefused`]). An engine
//! library's error whose type does not cross the protocol (`EmbedError`, `SnapshotError`, …) is carried by
//! its message, in a field of the variant that says which step failed.

use serde::{Deserialize, Serialize};

use crate::store::{ModelMismatch, UpdateError};

/// Why a call of the page got no answer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, thiserror::Error)]
pub enum Failure {
    /// The engine refused or failed the call; it runs on, its index as it was.
    #[error(transparent)]
    Refused(#[from] EngineError),
    /// The call never reached an engine, or its reply could not be read: the page's side of it.
    #[error(transparent)]
    Unsent(#[from] ClientError),
    /// The engine crashed and is gone; `parsing` is the file it was parsing, if it was.
    #[error("the engine stopped: {message}")]
    Crashed { message: String, parsing: Option<String> },
}

/// What the browser said when a call into it failed: JavaScript's errors carry a message only
/// (`browser::describe`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[error("{0}")]
pub struct JsError(pub String);

/// A request for a file of the site (or the model) that failed, naming its URL.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
pub enum FetchError {
    #[error("{url}: HTTP {status}")]
    Status { url: String, status: u16 },
    /// No answer, or a body that broke off: the browser's words.
    #[error("{url}: {reason}")]
    Failed { url: String, reason: JsError },
}

/// This browser's storage of the index (the Origin Private File System) failed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
pub enum StorageError {
    /// The browser has no Origin Private File System (WebKitGTK).
    #[error("this browser cannot keep the index (it has no Origin Private File System)")]
    NotOffered,
    #[error("this browser's file storage: {0}")]
    Unavailable(JsError),
    #[error("reading the saved index: {0}")]
    Reading(JsError),
    #[error("saving the index in this browser: {0}")]
    Saving(JsError),
    #[error("forgetting the saved index: {0}")]
    Forgetting(JsError),
}

/// A message between the page and the engine (or the engine and an embedding worker) that does not decode:
/// the decoder's words.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[error("a message between the page and the engine is damaged: {0}")]
pub struct Damaged(pub String);

/// Why the embedding model did not load: it could not be fetched, or it is no usable model (the embedder's
/// words).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
pub enum ModelLoadError {
    #[error(transparent)]
    Fetch(FetchError),
    #[error("{0}")]
    Unusable(String),
}

/// Why questions are answered by words only: the model will not come, and what the page is told of it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, thiserror::Error)]
pub enum ModelUnavailable {
    #[error(transparent)]
    Load(ModelLoadError),
    /// The index opened before the model came was embedded by another model.
    #[error(transparent)]
    OtherModel(ModelMismatch),
    /// The full engine crashed while it came up (the panic's message).
    #[error("the engine with the embedding model stopped: {0}")]
    EngineStopped(String),
    #[error("the engine with the embedding model could not start: {0}")]
    EngineNotStarted(Box<Failure>),
}

/// Why an embedding worker takes no jobs: its model did not load, or a job reached it damaged.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
pub enum EmbedderDown {
    #[error(transparent)]
    Model(ModelLoadError),
    #[error(transparent)]
    Damaged(Damaged),
}

/// The pool of embedding workers failed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
pub enum PoolError {
    #[error("no embedding worker could be started")]
    NoWorker,
    #[error("the embedding workers are gone")]
    Gone,
    /// A worker crashed, or said what does not decode (its error event's message, or the decoder's).
    #[error("an embedding worker stopped: {0}")]
    WorkerStopped(String),
    #[error(transparent)]
    Down(EmbedderDown),
}

/// The index the engine held was replaced while a call was on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
pub enum Replaced {
    #[error("the index was replaced meanwhile")]
    Index,
    #[error("the index was replaced while these files were indexed; add them again")]
    WhileIndexing,
    #[error("the question's words could not be looked up: their fragments were replaced meanwhile")]
    QuestionWords,
    #[error("the question could not be looked up: its fragments were replaced meanwhile")]
    Question,
    #[error("the results' texts were replaced meanwhile: ask again")]
    ResultTexts,
}

/// Why an evaluation was refused or failed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
pub enum EvaluationRefused {
    #[error("choose at least one retriever to evaluate")]
    NoMethod,
    /// A cut-off outside 1 to the most (`eval::RUN_DEPTH`).
    #[error("every cut-off must be between 1 and {0}")]
    Cutoff(usize),
    /// A method name the engine does not know (`retrieve::MethodError`'s words).
    #[error("{0}")]
    Method(String),
    /// The dataset's questions, labels or corpus file (`eval::DatasetError`'s words).
    #[error("{0}")]
    Dataset(String),
    /// The dataset's index (`name`) could not be opened or built: the snapshot's, the model's or the
    /// corpus file's words.
    #[error("{name}: {reason}")]
    Index { name: String, reason: String },
    #[error("{0}: no document could be indexed")]
    NothingIndexed(String),
}

/// Why the page's call never reached an engine, or its reply could not be read: the page's own failures,
/// apart from the engine's, which cross the protocol.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, thiserror::Error)]
pub enum ClientError {
    #[error("the engine is not running")]
    NotRunning,
    #[error("the full engine is not coming up")]
    FullNotComingUp,
    #[error("the full engine is not running")]
    FullNotRunning,
    #[error("no engine answering by words runs")]
    NoEngineByWords,
    #[error("the engine stopped while starting")]
    StoppedWhileStarting,
    /// The browser would not start an engine's worker.
    #[error("{0}")]
    WorkerNotStarted(JsError),
    #[error("this build names no engine module (<meta name=\"quire-engine\">)")]
    NoEngineModule,
    /// The browser would not post a message to the engine.
    #[error("{0}")]
    Unposted(JsError),
    /// A reply that did not decode as its call's.
    #[error(transparent)]
    Damaged(#[from] Damaged),
    #[error("the engine by words opened no index")]
    NothingOpenedByWords,
    #[error("the index saved in this browser was forgotten")]
    SavedIndexForgotten,
}

/// Why the engine refused or failed a call.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, thiserror::Error)]
pub enum EngineError {
    /// The browser would not post a message to an embedding worker.
    #[error("{0}")]
    Unposted(JsError),

    // The engine's state.
    #[error("the engine is not started yet")]
    NotStarted,
    #[error("no documents are indexed yet")]
    NoIndex,
    /// A change asked of an index held by its fragments on the site.
    #[error("the site's whole index is still loading: this can be done once it has")]
    WholeIndexLoading,
    /// What needs the whole index, asked of one held by its fragments.
    #[error("this is answered once the whole index has loaded; until then questions are answered from its fragments")]
    AnsweredOnceWhole,
    #[error("no index is opened by its fragments")]
    NoFragments,
    #[error(transparent)]
    Replaced(#[from] Replaced),

    // The model.
    /// What the engine by words refuses: it has no model.
    #[error("this needs the embedding model, which is still loading")]
    NeedsTheModel,
    #[error("the embedding model is still loading")]
    ModelLoading,
    #[error("the embedding model could not be loaded: {0}")]
    ModelFailed(ModelLoadError),
    #[error(transparent)]
    OtherModel(ModelMismatch),
    /// Embedding failed (`embed::EmbedError`'s words).
    #[error("{0}")]
    Embedding(String),
    #[error(transparent)]
    Pool(#[from] PoolError),

    // Opening, saving and changing an index.
    /// A snapshot (named where it came from) that is not one, or not of this model: `SnapshotError`'s or
    /// `ModelMismatch`'s words.
    #[error("{name}: {reason}")]
    Snapshot { name: String, reason: String },
    /// An index's fragments (named by its whole snapshot) that could not be opened.
    #[error("{name}: {error}")]
    Fragments { name: String, error: Box<EngineError> },
    /// A fragment that is not this index's part (`FragmentError`'s words).
    #[error("{url}: {reason}")]
    Fragment { url: String, reason: String },
    /// The index could not be written as a snapshot (`SnapshotError`'s words).
    #[error("{0}")]
    Export(String),
    #[error(transparent)]
    Fetch(#[from] FetchError),
    #[error(transparent)]
    Storage(StorageError),
    #[error("the index saved in this browser: {0}")]
    SavedIndex(StorageError),
    #[error("there is no index to add vectors to")]
    NoIndexForVectors,
    /// The update itself cannot be made (nothing to index, an unknown source, …).
    #[error(transparent)]
    Update(UpdateError),

    // Questions.
    /// The document asked for by its source.
    #[error("{0} is not in the index")]
    NotInIndex(String),
    #[error("no LLM-assisted retrieval is waiting for a reply (the engine was restarted)")]
    NoAssistWaiting,
    #[error("the LLM-assisted retrieval was lost")]
    AssistLost,
    /// An LLM-assisted retrieval that cannot run on the method asked (`AssistError`'s words).
    #[error("{0}")]
    AssistRefused(String),
    #[error(transparent)]
    Evaluation(#[from] EvaluationRefused),
    #[error("the evaluation was cancelled")]
    Cancelled,
    #[error("this build measures nothing: build it with `trunk build --features bench`")]
    NoBenchmarks,
}

impl EngineError {
    /// The snapshot `name` refused, for `reason` (it is none, or another model's).
    pub fn snapshot(name: &str, reason: impl std::fmt::Display) -> Self {
        EngineError::Snapshot { name: name.to_string(), reason: reason.to_string() }
    }
}

/// The engine's pipeline failed: the update could not be made, or its embedding (the engine's own error).
impl From<crate::store::pipeline::PipelineError<EngineError>> for EngineError {
    fn from(error: crate::store::pipeline::PipelineError<EngineError>) -> Self {
        use crate::store::pipeline::PipelineError;
        match error {
            PipelineError::Update(error) => EngineError::Update(error),
            PipelineError::Embed(error) => error,
        }
    }
}

impl From<crate::embed::EmbedError> for EngineError {
    fn from(error: crate::embed::EmbedError) -> Self {
        EngineError::Embedding(error.to_string())
    }
}

impl From<crate::retrieve::assist::AssistError> for EngineError {
    fn from(error: crate::retrieve::assist::AssistError) -> Self {
        use crate::retrieve::assist::AssistError;
        match error {
            refused @ AssistError::NeedsTheJoin(_) => EngineError::AssistRefused(refused.to_string()),
            AssistError::Embed(error) => error.into(),
        }
    }
}
