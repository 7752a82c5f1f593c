//! Hub retriever (seed 001, HubLink), without an LLM. Every document is a hub; its paths are the relations
//! stated in it, each verbalised as `{subject} {relation} {object}` (the seed's templated path text) and
//! embedded at index time. A query scores every path; each hub keeps its best [`PATHS_PER_HUB`], a path
//! whose subject an earlier path of the hub already had losing [`REPEATED_SUBJECT_PENALTY`], and scores as
//! the exponentially weighted mean of its paths (α = 5), which rewards a few strong paths over many weak
//! ones. The best [`HUBS`] give their chunks, scored by the hub.

use std::collections::{HashMap, HashSet};

use super::query::cosines;
use super::trace::{NodeKind, Step, TraceNode};
use super::{Query, Retrieval, rank_chunks};
use crate::corpus::{DocId, EntityId};
use crate::store::IndexedCorpus;

pub const PATHS_PER_HUB: usize = 10;
pub const HUBS: usize = 30;
pub const ALPHA: f32 = 5.0;
pub const REPEATED_SUBJECT_PENALTY: f32 = 0.05;
/// Hubs whose paths the trace lists.
const TRACED_HUBS: usize = 3;

/// Σ s·e^(α s) / Σ e^(α s) over a hub's path scores.
pub fn hub_score(path_scores: &[f32]) -> f32 {
    let (weighted, weights) = path_scores.iter().fold((0.0, 0.0), |(ws, w), &s| {
        let weight = (ALPHA * s).exp();
        (ws + s * weight, w + weight)
    });
    if weights > 0.0 { weighted / weights } else { 0.0 }
}

struct Hub {
    document: DocId,
    score: f32,
    /// (relation, penalised score), best first.
    paths: Vec<(u32, f32)>,
}

fn hubs(index: &IndexedCorpus, query: Query<'_>) -> Vec<Hub> {
    let mut by_hub: HashMap<DocId, Vec<(u32, f32)>> = HashMap::new();
    for (relation, &score) in cosines(index, &index.rows().statements, query).iter().enumerate() {
        let document = index.corpus().relations[relation].document;
        by_hub.entry(document).or_default().push((relation as u32, score));
    }
    let mut hubs: Vec<Hub> = by_hub
        .into_iter()
        .map(|(document, mut paths)| {
            paths.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
            let mut subjects: HashSet<EntityId> = HashSet::new();
            for (relation, score) in &mut paths {
                if !subjects.insert(index.corpus().relations[*relation as usize].subject) {
                    *score -= REPEATED_SUBJECT_PENALTY;
                }
            }
            paths.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
            paths.truncate(PATHS_PER_HUB);
            let scores: Vec<f32> = paths.iter().map(|p| p.1).collect();
            Hub { document, score: hub_score(&scores), paths }
        })
        .collect();
    hubs.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.document.cmp(&b.document)));
    hubs.truncate(HUBS);
    hubs
}

/// What this retriever does, for the CLI's and the app's lists; built from its constants where it has them.
pub fn description() -> String {
    format!("documents as hubs of verbalised relation paths, α = {ALPHA} weighted mean (seed 001)")
}

pub fn hub(index: &IndexedCorpus, query: Query<'_>, depth: usize) -> Retrieval {
    let corpus = &index.corpus();
    let hubs = hubs(index, query);
    let mut steps = vec![Step::seeds(
        "hubs (documents) by the weighted mean of their best paths",
        hubs.iter().map(|h| TraceNode::new(corpus, NodeKind::Page, h.document, h.score)).collect(),
    )];
    for hub in hubs.iter().take(TRACED_HUBS) {
        let paths = hub.paths.iter().map(|&(r, s)| TraceNode::new(corpus, NodeKind::Relation, r, s)).collect();
        steps.push(Step::keep(format!("paths of {}", corpus.entities[hub.document as usize].name), paths, hub.score));
    }
    let scored = hubs.iter().flat_map(|h| corpus.document_chunks(h.document).map(move |c| (c, h.score)));
    Retrieval { chunks: rank_chunks(index, query.vector, scored, depth), steps }
}
