//! Page retriever (seed 000): the pages whose text (title and type hint) is nearest the query; each gives
//! all its chunks (transitive `is_chunk_of`), scored by the page's cosine.

use super::trace::{NodeKind, Step, TraceNode};
use super::{Query, Retrieval, nearest, rank_chunks};
use crate::store::IndexedCorpus;

/// Pages taken (seed 000).
pub const PAGES: usize = 3;

/// What this retriever does, for the CLI's and the app's lists; built from its constants where it has them.
pub fn description() -> String {
    format!("chunks of the {PAGES} pages nearest the query (seed 000)")
}

pub fn page(index: &IndexedCorpus, query: Query<'_>, depth: usize) -> Retrieval {
    let pages = nearest(index, &index.rows().pages, query, PAGES);
    let scored = pages.iter().flat_map(|hit| index.corpus().document_chunks(hit.id).map(move |c| (c, hit.score)));
    let chunks = rank_chunks(index, query.vector, scored, depth);
    let nodes = pages.iter().map(|h| TraceNode::new(index.corpus(), NodeKind::Page, h.id, h.score)).collect();
    Retrieval { chunks, steps: vec![Step::seeds("pages nearest the query", nodes)] }
}
