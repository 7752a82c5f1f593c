//! Okapi BM25 over chunks. Scores use the non-negative idf `ln(1 + (N - df + 0.5) / (df + 0.5))` so a term
//! present in most chunks still counts a little instead of subtracting.

use std::collections::{BTreeMap, HashMap};

use serde::{Deserialize, Serialize};

use super::{Hit, top_k};
use crate::analyzer::Analyzer;
use crate::error::Inconsistent;

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Bm25Params {
    pub k1: f32,
    pub b: f32,
}

impl Default for Bm25Params {
    fn default() -> Self {
        Self { k1: 1.2, b: 0.75 }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Posting {
    doc: u32,
    tf: u32,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Bm25Index {
    params: Bm25Params,
    /// Ordered so a snapshot of the same corpus is the same bytes.
    terms: BTreeMap<String, u32>,
    postings: Vec<Vec<Posting>>,
    doc_lengths: Vec<u32>,
    average_length: f32,
}

impl Bm25Index {
    /// Indexes `texts`; result rows are positions in this sequence.
    pub fn build<'a>(texts: impl IntoIterator<Item = &'a str>, params: Bm25Params) -> Self {
        let analyzer = Analyzer::default();
        let mut index = Bm25Index {
            params,
            terms: BTreeMap::new(),
            postings: Vec::new(),
            doc_lengths: Vec::new(),
            average_length: 0.0,
        };
        for (doc, text) in texts.into_iter().enumerate() {
            let terms = analyzer.terms(text);
            index.doc_lengths.push(terms.len() as u32);
            let mut counts: HashMap<String, u32> = HashMap::new();
            for term in terms {
                *counts.entry(term).or_default() += 1;
            }
            let mut counts: Vec<(String, u32)> = counts.into_iter().collect();
            counts.sort();
            for (term, tf) in counts {
                let next = index.postings.len() as u32;
                let id = *index.terms.entry(term).or_insert(next);
                if id == next {
                    index.postings.push(Vec::new());
                }
                index.postings[id as usize].push(Posting { doc: doc as u32, tf });
            }
        }
        let total: u64 = index.doc_lengths.iter().map(|&l| l as u64).sum();
        index.average_length =
            if index.doc_lengths.is_empty() { 0.0 } else { total as f32 / index.doc_lengths.len() as f32 };
        index
    }

    pub fn len(&self) -> usize {
        self.doc_lengths.len()
    }

    /// Whether decoded data is internally consistent and indexes `documents` texts.
    pub fn check(&self, documents: usize) -> Result<(), Inconsistent> {
        if self.doc_lengths.len() != documents {
            return Err(
                format!("BM25 indexes {} texts where there are {documents} chunks", self.doc_lengths.len()).into()
            );
        }
        if self.terms.values().any(|&t| t as usize >= self.postings.len()) {
            return Err("BM25 term without postings".into());
        }
        if self.postings.iter().flatten().any(|p| p.doc as usize >= documents) {
            return Err("BM25 posting beyond the indexed chunks".into());
        }
        if !(self.average_length.is_finite() && self.average_length >= 0.0) {
            return Err(format!("a BM25 average length of {}", self.average_length).into());
        }
        Ok(())
    }

    pub fn is_empty(&self) -> bool {
        self.doc_lengths.is_empty()
    }

    /// The parameters it scores with.
    pub fn params(&self) -> Bm25Params {
        self.params
    }

    pub fn idf(&self, document_frequency: usize) -> f32 {
        let n = self.len() as f32;
        let df = document_frequency as f32;
        (1.0 + (n - df + 0.5) / (df + 0.5)).ln()
    }

    /// The `k` best-scoring texts for `query`.
    pub fn search(&self, query: &str, k: usize) -> Vec<Hit> {
        top_k(self.scores(query).into_iter().map(|(row, score)| Hit { id: row, score }), k)
    }

    /// The score of every text containing a query term, by row; each distinct query term counts once.
    pub fn scores(&self, query: &str) -> HashMap<u32, f32> {
        let mut terms = Analyzer::default().terms(query);
        terms.sort();
        terms.dedup();
        let Bm25Params { k1, b } = self.params;
        let mut scores: HashMap<u32, f32> = HashMap::new();
        for term in terms {
            let Some(&id) = self.terms.get(&term) else { continue };
            let postings = &self.postings[id as usize];
            let idf = self.idf(postings.len());
            for posting in postings {
                let tf = posting.tf as f32;
                let length_ratio =
                    self.doc_lengths[posting.doc as usize] as f32 / self.average_length.max(f32::EPSILON);
                let saturation = tf * (k1 + 1.0) / (tf + k1 * (1.0 - b + b * length_ratio));
                *scores.entry(posting.doc).or_default() += idf * saturation;
            }
        }
        scores
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Worked by hand. Analyzed chunks: c0 = [moon, orbit, earth] (length 3), c1 = [mar, two, moon, moon, moon]
    /// (5), c2 = [sun, star] (2); N = 3, avgdl = 10/3. Query "moons" → term `moon`, df = 2:
    /// idf = ln(1 + (3 - 2 + 0.5) / (2 + 0.5)) = ln 1.6 = 0.4700036
    /// c1: tf 3, dl/avgdl 1.5 → 3 · 2.2 / (3 + 1.2 · (0.25 + 0.75 · 1.5)) = 6.6 / 4.65 = 1.4193548 → 0.6671019
    /// c0: tf 1, dl/avgdl 0.9 → 1 · 2.2 / (1 + 1.2 · (0.25 + 0.75 · 0.9)) = 2.2 / 2.11 = 1.0426540 → 0.4900512
    #[test]
    fn scores_match_hand_computation() {
        let index = Bm25Index::build(
            ["The Moon orbits the Earth.", "Mars has two moons, moon after moon.", "The Sun is a star."],
            Bm25Params::default(),
        );
        assert_eq!(
            Analyzer::default().terms("Mars has two moons, moon after moon."),
            vec!["mar", "two", "moon", "moon", "moon"]
        );
        let hits = index.search("moons", 10);
        assert_eq!(hits.iter().map(|h| h.id).collect::<Vec<_>>(), vec![1, 0]);
        assert!((hits[0].score - 0.6671019).abs() < 1e-5, "{}", hits[0].score);
        assert!((hits[1].score - 0.4900512).abs() < 1e-5, "{}", hits[1].score);
        assert!(index.search("jupiter", 10).is_empty());
    }
}
