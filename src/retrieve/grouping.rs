//! Results grouped by document, as search engines group them: each document once, at its best chunk, with
//! its other chunks in the list behind it ("2 more from this document"). Retrievers rank chunks, and one
//! long chapter can take every place of a chunk list; a reader wants the places to name different documents.
//!
//! A passage quoted in another document (a forwarded mail, a copy kept in another folder, a digest page) is
//! one result too: when a document's best chunk is a near copy of a better-ranked result's, that result says
//! "also in" the other document instead of giving it a place of its own. (A document that only repeats
//! others is not indexed at all: `corpus::containment`.)

use std::collections::{HashMap, HashSet};

use super::{FUSION_DEPTH, Method, Query, ScoredChunk, Trace};
use crate::corpus::DocId;
use crate::store::IndexedCorpus;

/// Share of word triples two chunks must have in common (Jaccard) to be copies of one passage: a quote
/// with a greeting around it or a word changed still is one.
const NEAR_COPY: f64 = 0.8;
/// Words per shingle.
const SHINGLE_WORDS: usize = 3;

/// A document's place in a grouped list: its best chunk, then its other chunks the list held, best first,
/// and the other documents whose best chunk is a near copy of this one's.
#[derive(Clone, Debug, PartialEq)]
pub struct DocumentHit {
    pub best: ScoredChunk,
    pub more: Vec<ScoredChunk>,
    pub also_in: Vec<DocId>,
}

/// The first `documents` documents of a ranked chunk list, in the order of their best chunks, near copies
/// folded into the better-ranked one's place.
pub fn group_by_document(index: &IndexedCorpus, chunks: &[ScoredChunk], documents: usize) -> Vec<DocumentHit> {
    let corpus = index.corpus();
    let document_of = |hit: &ScoredChunk| corpus.chunks[hit.chunk as usize].document;
    let mut hits: Vec<DocumentHit> = Vec::new();
    let mut place: HashMap<DocId, usize> = HashMap::new();
    let mut shingles: Vec<HashSet<u64>> = Vec::new();
    for &chunk in chunks {
        let document = document_of(&chunk);
        if let Some(&at) = place.get(&document) {
            // A near copy's other chunks are its own document's, not the result's.
            if document_of(&hits[at].best) == document {
                hits[at].more.push(chunk);
            }
            continue;
        }
        let own = word_shingles(corpus.chunk_text(chunk.chunk));
        match shingles.iter().position(|other| jaccard(&own, other) >= NEAR_COPY) {
            Some(at) => {
                place.insert(document, at);
                hits[at].also_in.push(document);
            }
            None => {
                place.insert(document, hits.len());
                hits.push(DocumentHit { best: chunk, more: Vec::new(), also_in: Vec::new() });
                shingles.push(own);
            }
        }
    }
    hits.truncate(documents);
    hits
}

/// Hashes of a text's runs of [`SHINGLE_WORDS`] lowercased words (the whole text when it is shorter).
/// Hand-written: exact Jaccard over a few chunks needs no sketch; MinHash pays off only across a corpus.
fn word_shingles(text: &str) -> HashSet<u64> {
    use std::hash::{Hash, Hasher};
    let words: Vec<String> = text.split_whitespace().map(str::to_lowercase).collect();
    let hash = |words: &[String]| {
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        words.hash(&mut hasher);
        hasher.finish()
    };
    if words.len() < SHINGLE_WORDS {
        return HashSet::from([hash(&words)]);
    }
    words.windows(SHINGLE_WORDS).map(hash).collect()
}

fn jaccard(a: &HashSet<u64>, b: &HashSet<u64>) -> f64 {
    let shared = a.intersection(b).count();
    let union = a.len() + b.len() - shared;
    if union == 0 { 0.0 } else { shared as f64 / union as f64 }
}

impl Method {
    /// The `documents` best documents for `query`, each at its best chunk with the others behind it, and
    /// the trace (showing `documents` chunks per list). The method ranks [`FUSION_DEPTH`] chunks, so that
    /// a few long documents still leave places for others.
    pub fn grouped(&self, index: &IndexedCorpus, query: Query<'_>, documents: usize) -> (Vec<DocumentHit>, Trace) {
        let (chunks, trace) = self.trace(index, query, FUSION_DEPTH.max(documents), documents);
        (group_by_document(index, &chunks, documents), trace)
    }
}
