//! Measurement for benchmarks, kept out of the product: compiled only with the `bench` feature, which
//! the benchmarks that need it and the browser benchmark build (`?bench=embed`, `?bench=index`) turn on.

use serde::Serialize;

use crate::corpus::TokenCounter;
use crate::embed::{DIMENSION, EmbedError, TextEmbedder};
use crate::index::{Hit, QuantizedVectors, VectorIndex, top_k};

/// Deterministic English text, `count` sequences of `tokens` word-pieces each (special tokens included,
/// give or take the last word), for throughput measurements that native and browser runs share.
pub fn sample_sequences(counter: &dyn TokenCounter, count: usize, tokens: usize) -> Vec<String> {
    const SOURCE: &str = "The knowledge graph links every chunk of text to the section it belongs to and to the \
        entities it mentions, so retrieval can follow structure as well as similarity. Sentence embeddings place \
        passages with related meaning close together, while lexical scoring rewards rare words shared with the \
        question. Combining both signals usually finds the passage that answers a question even when its wording \
        differs from the way the question was asked.";
    let words: Vec<&str> = SOURCE.split_whitespace().collect();
    let budget = tokens.saturating_sub(counter.special_tokens());
    (0..count)
        .map(|i| {
            let mut text = String::new();
            for word in words.iter().cycle().skip(i * 7 % words.len()) {
                let candidate = if text.is_empty() { word.to_string() } else { format!("{text} {word}") };
                if counter.count_tokens(&candidate) > budget {
                    break;
                }
                text = candidate;
            }
            text
        })
        .collect()
}

/// Embedding speed on `count` sequences of `tokens` word-pieces: one at a time, then in one call (batched as
/// indexing does). `now_ms` is the platform's clock (`Instant` does not run on wasm32).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Throughput {
    pub sequences: usize,
    pub tokens_per_sequence: usize,
    pub ms_per_sequence_unbatched: f64,
    pub ms_per_sequence_batched: f64,
    pub sequences_per_second_batched: f64,
}

pub fn measure_throughput<E: TextEmbedder + TokenCounter>(
    embedder: &E,
    count: usize,
    tokens: usize,
    now_ms: &dyn Fn() -> f64,
) -> Result<Throughput, EmbedError> {
    let texts = sample_sequences(embedder, count.max(1), tokens);
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    embedder.embed(&refs[..1])?;
    let started = now_ms();
    for text in &refs {
        embedder.embed(&[text])?;
    }
    let unbatched = (now_ms() - started) / refs.len() as f64;
    let started = now_ms();
    embedder.embed(&refs)?;
    let batched = (now_ms() - started) / refs.len() as f64;
    Ok(Throughput {
        sequences: refs.len(),
        tokens_per_sequence: tokens,
        ms_per_sequence_unbatched: unbatched,
        ms_per_sequence_batched: batched,
        sequences_per_second_batched: 1000.0 / batched,
    })
}

/// xorshift64*: deterministic data for benchmarks with no extra dependency; quality is irrelevant here.
pub struct Xorshift(pub u64);

impl Xorshift {
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    /// Uniform in [-1, 1).
    fn next_f32(&mut self) -> f32 {
        ((self.next_u64() >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
    }
    fn unit_vector(&mut self, around: Option<&[f32]>) -> Vec<f32> {
        /// Per-dimension scale of uniform noise around a centroid: 384 dims of U(-1, 1) have norm ≈ 11.3,
        /// so the noise is about three quarters of the centroid's length.
        const NOISE: f32 = 0.066;
        let mut vector: Vec<f32> = match around {
            Some(centroid) => centroid.iter().map(|c| c + NOISE * self.next_f32()).collect(),
            None => (0..DIMENSION).map(|_| self.next_f32()).collect(),
        };
        crate::embed::normalize(&mut vector);
        vector
    }
}

/// Synthetic sentence-embedding-like data for vector index benchmarks: `count` unit vectors in 384
/// dimensions drawn around 1,000 random centroids (clustered, as sentence embeddings are, rather than
/// uniformly random, the worst case for any graph index), their int8 store, and `queries` more from the
/// same distribution. Embedding 100k real chunks would take hours on a small machine.
pub struct ClusteredVectors {
    pub vectors: Vec<Vec<f32>>,
    pub store: QuantizedVectors,
    pub queries: Vec<Vec<f32>>,
}

impl ClusteredVectors {
    pub fn new(count: usize, queries: usize) -> Self {
        let mut rng = Xorshift(0x9E37_79B9_7F4A_7C15 ^ count as u64);
        let centroids: Vec<Vec<f32>> = (0..1000).map(|_| rng.unit_vector(None)).collect();
        let mut draw = |n: usize| -> Vec<Vec<f32>> {
            (0..n).map(|i| rng.unit_vector(Some(&centroids[i % centroids.len()]))).collect()
        };
        let vectors = draw(count);
        let queries = draw(queries);
        let mut store = QuantizedVectors::new(DIMENSION);
        for vector in &vectors {
            // Every vector has the store's dimension.
            let _ = store.push(vector);
        }
        Self { vectors, store, queries }
    }

    /// The exact f32 top `k` of each query: the truth recall is measured against.
    pub fn exact_neighbours(&self, k: usize) -> Vec<Vec<Hit>> {
        self.queries
            .iter()
            .map(|query| {
                let scored = self
                    .vectors
                    .iter()
                    .enumerate()
                    .map(|(row, v)| Hit { id: row as u32, score: crate::index::vectors::dot(v, query) });
                top_k(scored, k)
            })
            .collect()
    }
}

/// A vector index measured on [`ClusteredVectors`]: build time, query latency, recall against exact f32 search.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct IndexReport {
    pub vectors: usize,
    pub build_s: f64,
    pub mean_query_ms: f64,
    pub p95_query_ms: f64,
    pub recall_at_k: f64,
}

pub fn measure_index(
    data: &ClusteredVectors,
    truth: &[Vec<Hit>],
    k: usize,
    build: impl FnOnce(&QuantizedVectors) -> VectorIndex,
    now_ms: &dyn Fn() -> f64,
) -> IndexReport {
    let started = now_ms();
    let index = build(&data.store);
    let build_s = (now_ms() - started) / 1000.0;
    let mut latencies = Vec::with_capacity(data.queries.len());
    let mut found = 0;
    for (query, truth) in data.queries.iter().zip(truth) {
        let started = now_ms();
        let hits = index.search(&data.store, query, k);
        latencies.push(now_ms() - started);
        found += hits.iter().filter(|h| truth.iter().any(|t| t.id == h.id)).count();
    }
    latencies.sort_by(f64::total_cmp);
    let queries = latencies.len().max(1);
    IndexReport {
        vectors: data.vectors.len(),
        build_s,
        mean_query_ms: latencies.iter().sum::<f64>() / queries as f64,
        p95_query_ms: latencies.get(queries * 95 / 100).copied().unwrap_or_default(),
        recall_at_k: found as f64 / (queries * k) as f64,
    }
}
