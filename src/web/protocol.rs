//! What the page and the engine worker say to each other, and the engine worker to its embedding workers.
//! Messages are MessagePack-encoded (`rmp-serde`: self-describing, so the trace's internally tagged steps
//! round-trip, which postcard cannot do) and posted as transferred byte buffers: one copy into the buffer,
//! none across the thread boundary, and the types stay the engine's own instead of a hand-kept JavaScript
//! mirror. Byte payloads go as MessagePack binaries (`serde_bytes`), not as arrays of numbers.
//!
//! Kept by hand rather than on the crates the design names, for these reasons (reasoned, not measured):
//! - `gloo-worker`: one module serves three roles, started by `www/engine-worker.js` with a first message
//!   naming the hashed module and the role. gloo-worker's spawner writes a `blob:` shim instead (the page's
//!   policy allows workers from `'self'` only) and resolves it against `window`, which the engine worker
//!   starting its pool has not; its bridge posts with a plain `postMessage`, a structured clone and no
//!   transfer list; its codec panics on a message it cannot decode, and its default, bincode, is not
//!   self-describing; and it has no hook for the worker's error event, by which the page notices an engine
//!   that crashed (a panic aborts a wasm module) and restarts it.
//! - `serde-wasm-bindgen` for the messages: it would build a JavaScript object per value, then clone that
//!   graph across threads: embedding vectors as arrays of numbers, snapshots and files as copied arrays,
//!   where here each message is one buffer, moved. It carries the small values that are meant to be
//!   JavaScript objects instead: a worker's start message (`browser::start_worker`) and the storage estimate.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::corpus::ReportLine;
use crate::eval::Table;
use crate::index::VectorIndexKind;
use crate::index::excerpt::Piece;
use crate::retrieve::trace::TraceGraph;
use crate::retrieve::{Fusion, FusionModel, Method, Retriever, Trace};
use crate::store::CorpusSummary;

use super::error::{Damaged, EmbedderDown, EngineError, ModelUnavailable};

/// The page to the engine worker; `Request` is the engine's calls (`calls::Request`), which name this
/// module's payloads, so the envelope is generic and sits below them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum ToEngine<Request> {
    /// A request whose [`FromEngine::Reply`] carries the same `id`.
    Call { id: u32, request: Request },
    /// Stop call `id` (an update, node vectors, an evaluation) at its next step, the index kept as it was;
    /// one still waiting to begin (for the model) stops as it begins.
    Cancel { id: u32 },
}

/// A retrieval method as it crosses to the engine worker. [`Method`] itself cannot: learned fusion holds its
/// network (`Arc<FusionModel>`), which does not serialise; the engine holds its own copy of the shipped one.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum MethodSpec {
    Single(Retriever),
    Fused {
        fusion: Fusion,
        inputs: Vec<(Retriever, f32)>,
    },
    /// Learned fusion with the model shipped with Quire.
    Learned,
    /// The default method, which reads its own retrievers.
    Default,
}

impl MethodSpec {
    pub fn method(&self) -> Method {
        match self {
            MethodSpec::Single(retriever) => Method::Single(*retriever),
            MethodSpec::Fused { fusion, inputs } => Method::Fused { fusion: *fusion, inputs: inputs.clone() },
            MethodSpec::Learned => Method::Learned(FusionModel::shipped()),
            MethodSpec::Default => Method::Default,
        }
    }

    /// Whether it reads node vectors (`Method::reads_node_vectors`), asked without loading learned fusion's
    /// network, which the page's module does not link.
    pub fn reads_node_vectors(&self) -> bool {
        match self {
            MethodSpec::Single(retriever) => retriever.reads_node_vectors(),
            MethodSpec::Fused { inputs, .. } => inputs.iter().any(|(retriever, _)| retriever.reads_node_vectors()),
            MethodSpec::Learned => FusionModel::shipped_retrievers().into_iter().any(Retriever::reads_node_vectors),
            MethodSpec::Default => Method::Default.reads_node_vectors(),
        }
    }
}

/// What the bench build's `?bench=` pages measure in the engine worker; answered by a JSON report. The page
/// always forwards one (the page's module is built without the feature); the engine measures only in a
/// build with it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Benchmark {
    /// Embedding throughput on `count` sequences of `tokens` word-pieces through `workers` embedding workers
    /// (0: the engine worker alone), the engine worker embedding its share too when `here`.
    Embed { count: usize, tokens: usize, workers: usize, here: bool },
    /// Building a vector index of `kind` over `vectors` synthetic vectors (`bench::ClusteredVectors`) with
    /// the shipped parameters, then its query time and recall@10 against exact f32 search.
    VectorIndex { vectors: usize, kind: VectorIndexKind },
}

/// A file the user added, known by its path (inside a picked folder) or its name.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FileBytes {
    pub path: String,
    #[serde(with = "serde_bytes")]
    pub bytes: Vec<u8>,
}

/// The engine worker to the page.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum FromEngine {
    /// The engine takes requests from now on; questions are answered by words until `ModelLoaded`.
    Started(Result<(), EngineError>),
    /// The embedding model has loaded, and the engine's memory with it (or why it could not be): questions
    /// by meaning and indexing can go on.
    ModelLoaded(Result<u32, ModelUnavailable>),
    /// How a long step goes: one of call `call`'s, or the model's download behind every call (`None`).
    Progress { call: Option<u32>, progress: Progress },
    /// The reply to call `id`, its bytes beside this message (`to_js_with`: the type its call names, as
    /// `calls::Reply` has it cross), or why the engine refused it.
    Reply { id: u32, reply: Result<(), EngineError> },
    /// The engine panicked; the worker is lost and its index with it.
    Crashed(String),
}

/// An evaluation's result as `quire eval` prints it: what was measured, and a row of means per method.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Evaluation {
    /// `scifact-subset (test split): 53 questions over 300 documents, …`
    pub summary: String,
    pub table: Table,
    /// Questions skipped, and why.
    pub warnings: Vec<String>,
}

/// What the page shows of an index.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct IndexState {
    pub summary: CorpusSummary,
    /// Every document as (source, title), in index order.
    pub documents: Vec<(String, String)>,
    /// The engine worker's wasm memory with this index in it: what the tab holds for it.
    pub engine_memory_bytes: u32,
}

/// The long steps of the engine's work, each reported with its own unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Task {
    /// Bytes of the model and tokenizer fetched.
    LoadModel,
    /// Files parsed.
    Parse,
    /// Distinct texts embedded.
    Embed,
    /// Questions asked of the method named in `current`.
    Evaluate,
    /// The knowledge graph, the chunk graph and the indexes; no count.
    Build,
}

/// How far a step has come.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Progress {
    pub task: Task,
    pub done: usize,
    pub total: usize,
    /// Units per second; `None` until there is a rate to tell.
    pub rate: Option<f64>,
    /// Seconds left, where the units differ in cost (texts to embed, by their word pieces); else the
    /// units left at `rate`.
    pub seconds_left: Option<f64>,
    /// The file being parsed: if the parser crashes, this is the file to blame.
    pub current: Option<String>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct IndexOutcome {
    /// Stopped by the user before the new index was complete; the index is as it was.
    pub cancelled: bool,
    /// What the files gave: problems, notes, and what was routinely left out.
    pub report: Vec<ReportLine>,
    pub embedded: usize,
    pub reused: usize,
    pub seconds: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ResultRow {
    pub label: String,
    pub source: String,
    pub chunk: u32,
    pub score: f32,
    /// Where each input list ranked this chunk, by the list's name (`dense`, 2; `join`, none).
    pub ranks: Vec<(String, Option<usize>)>,
    /// The chunk's whole text (what a citation quotes); the page shows [`Self::excerpt`] and opens the whole
    /// chunk in the outline.
    pub text: String,
    /// The passage around the question's words, the words BM25 matched marked (`index::excerpt`).
    pub excerpt: Vec<Piece>,
    /// The document's other chunks the method ranked, best first (results are grouped by document).
    pub more: Vec<ResultRow>,
    /// Other documents whose best chunk is a near copy of this one (a quote, a copy in another folder).
    pub also_in: Vec<String>,
}

/// One answered question: the method's best documents, each at its best chunk, with provenance, and the trace of how it found them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Answer {
    pub rows: Vec<ResultRow>,
    pub trace: Trace,
    /// The trace as a graph, for the teaching view.
    pub graph: TraceGraph,
    pub milliseconds: f64,
    /// `Some` when the index being built answered (while files are embedded): how many of its documents
    /// were still waiting for their vectors, found by their words until then.
    pub documents_waiting: Option<usize>,
    /// Those waiting documents that BM25 ranks for the question and `rows` does not hold, each at its best
    /// chunk, in BM25's order: a method that reads vectors ranks them below every embedded document.
    pub found_by_words: Vec<ResultRow>,
    /// Answered without the embedding model, which was still loading: by words alone (`Method::Words`, or
    /// BM25 over a site's fragments), or with the question's vector from the index's query table; asked
    /// again once the model has loaded.
    pub model_loading: bool,
    /// The question's vector came from the index's query table (`index::query_table`), not the model.
    pub by_table: bool,
    /// Answered from the index's fragments on its site, by the standardised sum of dense and BM25, because
    /// the whole index was still loading; asked again by the chosen method once it has.
    pub whole_index_loading: bool,
}

/// What an LLM-assisted retrieval wants next: the LLM asked these messages, or it is done.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum AssistTurn {
    Ask(Vec<crate::generate::Message>),
    Done(Answer),
}

/// The engine worker to an embedding worker: embed these texts, in order.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EmbedJob {
    pub id: u32,
    pub texts: Vec<String>,
}

/// An embedding worker's answer: one vector per text of job `id`, or why not (the embedder's words, as
/// `EngineError::Embedding`). `Ready` comes first, once the worker's model is loaded.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum FromEmbedder {
    Ready(Result<(), EmbedderDown>),
    Done { id: u32, vectors: Result<Vec<Vec<f32>>, EngineError> },
}

pub fn encode<T: Serialize>(message: &T) -> Vec<u8> {
    // Writing into a Vec cannot fail, and every type here serialises (structs as maps, for the tagged steps).
    rmp_serde::to_vec_named(message).unwrap_or_default()
}

pub fn decode<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, Damaged> {
    rmp_serde::from_slice(bytes).map_err(|e| Damaged(e.to_string()))
}

/// A worker's message and error listeners, kept alive as long as the worker is used.
pub type Listeners = (
    wasm_bindgen::closure::Closure<dyn FnMut(web_sys::MessageEvent)>,
    wasm_bindgen::closure::Closure<dyn FnMut(web_sys::ErrorEvent)>,
);

/// `message` as a byte array for `postMessage`, with the transfer list that moves (not copies) its buffer.
pub fn to_js<T: Serialize>(message: &T) -> (js_sys::Uint8Array, js_sys::Array) {
    let bytes = js_sys::Uint8Array::from(encode(message).as_slice());
    let transfer = js_sys::Array::of1(&bytes.buffer());
    (bytes, transfer)
}

/// Posts `message` from a worker to whoever started it (the page, or the engine worker for its pool).
pub fn post_to_parent<T: Serialize>(message: &T) {
    use wasm_bindgen::JsCast;
    let (bytes, transfer) = to_js(message);
    let scope: web_sys::DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    // Fails only when the parent is gone, and then there is no one to tell.
    let _ = scope.post_message_with_transfer(&bytes, &transfer);
}

pub fn from_js<T: DeserializeOwned>(event: &web_sys::MessageEvent) -> Result<T, Damaged> {
    decode(&js_sys::Uint8Array::new(&event.data()).to_vec())
}

/// `message` with `payload` beside it (a reply's bytes), both moved: the payload is never copied into the
/// message, nor out of it.
pub fn to_js_with<T: Serialize>(
    message: &T,
    payload: Option<&js_sys::Uint8Array>,
) -> (wasm_bindgen::JsValue, js_sys::Array) {
    let (bytes, transfer) = to_js(message);
    match payload {
        None => (bytes.into(), transfer),
        Some(payload) => {
            transfer.push(&payload.buffer());
            (js_sys::Array::of2(&bytes, payload).into(), transfer)
        }
    }
}

/// A message [`to_js_with`] posted, with its payload if it has one.
pub fn from_js_with<T: DeserializeOwned>(
    event: &web_sys::MessageEvent,
) -> Result<(T, Option<js_sys::Uint8Array>), Damaged> {
    use wasm_bindgen::JsCast;
    let data = event.data();
    if !js_sys::Array::is_array(&data) {
        return Ok((from_js(event)?, None));
    }
    let parts = js_sys::Array::from(&data);
    let message = decode(&js_sys::Uint8Array::new(&parts.get(0)).to_vec())?;
    Ok((message, parts.get(1).dyn_into::<js_sys::Uint8Array>().ok()))
}
