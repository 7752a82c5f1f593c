//! The app's engine session: the loaded embedder and the indexed corpus. Every operation here is a call
//! into the engine; the session only sequences them with browser I/O and progress reporting.

use std::cell::RefCell;

use crate::corpus::{self, SourceFile};
use crate::embed::{MiniLmEmbedder, TextEmbedder};
use crate::retrieve::fusion::describe_ranks;
use crate::retrieve::{Method, Query, Trace};
use crate::store::{CorpusSummary, IndexedCorpus, plan_update};

use super::browser;

pub const MODEL_URL: &str = "models/model.onnx";
pub const TOKENIZER_URL: &str = "models/tokenizer.json";
/// Texts embedded between two yields to the browser.
const TEXTS_PER_SLICE: usize = 8;

struct Session {
    embedder: MiniLmEmbedder,
    index: Option<IndexedCorpus>,
}

thread_local! {
    // wasm32 without threads: one session per page, reached from event handlers.
    static SESSION: RefCell<Option<Session>> = const { RefCell::new(None) };
}

pub async fn load_model() -> Result<(), String> {
    let model = browser::fetch_bytes(MODEL_URL).await?;
    let tokenizer = browser::fetch_bytes(TOKENIZER_URL).await?;
    let embedder = MiniLmEmbedder::from_bytes(&model, &tokenizer).map_err(|e| e.to_string())?;
    SESSION.with(|s| *s.borrow_mut() = Some(Session { embedder, index: None }));
    Ok(())
}

/// A bundled demo: a snapshot the CLI built from open documents at build time (`scripts/build_demos.sh`),
/// ready without embedding anything, and questions to try on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Demo {
    /// Six hand-written notes on the Moon landing and the planets, in every format Quire reads.
    Planets,
    /// 400 interlinked encyclopedia paragraphs from HotpotQA (CC BY-SA 4.0) and multi-hop questions.
    MultiHop,
}

impl Demo {
    pub const ALL: [Demo; 2] = [Demo::Planets, Demo::MultiHop];

    pub fn key(self) -> &'static str {
        match self {
            Demo::Planets => "planets",
            Demo::MultiHop => "multihop",
        }
    }

    pub fn title(self) -> &'static str {
        match self {
            Demo::Planets => "Planets and the Moon landing (6 files)",
            Demo::MultiHop => "Multi-hop encyclopedia (400 HotpotQA paragraphs)",
        }
    }

    fn snapshot_url(self) -> String {
        format!("snapshots/{}.quire", self.key())
    }

    fn questions_url(self) -> String {
        format!("snapshots/{}-questions.json", self.key())
    }
}

/// A question to try on a demo, with what a good answer draws on.
#[derive(Clone, Debug, PartialEq, serde::Deserialize)]
pub struct SampleQuestion {
    pub text: String,
    #[serde(default)]
    pub note: String,
}

/// Replaces the index with `demo`'s snapshot and returns its sample questions.
pub async fn open_demo(demo: Demo) -> Result<Vec<SampleQuestion>, String> {
    let url = demo.snapshot_url();
    import_snapshot(&url, &browser::fetch_bytes(&url).await?)?;
    let url = demo.questions_url();
    let questions = browser::fetch_bytes(&url).await?;
    serde_json::from_slice(&questions).map_err(|e| format!("{url}: {e}"))
}

/// Replaces the index with a `.quire` file's (written by `quire index` or exported here); a file that is not a
/// snapshot, or was embedded by another model, is refused and the current index kept.
pub fn import_snapshot(name: &str, bytes: &[u8]) -> Result<(), String> {
    let index = IndexedCorpus::from_snapshot(bytes).map_err(|e| format!("{name}: {e}"))?;
    with_session(|session| {
        index.check_model(session.embedder.identity())?;
        session.index = Some(index);
        Ok::<_, String>(())
    })?
    .map_err(|e| format!("{name}: {e}"))
}

/// The index as a `.quire` file, the same format the CLI reads.
pub fn export_snapshot() -> Result<Vec<u8>, String> {
    with_session(|session| {
        let index = session.index.as_ref().ok_or("no documents are indexed yet")?;
        index.to_snapshot().map_err(|e| e.to_string())
    })?
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct IndexOutcome {
    /// Stopped by the user before the new index was complete; the index is as it was.
    pub cancelled: bool,
    pub errors: Vec<String>,
    pub warnings: Vec<String>,
    pub embedded: usize,
    pub reused: usize,
    pub seconds: f64,
}

/// How far an update has come: texts embedded of the total, and the embedding rate so far.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Progress {
    pub done: usize,
    pub total: usize,
    /// Texts per second; `None` until the first slice is done.
    pub rate: Option<f64>,
}

/// Parses `files`, adds them to the corpus (replacing same-named documents) and removes the documents named
/// in `removed`; only new texts are embedded. `progress` is told between slices; when `cancelled` says so
/// between two slices, the update stops and the index stays as it was.
pub async fn update(
    files: Vec<SourceFile>,
    removed: &[String],
    mut progress: impl FnMut(Progress),
    cancelled: impl Fn() -> bool,
) -> Result<IndexOutcome, String> {
    let started = browser::now_ms();
    let settings = with_session(|session| session.index.as_ref().map(|i| i.settings.clone()))?.unwrap_or_default();
    let report = corpus::ingest(&files, &settings.corpus);
    let mut outcome = IndexOutcome {
        errors: report.errors.iter().map(ToString::to_string).collect(),
        warnings: report.warnings.iter().map(|(f, w)| format!("{f}: {w}")).collect(),
        ..Default::default()
    };
    if report.documents.is_empty() && removed.is_empty() {
        return Ok(outcome);
    }
    // The current index stays in place until the new one is complete, so a failure or a cancel loses nothing.
    let mut builder = with_session(|session| {
        let identity = session.embedder.identity().clone();
        plan_update(session.index.as_ref(), report.documents, removed, &session.embedder, identity, None)
    })?
    .map_err(|e| e.to_string())?;
    let total = builder.to_embed();
    progress(Progress { done: 0, total, rate: None });
    let embedding_started = browser::now_ms();
    while !builder.is_done() {
        if cancelled() {
            outcome.cancelled = true;
            outcome.embedded = builder.embedded();
            return Ok(outcome);
        }
        with_session(|session| builder.embed_next(&session.embedder, TEXTS_PER_SLICE))?.map_err(|e| e.to_string())?;
        let seconds = (browser::now_ms() - embedding_started) / 1000.0;
        progress(Progress {
            done: builder.embedded(),
            total,
            rate: Some(builder.embedded() as f64 / seconds.max(1e-3)),
        });
        browser::next_tick().await;
    }
    outcome.embedded = total;
    outcome.reused = builder.reused();
    let index = builder.finish();
    with_session(|session| session.index = Some(index))?;
    outcome.seconds = (browser::now_ms() - started) / 1000.0;
    Ok(outcome)
}

/// Every indexed document as (source, title), in index order.
pub fn documents() -> Vec<(String, String)> {
    with_session(|session| {
        session.index.as_ref().map_or_else(Vec::new, |index| {
            index.corpus.documents.iter().map(|d| (d.source.clone(), d.title.clone())).collect()
        })
    })
    .unwrap_or_default()
}

fn with_session<T>(f: impl FnOnce(&mut Session) -> T) -> Result<T, String> {
    SESSION.with(|s| s.borrow_mut().as_mut().map(f)).ok_or_else(|| "the model is not loaded yet".to_string())
}

pub fn summary() -> Option<CorpusSummary> {
    with_session(|session| session.index.as_ref().map(IndexedCorpus::summary)).ok().flatten()
}

#[derive(Clone, Debug, PartialEq)]
pub struct ResultRow {
    pub label: String,
    pub source: String,
    pub score: f32,
    /// Where each retriever ranked this chunk (`dense #2 · join –`).
    pub ranks: String,
    pub text: String,
}

/// One answered question: the method's top chunks, with provenance, and the trace of how it found them.
#[derive(Clone, Debug, PartialEq)]
pub struct Answer {
    pub rows: Vec<ResultRow>,
    pub trace: Trace,
    pub milliseconds: f64,
}

/// The `k` best chunks for `text` by `method`, with each retriever's rank and the trace.
pub fn query(text: &str, method: &Method, k: usize) -> Result<Answer, String> {
    let started = browser::now_ms();
    let (rows, trace) = with_session(|session| {
        let index = session.index.as_ref().ok_or("no documents are indexed yet")?;
        let vector = session.embedder.embed(&[text]).map_err(|e| e.to_string())?.remove(0);
        let (chunks, trace) = method.trace(index, Query { text, vector: &vector }, k, k);
        let rows = chunks
            .iter()
            .enumerate()
            .map(|(position, hit)| {
                let view = index.chunk_view(hit.chunk);
                ResultRow {
                    label: view.label,
                    source: view.source,
                    score: hit.score,
                    ranks: input_ranks(&trace, position),
                    text: view.text,
                }
            })
            .collect();
        Ok::<_, String>((rows, trace))
    })??;
    Ok(Answer { rows, trace, milliseconds: browser::now_ms() - started })
}

/// Each input retriever's rank for the result at `position`: from the fusion's rows, or the lone retriever's
/// own position.
fn input_ranks(trace: &Trace, position: usize) -> String {
    match &trace.fusion {
        Some(fusion) => fusion.rows.get(position).map_or_else(String::new, |row| {
            let names: Vec<&str> = fusion.inputs.iter().map(String::as_str).collect();
            describe_ranks(&names, &row.ranks)
        }),
        None => trace.retrievers.first().map_or_else(String::new, |r| format!("{} #{}", r.retriever, position + 1)),
    }
}

/// Embedding throughput on `count` sequences of `tokens` word-pieces, measured with the browser's clock.
#[cfg(feature = "bench")]
pub fn benchmark_embedding(count: usize, tokens: usize) -> Result<serde_json::Value, String> {
    let report = with_session(|session| {
        crate::bench::measure_throughput(&session.embedder, count, tokens, &browser::now_ms).map_err(|e| e.to_string())
    })??;
    serde_json::to_value(report).map_err(|e| e.to_string())
}
