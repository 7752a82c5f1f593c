//! Exploration aid, not part of Quire: embeds each line of a JSON-lines file of strings (one JSON string a
//! line) on two threads, and writes the vectors as little-endian f32 rows in the lines' order
//! (`scripts/fusion_lab.py`'s sentence vectors). Run from the repository root (it reads `models/`).
//!
//!     cargo run --release --example embed_lines -- IN.jsonl OUT.f32

use std::io::{BufRead, Write};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use quire::embed::{Embedder, EmbeddingModel, TextEmbedder};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let texts: Vec<String> = std::io::BufReader::new(std::fs::File::open(&args[1]).unwrap())
        .lines()
        .map(|l| serde_json::from_str(&l.unwrap()).unwrap())
        .collect();
    let embedder = Embedder::from_dir(std::path::Path::new("models"), EmbeddingModel::MiniLm).unwrap();
    let mut order: Vec<usize> = (0..texts.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(texts[i].len()));
    let batches: Vec<&[usize]> = order.chunks(16).collect();
    let next = AtomicUsize::new(0);
    let out = Mutex::new(vec![Vec::new(); texts.len()]);
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| {
                while let Some(batch) = batches.get(next.fetch_add(1, Ordering::Relaxed)) {
                    let t: Vec<&str> = batch.iter().map(|&i| texts[i].as_str()).collect();
                    let v = embedder.embed(&t).unwrap();
                    let mut out = out.lock().unwrap();
                    for (&i, v) in batch.iter().zip(v) {
                        out[i] = v;
                    }
                }
            });
        }
    });
    let mut w = std::io::BufWriter::new(std::fs::File::create(&args[2]).unwrap());
    for v in out.into_inner().unwrap() {
        for x in v {
            w.write_all(&x.to_le_bytes()).unwrap();
        }
    }
}
