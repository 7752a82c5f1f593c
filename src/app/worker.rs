//! The engine worker: the one place the app's index lives. It loads the embedder, opens snapshots, parses and
//! embeds the user's files (through a pool of embedding workers when there are many texts), answers queries
//! and outlines, and writes the index out, all off the page's thread, so typing and scrolling never wait for
//! it. A panic here is reported to the page before the module aborts; the page then restarts the worker.
//!
//! It runs the same wasm module as the page (`www/engine-worker.js` loads it), started in this role by
//! `main` when it finds itself in a worker.

use std::cell::{Cell, RefCell};

use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::spawn_local;
use web_sys::{DedicatedWorkerGlobalScope, MessageEvent};

use crate::corpus::{IngestReport, SourceFile};
use crate::embed::{MiniLmEmbedder, TextEmbedder};
use crate::eval::dataset::Labels;
use crate::eval::{EvalSettings, MetricKind};
use crate::generate::{Assist, AssistedRetrieval, Turn};
use crate::graph::overview::Overview;
use crate::retrieve::fusion::describe_ranks;
use crate::retrieve::{Method, Query, ScoredChunk, Trace};
use crate::store::{IndexBuilder, IndexedCorpus, plan_update};

use super::browser;
use super::pool::Pool;
#[cfg(feature = "bench")]
use super::protocol::Benchmark;
use super::protocol::{
    Answer, AssistTurn, Evaluation, FileBytes, FromEngine, IndexOutcome, IndexState, Progress, Reply, Request,
    ResultRow, Step, ToEngine, from_js, post_to_parent,
};

pub const MODEL_URL: &str = "models/model.onnx";
pub const TOKENIZER_URL: &str = "models/tokenizer.json";
/// Texts the engine worker embeds itself between two looks at its messages (a Cancel waits at most this).
const TEXTS_PER_SLICE: usize = 16;
/// Fewer texts than this are embedded here: starting the pool (a model per worker) would cost more.
const POOL_THRESHOLD: usize = 96;
/// How long parsing runs before the worker yields to read its messages.
const PARSE_SLICE_MS: f64 = 50.0;

struct Engine {
    embedder: MiniLmEmbedder,
    index: Option<IndexedCorpus>,
    pool: Option<Pool>,
    /// The last evaluated dataset's index, by the blake3 of what it was built from: a second evaluation of
    /// the same dataset (other methods, other cut-offs) embeds nothing.
    evaluated: Option<(blake3::Hash, IndexedCorpus)>,
}

thread_local! {
    // A worker is single-threaded: one engine per worker, reached from its message handler.
    static ENGINE: RefCell<Option<Engine>> = const { RefCell::new(None) };
    static CANCELLED: Cell<bool> = const { Cell::new(false) };
    // The LLM-assisted retrieval waiting for the LLM's reply, and when it started.
    static ASSISTED: RefCell<Option<(AssistedRetrieval, f64)>> = const { RefCell::new(None) };
}

fn scope() -> DedicatedWorkerGlobalScope {
    js_sys::global().unchecked_into()
}

fn post(message: &FromEngine) {
    post_to_parent(message);
}

fn send_progress(progress: Progress) {
    post(&FromEngine::Progress(progress));
}

/// Starts the engine: the model first (its download reported as progress), then requests.
pub fn serve() {
    std::panic::set_hook(Box::new(|info| {
        console_error_panic_hook::hook(info);
        // The page shows the message beside the file it blames; the location stays in the console.
        post(&FromEngine::Crashed(info.payload_as_str().unwrap_or("a panic").to_string()));
    }));
    spawn_local(async {
        let started = load_embedder(true).await.map(|embedder| {
            let engine = Engine { embedder, index: None, pool: None, evaluated: None };
            ENGINE.with(|slot| *slot.borrow_mut() = Some(engine));
            listen();
        });
        post(&FromEngine::Started(started));
    });
}

/// The embedder, from the files the app serves beside the page; `report_download` tells the page how the
/// model's download goes.
pub async fn load_embedder(report_download: bool) -> Result<MiniLmEmbedder, String> {
    let started = browser::now_ms();
    let model = browser::fetch_bytes_with_progress(MODEL_URL, |done, total| {
        if report_download {
            send_progress(Progress {
                step: Step::LoadModel,
                done,
                total: total.unwrap_or(done),
                rate: rate(done, started),
                current: None,
            });
        }
    })
    .await?;
    let tokenizer = browser::fetch_bytes(TOKENIZER_URL).await?;
    MiniLmEmbedder::from_bytes(&model, &tokenizer).map_err(|e| e.to_string())
}

/// Units per second since `started`, once there is something to tell.
fn rate(done: usize, started: f64) -> Option<f64> {
    let seconds = (browser::now_ms() - started) / 1000.0;
    (done > 0 && seconds > 0.0).then(|| done as f64 / seconds)
}

fn listen() {
    let handler = Closure::<dyn FnMut(MessageEvent)>::new(|event: MessageEvent| match from_js(&event) {
        Ok(ToEngine::Cancel) => CANCELLED.set(true),
        Ok(ToEngine::Call { id, request }) => spawn_local(async move {
            let reply = handle(request).await;
            post(&FromEngine::Reply { id, reply });
        }),
        Err(reason) => post(&FromEngine::Crashed(reason)),
    });
    scope().set_onmessage(Some(handler.as_ref().unchecked_ref()));
    // The handler lives as long as the worker.
    handler.forget();
}

fn with_engine<T>(f: impl FnOnce(&mut Engine) -> T) -> Result<T, String> {
    ENGINE.with(|e| e.borrow_mut().as_mut().map(f)).ok_or_else(|| "the model is not loaded yet".to_string())
}

fn with_index<T>(f: impl FnOnce(&Engine, &IndexedCorpus) -> Result<T, String>) -> Result<T, String> {
    with_engine(|engine| match &engine.index {
        Some(index) => f(engine, index),
        None => Err("no documents are indexed yet".to_string()),
    })?
}

async fn handle(request: Request) -> Result<Reply, String> {
    match request {
        // A retrieval waiting for the LLM holds ids of the index it started on.
        Request::Open { name, bytes } => {
            ASSISTED.set(None);
            open(&name, &bytes).map(Reply::Opened)
        }
        Request::Update { files, removed } => {
            ASSISTED.set(None);
            update(files, removed).await
        }
        Request::Query { text, method, k } => query(&text, &Method::parse(&method)?, k).map(Reply::Answer),
        Request::Assist { text, method, k, assist } => {
            start_assisted(&text, Method::parse(&method)?, k, Assist::parse(&assist)?).map(Reply::Assist)
        }
        Request::AssistReply { reply } => resume_assisted(&reply).map(Reply::Assist),
        Request::Export => with_index(|_, index| index.to_snapshot().map_err(|e| e.to_string())).map(Reply::Snapshot),
        Request::Outline { source, query } => with_index(|engine, index| {
            let vector = query.map(|text| engine.embedder.embed(&[&text]).map_err(|e| e.to_string())).transpose()?;
            index
                .outline(&source, vector.as_ref().map(|v| v[0].as_slice()))
                .ok_or_else(|| format!("{source} is not in the index"))
        })
        .map(Reply::Outline),
        Request::Overview { max_nodes } => {
            with_index(|_, index| Ok(Reply::Overview(Overview::build(&index.corpus, &index.chunk_graph, max_nodes))))
        }
        Request::Evaluate { dataset, split, files, snapshot, methods, cutoffs } => {
            let request = EvaluationRequest { dataset, split, files, snapshot, methods, cutoffs };
            evaluate(request).await.map(Reply::Evaluation)
        }
        #[cfg(feature = "bench")]
        Request::Benchmark(Benchmark::Embed { count, tokens, workers, here }) => {
            benchmark(count, tokens, workers, here).await.map(Reply::Benchmark)
        }
        #[cfg(feature = "bench")]
        Request::Benchmark(Benchmark::Hnsw { vectors }) => Ok(Reply::Benchmark(benchmark_hnsw(vectors))),
    }
}

fn state(index: &IndexedCorpus) -> IndexState {
    IndexState {
        summary: index.summary(),
        documents: index.corpus.documents.iter().map(|d| (d.source.clone(), d.title.clone())).collect(),
        engine_memory_bytes: browser::wasm_memory_bytes(),
    }
}

/// Replaces the index with a `.quire` file's; a file that is not a snapshot, or was embedded by another
/// model, is refused and the current index kept.
fn open(name: &str, bytes: &[u8]) -> Result<IndexState, String> {
    let index = IndexedCorpus::from_snapshot(bytes).map_err(|e| format!("{name}: {e}"))?;
    with_engine(|engine| {
        index.check_model(engine.embedder.identity()).map_err(|e| format!("{name}: {e}"))?;
        let shown = state(&index);
        engine.index = Some(index);
        Ok(shown)
    })?
}

/// Parses `files` file by file, adds them to the corpus (replacing same-named documents) and removes
/// `removed`; only new texts are embedded. A Cancel between two steps stops it with the index as it was.
async fn update(files: Vec<FileBytes>, removed: Vec<String>) -> Result<Reply, String> {
    CANCELLED.set(false);
    let started = browser::now_ms();
    let settings = with_engine(|engine| engine.index.as_ref().map(|i| i.settings.clone()))?.unwrap_or_default();
    let Some(mut report) = parse(files, &settings.corpus).await else { return Ok(cancelled(IndexOutcome::default())) };
    with_engine(|engine| {
        let indexed = engine.index.as_ref().map_or(&[][..], |index| index.corpus.documents.as_slice());
        report.drop_indexed_duplicates(indexed, &removed);
    })?;
    let mut outcome = IndexOutcome {
        errors: report.errors.iter().map(ToString::to_string).collect(),
        warnings: report.warnings.iter().map(|(file, warning)| format!("{file}: {warning}")).collect(),
        ..Default::default()
    };
    if report.documents.is_empty() && removed.is_empty() {
        return Ok(Reply::Updated { outcome, state: None });
    }
    // The current index stays in place until the new one is complete, so a failure or a cancel loses nothing.
    let mut builder = with_engine(|engine| {
        let identity = engine.embedder.identity().clone();
        plan_update(engine.index.as_ref(), report.documents, &removed, &engine.embedder, identity, None)
    })?
    .map_err(|e| e.to_string())?;
    outcome.reused = builder.reused();
    if !embed(&mut builder).await? {
        outcome.embedded = builder.embedded();
        return Ok(cancelled(outcome));
    }
    outcome.embedded = builder.embedded();
    let index = build(builder).await;
    let shown = state(&index);
    with_engine(|engine| engine.index = Some(index))?;
    outcome.seconds = (browser::now_ms() - started) / 1000.0;
    Ok(Reply::Updated { outcome, state: Some(shown) })
}

fn cancelled(outcome: IndexOutcome) -> Reply {
    Reply::Updated { outcome: IndexOutcome { cancelled: true, ..outcome }, state: None }
}

/// Every file parsed, or `None` when cancelled. The page hears of each file before it is parsed: if the
/// parser crashes the worker, that file is the one to skip.
async fn parse(files: Vec<FileBytes>, settings: &crate::corpus::CorpusSettings) -> Option<IngestReport> {
    let mut report = IngestReport::default();
    let (started, total) = (browser::now_ms(), files.len());
    let mut last_yield = started;
    for (done, file) in files.into_iter().enumerate() {
        if browser::now_ms() - last_yield > PARSE_SLICE_MS {
            browser::next_tick().await;
            last_yield = browser::now_ms();
        }
        if CANCELLED.get() {
            return None;
        }
        let current = Some(file.path.clone());
        send_progress(Progress { step: Step::Parse, done, total, rate: rate(done, started), current });
        report.add(&SourceFile::new(file.path, file.bytes), settings);
    }
    Some(report)
}

/// Embeds every pending text, here or through the pool; `false` when cancelled.
async fn embed(builder: &mut IndexBuilder) -> Result<bool, String> {
    let (started, total) = (browser::now_ms(), builder.to_embed());
    let tell = |done: usize| {
        send_progress(Progress { step: Step::Embed, done, total, rate: rate(done, started), current: None })
    };
    tell(0);
    if total >= POOL_THRESHOLD {
        let mut pool = with_engine(|engine| engine.pool.take())?.unwrap_or_else(Pool::for_this_device);
        let embedded = pool.embed(builder, Some(&embed_here), &|| CANCELLED.get(), &tell).await;
        // A pool that failed is dropped (its workers end with it); the next large update starts a new one.
        if embedded.is_ok() {
            with_engine(|engine| engine.pool = Some(pool))?;
        }
        return embedded;
    }
    while !builder.is_done() {
        browser::next_tick().await;
        if CANCELLED.get() {
            return Ok(false);
        }
        with_engine(|engine| builder.embed_next(&engine.embedder, TEXTS_PER_SLICE))?.map_err(|e| e.to_string())?;
        tell(builder.embedded());
    }
    Ok(true)
}

/// Embeds with the engine's own model: the engine worker's share of a pool's jobs.
fn embed_here(texts: &[&str]) -> Result<Vec<Vec<f32>>, String> {
    with_engine(|engine| engine.embedder.embed(texts).map_err(|e| e.to_string()))?
}

/// The `k` best chunks for `text` by `method`, with each retriever's rank and the trace.
fn query(text: &str, method: &Method, k: usize) -> Result<Answer, String> {
    let started = browser::now_ms();
    with_index(|engine, index| {
        let vector = engine.embedder.embed(&[text]).map_err(|e| e.to_string())?.remove(0);
        let (chunks, trace) = method.trace(index, Query::new(text, &vector), k, k);
        Ok(answer(index, &chunks, trace, started))
    })
}

fn answer(index: &IndexedCorpus, chunks: &[ScoredChunk], trace: Trace, started: f64) -> Answer {
    let rows = chunks
        .iter()
        .map(|hit| {
            let view = index.chunk_view(hit.chunk);
            ResultRow {
                label: view.label,
                source: view.source,
                chunk: hit.chunk,
                score: hit.score,
                ranks: input_ranks(&trace, hit.chunk),
                text: view.text,
            }
        })
        .collect();
    let graph = trace.graph(&index.corpus);
    Answer { rows, trace, graph, milliseconds: browser::now_ms() - started }
}

fn start_assisted(text: &str, method: Method, k: usize, assist: Assist) -> Result<AssistTurn, String> {
    let started = browser::now_ms();
    let (retrieval, turn) = with_index(|engine, index| {
        let vector = engine.embedder.embed(&[text]).map_err(|e| e.to_string())?.remove(0);
        AssistedRetrieval::start(assist, method, index, text, vector, k)
    })?;
    ASSISTED.set(Some((retrieval, started)));
    assist_turn(turn)
}

fn resume_assisted(reply: &str) -> Result<AssistTurn, String> {
    let (mut retrieval, started) =
        ASSISTED.take().ok_or("no LLM-assisted retrieval is waiting for a reply (the engine was restarted)")?;
    let turn = with_index(|engine, index| {
        let embed = |text: &str| Ok(engine.embedder.embed(&[text]).map_err(|e| e.to_string())?.remove(0));
        retrieval.resume(index, reply, &embed)
    })?;
    ASSISTED.set(Some((retrieval, started)));
    assist_turn(turn)
}

fn assist_turn(turn: Turn) -> Result<AssistTurn, String> {
    match turn {
        Turn::Ask(messages) => Ok(AssistTurn::Ask(messages)),
        Turn::Done(chunks, trace) => {
            let (_, started) = ASSISTED.take().ok_or("the LLM-assisted retrieval was lost")?;
            with_index(|_, index| Ok(AssistTurn::Done(answer(index, &chunks, trace, started))))
        }
    }
}

/// Each input retriever's rank for `chunk`: from the fusion's rows, or the lone retriever's own rank; an
/// assisted retrieval's chunk the base method did not rank is named by its lane.
fn input_ranks(trace: &Trace, chunk: u32) -> String {
    let row = trace
        .fusion
        .as_ref()
        .and_then(|fusion| fusion.rows.iter().find(|row| row.chunk == chunk).map(|row| (fusion, row)));
    if let Some((fusion, row)) = row {
        let names: Vec<&str> = fusion.inputs.iter().map(String::as_str).collect();
        return describe_ranks(&names, &row.ranks);
    }
    trace
        .retrievers
        .iter()
        .find_map(|r| r.chunks.iter().find(|c| c.chunk == chunk).map(|c| format!("{} #{}", r.retriever, c.rank)))
        .unwrap_or_default()
}

/// What an evaluation was asked for (`Request::Evaluate`).
struct EvaluationRequest {
    dataset: String,
    split: String,
    files: Vec<FileBytes>,
    snapshot: Option<Vec<u8>>,
    methods: Vec<String>,
    cutoffs: Vec<usize>,
}

impl EvaluationRequest {
    /// The folder's file named `name` (at any depth: a picked folder's paths start with its own name), or its
    /// gzipped form, as text.
    fn text(&self, name: &str) -> Result<(String, String), String> {
        let gzipped = format!("{name}.gz");
        let file = self
            .files
            .iter()
            .find(|f| [name, gzipped.as_str()].iter().any(|n| f.path == *n || f.path.ends_with(&format!("/{n}"))))
            .ok_or_else(|| {
                format!(
                    "{name}: not in the folder (a BEIR-layout folder holds corpus.jsonl, queries.jsonl and \
                     qrels/<split>.tsv, each optionally gzipped)"
                )
            })?;
        Ok((file.path.clone(), crate::eval::dataset::file_text(&file.path, file.bytes.clone())?))
    }
}

/// Runs an evaluation as `quire eval` does: the same metrics, the same table.
async fn evaluate(request: EvaluationRequest) -> Result<Evaluation, String> {
    let methods = request.methods.iter().map(|name| Method::parse(name)).collect::<Result<Vec<_>, _>>()?;
    if methods.is_empty() {
        return Err("choose at least one retriever to evaluate".into());
    }
    if request.cutoffs.iter().any(|&k| k == 0 || k > crate::eval::RUN_DEPTH) {
        return Err(format!("every cut-off must be between 1 and {}", crate::eval::RUN_DEPTH));
    }
    let (queries, qrels) = (request.text("queries.jsonl")?, request.text(&format!("qrels/{}.tsv", request.split))?);
    let labels = Labels::parse((&queries.0, &queries.1), (&qrels.0, &qrels.1))?;
    let index = evaluation_index(&request).await?;
    let settings = EvalSettings::all_metrics(methods, &MetricKind::ALL, &request.cutoffs);
    with_engine(|engine| {
        let index = &index.1;
        let dataset = labels.label(&request.dataset, &request.split, &crate::eval::indexed_document_ids(index))?;
        let questions = dataset.queries.len();
        let mut progress = |method: &Method, done: usize| {
            let current = Some(method.name());
            send_progress(Progress { step: Step::Evaluate, done, total: questions, rate: None, current });
        };
        let report =
            crate::eval::evaluate(index, &engine.embedder, &dataset, &settings, &mut progress, &browser::now_ms)
                .map_err(|e| e.to_string())?;
        Ok(Evaluation { summary: report.summary(index), table: report.table(), warnings: report.warnings })
    })
    .and_then(|evaluated| {
        with_engine(|engine| engine.evaluated = Some(index))?;
        evaluated
    })
}

/// The dataset's index: its prebuilt snapshot, or its corpus indexed here (through the pool), or the one
/// the last evaluation of the same dataset built.
async fn evaluation_index(request: &EvaluationRequest) -> Result<(blake3::Hash, IndexedCorpus), String> {
    let corpus = match &request.snapshot {
        Some(_) => None,
        None => Some(request.text("corpus.jsonl")?),
    };
    let source = request.snapshot.as_deref().unwrap_or_else(|| corpus.as_ref().map_or(&[][..], |c| c.1.as_bytes()));
    let key = blake3::hash(source);
    if let Some(cached) = with_engine(|engine| engine.evaluated.take().filter(|(k, _)| *k == key))? {
        return Ok(cached);
    }
    if let Some(bytes) = &request.snapshot {
        let name = format!("{}'s index", request.dataset);
        let index = IndexedCorpus::from_snapshot(bytes).map_err(|e| format!("{name}: {e}"))?;
        with_engine(|engine| index.check_model(engine.embedder.identity()).map_err(|e| format!("{name}: {e}")))??;
        return Ok((key, index));
    }
    let (name, text) = corpus.unwrap_or_default();
    let settings = crate::store::IndexSettings::default();
    let report = crate::corpus::ingest(&[SourceFile::new("corpus.jsonl", text.into_bytes())], &settings.corpus);
    if let Some(error) = report.errors.first() {
        return Err(format!("{name}: {}", error.failure));
    }
    let mut builder = with_engine(|engine| {
        let identity = engine.embedder.identity().clone();
        crate::store::plan_index(report.documents, None, &engine.embedder, identity, settings)
    })?
    .map_err(|e| e.to_string())?;
    CANCELLED.set(false);
    if !embed(&mut builder).await? {
        return Err("the evaluation was cancelled".into());
    }
    Ok((key, build(builder).await))
}

/// The graphs and indexes of an embedded corpus, the page told first (this step has no count to report).
async fn build(builder: IndexBuilder) -> IndexedCorpus {
    send_progress(Progress { step: Step::Build, done: 0, total: 0, rate: None, current: None });
    browser::next_tick().await;
    builder.finish()
}

/// The HNSW index built over `vectors` synthetic vectors in this worker (one thread, as indexing here
/// builds it), measured as `cargo bench --bench vector_index` measures it natively.
#[cfg(feature = "bench")]
fn benchmark_hnsw(vectors: usize) -> String {
    use crate::index::{HnswParams, VectorIndex};
    const K: usize = 10;
    let data = crate::bench::ClusteredVectors::new(vectors, 200);
    let truth = data.exact_neighbours(K);
    let rows = (0..vectors as u32).collect();
    let build = |store: &_| VectorIndex::build_hnsw(store, rows, HnswParams::default());
    let report = crate::bench::measure_index(&data, &truth, K, build, &browser::now_ms);
    serde_json::to_string(&report).unwrap_or_default()
}

/// Embedding throughput on `count` sequences of `tokens` word-pieces: in this worker alone (`workers` 0),
/// or through a pool of `workers` embedding workers, each with its own model, this worker embedding its
/// share too when `here` (as the app indexes).
#[cfg(feature = "bench")]
async fn benchmark(count: usize, tokens: usize, workers: usize, here: bool) -> Result<String, String> {
    if workers == 0 {
        return with_engine(|engine| {
            let embedder = &engine.embedder;
            // A profiler attached to this worker (tests/browser/profile-embed.mjs) records exactly this span;
            // without one, both calls do nothing.
            web_sys::console::profile_1(&"embedding".into());
            let report = crate::bench::measure_throughput(embedder, count, tokens, &browser::now_ms);
            web_sys::console::profile_end_1(&"embedding".into());
            let report = report.map_err(|e| e.to_string())?;
            // What was embedded and what came out, so that another runtime can be checked against it.
            let texts = crate::bench::sample_sequences(embedder, count, tokens);
            let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
            let ids =
                refs.iter().map(|t| embedder.token_ids(t)).collect::<Result<Vec<_>, _>>().map_err(|e| e.to_string())?;
            let vectors = embedder.embed(&refs).map_err(|e| e.to_string())?;
            let mut json = serde_json::to_value(&report).map_err(|e| e.to_string())?;
            json["token_ids"] = serde_json::json!(ids);
            json["vectors"] = serde_json::json!(vectors);
            // The module's linear memory once the plans these shapes need are built and used.
            json["wasm_memory_mb"] = serde_json::json!(f64::from(browser::wasm_memory_bytes()) / 1e6);
            Ok(json.to_string())
        })?;
    }
    let texts = with_engine(|engine| crate::bench::sample_sequences(&engine.embedder, count, tokens))?;
    let mut pool = Pool::new(workers);
    pool.ready().await?;
    let started = browser::now_ms();
    let here = here.then_some(&embed_here as super::pool::EmbedHere<'_>);
    let vectors = pool.embed_texts(&texts, here, &|| false, &|_| {}).await?.unwrap_or_default();
    let milliseconds = browser::now_ms() - started;
    // The pool must give each text the vector this worker gives it, in the texts' order.
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let alone = embed_here(&refs)?;
    let agreement = vectors
        .iter()
        .zip(&alone)
        .map(|(a, b)| crate::index::vectors::dot(a, b))
        .fold(if vectors.len() == alone.len() { f32::INFINITY } else { 0.0 }, f32::min);
    Ok(serde_json::json!({
        "workers": workers,
        "engine_embeds": here.is_some(),
        "agreement": agreement,
        "sequences": vectors.len(),
        "tokens_per_sequence": tokens,
        "ms_per_sequence": milliseconds / count as f64,
        "sequences_per_second": count as f64 * 1000.0 / milliseconds,
    })
    .to_string())
}
