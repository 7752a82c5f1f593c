//! Native embedding throughput on 128-word-piece sequences, one at a time and batched as indexing does.
//! Run: cargo bench --bench embed [-- COUNT]

use std::time::Instant;

use quire::bench::measure_throughput;
use quire::embed::{Embedder, EmbeddingModel};

const TOKENS: usize = 128;

fn main() {
    let count: usize = std::env::args().skip(1).find_map(|a| a.parse().ok()).unwrap_or(64);
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("models");
    let embedder = Embedder::from_dir(&dir, EmbeddingModel::MiniLm).unwrap_or_else(|e| panic!("{e}"));
    let clock = Instant::now();
    let report = measure_throughput(&embedder, count, TOKENS, &|| clock.elapsed().as_secs_f64() * 1000.0).unwrap();
    let (unbatched, batched) = (report.ms_per_sequence_unbatched, report.ms_per_sequence_batched);

    println!("| mode | sequences | ms per {TOKENS}-token sequence | sequences/s |");
    println!("|---|---|---|---|");
    println!("| one at a time | {count} | {unbatched:.1} | {:.1} |", 1000.0 / unbatched);
    println!("| batched (16, length-grouped) | {count} | {batched:.1} | {:.1} |", 1000.0 / batched);
}
