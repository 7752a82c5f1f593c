//! Exploration aid, not part of Quire: how fast a model of the catalogue embeds on one thread, from files
//! that need not be the pinned ones (a converter's variant), and the vectors it gives, to compare variants.
//!
//!     cargo run --release --example model_rate -- e5-small MODEL.onnx TOKENIZER.json TEXTS.jsonl OUT.f32

use std::io::{BufRead, Write};
use std::time::Instant;

use quire::embed::{Embedder, EmbeddingModel, TextEmbedder};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let kind = EmbeddingModel::named(&args[1]).expect("a model id");
    let started = Instant::now();
    let embedder =
        Embedder::from_unpinned_bytes(kind, &std::fs::read(&args[2]).unwrap(), &std::fs::read(&args[3]).unwrap())
            .unwrap();
    println!("loaded in {:.2} s", started.elapsed().as_secs_f64());
    let texts: Vec<String> = std::io::BufReader::new(std::fs::File::open(&args[4]).unwrap())
        .lines()
        .map(|l| serde_json::from_str(&l.unwrap()).unwrap())
        .collect();
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    embedder.embed_query("warm up").unwrap();
    let started = Instant::now();
    for _ in 0..10 {
        embedder.embed_query("Wie installiere ich ein Paket?").unwrap();
    }
    println!("a question: {:.1} ms", started.elapsed().as_secs_f64() * 100.0);
    let started = Instant::now();
    let vectors = embedder.embed(&refs).unwrap();
    let seconds = started.elapsed().as_secs_f64();
    println!(
        "{} texts in {seconds:.2} s: {:.1} texts/s, {} word pieces",
        texts.len(),
        texts.len() as f64 / seconds,
        embedder.pieces_embedded()
    );
    let mut out = std::io::BufWriter::new(std::fs::File::create(&args[5]).unwrap());
    for value in vectors.iter().flatten() {
        out.write_all(&value.to_le_bytes()).unwrap();
    }
}
