//! Section retriever (seed 000): the sections or pages whose text (the section's uri path, the page's
//! title) is nearest the query; each gives its direct chunks (`has_chunk`: a page's lead chunks), scored by
//! its cosine.

use super::trace::{NodeKind, Step, TraceNode};
use super::{Query, Retrieval, nearest, rank_chunks};
use crate::graph::{EdgeKind, NodeRef};
use crate::store::IndexedCorpus;

/// Sections (or pages) taken (seed 000).
pub const SECTIONS: usize = 5;

/// What this retriever does, for the CLI's and the app's lists; built from its constants where it has them.
pub fn description() -> String {
    format!("direct chunks of the {SECTIONS} sections or pages nearest the query (seed 000)")
}

pub fn section(index: &IndexedCorpus, query: Query<'_>, depth: usize) -> Retrieval {
    let sections = nearest(index, &index.rows().sections, query, SECTIONS)
        .into_iter()
        .map(|hit| (NodeKind::Section, hit.id, hit.score));
    let pages =
        nearest(index, &index.rows().pages, query, SECTIONS).into_iter().map(|hit| (NodeKind::Page, hit.id, hit.score));
    let mut chosen: Vec<(NodeKind, u32, f32)> = sections.chain(pages).collect();
    chosen.sort_by(|a, b| b.2.total_cmp(&a.2));
    chosen.truncate(SECTIONS);
    let scored = chosen.iter().flat_map(|&(kind, id, score)| {
        let node = if kind == NodeKind::Section { NodeRef::Section(id) } else { NodeRef::Entity(id) };
        index.graph().neighbors(node, EdgeKind::HasChunk).into_iter().filter_map(move |child| match child {
            NodeRef::Chunk(chunk) => Some((chunk, score)),
            _ => None,
        })
    });
    let chunks = rank_chunks(index, query.vector, scored, depth);
    let nodes = chosen.iter().map(|&(kind, id, score)| TraceNode::new(index.corpus(), kind, id, score)).collect();
    Retrieval { chunks, steps: vec![Step::seeds("sections or pages nearest the query", nodes)] }
}
