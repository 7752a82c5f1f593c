//! Latency of one query through every retriever and fusion, query embedding excluded: p50, p95 and mean
//! per method over real questions on a real snapshot.
//! Run: cargo bench --bench retrieval_latency -- SNAPSHOT QUERIES.jsonl[.gz] [METHOD ...]
//! (methods default to every retriever, then rrf-all, zsum-all and learned). First it times the index-time
//! build of seed 004's chunk graph and communities over the snapshot's corpus.

use std::time::Instant;

use quire::embed::{Embedder, EmbeddingModel, TextEmbedder};
use quire::retrieve::{Method, Query, Retriever};

/// Questions timed per method (the first ones of the file).
const QUESTIONS: usize = 300;
const K: usize = 10;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).filter(|a| a != "--bench").collect();
    let [snapshot, queries, methods @ ..] = args.as_slice() else {
        eprintln!("usage: cargo bench --bench retrieval_latency -- SNAPSHOT QUERIES.jsonl[.gz] [METHOD ...]");
        std::process::exit(2);
    };
    let index = quire::store::IndexedCorpus::from_snapshot(&std::fs::read(snapshot).expect("the snapshot reads"))
        .expect("the snapshot loads");
    time_chunk_graph(&index);
    let questions = read_questions(queries);
    let model_dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("models");
    let embedder =
        Embedder::from_dir(&model_dir, EmbeddingModel::MiniLm).expect("the model loads (bash models/fetch.sh)");
    let texts: Vec<&str> = questions.iter().map(String::as_str).collect();
    let vectors: Vec<Vec<f32>> = texts.chunks(32).flat_map(|batch| embedder.embed(batch).expect("embeds")).collect();
    let methods: Vec<Method> = if methods.is_empty() {
        let fused = ["rrf-all", "zsum-all", "learned"].map(|m| Method::parse(m).expect("a preset"));
        Retriever::all().map(Method::Single).chain(fused).collect()
    } else {
        methods.iter().map(|m| Method::parse(m).unwrap_or_else(|e| panic!("{e}"))).collect()
    };
    println!(
        "{} chunks, {} questions, top {K}, query embedding excluded",
        index.corpus().chunks.len(),
        questions.len()
    );
    println!("{:<10} {:>8} {:>8} {:>8}", "method", "p50 ms", "p95 ms", "mean ms");
    for method in &methods {
        let mut times: Vec<f64> = questions
            .iter()
            .zip(&vectors)
            .map(|(text, vector)| {
                let started = Instant::now();
                std::hint::black_box(method.rank(&index, Query::new(text, vector), K).into_chunks());
                started.elapsed().as_secs_f64() * 1000.0
            })
            .collect();
        times.sort_by(f64::total_cmp);
        let at = |q: f64| times[((times.len() - 1) as f64 * q).round() as usize];
        let mean = times.iter().sum::<f64>() / times.len() as f64;
        println!("{:<10} {:>8.2} {:>8.2} {:>8.2}", method.name(), at(0.5), at(0.95), mean);
    }
}

/// The chunk graph's build time (median of three), as `quire index` and every add or remove pay it.
fn time_chunk_graph(index: &quire::store::IndexedCorpus) {
    let mut times: Vec<f64> = (0..3)
        .map(|_| {
            let started = Instant::now();
            std::hint::black_box(index.rebuild_chunk_graph());
            started.elapsed().as_secs_f64() * 1000.0
        })
        .collect();
    times.sort_by(f64::total_cmp);
    let stats = index.chunk_graph().stats();
    println!(
        "chunk graph: {:.0} ms to build over {} chunks of {} documents ({} similar_to edges, {} communities, {} comm_similar_to links)",
        times[1],
        index.corpus().chunks.len(),
        index.corpus().documents.len(),
        stats.similar_edges,
        stats.communities,
        stats.community_links
    );
}

/// The `text` of the first [`QUESTIONS`] lines of a BEIR queries file.
fn read_questions(path: &str) -> Vec<String> {
    let bytes = std::fs::read(path).expect("the queries file reads");
    let bytes = quire::eval::dataset::file_bytes(path, bytes).expect("a readable queries file");
    let text = String::from_utf8(bytes).expect("UTF-8");
    let queries = quire::eval::dataset::parse_queries(path, &text).expect("a BEIR queries file");
    queries.into_iter().take(QUESTIONS).map(|q| q.text).collect()
}
