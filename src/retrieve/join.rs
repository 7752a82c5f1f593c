//! Node-set join retriever (seed 002, FocusedRetriever). Anchors are the entities the query names
//! (dictionary match against the entity gazetteer) and the pages of the best hybrid matches (the seed's
//! candidate entities by search: a bridge question often names neither end of its bridge by a known title).
//! Each anchor's neighbour set is itself and every entity one relation or mention away; the sets are
//! intersected (the entities related to all anchors, as "the film directed by A starring B"), and united
//! when the intersection is empty.
//!
//! Survivors rank as the pairs a multi-hop question needs. A pair is an anchor and one of its neighbours, or
//! two entities the query names (the query links them itself: "which is older, A or B?"); it scores the sum
//! of its ends' hybrid relevance (the best standardised dense + BM25 score among their own chunks), so a
//! bridge's far end ranks by the anchor that leads to it and by its own match, and each survivor by its best
//! pair. Each survivor brings its best chunk, not its whole page (a long chapter would fill the list), the
//! more relevant end of a pair first. Survivors are taken k̂ at a time, k̂ ← int(1.5·k̂ + 0.5), until their
//! chunks fill the list's top [`ANSWERS`]; the hybrid list fills the rest below them, in its own order.

use std::collections::{HashMap, HashSet};

use super::fusion::standardised_sum;
use super::reader::IndexReader;
use super::trace::Step;
use super::{FUSION_DEPTH, Query, Retrieval, ScoredChunk, rank_chunks};
use crate::corpus::{ChunkId, EntityId};

/// Answers the join must supply before hybrid search fills the rest.
pub const ANSWERS: usize = 10;
/// Survivors taken first.
const FIRST_TAKE: usize = 1;
/// The two ends of a pair score the same: the one more relevant by itself goes first.
const TIE_BREAK: f32 = 1e-3;
/// Anchors read from one query at most: a long query naming many entities joins nothing useful.
const MAX_ANCHORS: usize = 5;
/// Pages of the best hybrid matches taken as anchors beside the named entities: a bridge question often
/// names neither end of its bridge by a title the gazetteer knows.
const SEARCHED_ANCHORS: usize = 5;

/// Hybrid relevance of chunks to the query: the equal-weight sum of standardised dense and BM25 scores over
/// their top lists; a chunk in neither list scores just below the lowest.
struct Hybrid {
    ranked: Vec<ScoredChunk>,
    by_chunk: HashMap<ChunkId, f32>,
    floor: f32,
}

impl Hybrid {
    fn search(index: &dyn IndexReader, query: Query<'_>) -> Hybrid {
        let dense = super::dense(index, query, FUSION_DEPTH);
        let bm25 = super::bm25(index, query, FUSION_DEPTH);
        let ranked: Vec<ScoredChunk> =
            standardised_sum(&[&dense, &bm25], usize::MAX).iter().map(ScoredChunk::from).collect();
        let floor = ranked.last().map_or(0.0, |c| c.score - 1e-3);
        let by_chunk = ranked.iter().map(|c| (c.chunk, c.score)).collect();
        Hybrid { ranked, by_chunk, floor }
    }

    fn chunk(&self, chunk: ChunkId) -> f32 {
        self.by_chunk.get(&chunk).copied().unwrap_or(self.floor)
    }

    /// An entity's relevance: that of its page's best chunk, or for an entity without a page of the best chunk
    /// citing it (the floor when there is none); and that chunk, the one that speaks for the entity.
    fn entity(&self, index: &dyn IndexReader, entity: EntityId) -> Relevance {
        let best = index
            .own_chunks(entity)
            .into_iter()
            .map(|c| (c, self.chunk(c)))
            .max_by(|a, b| a.1.total_cmp(&b.1).then(b.0.cmp(&a.0)));
        Relevance { score: best.map_or(self.floor, |(_, score)| score.max(self.floor)), best }
    }
}

/// An entity's relevance to the query, and its best chunk with that chunk's score.
#[derive(Clone, Copy)]
struct Relevance {
    score: f32,
    best: Option<(ChunkId, f32)>,
}

/// A survivor, the score of the best pair it belongs to, and its best chunk.
struct Survivor {
    entity: EntityId,
    pair: f32,
    best: Option<(ChunkId, f32)>,
}

fn neighbour_set(index: &dyn IndexReader, entity: EntityId) -> HashSet<EntityId> {
    let mut set: HashSet<EntityId> = index.linked_entities(entity).into_iter().collect();
    set.insert(entity);
    set
}

/// The anchors: the entities the query names, then the pages of the best hybrid matches, each once; and
/// how many of them the query names.
fn anchors(index: &dyn IndexReader, named: Vec<EntityId>, hybrid: &Hybrid) -> (Vec<EntityId>, usize) {
    let mut anchors = named;
    anchors.truncate(MAX_ANCHORS);
    let named = anchors.len();
    let mut searched: Vec<EntityId> = Vec::with_capacity(SEARCHED_ANCHORS);
    for hit in &hybrid.ranked {
        let page = index.document_of(hit.chunk);
        if !searched.contains(&page) {
            searched.push(page);
            if searched.len() == SEARCHED_ANCHORS {
                break;
            }
        }
    }
    anchors.extend(searched.into_iter().filter(|page| !anchors[..named].contains(page)).collect::<Vec<_>>());
    (anchors, named)
}

/// Survivors with the score of the best pair each belongs to, best first. A pair is an anchor and a
/// neighbour of it, or two anchors the query names (the query itself links them: "which is older, A or
/// B?"); it scores the sum of its ends' relevance. A survivor in no pair scores its relevance plus the
/// floor.
fn pair_scores(
    index: &dyn IndexReader,
    hybrid: &Hybrid,
    (anchors, named): (&[EntityId], usize),
    sets: &[HashSet<EntityId>],
    survivors: &HashSet<EntityId>,
) -> Vec<Survivor> {
    let mut relevance: HashMap<EntityId, Relevance> = HashMap::new();
    let mut relevance_of = |e: EntityId| *relevance.entry(e).or_insert_with(|| hybrid.entity(index, e));
    let mut best: HashMap<EntityId, f32> =
        survivors.iter().map(|&e| (e, relevance_of(e).score + hybrid.floor)).collect();
    let linked = anchors.iter().zip(sets).flat_map(|(&anchor, set)| {
        set.iter().filter(move |&&n| n != anchor && survivors.contains(&n)).map(move |&n| (anchor, n))
    });
    let named_pairs =
        anchors[..named].iter().enumerate().flat_map(|(i, &a)| anchors[i + 1..named].iter().map(move |&b| (a, b)));
    for (a, b) in linked.chain(named_pairs) {
        let pair = relevance_of(a).score + relevance_of(b).score;
        for end in [a, b] {
            if let Some(score) = best.get_mut(&end) {
                *score = score.max(pair);
            }
        }
    }
    let mut ranked: Vec<Survivor> =
        best.into_iter().map(|(entity, pair)| Survivor { entity, pair, best: relevance_of(entity).best }).collect();
    ranked.sort_by(|a, b| b.pair.total_cmp(&a.pair).then(a.entity.cmp(&b.entity)));
    ranked
}

/// The anchors whose neighbours survive, and the survivors. Two or more named anchors with entities related
/// to all of them single those out (the query's constraints), reached from the named anchors alone;
/// otherwise every anchor's neighbours survive.
struct Join {
    anchors: Vec<EntityId>,
    sets: Vec<HashSet<EntityId>>,
    survivors: HashSet<EntityId>,
    intersection: Vec<EntityId>,
}

impl Join {
    fn new(index: &dyn IndexReader, mut anchors: Vec<EntityId>, named: usize) -> Join {
        let mut sets: Vec<HashSet<EntityId>> = anchors.iter().map(|&e| neighbour_set(index, e)).collect();
        let mut intersection: Vec<EntityId> = match sets[..named].split_first() {
            Some((first, rest)) if !rest.is_empty() => first
                .iter()
                .filter(|e| !anchors[..named].contains(e) && rest.iter().all(|s| s.contains(e)))
                .copied()
                .collect(),
            _ => Vec::new(),
        };
        intersection.sort_unstable();
        let survivors = if intersection.is_empty() {
            sets.iter().flatten().copied().collect()
        } else {
            anchors.truncate(named);
            sets.truncate(named);
            intersection.iter().chain(&anchors).copied().collect()
        };
        Join { anchors, sets, survivors, intersection }
    }
}

/// What this retriever does, for the CLI's and the app's lists; built from its constants where it has them.
pub fn description() -> String {
    "named and best-matching pages joined with their neighbours, ranked by anchor–neighbour pairs (seed 002)"
        .to_string()
}

pub fn join(index: &dyn IndexReader, query: Query<'_>, depth: usize) -> Retrieval {
    join_with_anchors(index, query, index.named_entities(query.text), depth)
}

/// The join from `named` entities instead of the ones the gazetteer finds in the query (seed 002's query
/// parsing by an LLM names them).
pub fn join_with_anchors(index: &dyn IndexReader, query: Query<'_>, named: Vec<EntityId>, depth: usize) -> Retrieval {
    let hybrid = Hybrid::search(index, query);
    let (anchors, named) = anchors(index, named, &hybrid);
    let node = |e: EntityId, score: f32| index.entity_node(e, score);
    let relevance_nodes =
        |entities: &[EntityId]| entities.iter().map(|&e| node(e, hybrid.entity(index, e).score)).collect();
    // Without a vector (`Method::Words`) the hybrid is BM25 alone, and the trace says so.
    let searched =
        if query.has_vector() { "pages of the best hybrid matches" } else { "pages of the best BM25 matches" };
    let mut steps: Vec<Step> = [("entities named in the query", &anchors[..named]), (searched, &anchors[named..])]
        .into_iter()
        .filter(|(_, nodes)| !nodes.is_empty())
        .map(|(note, nodes)| Step::seeds(note, relevance_nodes(nodes)))
        .collect();
    let join = Join::new(index, anchors, named);
    if !join.intersection.is_empty() {
        steps.push(Step::keep("entities related to every named anchor", relevance_nodes(&join.intersection), 0.0));
    }
    let ranked = pair_scores(index, &hybrid, (&join.anchors, named), &join.sets, &join.survivors);
    let wanted = ANSWERS.min(depth);
    let mut take = FIRST_TAKE;
    let joined = loop {
        let scored = ranked[..take.min(ranked.len())]
            .iter()
            .filter_map(|s| s.best.map(|(chunk, score)| (chunk, s.pair + TIE_BREAK * score)));
        let joined = rank_chunks(index, query.vector, scored, depth);
        if joined.len() >= wanted || take >= ranked.len() {
            break joined;
        }
        take = ((1.5 * take as f32 + 0.5) as usize).max(take + 1);
    };
    let kept = ranked[..take.min(ranked.len())].iter().map(|s| node(s.entity, s.pair)).collect();
    steps.push(Step::keep("survivors taken, by their best pair", kept, 0.0));
    Retrieval { chunks: fill_below(joined, hybrid.ranked, depth), steps }
}

/// `joined` first, then `filler` chunks not in it, in their own order, shifted below the lowest joined score.
pub(crate) fn fill_below(mut joined: Vec<ScoredChunk>, filler: Vec<ScoredChunk>, depth: usize) -> Vec<ScoredChunk> {
    let present: HashSet<u32> = joined.iter().map(|c| c.chunk).collect();
    let floor = joined.iter().map(|c| c.score).fold(f32::INFINITY, f32::min);
    let filler: Vec<ScoredChunk> = filler.into_iter().filter(|c| !present.contains(&c.chunk)).collect();
    let best_filler = filler.first().map_or(f32::NEG_INFINITY, |c| c.score);
    let shift = if floor.is_finite() { (floor - 1e-3 - best_filler).min(0.0) } else { 0.0 };
    joined.extend(filler.into_iter().map(|c| ScoredChunk { chunk: c.chunk, score: c.score + shift }));
    joined.truncate(depth);
    joined
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chunks(pairs: &[(u32, f32)]) -> Vec<ScoredChunk> {
        pairs.iter().map(|&(chunk, score)| ScoredChunk { chunk, score }).collect()
    }

    /// Hybrid scores can exceed joined ones: the filler keeps its own order below the joined chunks instead of
    /// collapsing onto one clamped score.
    #[test]
    fn fill_keeps_the_filler_order_below_the_joined_chunks() {
        let joined = chunks(&[(1, 0.5), (2, 0.2)]);
        let filler = chunks(&[(7, 3.0), (2, 2.5), (8, 1.0), (9, -0.5)]);
        let filled = fill_below(joined, filler, 5);
        assert_eq!(filled.iter().map(|c| c.chunk).collect::<Vec<_>>(), [1, 2, 7, 8, 9]);
        assert!(filled.windows(2).all(|w| w[0].score > w[1].score), "{filled:?}");
        assert!((filled[2].score - (0.2 - 1e-3)).abs() < 1e-6);
        assert!((filled[3].score - filled[4].score - 1.5).abs() < 1e-5);
    }

    #[test]
    fn fill_leaves_low_filler_scores_alone() {
        let filled = fill_below(chunks(&[(1, 5.0)]), chunks(&[(2, 1.0), (3, 0.5)]), 2);
        assert_eq!(filled, chunks(&[(1, 5.0), (2, 1.0)]));
        assert_eq!(fill_below(Vec::new(), chunks(&[(2, 1.0)]), 3), chunks(&[(2, 1.0)]));
    }
}
