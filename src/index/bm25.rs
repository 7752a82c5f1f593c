//! Okapi BM25 over chunks. Scores use the non-negative idf `ln(1 + (N - df + 0.5) / (df + 0.5))` so a term
//! present in most chunks still counts a little instead of subtracting.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use super::hits::{Hit, top_k};
use crate::analyzer::{Analyzer, Analyzers};
use crate::error::Inconsistent;
use crate::language::Language;

mod lists;

pub use lists::Posting;
use lists::{PostingLists, Terms};

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
pub struct Bm25Index {
    params: Bm25Params,
    /// Ordered so a snapshot of the same corpus is the same bytes.
    terms: Terms,
    postings: PostingLists,
    doc_lengths: Vec<u32>,
    average_length: f32,
}

impl Bm25Index {
    /// Indexes `texts`, each analysed in its language; result rows are positions in this sequence.
    pub fn build<'a>(texts: impl IntoIterator<Item = (&'a str, Language)>, params: Bm25Params) -> Self {
        let mut analyzers = Analyzers::default();
        // A term's id is the order of its first appearance, each text's terms taken in byte order.
        let mut ids: HashMap<String, u32> = HashMap::new();
        let mut by_id: Vec<(u32, Posting)> = Vec::new();
        let mut doc_lengths = Vec::new();
        for (doc, (text, language)) in texts.into_iter().enumerate() {
            let terms = analyzers.of(language).terms(text);
            doc_lengths.push(terms.len() as u32);
            let mut counts: HashMap<String, u32> = HashMap::new();
            for term in terms {
                *counts.entry(term).or_default() += 1;
            }
            let mut counts: Vec<(String, u32)> = counts.into_iter().collect();
            counts.sort();
            for (term, tf) in counts {
                let next = ids.len() as u32;
                let id = *ids.entry(term).or_insert(next);
                by_id.push((id, Posting { doc: doc as u32, tf }));
            }
        }
        // Stable: within a term, its postings stay in the order of the texts.
        by_id.sort_by_key(|&(id, _)| id);
        let postings = PostingLists::from_sorted(ids.len(), by_id);
        let mut sorted: Vec<(String, u32)> = ids.into_iter().collect();
        sorted.sort_unstable();
        let terms = Terms::from_sorted(sorted.iter().map(|(term, id)| (term.as_str(), *id)));
        let total: u64 = doc_lengths.iter().map(|&l| l as u64).sum();
        let average_length = if doc_lengths.is_empty() { 0.0 } else { total as f32 / doc_lengths.len() as f32 };
        Bm25Index { params, terms, postings, doc_lengths, average_length }
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
        if self.terms.ids().iter().any(|&t| t as usize >= self.postings.len()) {
            return Err("BM25 term without postings".into());
        }
        if self.postings.all().iter().any(|p| p.doc as usize >= documents) {
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

    /// The `k` best-scoring texts for a query's terms ([`query_terms`]).
    pub fn search(&self, terms: &[String], k: usize) -> Vec<Hit> {
        best(self.scores(terms), k)
    }

    /// The score of every text containing one of a query's distinct terms ([`query_terms`]), by row.
    pub fn scores(&self, terms: &[String]) -> HashMap<u32, f32> {
        let postings = terms.iter().filter_map(|term| self.postings_of(term));
        self.lengths().scores(self.params, postings)
    }

    fn postings_of(&self, term: &str) -> Option<&[Posting]> {
        self.terms.get(term).map(|id| self.postings.get(id))
    }

    /// A term's id: the place of its postings, from 0 to [`Self::term_count`].
    pub fn term_id(&self, term: &str) -> Option<u32> {
        self.terms.get(term)
    }

    /// How many distinct terms it holds.
    pub fn term_count(&self) -> usize {
        self.postings.len()
    }

    /// The postings of the term with id `id`.
    pub fn postings_of_id(&self, id: u32) -> &[Posting] {
        self.postings.get(id)
    }

    /// A term's idf, from how many texts hold it.
    pub fn idf(&self, document_frequency: usize) -> f32 {
        idf(self.len(), document_frequency)
    }

    /// Every term with its postings, in term order.
    pub fn postings_by_term(&self) -> impl Iterator<Item = (&str, &[Posting])> {
        self.terms.iter().map(|(term, id)| (term, self.postings.get(id)))
    }

    /// What scoring reads besides a term's postings.
    pub fn lengths(&self) -> TextLengths<impl Fn(u32) -> u32 + '_> {
        let of_text = |text: u32| self.doc_lengths[text as usize];
        TextLengths { texts: self.doc_lengths.len(), of_text, average: self.average_length }
    }
}

/// A query's distinct terms as each of `languages` analyses it, in order: the order its terms' scores are
/// added in. A question is analysed in every language of the index, since it may ask in any of them; a word
/// that any of them stops is no term in any (a French question's `les` would otherwise match every English
/// text that quotes French).
pub fn query_terms(query: &str, languages: &[Language]) -> Vec<String> {
    let analyzers: Vec<Analyzer> = languages.iter().map(|&language| Analyzer::new(language)).collect();
    let stopped = |word: &str| analyzers.iter().any(|analyzer| analyzer.stops(&word.to_lowercase()));
    let mut terms: Vec<String> = (analyzers.iter())
        .flat_map(|analyzer| analyzer.words(query))
        .filter_map(|(range, term)| term.filter(|_| !stopped(&query[range])))
        .collect();
    terms.sort();
    terms.dedup();
    terms
}

/// The analyzed length of every indexed text and their average: with a term's postings, all BM25 reads.
/// An index split for a static host (`store::fragments`) carries each text's length in its postings and
/// scores with them as the whole index does, so both give the same scores to the bit.
#[derive(Clone, Copy, Debug)]
pub struct TextLengths<F> {
    /// How many texts are indexed.
    pub texts: usize,
    /// The length of a text in the postings scored.
    pub of_text: F,
    pub average: f32,
}

impl<F: Fn(u32) -> u32> TextLengths<F> {
    /// The score of every text in the postings of the query's terms, added in the order they come.
    pub fn scores<'p>(self, params: Bm25Params, terms: impl IntoIterator<Item = &'p [Posting]>) -> HashMap<u32, f32> {
        let Bm25Params { k1, b } = params;
        let mut scores: HashMap<u32, f32> = HashMap::new();
        for postings in terms {
            let idf = idf(self.texts, postings.len());
            for posting in postings {
                let tf = posting.tf as f32;
                let length_ratio = (self.of_text)(posting.doc) as f32 / self.average.max(f32::EPSILON);
                let saturation = tf * (k1 + 1.0) / (tf + k1 * (1.0 - b + b * length_ratio));
                *scores.entry(posting.doc).or_default() += idf * saturation;
            }
        }
        scores
    }
}

pub fn idf(texts: usize, document_frequency: usize) -> f32 {
    let n = texts as f32;
    let df = document_frequency as f32;
    (1.0 + (n - df + 0.5) / (df + 0.5)).ln()
}

/// The `k` best of `scores`, as [`Bm25Index::search`] orders them.
pub fn best(scores: HashMap<u32, f32>, k: usize) -> Vec<Hit> {
    top_k(scores.into_iter().map(|(row, score)| Hit { id: row, score }), k)
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
        let texts = ["The Moon orbits the Earth.", "Mars has two moons, moon after moon.", "The Sun is a star."];
        let index = Bm25Index::build(texts.map(|text| (text, Language::English)), Bm25Params::default());
        let search = |query| index.search(&query_terms(query, &[Language::English]), 10);
        assert_eq!(
            Analyzer::default().terms("Mars has two moons, moon after moon."),
            vec!["mar", "two", "moon", "moon", "moon"]
        );
        let hits = search("moons");
        assert_eq!(hits.iter().map(|h| h.id).collect::<Vec<_>>(), vec![1, 0]);
        assert!((hits[0].score - 0.6671019).abs() < 1e-5, "{}", hits[0].score);
        assert!((hits[1].score - 0.4900512).abs() < 1e-5, "{}", hits[1].score);
        assert!(search("jupiter").is_empty());
    }

    /// Each text is stemmed by its own language, and a question finds it in whichever language it asks.
    #[test]
    fn a_question_finds_texts_of_every_language_of_the_index() {
        let texts =
            [("Die Pakete werden installiert.", Language::German), ("Packages are installed.", Language::English)];
        let index = Bm25Index::build(texts, Bm25Params::default());
        let both = [Language::English, Language::German];
        let hits = |query| index.search(&query_terms(query, &both), 10).into_iter().map(|h| h.id).collect::<Vec<_>>();
        assert_eq!(hits("Paket"), vec![0]);
        assert_eq!(hits("installing a package"), vec![1]);
        // `die` is a German article: no term of the question, though English stems it.
        assert_eq!(query_terms("die Pakete", &both), vec!["paket".to_string()]);
    }
}
