//! Node-set join retriever (seed 002, FocusedRetriever). The entities the query names (dictionary match
//! against the entity gazetteer; the nearest entity by vector search when it names none) are anchors. Each
//! anchor's neighbour set is itself and every entity one relation or mention away; with several anchors the
//! sets are intersected (the entities related to all of them, as "the film directed by A starring B"), and
//! when the intersection is empty they are united. Survivors are ranked by how near the query they are (the
//! best of their name's cosine and their page's chunks' cosines) and taken k̂ at a time,
//! k̂ ← int(1.5·k̂ + 0.5), until their chunks (citing them or in their page) fill the list's top
//! [`ANSWERS`]. Joined chunks rank by their own cosine, above everything vector search then fills in.

use std::collections::HashSet;

use super::trace::{Step, TraceNode};
use super::{Query, Retrieval, ScoredChunk, chunks_about, dense, nearest, rank_chunks};
use crate::corpus::EntityId;
use crate::store::IndexedCorpus;

/// Answers the join must supply before vector search fills the rest.
pub const ANSWERS: usize = 10;
/// Survivors taken first.
const FIRST_TAKE: usize = 1;
/// Anchors read from one query at most: a long query naming many entities joins nothing useful.
const MAX_ANCHORS: usize = 5;

fn neighbour_set(index: &IndexedCorpus, entity: EntityId) -> HashSet<EntityId> {
    let mut set: HashSet<EntityId> =
        index.graph.entity_links(&index.corpus, entity).into_iter().map(|(target, _)| target).collect();
    set.insert(entity);
    set
}

fn anchors(index: &IndexedCorpus, query: Query<'_>) -> (Vec<(EntityId, f32)>, &'static str) {
    let vectors = index.embeddings.vectors();
    let named: Vec<(EntityId, f32)> = index
        .gazetteer
        .find(query.text)
        .into_iter()
        .take(MAX_ANCHORS)
        .map(|e| (e, vectors.dot(query.vector, index.rows.entities[e as usize])))
        .collect();
    if !named.is_empty() {
        return (named, "entities named in the query");
    }
    let nearest = nearest(index, &index.rows.entities, query.vector, 1).into_iter().map(|h| (h.row, h.score));
    (nearest.collect(), "no entity named: the entity nearest the query")
}

pub fn join(index: &IndexedCorpus, query: Query<'_>, depth: usize) -> Retrieval {
    let corpus = &index.corpus;
    let (anchors, note) = anchors(index, query);
    let mut steps = vec![Step::seeds(note, anchors.iter().map(|&(e, s)| TraceNode::entity(corpus, e, s)).collect())];
    let sets: Vec<HashSet<EntityId>> = anchors.iter().map(|&(e, _)| neighbour_set(index, e)).collect();
    let intersection: HashSet<EntityId> = match sets.split_first() {
        Some((first, rest)) if !rest.is_empty() => {
            first.iter().filter(|e| rest.iter().all(|s| s.contains(e))).copied().collect()
        }
        _ => HashSet::new(),
    };
    let (survivors, how) = if intersection.is_empty() {
        (sets.into_iter().flatten().collect::<HashSet<_>>(), "neighbours of the anchors")
    } else {
        (intersection, "entities related to every anchor")
    };
    let mut ranked: Vec<(EntityId, f32)> = survivors.into_iter().map(|e| (e, relevance(index, query, e))).collect();
    ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    let wanted = ANSWERS.min(depth);
    let vectors = index.embeddings.vectors();
    let mut take = FIRST_TAKE;
    let joined = loop {
        let scored = ranked[..take.min(ranked.len())]
            .iter()
            .flat_map(|&(e, _)| chunks_about(index, e))
            .map(|c| (c, JOINED + vectors.dot(query.vector, index.rows.chunks[c as usize])));
        let joined = rank_chunks(index, query.vector, scored, depth);
        if joined.len() >= wanted || take >= ranked.len() {
            break joined;
        }
        take = ((1.5 * take as f32 + 0.5) as usize).max(take + 1);
    };
    let kept = &ranked[..take.min(ranked.len())];
    steps.push(Step::keep(how, kept.iter().map(|&(e, s)| TraceNode::entity(corpus, e, s)).collect(), 0.0));
    Retrieval { chunks: fill(joined, dense(index, query.vector, depth), depth), steps }
}

/// Added to a joined chunk's cosine so that it ranks above every chunk vector search fills in.
const JOINED: f32 = 2.0;

/// How near the query an entity is: its name's cosine, or its page's best chunk.
fn relevance(index: &IndexedCorpus, query: Query<'_>, entity: EntityId) -> f32 {
    let vectors = index.embeddings.vectors();
    let name = vectors.dot(query.vector, index.rows.entities[entity as usize]);
    let page = index.corpus.entities[entity as usize].document.map(|d| index.corpus.document_chunks(d));
    page.into_iter().flatten().map(|c| vectors.dot(query.vector, index.rows.chunks[c as usize])).fold(name, f32::max)
}

/// `joined` first, then `filler` chunks not in it, each scored at most just below the lowest joined score.
fn fill(mut joined: Vec<ScoredChunk>, filler: Vec<ScoredChunk>, depth: usize) -> Vec<ScoredChunk> {
    let present: HashSet<u32> = joined.iter().map(|c| c.chunk).collect();
    let floor = joined.iter().map(|c| c.score).fold(f32::INFINITY, f32::min);
    joined.extend(
        filler
            .into_iter()
            .filter(|c| !present.contains(&c.chunk))
            .map(|c| ScoredChunk { chunk: c.chunk, score: c.score.min(floor - 1e-3) }),
    );
    joined.truncate(depth);
    joined
}
