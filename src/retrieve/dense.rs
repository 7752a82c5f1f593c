//! Vector retriever (seed 000): cosine between the query and every chunk's contextual text.

use super::ScoredChunk;
use crate::store::IndexedCorpus;

pub fn dense(index: &IndexedCorpus, query_vector: &[f32], k: usize) -> Vec<ScoredChunk> {
    index.chunk_index.search(index.embeddings.vectors(), query_vector, k).into_iter().map(ScoredChunk::from).collect()
}
