//! The default method, [`Method::Default`]: one ranking for questions about one place (a chapter, an
//! abstract) and for questions about how places connect (a bridge between two pages, a comparison).
//!
//! Two lists are read: the *hybrid* (the standardised sum of dense, BM25 and the community retriever) and
//! the node-set *join*. Each is reduced to documents (a document at its best chunk). The hybrid's first
//! [`HYBRID_FIRST`] documents come first: a question about one place finds it there, and the join, which
//! ranks linked pairs, would push it down (measured on the real folders). The join and the hybrid then
//! alternate, the join first, so a pair the join found is among the next few places, where the hybrid alone
//! loses it (measured on HotpotQA). After the documents, the rest of their chunks, hybrid order first. The
//! choice and its measurements are in docs/QUALITY.md ("One default method").
//!
//! [`Method::Words`] is the default without the embedding model, as the page answers while the model loads:
//! the same combination of the same lists less dense, each graph retriever seeding from BM25 alone.

use std::collections::{HashMap, HashSet};

use super::fusion::{FusedChunk, Fusion};
use super::{Retriever, ScoredChunk};
use crate::corpus::{ChunkId, DocId};

/// The name the CLI, `quire eval` and the app know the default by.
pub const DEFAULT: &str = "default";
/// The lists the default reads: the hybrid's three, then the join.
pub const INPUTS: [Retriever; 4] = [Retriever::Dense, Retriever::Bm25, Retriever::Community, Retriever::Join];
/// The name of the default without the model.
pub const WORDS: &str = "words";
/// The lists [`Method::Words`] reads: the default's less dense.
pub const WORDS_INPUTS: [Retriever; 3] = [Retriever::Bm25, Retriever::Community, Retriever::Join];
/// Documents of the hybrid list shown before the join's.
const HYBRID_FIRST: usize = 3;

/// What the default does, for help texts and the app's lists.
pub fn description() -> String {
    format!(
        "the default: the first {HYBRID_FIRST} documents of the standardised sum of dense, BM25 and community, \
         then the join's and that sum's documents in turn"
    )
}

/// What the default without the model does.
pub fn words_description() -> String {
    "the default without the embedding model, as the page answers while it loads: BM25 and community, then the \
     join, each graph retriever seeding from BM25 alone"
        .to_string()
}

/// The default's ranking of `lists` (one per [`INPUTS`] or [`WORDS_INPUTS`] entry: the hybrid's lists, then
/// the join's), `depth` chunks, each with every list's rank and score; scores fall with the place. `document`
/// names each chunk's document.
pub fn combine(document: &dyn Fn(ChunkId) -> DocId, lists: &[&[ScoredChunk]], depth: usize) -> Vec<FusedChunk> {
    let (hybrid_lists, join) = lists.split_at(lists.len().saturating_sub(1));
    let hybrid = Fusion::Zsum.fuse(hybrid_lists, &vec![1.0; hybrid_lists.len()], usize::MAX);
    let hybrid_chunks: Vec<ChunkId> = hybrid.iter().map(|f| f.chunk).collect();
    let join_chunks: Vec<ChunkId> = join.first().map_or(Vec::new(), |list| list.iter().map(|c| c.chunk).collect());
    let hybrid_heads = document_heads(&hybrid_chunks, document);
    let join_heads = document_heads(&join_chunks, document);
    let mut order = Placed::default();
    for &chunk in hybrid_heads.iter().take(HYBRID_FIRST) {
        order.place(chunk, document(chunk));
    }
    let alternating = join_heads.iter().zip(&hybrid_heads).flat_map(|(&a, &b)| [a, b]);
    let tails = join_heads.iter().chain(&hybrid_heads).copied();
    for chunk in alternating.chain(tails) {
        order.place(chunk, document(chunk));
    }
    for &chunk in hybrid_chunks.iter().chain(&join_chunks) {
        order.place_chunk(chunk);
    }
    order.chunks.truncate(depth);
    rows(order.chunks, &hybrid, hybrid_lists.len(), join.first().copied().unwrap_or_default())
}

/// Each document's first chunk in `chunks`, in order.
fn document_heads(chunks: &[ChunkId], document: impl Fn(ChunkId) -> DocId) -> Vec<ChunkId> {
    let mut seen = HashSet::new();
    chunks.iter().copied().filter(|&c| seen.insert(document(c))).collect()
}

/// The ranking being built: chunks in place order, each document placed once.
#[derive(Default)]
struct Placed {
    chunks: Vec<ChunkId>,
    chunk_set: HashSet<ChunkId>,
    documents: HashSet<DocId>,
}

impl Placed {
    fn place(&mut self, chunk: ChunkId, document: DocId) {
        if self.documents.insert(document) {
            self.place_chunk(chunk);
        }
    }

    fn place_chunk(&mut self, chunk: ChunkId) {
        if self.chunk_set.insert(chunk) {
            self.chunks.push(chunk);
        }
    }
}

/// The placed chunks as fused rows: the hybrid's ranks, scores and standardised features for its
/// `hybrid_lists` lists, the join's rank and score beside them, and a score that falls with the place.
fn rows(placed: Vec<ChunkId>, hybrid: &[FusedChunk], hybrid_lists: usize, join: &[ScoredChunk]) -> Vec<FusedChunk> {
    let hybrid: HashMap<ChunkId, &FusedChunk> = hybrid.iter().map(|f| (f.chunk, f)).collect();
    let mut joined: HashMap<ChunkId, (usize, f32)> = HashMap::new();
    for (rank, hit) in join.iter().enumerate() {
        joined.entry(hit.chunk).or_insert((rank + 1, hit.score));
    }
    let count = placed.len();
    placed
        .into_iter()
        .enumerate()
        .map(|(place, chunk)| {
            let mut row = hybrid.get(&chunk).map_or_else(
                || FusedChunk {
                    chunk,
                    score: 0.0,
                    ranks: vec![None; hybrid_lists],
                    scores: vec![None; hybrid_lists],
                    features: vec![0.0; hybrid_lists],
                },
                |&row| row.clone(),
            );
            let join = joined.get(&chunk);
            row.ranks.push(join.map(|&(rank, _)| rank));
            row.scores.push(join.map(|&(_, score)| score));
            row.features.push(if join.is_some() { 1.0 } else { 0.0 });
            row.score = (count - place) as f32;
            row
        })
        .collect()
}
