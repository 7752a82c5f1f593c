//! The searches several retrievers make for one question, made once. Fused methods run retrievers that
//! start from the same lists: dense and BM25 feed the node-set join, the one-hop expansion and the triplet
//! retriever as well as themselves, and the page, section, entity and path retrievers scan the same node
//! vectors. With all of them chosen, repeating those scans was most of retrieval's time in the browser
//! (docs/BENCHMARKS.md); sharing them changes no result.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use super::reader::IndexReader;
use super::{Query, ScoredChunk};
use crate::index::{Hit, top_k};
use crate::store::IndexedCorpus;

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
    fn serves(&self, index: &dyn IndexReader, query: Query<'_>) -> bool {
        let identity = [
            index as *const dyn IndexReader as *const () as usize,
            query.vector.as_ptr() as usize,
            query.vector.len(),
            query.text.as_ptr() as usize,
            query.text.len(),
        ];
        *self.owner.get_or_init(|| identity) == identity
    }

    /// `list`'s `k` chunks for `query`, searched by `search` unless this memo has them.
    pub(crate) fn chunks(
        &self,
        list: ChunkList,
        (index, query): (&dyn IndexReader, Query<'_>),
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
