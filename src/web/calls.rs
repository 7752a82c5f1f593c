//! The engine's calls. Each request the page can make is a type of its own that names its reply
//! ([`Call::Reply`], as tantivy's `Collector` names its `Fruit`): the page sends one with `client::call`,
//! which returns that type, and an engine answers it through [`dispatch`], the one table that hands each
//! request to the engine's [`Serve`] implementation for it. A request answered by another reply does not
//! compile, so the page never meets "the engine answered another request".
//!
//! A reply crosses beside [`FromEngine::Reply`](super::protocol::FromEngine) as bytes of its own ([`Reply`]):
//! the MessagePack of its type, decoded by the page as the type its call names, or a snapshot's bytes as
//! they are.

use std::future::Future;

use serde::{Deserialize, Serialize};

use super::error::{Damaged, EngineError};
use super::protocol::{
    Answer, AssistTurn, Benchmark, Evaluation, FileBytes, IndexOutcome, IndexState, MethodSpec, decode, encode,
};
use crate::graph::overview::Overview;
use crate::retrieve::assist::Assist;
use crate::store::DocumentOutline;

/// A request to the engine and the type it is answered with.
pub trait Call: Into<Request> {
    type Reply: Reply;
}

/// How a reply crosses from the engine worker to the page: its bytes, moved apart from the message that
/// names its call (`protocol::to_js_with`).
pub trait Reply: Sized {
    fn into_bytes(self) -> js_sys::Uint8Array;
    fn from_bytes(bytes: js_sys::Uint8Array) -> Result<Self, Damaged>;
}

/// The replies that cross as the MessagePack of their type.
macro_rules! in_messagepack {
    ($($reply:ty),*) => {
        $(
            impl Reply for $reply {
                fn into_bytes(self) -> js_sys::Uint8Array {
                    js_sys::Uint8Array::from(encode(&self).as_slice())
                }

                fn from_bytes(bytes: js_sys::Uint8Array) -> Result<Self, Damaged> {
                    decode(&bytes.to_vec())
                }
            }
        )*
    };
}

in_messagepack!(
    IndexState,
    Option<IndexState>,
    Updated,
    Answer,
    AssistTurn,
    (),
    DocumentOutline,
    Overview,
    Evaluation,
    String
);

/// A snapshot's bytes cross as they are: written a piece at a time out of the engine's memory, moved to the
/// page, and handed to the file it writes without a copy into the page's own.
impl Reply for Snapshot {
    fn into_bytes(self) -> js_sys::Uint8Array {
        self.0
    }

    fn from_bytes(bytes: js_sys::Uint8Array) -> Result<Self, Damaged> {
        Ok(Snapshot(bytes))
    }
}

/// How an engine answers call `C`: every engine serves every call, refusing those it cannot (the engine by
/// words refuses what needs the model).
pub trait Serve<C: Call> {
    fn serve(call: C) -> impl Future<Output = Result<C::Reply, EngineError>>;
}

/// Replace the index with a `.quire` snapshot's; `name` says where it came from in an error.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Open {
    pub name: String,
    #[serde(with = "serde_bytes")]
    pub bytes: Vec<u8>,
}

/// Replace the index with the one saved in this browser (`storage`), if one is: answered by `None` when
/// none is saved.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OpenSaved;

/// Save the index in this browser, in place of the one saved before.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Save;

/// Replace the index with one split into fragments on the site (`store::fragments`), under `folder`: the
/// engine answers from them, fetching what each question needs; `name` is its whole snapshot.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OpenFragments {
    pub name: String,
    pub folder: String,
}

/// Parse `files` into the corpus, replacing same-named documents, and remove `removed`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Update {
    pub files: Vec<FileBytes>,
    pub removed: Vec<String>,
}

/// Embed the index's pages, sections, entities and relations (it holds chunk vectors only), before a
/// method that searches them runs; answered as an update.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AddNodeVectors;

/// What an update (or [`AddNodeVectors`]) did; `state` is `None` when the index did not change (a cancel,
/// or nothing to index).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Updated {
    pub outcome: IndexOutcome,
    pub state: Option<IndexState>,
}

/// The `k` best chunks for `text` by `method`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Query {
    pub text: String,
    pub method: MethodSpec,
    pub k: usize,
}

/// As [`Query`], with the LLM-assisted retrieval `assist` searching by `method`: answered by what to ask
/// the LLM, or by the answer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StartAssist {
    pub text: String,
    pub method: MethodSpec,
    pub k: usize,
    pub assist: Assist,
}

/// The LLM's reply to the running assisted retrieval's last question.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AssistReply {
    pub reply: String,
}

/// The whole index as a `.quire` file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Export;

/// A `.quire` file's bytes, in JavaScript's memory: the whole of a buffer of their own (`Reply`).
#[derive(Clone, Debug)]
pub struct Snapshot(pub js_sys::Uint8Array);

/// The engine writes an export straight into the buffer the page receives, a piece at a time.
impl crate::store::SnapshotSink for Snapshot {
    fn allocate(&mut self, len: usize) {
        self.0 = js_sys::Uint8Array::new_with_length(len as u32);
    }

    fn write_at(&mut self, offset: usize, bytes: &[u8]) {
        self.0.subarray(offset as u32, (offset + bytes.len()) as u32).copy_from(bytes);
    }
}

/// The document `source` as sections and chunks, each chunk scored against `query` when there is one.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Outline {
    pub source: String,
    pub query: Option<String>,
}

/// The whole corpus graph laid out for drawing, at most `max_nodes` nodes of it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GraphOverview {
    pub max_nodes: usize,
}

/// Measures `methods` on a BEIR-layout dataset: its questions and labels from `files` (found by name:
/// `queries.jsonl`, `qrels/<split>.tsv`, each optionally gzipped), its corpus from `snapshot` when given
/// (prebuilt), else indexed from `corpus.jsonl` in `files`. Every metric at each of `cutoffs`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Evaluate {
    pub dataset: String,
    pub split: String,
    pub files: Vec<FileBytes>,
    #[serde(with = "serde_bytes")]
    pub snapshot: Option<Vec<u8>>,
    /// Method names as `quire eval --retrievers` takes them (presets such as `rrf-all` included): the view
    /// offers them by name, and the engine parses them (`Method::parse`), the one place they are.
    pub methods: Vec<String>,
    pub cutoffs: Vec<usize>,
}

/// The calls, each with its reply: [`Request`], the [`Call`] implementations, [`Engine`] (every `Serve`)
/// and [`dispatch`] are written from this one list.
macro_rules! calls {
    ($($call:ident -> $reply:ty;)*) => {
        /// Every call as it crosses to the engine.
        #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
        pub enum Request {
            $($call($call),)*
        }

        $(
            impl Call for $call {
                type Reply = $reply;
            }

            impl From<$call> for Request {
                fn from(call: $call) -> Self {
                    Request::$call(call)
                }
            }
        )*

        /// An engine: one that serves every call.
        pub trait Engine: $(Serve<$call> +)* {}

        impl<E: $(Serve<$call> +)*> Engine for E {}

        /// The one handler table: `request` served by engine `E`, its reply's bytes for the page.
        pub async fn dispatch<E: Engine>(request: Request) -> Result<js_sys::Uint8Array, EngineError> {
            match request {
                $(Request::$call(call) => <E as Serve<$call>>::serve(call).await.map(Reply::into_bytes),)*
            }
        }
    };
}

calls! {
    Open -> IndexState;
    OpenSaved -> Option<IndexState>;
    OpenFragments -> IndexState;
    Update -> Updated;
    AddNodeVectors -> Updated;
    Query -> Answer;
    StartAssist -> AssistTurn;
    AssistReply -> AssistTurn;
    Export -> Snapshot;
    Save -> ();
    Outline -> DocumentOutline;
    GraphOverview -> Overview;
    Evaluate -> Evaluation;
    Benchmark -> String;
}

impl Request {
    /// Whether the page's Cancel stops it: the calls whose long steps keep the index as it was when stopped.
    pub fn stoppable(&self) -> bool {
        matches!(self, Request::Update(_) | Request::AddNodeVectors(_) | Request::Evaluate(_))
    }
}

/// Implements `Serve<C>` for `engine` as a refusal with `why` (an `EngineError`), for each call `C` it
/// cannot serve.
macro_rules! refuse {
    ($engine:ty, $why:expr, [$($call:ty),* $(,)?]) => {
        $(
            impl $crate::web::calls::Serve<$call> for $engine {
                async fn serve(
                    _: $call,
                ) -> Result<<$call as $crate::web::calls::Call>::Reply, $crate::web::error::EngineError> {
                    Err($why)
                }
            }
        )*
    };
}
pub(crate) use refuse;
