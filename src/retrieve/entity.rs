//! Entity retriever (seed 000): the entities whose name is nearest the query; the chunks citing them
//! (`cited_in`), each scored by the best cosine among the entities it cites.

use super::trace::{Step, TraceNode};
use super::{Query, Retrieval, nearest, rank_chunks};
use crate::graph::{EdgeKind, NodeRef};
use crate::store::IndexedCorpus;

/// Entities taken (seed 000).
pub const ENTITIES: usize = 5;

/// What this retriever does, for the CLI's and the app's lists; built from its constants where it has them.
pub fn description() -> String {
    format!("chunks citing the {ENTITIES} entities nearest the query (seed 000)")
}

pub fn entity(index: &IndexedCorpus, query: Query<'_>, depth: usize) -> Retrieval {
    let entities = nearest(index, &index.rows().entities, query, ENTITIES);
    let scored = entities.iter().flat_map(|hit| {
        index.graph().neighbors(NodeRef::Entity(hit.id), EdgeKind::CitedIn).into_iter().filter_map(move |n| match n {
            NodeRef::Chunk(chunk) => Some((chunk, hit.score)),
            _ => None,
        })
    });
    let chunks = rank_chunks(index, query.vector, scored, depth);
    let nodes = entities.iter().map(|h| TraceNode::entity(index.corpus(), h.id, h.score)).collect();
    Retrieval { chunks, steps: vec![Step::seeds("entities whose name is nearest the query", nodes)] }
}
