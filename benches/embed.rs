//! Native embedding throughput on 128-word-piece sequences, one at a time and batched as indexing does.
//! Run: cargo bench --bench embed [-- COUNT]

use std::time::Instant;

use quire::embed::{MiniLmEmbedder, TextEmbedder, sample_sequences};

const TOKENS: usize = 128;

fn main() {
    let count: usize = std::env::args().skip(1).find_map(|a| a.parse().ok()).unwrap_or(64);
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("models");
    let embedder = MiniLmEmbedder::from_dir(&dir).unwrap_or_else(|e| panic!("{e}"));
    let texts = sample_sequences(&embedder, count, TOKENS);
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    embedder.embed(&refs[..2]).unwrap();

    let started = Instant::now();
    for text in &refs {
        embedder.embed(&[text]).unwrap();
    }
    let unbatched = started.elapsed().as_secs_f64() * 1000.0 / count as f64;
    let started = Instant::now();
    embedder.embed(&refs).unwrap();
    let batched = started.elapsed().as_secs_f64() * 1000.0 / count as f64;

    println!("| mode | sequences | ms per {TOKENS}-token sequence | sequences/s |");
    println!("|---|---|---|---|");
    println!("| one at a time | {count} | {unbatched:.1} | {:.1} |", 1000.0 / unbatched);
    println!("| batched (16, length-grouped) | {count} | {batched:.1} | {:.1} |", 1000.0 / batched);
}
