//! Measurement for benchmarks, kept out of the product: compiled only with the `bench` feature, which
//! `cargo bench --bench embed` and the browser benchmark build (`?bench=embed`) turn on.

use serde::Serialize;

use crate::corpus::TokenCounter;
use crate::embed::{EmbedError, TextEmbedder};

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
