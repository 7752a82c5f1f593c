//! Exploration aid, not part of Quire: dumps a snapshot's chunk vectors and texts, and every question's
//! retriever lists (dense and BM25 1,000 deep, the others 100), so that fusion ideas can be measured offline
//! before one is built (`scripts/fusion_lab.py`, docs/QUALITY.md). Run from the repository root (it reads
//! `models/`).
//!
//!     cargo run --release --example dump_candidates -- SNAPSHOT DATASET_DIR SPLIT OUT_DIR

use std::io::Write;
use std::path::Path;

use quire::embed::{Embedder, EmbeddingModel, TextEmbedder};
use quire::eval::dataset;
use quire::retrieve::{Query, Retriever, SharedSearches};
use quire::store::IndexedCorpus;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (snapshot, dir, split, out) = (&args[1], Path::new(&args[2]), &args[3], Path::new(&args[4]));
    std::fs::create_dir_all(out).unwrap();
    let index = IndexedCorpus::from_snapshot(&std::fs::read(snapshot).unwrap()).unwrap();
    let corpus = &index.corpus();
    if !out.join("chunks.jsonl").exists() {
        let mut chunks = std::io::BufWriter::new(std::fs::File::create(out.join("chunks.jsonl")).unwrap());
        let mut vectors = std::io::BufWriter::new(std::fs::File::create(out.join("chunks.f32")).unwrap());
        for (c, chunk) in corpus.chunks.iter().enumerate() {
            let document = &corpus.documents[chunk.document as usize];
            let record = serde_json::json!({
                "doc": quire::eval::run::corpus_id(&document.source),
                "text": corpus.chunk_search_text(c as u32),
            });
            writeln!(chunks, "{record}").unwrap();
            for x in index.embeddings().vectors().get(index.rows().chunks[c]) {
                vectors.write_all(&x.to_le_bytes()).unwrap();
            }
        }
    }
    let labels = dataset::read_labels(&dataset::DiskFolder(dir), split).unwrap_or_else(|e| panic!("{e}"));
    let dataset = labels.label("d", split, &quire::eval::indexed_document_ids(&index)).unwrap();
    let embedder = Embedder::from_dir(Path::new("models"), EmbeddingModel::MiniLm).unwrap();
    let mut lines = std::io::BufWriter::new(std::fs::File::create(out.join(format!("{split}.jsonl"))).unwrap());
    for question in &dataset.queries {
        let vector = embedder.embed_query(&question.text).unwrap();
        let shared = SharedSearches::default();
        let query = Query::new(&question.text, &vector).sharing(&shared);
        let mut lists = serde_json::Map::new();
        for retriever in Retriever::all() {
            let depth = if matches!(retriever, Retriever::Dense | Retriever::Bm25) { 1000 } else { 100 };
            let chunks = retriever.run(&index, query, depth).chunks;
            let pairs: Vec<(u32, f32)> = chunks.iter().map(|c| (c.chunk, c.score)).collect();
            lists.insert(retriever.name().to_string(), serde_json::json!(pairs));
        }
        let record = serde_json::json!({
            "id": question.id, "text": question.text, "vector": vector,
            "relevant": question.relevant, "lists": lists,
        });
        writeln!(lines, "{record}").unwrap();
    }
}
