//! Flat vs HNSW over int8 vectors: build time, query latency, and recall@10 against exact f32 search.
//! Run: cargo bench --bench vector_index [-- SIZE ...]   (default sizes 10000 100000)
//!
//! The vectors are synthetic: unit vectors in 384 dimensions drawn around 1,000 random centroids, with
//! noise about three quarters of the centroid's length, so neighbourhoods are clustered as in sentence
//! embeddings rather than uniformly random (the worst case for any graph index). Embedding 100k real chunks
//! would take hours on this machine.

use std::time::Instant;

use quire::index::{Hit, QuantizedVectors, VectorIndex, VectorIndexKind, top_k};

const DIMENSION: usize = 384;
const QUERIES: usize = 200;
const K: usize = 10;
/// Per-dimension scale of uniform noise: 384 dims of U(-1, 1) have norm ≈ 11.3, so this gives ≈ 0.75.
const NOISE: f32 = 0.066;

/// xorshift64*: deterministic data with no extra dependency; quality is irrelevant here.
struct Xorshift(u64);

impl Xorshift {
    fn next_f32(&mut self) -> f32 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        ((self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
    }
    fn vector(&mut self) -> Vec<f32> {
        (0..DIMENSION).map(|_| self.next_f32()).collect()
    }
}

fn unit(mut v: Vec<f32>) -> Vec<f32> {
    quire::embed::normalize(&mut v);
    v
}

fn clustered(rng: &mut Xorshift, centroids: &[Vec<f32>], count: usize) -> Vec<Vec<f32>> {
    (0..count)
        .map(|i| {
            let centroid = &centroids[i % centroids.len()];
            let noise = rng.vector();
            unit(centroid.iter().zip(noise).map(|(c, n)| c + NOISE * n).collect())
        })
        .collect()
}

fn exact(vectors: &[Vec<f32>], query: &[f32]) -> Vec<Hit> {
    let scored = vectors
        .iter()
        .enumerate()
        .map(|(row, v)| Hit { row: row as u32, score: v.iter().zip(query).map(|(a, b)| a * b).sum() });
    top_k(scored, K)
}

fn recall(found: &[Hit], truth: &[Hit]) -> f64 {
    found.iter().filter(|h| truth.iter().any(|t| t.row == h.row)).count() as f64 / truth.len() as f64
}

fn main() {
    let sizes: Vec<usize> = std::env::args().skip(1).filter_map(|a| a.parse().ok()).collect();
    let sizes = if sizes.is_empty() { vec![10_000, 100_000] } else { sizes };
    println!("| vectors | index | build (s) | mean query (ms) | p95 query (ms) | recall@10 vs exact f32 |");
    println!("|---|---|---|---|---|---|");
    for size in sizes {
        let mut rng = Xorshift(0x9E37_79B9_7F4A_7C15 ^ size as u64);
        let centroids: Vec<Vec<f32>> = (0..1000).map(|_| unit(rng.vector())).collect();
        let vectors = clustered(&mut rng, &centroids, size);
        let queries = clustered(&mut rng, &centroids, QUERIES);
        let truth: Vec<Vec<Hit>> = queries.iter().map(|q| exact(&vectors, q)).collect();
        let mut store = QuantizedVectors::new(DIMENSION);
        for vector in &vectors {
            store.push(vector).expect("every vector has the store's dimension");
        }
        for kind in [VectorIndexKind::Flat, VectorIndexKind::Hnsw] {
            let started = Instant::now();
            let index = VectorIndex::build_kind(&store, (0..size as u32).collect(), kind);
            let build = started.elapsed().as_secs_f64();
            let mut latencies = Vec::with_capacity(QUERIES);
            let mut total_recall = 0.0;
            for (query, truth) in queries.iter().zip(&truth) {
                let started = Instant::now();
                let hits = index.search(&store, query, K);
                latencies.push(started.elapsed().as_secs_f64() * 1000.0);
                total_recall += recall(&hits, truth);
            }
            latencies.sort_by(f64::total_cmp);
            let mean = latencies.iter().sum::<f64>() / QUERIES as f64;
            let p95 = latencies[QUERIES * 95 / 100];
            println!(
                "| {size} | {kind:?} (int8) | {build:.2} | {mean:.3} | {p95:.3} | {:.4} |",
                total_recall / QUERIES as f64
            );
        }
    }
}
