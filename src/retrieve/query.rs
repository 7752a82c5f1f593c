//! A question as every retriever reads it (its text, its vector, a list ranked elsewhere standing in for a
//! retriever's own), what one retriever returns, and the searches several retrievers make for one question,
//! made once. Fused methods run retrievers that start from the same lists: dense and BM25 feed the node-set
//! join, the one-hop expansion and the triplet retriever as well as themselves, and the page, section,
//! entity and path retrievers scan the same node vectors. With all of them chosen, repeating those scans was
//! most of retrieval's time in the browser (docs/BENCHMARKS.md); sharing them changes no result.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use crate::index::{Hit, top_k};
use crate::store::IndexedCorpus;

use super::retriever::Retriever;
use super::scored::ScoredChunk;
use super::trace::Step;

/// A query as every retriever needs it: the text (lexical retrievers, entity names) and its embedding,
/// where the searches its retrievers share are kept while they run, and a retriever's list ranked elsewhere
/// (by an LLM-assisted variant of it) that stands in for its own.
#[derive(Clone, Copy)]
pub struct Query<'a> {
    pub text: &'a str,
    pub vector: &'a [f32],
    pub(super) shared: Option<&'a SharedSearches>,
    pub(super) given: Option<(Retriever, &'a Retrieval)>,
}

impl<'a> Query<'a> {
    pub fn new(text: &'a str, vector: &'a [f32]) -> Self {
        Query { text, vector, shared: None, given: None }
    }

    /// The query with `list` standing in for `retriever`'s own: a method that does not read that retriever
    /// takes it as one more input, and a single retriever becomes the standardised sum of both.
    pub fn giving(self, retriever: Retriever, list: &'a Retrieval) -> Self {
        Query { given: Some((retriever, list)), ..self }
    }

    /// The query by its words alone: every retriever that reads vectors passes it by (an empty vector would
    /// score every chunk alike, and arbitrary chunks would fill their lists).
    pub fn without_vector(self) -> Self {
        Query { vector: &[], ..self }
    }

    /// Whether it has a vector to compare.
    pub fn has_vector(&self) -> bool {
        !self.vector.is_empty()
    }

    /// The query with its retrievers' searches kept in `shared`, unless it already keeps them somewhere.
    pub fn sharing<'b>(self, shared: &'b SharedSearches) -> Query<'b>
    where
        'a: 'b,
    {
        Query { shared: Some(self.shared.unwrap_or(shared)), ..self }
    }
}

impl std::fmt::Debug for Query<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Query").field("text", &self.text).finish_non_exhaustive()
    }
}

/// What one retriever returns: its chunks, best first, and what it did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Retrieval {
    pub chunks: Vec<ScoredChunk>,
    pub steps: Vec<Step>,
}

/// The chunk lists several retrievers start from.
#[derive(Clone, Copy)]
pub(crate) enum ChunkList {
    Dense,
    Lexical,
}

/// One question's searches over one index, kept while its retrievers run. It serves the first index and
/// question it is asked for; asked for another, it searches afresh rather than answer from the wrong ones.
#[derive(Default)]
pub struct SharedSearches {
    /// Where the index, the query's vector and its text live: what this memo was filled for.
    owner: std::sync::OnceLock<[usize; 5]>,
    /// By depth.
    dense: Memo<usize, Vec<ScoredChunk>>,
    /// By depth.
    lexical: Memo<usize, Vec<ScoredChunk>>,
    /// The query's cosine with every row of one of the index's node-row lists, keyed by where that list
    /// lives: the lists belong to the index, which does not change while a question is answered.
    cosines: Memo<(usize, usize), Vec<f32>>,
}

struct Memo<K, V>(Mutex<HashMap<K, Arc<V>>>);

impl<K, V> Default for Memo<K, V> {
    fn default() -> Self {
        Memo(Mutex::new(HashMap::new()))
    }
}

impl<K: std::hash::Hash + Eq, V> Memo<K, V> {
    /// The value for `key`, computed by `make` the first time. The lock is not held while computing, so a
    /// value two threads both miss is computed twice, not deadlocked on.
    fn get(&self, key: K, make: impl FnOnce() -> V) -> Arc<V> {
        let lock = || self.0.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(value) = lock().get(&key) {
            return value.clone();
        }
        let value = Arc::new(make());
        lock().entry(key).or_insert(value).clone()
    }
}

impl SharedSearches {
    /// Whether this memo serves `query` over `index` (the first pair it was asked for).
    fn serves<Index: ?Sized>(&self, index: &Index, query: Query<'_>) -> bool {
        let identity = [
            index as *const Index as *const () as usize,
            query.vector.as_ptr() as usize,
            query.vector.len(),
            query.text.as_ptr() as usize,
            query.text.len(),
        ];
        *self.owner.get_or_init(|| identity) == identity
    }

    /// `list`'s `k` chunks for `query`, searched by `search` unless this memo has them.
    pub(crate) fn chunks<Index: ?Sized>(
        &self,
        list: ChunkList,
        (index, query): (&Index, Query<'_>),
        k: usize,
        search: impl FnOnce() -> Vec<ScoredChunk>,
    ) -> Vec<ScoredChunk> {
        let memo = match list {
            ChunkList::Dense => &self.dense,
            ChunkList::Lexical => &self.lexical,
        };
        match self.serves(index, query) {
            true => memo.get(k, search).as_ref().clone(),
            false => search(),
        }
    }
}

/// The query's cosine with each of `rows` (embedding rows of one node kind, by node id), computed once per
/// question where the query shares its searches.
pub(crate) fn cosines(index: &IndexedCorpus, rows: &[u32], query: Query<'_>) -> Arc<Vec<f32>> {
    let vectors = index.embeddings().vectors();
    let scan = || rows.iter().map(|&row| vectors.dot(query.vector, row)).collect();
    match query.shared.filter(|shared| shared.serves(index, query)) {
        Some(shared) => shared.cosines.get((rows.as_ptr() as usize, rows.len()), scan),
        None => Arc::new(scan()),
    }
}

/// The `k` nodes among `rows` (embedding rows of one node kind, by node id) nearest the query's vector, as
/// hits whose `row` is the node id. An exact scan: node kinds other than chunks are small next to the chunks.
pub(crate) fn nearest(index: &IndexedCorpus, rows: &[u32], query: Query<'_>, k: usize) -> Vec<Hit> {
    top_k(cosines(index, rows, query).iter().enumerate().map(|(id, &score)| Hit { id: id as u32, score }), k)
}
