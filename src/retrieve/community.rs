//! Community retriever (seed 004 §5.2.3): coarse to fine over the chunk graph's communities. Hybrid search
//! over the communities (their vectors, and BM25 over their extractive summaries) picks
//! [`SEED_COMMUNITIES`]; one hop along `comm_similar_to` links adds the most similar communities of other
//! documents until the pool holds [`POOL_COMMUNITIES`]; hybrid search among the pool's chunks ranks them.
//! Hybrid search here is the equal-weight sum of standardised dense and BM25 scores, the fusion of the two
//! that measured best (docs/QUALITY.md); for a query without a vector, BM25 alone.

use std::collections::{BTreeMap, HashSet};

use super::fusion::standardised_sum;
use super::reader::IndexReader;
use super::trace::{NodeKind, Step, TraceNode};
use super::{FUSION_DEPTH, Query, Retrieval, ScoredChunk};
use crate::corpus::ChunkId;
use crate::index::{Hit, top_k};

pub const SEED_COMMUNITIES: usize = 15;
pub const POOL_COMMUNITIES: usize = 30;

/// What this retriever does, for the CLI's and the app's lists; built from its constants where it has them.
pub fn description() -> String {
    format!(
        "{SEED_COMMUNITIES} chunk-graph communities by hybrid search, one similarity hop to {POOL_COMMUNITIES}, hybrid \
         search in their chunks (seed 004)"
    )
}

pub fn community(index: &dyn IndexReader, query: Query<'_>, depth: usize) -> Retrieval {
    let seeds = seed_communities(index, query);
    let expansions = expand(index, &seeds);
    let pool: Vec<ChunkId> = seeds
        .iter()
        .map(|s| s.chunk)
        .chain(expansions.iter().map(|e| e.1))
        .flat_map(|c| index.community_chunks(c).iter().copied())
        .collect();
    let chunks = hybrid_within(index, query, &pool, depth);
    let node = |id: u32, score: f32| community_node(index, id, score);
    let searched = match query.has_vector() {
        true => "communities nearest the query (hybrid search over community vectors and summaries)",
        false => "communities nearest the query (BM25 over community summaries)",
    };
    let mut steps = vec![Step::seeds(searched, seeds.iter().map(|s| node(s.chunk, s.score)).collect())];
    steps.extend(expansions.iter().map(|&(from, to, similarity)| Step::Expand {
        from: node(from, 0.0),
        relation: "comm_similar_to".into(),
        to: node(to, similarity),
        score: similarity,
    }));
    Retrieval { chunks, steps }
}

/// A community as the trace shows it: named by its best chunk by PageRank.
fn community_node(index: &dyn IndexReader, id: u32, score: f32) -> TraceNode {
    TraceNode { kind: NodeKind::Community, id, label: community_label(index, id), score }
}

/// A community's label: its size and its best chunk by PageRank, that chunk's label left out where it is
/// not at hand yet (over fragments, until its text run is fetched: [`first_chunk`]).
pub(crate) fn community_label(index: &dyn IndexReader, id: u32) -> String {
    let chunks = index.community_chunks(id);
    let size = format!("community {id} ({} chunks)", chunks.len());
    match first_chunk(index, id).and_then(|chunk| index.chunk_label(chunk)) {
        Some(label) => format!("{size}: {label}"),
        None => size,
    }
}

/// The chunk that names a community.
pub(crate) fn first_chunk(index: &dyn IndexReader, id: u32) -> Option<ChunkId> {
    index.community_chunks(id).first().copied()
}

/// The [`SEED_COMMUNITIES`] best communities by hybrid score (community ids in `chunk`: fusion only compares
/// ids).
fn seed_communities(index: &dyn IndexReader, query: Query<'_>) -> Vec<ScoredChunk> {
    let dense = index.community_dense(query, FUSION_DEPTH);
    let lexical = index.community_summaries(query.text, FUSION_DEPTH);
    hybrid(dense, lexical, SEED_COMMUNITIES)
}

/// The `k` best of two ranked lists by the equal-weight sum of their standardised scores.
fn hybrid(dense: Vec<Hit>, lexical: Vec<Hit>, k: usize) -> Vec<ScoredChunk> {
    let as_list = |hits: Vec<Hit>| -> Vec<ScoredChunk> { hits.into_iter().map(ScoredChunk::from).collect() };
    standardised_sum(&[&as_list(dense), &as_list(lexical)], k).iter().map(ScoredChunk::from).collect()
}

/// One hop from the seeds: the communities they link to, most similar link first, until the pool holds
/// [`POOL_COMMUNITIES`]; as (from, to, similarity).
fn expand(index: &dyn IndexReader, seeds: &[ScoredChunk]) -> Vec<(u32, u32, f32)> {
    let taken: HashSet<u32> = seeds.iter().map(|s| s.chunk).collect();
    let mut best: BTreeMap<u32, (u32, f32)> = BTreeMap::new();
    for seed in seeds {
        for link in index.community_links(seed.chunk) {
            if taken.contains(&link.community) {
                continue;
            }
            let entry = best.entry(link.community).or_insert((seed.chunk, link.similarity));
            if link.similarity > entry.1 {
                *entry = (seed.chunk, link.similarity);
            }
        }
    }
    let mut hops: Vec<(u32, u32, f32)> = best.into_iter().map(|(to, (from, s))| (from, to, s)).collect();
    hops.sort_by(|a, b| b.2.total_cmp(&a.2).then(a.1.cmp(&b.1)));
    hops.truncate(POOL_COMMUNITIES.saturating_sub(seeds.len()));
    hops
}

/// The `depth` best of `pool` by hybrid score among themselves.
fn hybrid_within(index: &dyn IndexReader, query: Query<'_>, pool: &[ChunkId], depth: usize) -> Vec<ScoredChunk> {
    let compared = if query.has_vector() { pool } else { &[] };
    let dense = compared.iter().map(|&row| Hit { id: row, score: index.similarity(query.vector, row) });
    let lexical_scores = index.lexical_scores(query.text);
    let lexical = pool.iter().filter_map(|&row| lexical_scores.get(&row).map(|&score| Hit { id: row, score }));
    hybrid(top_k(dense, pool.len()), top_k(lexical, pool.len()), depth)
}
