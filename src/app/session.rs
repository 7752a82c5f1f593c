//! The app's engine session: the loaded embedder and the indexed corpus. Every operation here is a call
//! into the engine; the session only sequences them with browser I/O and progress reporting.

use std::cell::RefCell;

use crate::corpus::{self, SourceFile};
use crate::embed::{MiniLmEmbedder, TextEmbedder};
use crate::retrieve;
use crate::store::{CorpusSummary, IndexedCorpus, plan_update};

use super::browser;

pub const MODEL_URL: &str = "models/model.onnx";
pub const TOKENIZER_URL: &str = "models/tokenizer.json";
pub const DEMO_MANIFEST_URL: &str = "demo/manifest.json";
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

pub async fn fetch_demo_files() -> Result<Vec<SourceFile>, String> {
    let manifest = browser::fetch_bytes(DEMO_MANIFEST_URL).await?;
    let manifest: serde_json::Value =
        serde_json::from_slice(&manifest).map_err(|e| format!("{DEMO_MANIFEST_URL}: {e}"))?;
    let names: Vec<String> = manifest["files"]
        .as_array()
        .ok_or_else(|| format!("{DEMO_MANIFEST_URL}: no `files` list"))?
        .iter()
        .filter_map(|f| f.as_str().map(str::to_string))
        .collect();
    let mut files = Vec::new();
    for name in names {
        // Demo documents live under `demo/`, so a user's own `moon.md` joins them instead of replacing one.
        let path = format!("demo/{name}");
        files.push(SourceFile::new(&path, browser::fetch_bytes(&path).await?));
    }
    Ok(files)
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct IndexOutcome {
    pub errors: Vec<String>,
    pub warnings: Vec<String>,
    pub embedded: usize,
    pub reused: usize,
    pub seconds: f64,
}

/// Parses `files` and adds them to the corpus (replacing same-named documents); only new texts are
/// embedded. `progress(done, total)` is called between slices.
pub async fn add_files(files: Vec<SourceFile>, mut progress: impl FnMut(usize, usize)) -> Result<IndexOutcome, String> {
    let started = browser::now_ms();
    let settings = with_session(|session| session.index.as_ref().map(|i| i.settings.clone()))?.unwrap_or_default();
    let report = corpus::ingest(&files, &settings.corpus);
    let mut outcome = IndexOutcome {
        errors: report.errors.iter().map(ToString::to_string).collect(),
        warnings: report.warnings.iter().map(|(f, w)| format!("{f}: {w}")).collect(),
        ..Default::default()
    };
    if report.documents.is_empty() {
        return Ok(outcome);
    }
    // The current index stays in place until the new one is complete, so a failure loses nothing.
    let mut builder = with_session(|session| {
        let identity = session.embedder.identity().clone();
        plan_update(session.index.as_ref(), report.documents, &[], &session.embedder, identity, None)
    })?
    .map_err(|e| e.to_string())?;
    let total = builder.to_embed();
    progress(0, total);
    while !builder.is_done() {
        with_session(|session| builder.embed_next(&session.embedder, TEXTS_PER_SLICE))?.map_err(|e| e.to_string())?;
        progress(builder.embedded(), total);
        browser::next_tick().await;
    }
    outcome.embedded = total;
    outcome.reused = builder.reused();
    let index = builder.finish();
    with_session(|session| session.index = Some(index))?;
    outcome.seconds = (browser::now_ms() - started) / 1000.0;
    Ok(outcome)
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
    pub ranks: String,
    pub text: String,
}

/// The fused (RRF of dense and BM25) top `k` chunks with their provenance.
pub fn query(text: &str, k: usize) -> Result<(Vec<ResultRow>, f64), String> {
    let started = browser::now_ms();
    let rows = with_session(|session| {
        let index = session.index.as_ref().ok_or("no documents are indexed yet")?;
        let result = retrieve::hybrid(index, &session.embedder, text, k).map_err(|e| e.to_string())?;
        Ok::<_, String>(
            result
                .fused
                .iter()
                .map(|hit| {
                    let view = index.chunk_view(hit.chunk);
                    ResultRow {
                        label: view.label,
                        source: view.source,
                        score: hit.score,
                        ranks: hit.describe_ranks(&retrieve::HYBRID_LISTS),
                        text: view.text,
                    }
                })
                .collect(),
        )
    })??;
    Ok((rows, browser::now_ms() - started))
}

/// Embedding throughput on `count` sequences of `tokens` word-pieces, measured with the browser's clock.
#[cfg(feature = "bench")]
pub fn benchmark_embedding(count: usize, tokens: usize) -> Result<serde_json::Value, String> {
    let report = with_session(|session| {
        crate::bench::measure_throughput(&session.embedder, count, tokens, &browser::now_ms).map_err(|e| e.to_string())
    })??;
    serde_json::to_value(report).map_err(|e| e.to_string())
}
