//! Flat vs HNSW over int8 vectors: build time, query latency, and recall@10 against exact f32 search.
//! Run: cargo bench --bench vector_index --features bench [-- [--sweep | EF_CONSTRUCTION:EF_SEARCH ...] SIZE ...]
//! (default sizes 10000 100000). `--sweep` builds HNSW with several `ef_construction` / `ef_search` pairs
//! instead of the shipped default, the recall/cost trade-off the default was chosen from; pairs given as
//! `48:128` build those. The vectors are `quire::bench::ClusteredVectors`;
//! the browser measures the same with `?bench=index` (tests/browser/bench-vector-index.mjs).

use std::time::Instant;

use quire::bench::{ClusteredVectors, measure_index};
use quire::index::{HnswParams, VectorIndex, VectorIndexKind};

const QUERIES: usize = 200;
const K: usize = 10;
/// The pairs `--sweep` measures: (ef_construction, ef_search).
const SWEEP: &[(usize, usize)] = &[(32, 64), (48, 64), (48, 128), (64, 64), (64, 128), (96, 128), (128, 128)];

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let sizes: Vec<usize> = args.iter().filter_map(|a| a.parse().ok()).collect();
    let sizes = if sizes.is_empty() { vec![10_000, 100_000] } else { sizes };
    let given: Vec<(usize, usize)> = args
        .iter()
        .filter_map(|a| a.split_once(':'))
        .filter_map(|(c, s)| Some((c.parse().ok()?, s.parse().ok()?)))
        .collect();
    let shipped = HnswParams::default();
    let pairs = match (args.iter().any(|a| a == "--sweep"), given.is_empty()) {
        (true, _) => SWEEP.to_vec(),
        (false, true) => vec![(shipped.ef_construction, shipped.ef_search)],
        (false, false) => given,
    };
    let hnsw: Vec<HnswParams> =
        pairs.into_iter().map(|(ef_construction, ef_search)| HnswParams { ef_construction, ef_search }).collect();
    let epoch = Instant::now();
    let now_ms = move || epoch.elapsed().as_secs_f64() * 1000.0;
    println!("| vectors | index | build (s) | mean query (ms) | p95 query (ms) | recall@10 vs exact f32 |");
    println!("|---|---|---|---|---|---|");
    for size in sizes {
        let data = ClusteredVectors::new(size, QUERIES);
        let truth = data.exact_neighbours(K);
        let rows = || (0..size as u32).collect::<Vec<u32>>();
        let flat = (
            "Flat".to_string(),
            measure_index(
                &data,
                &truth,
                K,
                |store| VectorIndex::build_kind(store, rows(), VectorIndexKind::Flat),
                &now_ms,
            ),
        );
        let graphs = hnsw.iter().map(|&params| {
            let name = format!("HNSW ef_construction {} ef_search {}", params.ef_construction, params.ef_search);
            (name, measure_index(&data, &truth, K, |store| VectorIndex::build_hnsw(store, rows(), params), &now_ms))
        });
        for (name, r) in std::iter::once(flat).chain(graphs) {
            println!(
                "| {size} | {name} (int8) | {:.2} | {:.3} | {:.3} | {:.4} |",
                r.build_s, r.mean_query_ms, r.p95_query_ms, r.recall_at_k
            );
        }
    }
}
