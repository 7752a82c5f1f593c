//! Path / subgraph retriever (seed 000 §3.2.1). The entities nearest the query are seeds; each grows to a
//! subgraph one node at a time, always adding the frontier entity whose *comparison embedding* (the mean of
//! its own embedding and the embeddings of the relations traversed from the seed to reach it) is nearest
//! the query. The subgraph with the best mean step score is kept and mapped to chunks in tiers: chunks about
//! every node; else, for more than two nodes, chunks about at least two; else chunks about at least one.
//! Every chunk of the chosen tier scores 1 (seed 000), ranked among themselves by their own cosine.
//!
//! "About" a node means citing it or lying in its page: every page is also an entity, and its chunks state
//! what the page is about without naming it.

use std::collections::HashMap;

use super::trace::{Step, TraceNode};
use super::{Query, Retrieval, chunks_about, nearest, rank_chunks};
use crate::corpus::{ChunkId, EntityId};
use crate::graph::EntityLink;
use crate::store::IndexedCorpus;

/// Seed entities (seed 000).
pub const SEEDS: usize = 3;
/// Nodes per subgraph, the seed included (seed 000).
pub const SUBGRAPH_SIZE: usize = 5;

/// A node of a growing subgraph: how it was reached and the relation embeddings summed along the way.
struct Member {
    entity: EntityId,
    relation_sum: Vec<f32>,
    relations: usize,
}

/// How one node joined a subgraph: from which member, along which link, with its comparison score.
#[derive(Clone, Copy)]
struct Growth {
    from: EntityId,
    link: EntityLink,
    to: EntityId,
    score: f32,
}

/// A frontier entity's best way in: its comparison score, the member (by position) it is reached from,
/// and the link.
#[derive(Clone, Copy)]
struct Candidate {
    score: f32,
    member: usize,
    link: EntityLink,
}

struct Subgraph {
    members: Vec<Member>,
    /// One per added node, in the order they joined.
    steps: Vec<Growth>,
    seed_score: f32,
}

impl Subgraph {
    /// Orders subgraphs: any that grew above any that could not (a lone seed is no path, and its own cosine
    /// is not comparable with step scores), then by mean step score.
    fn rank(&self) -> (bool, f32) {
        (!self.steps.is_empty(), self.score())
    }

    fn score(&self) -> f32 {
        if self.steps.is_empty() {
            return self.seed_score;
        }
        self.steps.iter().map(|s| s.score).sum::<f32>() / self.steps.len() as f32
    }
}

fn relation_vector(index: &IndexedCorpus, link: EntityLink) -> Option<Vec<f32>> {
    let EntityLink::Relation { relation_type, inverse } = link else { return None };
    let rows = if inverse { &index.rows().inverse_relation_types } else { &index.rows().relation_types };
    Some(index.embeddings().vectors().get(rows[relation_type as usize]))
}

fn cosine(query: &[f32], vector: &[f32]) -> f32 {
    let norm = vector.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm == 0.0 { 0.0 } else { query.iter().zip(vector).map(|(q, v)| q * v).sum::<f32>() / norm }
}

/// A frontier candidate reached from `member`: its comparison embedding's cosine with the query.
fn comparison_score(index: &IndexedCorpus, query: &[f32], member: &Member, target: EntityId, link: EntityLink) -> f32 {
    let mut sum = index.embeddings().vectors().get(index.rows().entities[target as usize]);
    let mut count = 1 + member.relations;
    for (s, r) in sum.iter_mut().zip(&member.relation_sum) {
        *s += r;
    }
    if let Some(relation) = relation_vector(index, link) {
        count += 1;
        for (s, r) in sum.iter_mut().zip(relation) {
            *s += r;
        }
    }
    sum.iter_mut().for_each(|s| *s /= count as f32);
    cosine(query, &sum)
}

fn grow(index: &IndexedCorpus, query: &[f32], seed: EntityId, seed_score: f32) -> Subgraph {
    let dimension = index.embeddings().vectors().dimension();
    let mut subgraph = Subgraph {
        members: vec![Member { entity: seed, relation_sum: vec![0.0; dimension], relations: 0 }],
        steps: Vec::new(),
        seed_score,
    };
    // Scores of frontier candidates never change once their source member is in: compute each once.
    let mut frontier: HashMap<EntityId, Candidate> = HashMap::new();
    let add_frontier_of = |subgraph: &Subgraph, frontier: &mut HashMap<EntityId, Candidate>| {
        let position = subgraph.members.len() - 1;
        let member = &subgraph.members[position];
        for (target, link) in index.graph().entity_links(index.corpus(), member.entity) {
            if subgraph.members.iter().any(|m| m.entity == target) {
                continue;
            }
            let score = comparison_score(index, query, member, target, link);
            let entry =
                frontier.entry(target).or_insert(Candidate { score: f32::NEG_INFINITY, member: position, link });
            if score > entry.score {
                *entry = Candidate { score, member: position, link };
            }
        }
    };
    add_frontier_of(&subgraph, &mut frontier);
    while subgraph.members.len() < SUBGRAPH_SIZE {
        let best = frontier.iter().max_by(|a, b| a.1.score.total_cmp(&b.1.score).then(b.0.cmp(a.0)));
        let Some((target, Candidate { score, member, link })) = best.map(|(&e, &c)| (e, c)) else { break };
        frontier.remove(&target);
        let source = &subgraph.members[member];
        let mut relation_sum = source.relation_sum.clone();
        let mut relations = source.relations;
        if let Some(relation) = relation_vector(index, link) {
            relations += 1;
            relation_sum.iter_mut().zip(relation).for_each(|(s, r)| *s += r);
        }
        subgraph.steps.push(Growth { from: source.entity, link, to: target, score });
        subgraph.members.push(Member { entity: target, relation_sum, relations });
        add_frontier_of(&subgraph, &mut frontier);
    }
    subgraph
}

/// Chunks of the first non-empty tier: about every node; else (more than two nodes) about at least two;
/// else about at least one.
pub(crate) fn tier_chunks(index: &IndexedCorpus, nodes: &[EntityId]) -> Vec<ChunkId> {
    let mut coverage: HashMap<ChunkId, usize> = HashMap::new();
    for &node in nodes {
        for chunk in chunks_about(index, node) {
            *coverage.entry(chunk).or_default() += 1;
        }
    }
    let thresholds: &[usize] = if nodes.len() > 2 { &[nodes.len(), 2, 1] } else { &[nodes.len(), 1] };
    for &needed in thresholds {
        let tier: Vec<ChunkId> = coverage.iter().filter(|(_, n)| **n >= needed).map(|(c, _)| *c).collect();
        if !tier.is_empty() {
            return tier;
        }
    }
    Vec::new()
}

/// What this retriever does, for the CLI's and the app's lists; built from its constants where it has them.
pub fn description() -> String {
    format!("{SEEDS} seed entities grown to {SUBGRAPH_SIZE}-node subgraphs by comparison embeddings (seed 000)")
}

pub fn path(index: &IndexedCorpus, query: Query<'_>, depth: usize) -> Retrieval {
    let corpus = &index.corpus();
    let seeds = nearest(index, &index.rows().entities, query, SEEDS);
    let mut steps = vec![Step::seeds(
        "entities nearest the query",
        seeds.iter().map(|h| TraceNode::entity(corpus, h.id, h.score)).collect(),
    )];
    let best = seeds.iter().map(|hit| grow(index, query.vector, hit.id, hit.score)).max_by(|a, b| {
        let (a, b) = (a.rank(), b.rank());
        a.0.cmp(&b.0).then(a.1.total_cmp(&b.1))
    });
    let Some(best) = best else { return Retrieval { chunks: Vec::new(), steps } };
    for &Growth { from, link, to, score } in &best.steps {
        steps.push(Step::Expand {
            from: TraceNode::entity(corpus, from, 0.0),
            relation: link.label(corpus),
            to: TraceNode::entity(corpus, to, score),
            score,
        });
    }
    let nodes: Vec<EntityId> = best.members.iter().map(|m| m.entity).collect();
    steps.push(Step::keep(
        "subgraph with the best mean step score",
        nodes.iter().map(|&e| TraceNode::entity(corpus, e, 0.0)).collect(),
        best.score(),
    ));
    let scored = tier_chunks(index, &nodes).into_iter().map(|chunk| (chunk, 1.0));
    Retrieval { chunks: rank_chunks(index, query.vector, scored, depth), steps }
}
