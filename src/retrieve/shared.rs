//! The searches several retrievers make for one question, made once. Fused methods run retrievers that
//! start from the same lists: dense and BM25 feed the node-set join, the one-hop expansion and the triplet
//! retriever as well as themselves, and the page, section, entity and path retrievers scan the same node
//! vectors. With all of them chosen, repeating those scans was most of retrieval's time in the browser
//! (docs/BENCHMARKS.md); sharing them changes no result.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use super::{Query, ScoredChunk};
use crate::index::{Hit, top_k};
use crate::store::IndexedCorpus;

/// One question's searches over one index, kept while its retrievers run.
#[derive(Default)]
pub struct SharedSearches {
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
    /// The dense retriever's `k` chunks for a question whose searches are kept here, searched by `search`
    /// the first time.
    pub(crate) fn dense(&self, k: usize, search: impl FnOnce() -> Vec<ScoredChunk>) -> Vec<ScoredChunk> {
        self.dense.get(k, search).as_ref().clone()
    }

    /// BM25's `k` chunks, as [`Self::dense`].
    pub(crate) fn lexical(&self, k: usize, search: impl FnOnce() -> Vec<ScoredChunk>) -> Vec<ScoredChunk> {
        self.lexical.get(k, search).as_ref().clone()
    }
}

/// The `k` nodes among `rows` (embedding rows of one node kind, by node id) nearest the query's vector, as
/// hits whose `row` is the node id. An exact scan: node kinds other than chunks are small next to the chunks.
pub(crate) fn nearest(index: &IndexedCorpus, rows: &[u32], query: Query<'_>, k: usize) -> Vec<Hit> {
    let vectors = index.embeddings.vectors();
    let cosine = |row: u32| vectors.dot(query.vector, row);
    let Some(shared) = query.shared else {
        return top_k(rows.iter().enumerate().map(|(id, &row)| Hit { row: id as u32, score: cosine(row) }), k);
    };
    let cosines =
        shared.cosines.get((rows.as_ptr() as usize, rows.len()), || rows.iter().map(|&row| cosine(row)).collect());
    top_k(cosines.iter().enumerate().map(|(id, &score)| Hit { row: id as u32, score }), k)
}
