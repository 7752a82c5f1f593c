//! The bench build's measurements in the engine worker (`?bench=` pages, `tests/browser/bench*.mjs` and
//! `profile-embed.mjs`): embedding throughput, alone or through a pool, and a vector index's build, query
//! time and recall. Compiled only with the `bench` feature.

use crate::embed::TextEmbedder;
use crate::web::browser;
use crate::web::error::EngineError;
use crate::web::pool::{EmbedHere, Pool};
use crate::web::protocol::Benchmark;

use super::indexing::embed_here;

/// The JSON report of `benchmark`.
pub(super) async fn measure(benchmark: Benchmark) -> Result<String, EngineError> {
    match benchmark {
        Benchmark::Embed { count, tokens, workers, here } => embedding(count, tokens, workers, here).await,
        Benchmark::VectorIndex { vectors, kind } => Ok(vector_index(vectors, kind)),
    }
}

/// A vector index of `kind` built over `vectors` synthetic vectors in this worker (one thread, as indexing
/// here builds it), measured as `cargo bench --bench vector_index` measures it natively.
fn vector_index(vectors: usize, kind: crate::index::VectorIndexKind) -> String {
    use crate::index::VectorIndex;
    const K: usize = 10;
    let data = crate::bench::ClusteredVectors::new(vectors, 200);
    let truth = data.exact_neighbours(K);
    let rows = (0..vectors as u32).collect();
    let build = |store: &_| VectorIndex::build_kind(store, rows, kind);
    let report = crate::bench::measure_index(&data, &truth, K, build, &browser::now_ms);
    serde_json::to_string(&report).unwrap_or_default()
}

/// Embedding throughput on `count` sequences of `tokens` word-pieces: in this worker alone (`workers` 0),
/// or through a pool of `workers` embedding workers, each with its own model, this worker embedding its
/// share too when `here` (as the app indexes).
async fn embedding(count: usize, tokens: usize, workers: usize, here: bool) -> Result<String, EngineError> {
    if workers == 0 {
        let embedder = super::model::embedder()?;
        let embedder = &*embedder;
        // A profiler attached to this worker (tests/browser/profile-embed.mjs) records exactly this span;
        // without one, both calls do nothing.
        web_sys::console::profile_1(&"embedding".into());
        let report = crate::bench::measure_throughput(embedder, count, tokens, &browser::now_ms);
        web_sys::console::profile_end_1(&"embedding".into());
        let report = report?;
        // What was embedded and what came out, so that another runtime can be checked against it.
        let texts = crate::bench::sample_sequences(embedder, count, tokens);
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        let ids = refs.iter().map(|t| embedder.token_ids(t)).collect::<Result<Vec<_>, _>>()?;
        let vectors = embedder.embed(&refs)?;
        // A report of numbers always serialises.
        let mut json = serde_json::to_value(&report).unwrap_or_default();
        json["token_ids"] = serde_json::json!(ids);
        json["vectors"] = serde_json::json!(vectors);
        // The module's linear memory once the plans these shapes need are built and used.
        json["wasm_memory_mb"] = serde_json::json!(f64::from(browser::wasm_memory_bytes()) / 1e6);
        return Ok(json.to_string());
    }
    let embedder = super::model::embedder()?;
    let texts = crate::bench::sample_sequences(&*embedder, count, tokens);
    let mut pool = Pool::new(workers, embedder.model());
    pool.ready().await?;
    let started = browser::now_ms();
    let here = here.then_some(&embed_here as EmbedHere<'_>);
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
