//! Indexes at 1k, 10k and 100k chunks, for what only grows with size: index build time (BM25, the HNSW
//! index, the knowledge graph, seed 004's chunk graph), snapshot size, and, through the files it writes,
//! load time, memory and query latency in the browser (`tests/browser/bench-scale.mjs`).
//! Run: cargo bench --bench scale_snapshots --features bench -- OUT_DIR [CHUNKS ...]   (default 1000 10000 100000)
//!
//! The documents are real text recombined: runs of two to six consecutive sentences of the SciFact and
//! HotpotQA corpora (`datasets/`), titled with HotpotQA's titles (numbered when they repeat), so the
//! vocabulary, the title mentions that make relations, and the chunk lengths are those of real corpora.
//!
//! The vectors are stand-ins: embedding 200,000 texts with MiniLM takes hours on this machine, and no cost
//! measured here depends on what the vectors say. Each text gets a hashed bag of its words (every word
//! adds ±1 to one of 384 dimensions, normalised), so texts sharing words are near each other and the HNSW
//! index, `similar_to` edges and community links have neighbourhoods to find. The snapshot is stamped with
//! the real model's identity, so the app opens it and embeds questions with the real model; the answers'
//! relevance means nothing, their cost is what is measured.

use std::io::Read;
use std::time::Instant;

use quire::corpus::{self, SourceFile};
use quire::embed::{DIMENSION, Embedder, EmbeddingModel, TextEmbedder};
use quire::store::{IndexSettings, Vectors, plan_index};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with("--bench")).collect();
    let Some(out_dir) = args.first().map(std::path::PathBuf::from) else {
        eprintln!("usage: cargo bench --bench scale_snapshots --features bench -- OUT_DIR [CHUNKS ...]");
        std::process::exit(2);
    };
    let sizes: Vec<usize> = args[1..].iter().filter_map(|a| a.parse().ok()).collect();
    let sizes = if sizes.is_empty() { vec![1_000, 10_000, 100_000] } else { sizes };
    std::fs::create_dir_all(&out_dir).expect("the output folder can be made");
    let source = Source::read();
    let model_dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("models");
    let embedder =
        Embedder::from_dir(&model_dir, EmbeddingModel::MiniLm).expect("the model loads (bash models/fetch.sh)");
    println!("| chunks | documents | texts | structure (s) | indexes (s) | snapshot (MB) | file |");
    println!("|---|---|---|---|---|---|---|");
    for chunks in sizes {
        let file = out_dir.join(format!("scale-{chunks}.quire"));
        let row = build(&source, chunks, &embedder, &file);
        println!("{row} {} |", file.display());
    }
}

/// Indexes about `chunks` chunks of recombined text and writes the snapshot to `file`; a table row.
fn build(source: &Source, chunks: usize, embedder: &Embedder, file: &std::path::Path) -> String {
    // The corpora's paragraphs average about one chunk each; a few run to two.
    let documents = chunks * 19 / 20;
    let jsonl = source.documents(documents);
    let settings = IndexSettings::default();
    let report = corpus::ingest(&[SourceFile::new("scale.jsonl", jsonl)], &settings.corpus);
    let started = Instant::now();
    let identity = embedder.identity().clone();
    // Chunk vectors only, as `quire index` builds an index (issue 29); the rest are embedded on first use.
    let mut builder =
        plan_index(report.documents, None, embedder, identity, settings, Vectors::Chunks).expect("documents to index");
    let structure = started.elapsed().as_secs_f64();
    let vectors: Vec<Vec<f32>> = builder.texts_to_embed().iter().map(|text| hashed_bag_of_words(text)).collect();
    let texts = vectors.len();
    builder.accept_next(vectors).expect("one vector per text");
    let started = Instant::now();
    let index = builder.finish();
    let indexes = started.elapsed().as_secs_f64();
    let bytes = index.to_snapshot().expect("the snapshot encodes");
    std::fs::write(file, &bytes).expect("the snapshot is written");
    format!(
        "| {} | {} | {texts} | {structure:.1} | {indexes:.1} | {:.1} |",
        index.corpus().chunks.len(),
        index.corpus().documents.len(),
        bytes.len() as f64 / 1e6
    )
}

/// The stand-in vector of `text`: each lower-cased word adds ±1 to one dimension picked by its hash.
fn hashed_bag_of_words(text: &str) -> Vec<f32> {
    let mut vector = vec![0f32; DIMENSION];
    for word in text.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()) {
        let hash = blake3::hash(word.to_lowercase().as_bytes());
        let bits = u64::from_le_bytes(hash.as_bytes()[..8].try_into().expect("8 bytes"));
        vector[(bits >> 1) as usize % DIMENSION] += if bits & 1 == 0 { 1.0 } else { -1.0 };
    }
    if vector.iter().all(|&x| x == 0.0) {
        vector[0] = 1.0;
    }
    quire::embed::normalize(&mut vector);
    vector
}

/// Sentences and titles of the two benchmark corpora in `datasets/`.
struct Source {
    sentences: Vec<String>,
    titles: Vec<String>,
}

impl Source {
    fn read() -> Self {
        let mut sentences = Vec::new();
        let mut titles = Vec::new();
        for dataset in ["scifact", "hotpotqa-dev500"] {
            let path =
                std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("datasets").join(dataset).join("corpus.jsonl.gz");
            let mut text = String::new();
            flate2::read::GzDecoder::new(std::fs::File::open(&path).expect("the dataset is in the repository"))
                .read_to_string(&mut text)
                .expect("the corpus decompresses");
            for line in text.lines() {
                let record: serde_json::Value = serde_json::from_str(line).expect("a BEIR record");
                let body = record["text"].as_str().unwrap_or_default();
                sentences.extend(body.split_inclusive(". ").map(|s| s.trim().to_string()).filter(|s| !s.is_empty()));
                if dataset != "scifact" {
                    titles.push(record["title"].as_str().unwrap_or_default().to_string());
                }
            }
        }
        Self { sentences, titles }
    }

    /// `count` BEIR records: runs of consecutive sentences from deterministic places, titled in turn.
    fn documents(&self, count: usize) -> Vec<u8> {
        let mut rng = quire::bench::Xorshift(0x9E37_79B9_7F4A_7C15);
        let mut next = move || rng.next_u64() >> 33;
        let mut out = Vec::new();
        for i in 0..count {
            let round = i / self.titles.len();
            let base = &self.titles[i % self.titles.len()];
            let title = if round == 0 { base.clone() } else { format!("{base} ({})", round + 1) };
            let start = next() as usize % self.sentences.len();
            let length = 2 + next() as usize % 5;
            let text: Vec<&str> =
                (start..start + length).map(|j| self.sentences[j % self.sentences.len()].as_str()).collect();
            let record = serde_json::json!({ "_id": i.to_string(), "title": title, "text": text.join(" ") });
            out.extend(record.to_string().bytes());
            out.push(b'\n');
        }
        out
    }
}
