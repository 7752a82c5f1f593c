//! Triplet retriever (seed 003): every relation verbalised as `{subject} {relation} {object}` is embedded
//! and ranked together with the chunks; a statement that ranks counts for the chunk that states it (or, for
//! front matter and infoboxes, the first chunk of its document). A chunk scores the best of its own cosine
//! and its statements' cosines.

use super::trace::{NodeKind, Step, TraceNode};
use super::{Query, Retrieval, dense, nearest, rank_chunks};
use crate::corpus::ChunkId;
use crate::store::IndexedCorpus;

/// Statements shown in the trace.
const TRACED_STATEMENTS: usize = 5;

/// The chunk a relation is read from.
pub fn stating_chunk(index: &IndexedCorpus, relation: usize) -> Option<ChunkId> {
    let relation = &index.corpus().relations[relation];
    relation.chunk.or_else(|| {
        let range = index.corpus().document_chunks(relation.document);
        (!range.is_empty()).then_some(range.start)
    })
}

/// What this retriever does, for the CLI's and the app's lists; built from its constants where it has them.
pub fn description() -> String {
    "verbalised relations ranked with the chunks (seed 003)".to_string()
}

pub fn triplet(index: &IndexedCorpus, query: Query<'_>, depth: usize) -> Retrieval {
    let statements = nearest(index, &index.rows().statements, query, depth);
    let from_statements =
        statements.iter().filter_map(|hit| stating_chunk(index, hit.id as usize).map(|chunk| (chunk, hit.score)));
    let from_chunks = dense(index, query, depth).into_iter().map(|hit| (hit.chunk, hit.score));
    let chunks = rank_chunks(index, query.vector, from_statements.chain(from_chunks), depth);
    let traced = statements
        .iter()
        .take(TRACED_STATEMENTS)
        .map(|h| TraceNode::new(index.corpus(), NodeKind::Relation, h.id, h.score))
        .collect();
    Retrieval { chunks, steps: vec![Step::seeds("statements nearest the query", traced)] }
}
