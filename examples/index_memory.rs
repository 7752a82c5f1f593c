//! Exploration aid, not part of Quire: where `quire index` spends time and memory outside embedding, on
//! the given files, with stand-in vectors (from a hash of each text) in place of the model's, so a file of
//! an hour's embedding is measured in seconds. Prints seconds and the process's peak and current resident
//! memory after each stage. With `--bm25` first it builds only the chunks' BM25 index after structuring, and
//! prints the resident memory it added. Run from the repository root (it reads `models/` for the tokenizer):
//!
//!     cargo run --release --example index_memory -- [--bm25] FILE ...

use std::time::Instant;

use quire::corpus::{self, CorpusSettings, SourceFile};
use quire::embed::{EmbedError, Embedder, EmbeddingModel, ModelIdentity, TextEmbedder};
use quire::index::Bm25Index;
use quire::store::{IndexBuilder, IndexSettings, Vectors, node_texts};

/// Unit vectors that follow from the text alone: no model runs.
struct StandIn<'a>(&'a Embedder);

impl TextEmbedder for StandIn<'_> {
    fn identity(&self) -> &ModelIdentity {
        self.0.identity()
    }
    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        let vector = |text: &str| {
            let seed = blake3::hash(text.as_bytes());
            let raw: Vec<f32> = (0..384).map(|i| seed.as_bytes()[(i * 7) % 32] as f32 - 127.5 + i as f32).collect();
            let norm = raw.iter().map(|x| x * x).sum::<f32>().sqrt();
            raw.into_iter().map(|x| x / norm).collect()
        };
        Ok(texts.iter().map(|text| vector(text)).collect())
    }
}

/// A memory field of `/proc/self/status` (`VmHWM:`, the peak resident; `VmRSS:`, the resident now), in MB.
fn status_mb(field: &str) -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let kb = status.lines().find(|l| l.starts_with(field)).and_then(|l| l.split_whitespace().nth(1)?.parse().ok());
    kb.unwrap_or(0.0) / 1024.0
}

fn stage<T>(name: &str, run: impl FnOnce() -> T) -> T {
    let started = Instant::now();
    let out = run();
    let seconds = started.elapsed().as_secs_f64();
    println!("{name:<10} {seconds:>7.2} s   peak {:.0} MB, now {:.0} MB", status_mb("VmHWM:"), status_mb("VmRSS:"));
    out
}

fn main() {
    let embedder =
        Embedder::from_dir(std::path::Path::new("models"), EmbeddingModel::MiniLm).expect("the model in models/");
    let arguments: Vec<String> = std::env::args().skip(1).collect();
    let bm25_only = arguments.first().is_some_and(|a| a == "--bm25");
    let files: Vec<SourceFile> = arguments[bm25_only as usize..]
        .iter()
        .map(|path| {
            let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{path}: {e}"));
            SourceFile::new(path, bytes)
        })
        .collect();
    let documents = stage("parse", || corpus::ingest(&files, &CorpusSettings::default()).documents);
    let identity = embedder.identity().clone();
    let mut builder = stage("structure", || {
        IndexBuilder::new(documents, &embedder, identity, IndexSettings::default(), None, Vectors::Chunks)
    });
    if bm25_only {
        let texts = node_texts(builder.corpus());
        let before = status_mb("VmRSS:");
        let corpus = builder.corpus();
        let language = |chunk: usize| corpus.documents[corpus.chunks[chunk].document as usize].language;
        let chunks = texts[2].iter().enumerate().map(|(chunk, text)| (text.as_str(), language(chunk)));
        let bm25 = stage("bm25", || Bm25Index::build(chunks, Default::default()));
        println!(
            "the chunks' BM25 index of {} texts added {:.0} MB resident",
            bm25.len(),
            status_mb("VmRSS:") - before
        );
        return;
    }
    stage("embed", || builder.embed_all_parallel(&StandIn(&embedder), 2, &|_| {}).expect("stand-in vectors"));
    let index = stage("build", || builder.finish());
    let snapshot = stage("encode", || index.to_snapshot().expect("an index encodes"));
    println!("{} chunks, a snapshot of {:.1} MB", index.corpus().chunks.len(), snapshot.len() as f64 / 1e6);
}
