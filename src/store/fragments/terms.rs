//! A BM25 index split by term for a static host: its statistics (the parameters, the count of texts and
//! their average length) whole, its postings in *buckets* by a stable hash of the term, each posting with
//! its text's length, so that a question fetches the buckets of its terms only and nothing that grows
//! with the index besides. It scores with the whole index's own scoring ([`TextLengths::scores`]), so the scores are
//! the whole index's to the bit. The chunks' BM25 and the community summaries' are split alike. Where the
//! index has a query table, each term's row travels in its bucket, so that the buckets a question fetches
//! by words also give its vector by meaning ([`SplitBm25::table_vector`]), the whole table's to the bit.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use crate::error::Inconsistent;
use crate::index::bm25::{Bm25Index, Bm25Params, Posting, TextLengths, idf, query_terms};
use crate::index::nibbles::NibbleVectors;
use crate::index::query_table::{QueryTable, mean_of_rows};
use crate::language::Language;

/// Enough that a bucket of a large site's search holds a few terms, not dozens (a question fetches every
/// term of its bucket).
const MAX_BUCKETS: usize = 1 << 16;

/// What a BM25 index keeps whole, and the buckets of it fetched so far.
#[derive(Serialize, Deserialize)]
pub(super) struct SplitBm25 {
    params: Bm25Params,
    texts: u32,
    average_length: f32,
    buckets: u32,
    /// The languages a question is analysed in: the whole index's.
    languages: Vec<Language>,
    /// The query table's dimension, where the buckets carry its rows.
    table_dimension: Option<u32>,
    #[serde(skip)]
    fetched: HashMap<u32, FetchedBucket>,
    /// The length of every text in the postings fetched.
    #[serde(skip)]
    lengths: HashMap<u32, u32>,
}

/// A posting as a bucket stores it: (gap from the text before, term frequency, the text's length).
type StoredPosting = (u32, u32, u32);

/// One bucket's terms, each with its postings, and their rows of the query table in the same order, where the index has one.
#[derive(Serialize, Deserialize)]
pub(super) struct TermBucket {
    pub bucket: u32,
    terms: Vec<(String, Vec<StoredPosting>)>,
    rows: Option<NibbleVectors>,
}

/// A bucket taken in: each term's postings and its place among the rows.
struct FetchedBucket {
    terms: HashMap<String, (Vec<Posting>, u32)>,
    rows: Option<NibbleVectors>,
}

impl SplitBm25 {
    /// `bm25`'s statistics, and its postings (with their rows of `table`, the query table of `bm25`'s
    /// terms) in buckets of about `bucket_bytes`; questions are analysed in `languages`, as the whole index
    /// analyses them.
    pub fn split(
        bm25: &Bm25Index,
        table: Option<&QueryTable>,
        languages: &[Language],
        bucket_bytes: usize,
    ) -> (Self, Vec<TermBucket>) {
        let row_bytes = table.map_or(0, |table| table.rows().dimension().div_ceil(2) + 4);
        let postings_bytes: usize =
            bm25.postings_by_term().map(|(term, postings)| term.len() + 4 * postings.len() + row_bytes).sum();
        let buckets = postings_bytes.div_ceil(bucket_bytes.max(1)).clamp(1, MAX_BUCKETS) as u32;
        let rows = || table.map(|table| NibbleVectors::new(table.rows().dimension()));
        let mut by_bucket: Vec<TermBucket> =
            (0..buckets).map(|bucket| TermBucket { bucket, terms: Vec::new(), rows: rows() }).collect();
        let lengths = bm25.lengths();
        for (term, postings) in bm25.postings_by_term() {
            let bucket = &mut by_bucket[bucket_of(term, buckets) as usize];
            bucket.terms.push((term.to_string(), gaps(postings, &lengths.of_text)));
            if let (Some(rows), Some(table), Some(id)) = (&mut bucket.rows, table, bm25.term_id(term)) {
                rows.push_row_of(table.rows(), id);
            }
        }
        let split = SplitBm25 {
            params: bm25.params(),
            texts: lengths.texts as u32,
            average_length: lengths.average,
            buckets,
            languages: languages.to_vec(),
            table_dimension: table.map(|table| table.rows().dimension() as u32),
            fetched: HashMap::new(),
            lengths: HashMap::new(),
        };
        (split, by_bucket)
    }

    /// How many texts it indexes.
    pub fn texts(&self) -> usize {
        self.texts as usize
    }

    /// Why its statistics are impossible, if they are.
    pub fn check(&self) -> Result<(), Inconsistent> {
        if self.buckets == 0 || !(self.average_length.is_finite() && self.average_length >= 0.0) {
            return Err("its BM25 statistics are impossible".into());
        }
        Ok(())
    }

    /// The buckets `query`'s terms lie in that are not fetched yet.
    pub fn missing(&self, query: &str) -> Vec<u32> {
        let mut buckets: Vec<u32> =
            query_terms(query, &self.languages).iter().map(|t| bucket_of(t, self.buckets)).collect();
        buckets.sort_unstable();
        buckets.dedup();
        buckets.retain(|bucket| !self.fetched.contains_key(bucket));
        buckets
    }

    /// Takes in `bucket`, fetched as bucket `expected`; why not, if it is another or lists texts beyond its own.
    pub fn add(&mut self, expected: u32, bucket: TermBucket) -> Result<(), Inconsistent> {
        if bucket.bucket != expected {
            return Err(format!("bucket {}", bucket.bucket).into());
        }
        let shape = bucket.rows.as_ref().map(|rows| (rows.dimension() as u32, rows.len()));
        let expected_rows = self.table_dimension.map(|dimension| (dimension, bucket.terms.len()));
        if shape != expected_rows || bucket.rows.as_ref().is_some_and(|rows| rows.check().is_err()) {
            return Err(format!("bucket {expected} with rows that are not one per term of the table").into());
        }
        let mut terms = HashMap::new();
        let mut lengths = Vec::new();
        for (row, (term, gaps)) in bucket.terms.into_iter().enumerate() {
            let postings = postings(gaps, self.texts(), &mut lengths)
                .ok_or_else(|| format!("postings of `{term}` beyond the texts"))?;
            terms.insert(term, (postings, row as u32));
        }
        // A text has one length, whichever posting tells it.
        let mut told: HashMap<u32, u32> = HashMap::new();
        for (text, length) in lengths {
            let known = self.lengths.get(&text).or(told.get(&text));
            if known.is_some_and(|&known| known != length) {
                return Err(format!("bucket {expected} gives a text a length another posting gave otherwise").into());
            }
            told.insert(text, length);
        }
        self.lengths.extend(told);
        self.fetched.insert(expected, FetchedBucket { terms, rows: bucket.rows });
        Ok(())
    }

    /// Whether the buckets carry the query table's rows.
    pub fn has_table(&self) -> bool {
        self.table_dimension.is_some()
    }

    /// `query`'s vector by the query table, as [`QueryTable::query_vector`] gives it over the whole index:
    /// `None` until every bucket [`Self::missing`] names is fetched, `Some(None)` where there is no table or
    /// no term of `query` is in the index.
    pub fn table_vector(&self, query: &str) -> Option<Option<Vec<f32>>> {
        let Some(dimension) = self.table_dimension else { return Some(None) };
        let mut rows = Vec::new();
        for term in query_terms(query, &self.languages) {
            let bucket = self.fetched.get(&bucket_of(&term, self.buckets))?;
            if let (Some((postings, row)), Some(store)) = (bucket.terms.get(&term), &bucket.rows) {
                rows.push((store, *row, idf(self.texts(), postings.len())));
            }
        }
        Some(mean_of_rows(dimension as usize, rows))
    }

    /// BM25's score of every text holding a term of `query`, as the whole index scores them; `None` until
    /// every bucket [`Self::missing`] names is fetched.
    pub fn scores(&self, query: &str) -> Option<HashMap<u32, f32>> {
        let mut terms = Vec::new();
        for term in query_terms(query, &self.languages) {
            let bucket = self.fetched.get(&bucket_of(&term, self.buckets))?;
            terms.extend(bucket.terms.get(&term).map(|(postings, _)| postings.as_slice()));
        }
        // Every posting scored brought its text's length.
        let of_text = |text: u32| self.lengths.get(&text).copied().unwrap_or_default();
        let lengths = TextLengths { texts: self.texts(), of_text, average: self.average_length };
        Some(lengths.scores(self.params, terms))
    }
}

/// The bucket of `term`: a hash stable across builds and platforms (blake3), not the standard library's.
fn bucket_of(term: &str, buckets: u32) -> u32 {
    let hash = blake3::hash(term.as_bytes());
    let first: [u8; 8] = hash.as_bytes()[..8].try_into().expect("a blake3 hash has 32 bytes");
    (u64::from_le_bytes(first) % u64::from(buckets)) as u32
}

/// Postings as (gap from the previous text, term frequency, the text's length of `text_lengths`).
fn gaps(postings: &[Posting], length_of: impl Fn(u32) -> u32) -> Vec<StoredPosting> {
    let docs = to_gaps(postings.iter().map(|posting| posting.doc));
    docs.zip(postings).map(|(gap, posting)| (gap, posting.tf, length_of(posting.doc))).collect()
}

/// Postings back from their gaps, their texts' lengths pushed onto `lengths` (each with its text); `None`
/// when they are out of order or one lies beyond `texts`.
fn postings(gaps: Vec<StoredPosting>, texts: usize, lengths: &mut Vec<(u32, u32)>) -> Option<Vec<Posting>> {
    let docs = from_gaps(gaps.iter().map(|&(gap, ..)| gap), texts)?;
    let postings = docs.into_iter().zip(gaps).map(|(doc, (_, tf, length))| {
        lengths.push((doc, length));
        Posting { doc, tf }
    });
    Some(postings.collect())
}

/// Ascending ids as gaps from the one before (the first from 0): small numbers, which postcard writes in a
/// byte or two.
pub(super) fn to_gaps(ids: impl Iterator<Item = u32>) -> impl Iterator<Item = u32> {
    let mut previous = 0;
    ids.map(move |id| id - std::mem::replace(&mut previous, id))
}

/// Ids back from their gaps; `None` unless each is below `bound` and above the one before.
pub(super) fn from_gaps(gaps: impl Iterator<Item = u32>, bound: usize) -> Option<Vec<u32>> {
    let mut id: Option<u32> = None;
    gaps.map(|gap| {
        let next = match id {
            None => gap,
            Some(_) if gap == 0 => return None,
            Some(previous) => previous.checked_add(gap)?,
        };
        id = Some(next);
        ((next as usize) < bound).then_some(next)
    })
    .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split() -> (Bm25Index, SplitBm25, Vec<TermBucket>) {
        let texts = ["the moon pulls the tides", "tides rise twice a day", "the sun is a star"];
        let bm25 = Bm25Index::build(texts.map(|text| (text, Language::English)), Bm25Params::default());
        let (split, buckets) = SplitBm25::split(&bm25, None, &[Language::English], 16);
        (bm25, split, buckets)
    }

    /// The buckets carry each posting's text length: the scores are the whole index's, with no length
    /// table in the part every question fetches.
    #[test]
    fn the_buckets_carry_the_lengths_the_whole_index_scores_with() {
        let (bm25, mut split, buckets) = split();
        let question = "When do the tides rise?";
        for bucket in buckets {
            split.add(bucket.bucket, bucket).unwrap();
        }
        let terms = query_terms(question, &[Language::English]);
        assert_eq!(split.scores(question).unwrap(), bm25.scores(&terms));
        let encoded = postcard::to_allocvec(&split).unwrap();
        assert!(encoded.len() < 40, "the statistics are a few bytes: {}", encoded.len());
    }

    /// A bucket that gives a text another length than a bucket before it gave is refused.
    #[test]
    fn a_text_has_one_length() {
        let (_, mut split, mut buckets) = split();
        let first = buckets.remove(buckets.iter().position(|bucket| !bucket.terms.is_empty()).unwrap());
        let mut crafted = first.terms.clone();
        split.add(first.bucket, first).unwrap();
        let other = buckets.pop().unwrap();
        crafted.iter_mut().for_each(|(_, postings)| postings.iter_mut().for_each(|posting| posting.2 += 1));
        let crafted = TermBucket { bucket: other.bucket, terms: crafted, rows: None };
        let refused = split.add(other.bucket, crafted).unwrap_err();
        assert!(refused.0.contains("length"), "{refused:?}");
    }
}
