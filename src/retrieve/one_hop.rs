//! Naive one-hop expansion, a baseline rather than a seed's retriever: reciprocal-rank fusion of dense and
//! BM25, then, for each document in that order, the documents whose titles it mentions or that mention its
//! title, scored by its RRF score. It shows what the graph gives with no retrieval over it: the seeds'
//! retrievers must beat it, not just RRF.

use std::collections::HashSet;

use super::fusion::Fusion;
use super::reader::IndexReader;
use super::trace::Step;
use super::{FUSION_DEPTH, Query, Retrieval, bm25, dense, rank_chunks};
use crate::corpus::{ChunkId, DocId};

/// Seed documents whose expansions the trace lists.
const TRACED_SEEDS: usize = 3;

/// Pages one link away from `document`'s page, in either direction: a mention of the title, or a relation
/// (which a link or a mention stated).
pub fn linked_documents(index: &dyn IndexReader, document: DocId) -> Vec<DocId> {
    index.linked_entities(document).into_iter().filter_map(|entity| index.page_of(entity)).collect()
}

/// What this retriever does, for the CLI's and the app's lists; built from its constants where it has them.
pub fn description() -> String {
    "baseline: RRF plus the documents one title mention away".to_string()
}

pub fn one_hop(index: &dyn IndexReader, query: Query<'_>, depth: usize) -> Retrieval {
    let fusion_depth = FUSION_DEPTH.max(depth);
    let dense_hits = dense(index, query, fusion_depth);
    let bm25_hits = bm25(index, query, fusion_depth);
    let seeds = Fusion::Rrf.fuse(&[&dense_hits, &bm25_hits], &[1.0, 1.0], fusion_depth);
    let mut expanded: HashSet<DocId> = HashSet::new();
    let mut seed_pages: Vec<DocId> = Vec::new();
    let mut scored: Vec<(ChunkId, f32)> = Vec::new();
    let mut steps = Vec::new();
    for seed in &seeds {
        scored.push((seed.chunk, seed.score));
        let document = index.document_of(seed.chunk);
        if !expanded.insert(document) {
            continue;
        }
        seed_pages.push(document);
        for neighbour in linked_documents(index, document) {
            scored.extend(index.document_chunks(neighbour).map(|c| (c, seed.score)));
            if seed_pages.len() <= TRACED_SEEDS {
                steps.push(Step::Expand {
                    from: index.entity_node(document, seed.score),
                    relation: "title mention".into(),
                    to: index.entity_node(neighbour, seed.score),
                    score: seed.score,
                });
            }
        }
        if scored.len() >= fusion_depth {
            break;
        }
    }
    let shown = seed_pages.iter().take(TRACED_SEEDS).map(|&d| index.entity_node(d, 0.0)).collect();
    steps.insert(0, Step::seeds("documents of the RRF(dense, BM25) list, in its order", shown));
    Retrieval { chunks: rank_chunks(index, query.vector, scored, depth), steps }
}
