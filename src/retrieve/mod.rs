//! Retrievers over an [`IndexedCorpus`] and their fusion, one file per retriever: the seeds' graph
//! retrievers next to dense and BM25, each returning scored chunks (best first) and the steps it took for
//! the [`trace`]. A [`Method`] names every way of ranking chunks the CLI, `quire eval` and the app can ask
//! for: one retriever alone, or several fused.

mod bm25;
mod community;
mod dense;
mod entity;
pub mod fusion;
mod hub;
mod join;
pub mod learned;
mod one_hop;
mod page;
mod path;
mod section;
mod shared;
pub mod trace;
pub mod training;
mod triplet;

use std::collections::HashMap;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::corpus::{ChunkId, EntityId};
use crate::graph::NodeRef;
use crate::index::Hit;
use crate::store::IndexedCorpus;

pub use bm25::bm25;
pub use community::community;
pub use dense::dense;
pub use entity::entity;
pub use fusion::{FusedChunk, Fusion, RRF_K, reciprocal_rank_fusion, standardised_sum};
pub use hub::{hub, hub_score};
pub(crate) use join::fill_below;
pub use join::{join, join_with_anchors};
pub use learned::{FusionModel, FusionModelError};
pub use one_hop::{linked_documents, one_hop};
pub use page::page;
pub use path::path;
pub(crate) use path::tier_chunks;
pub use section::section;
pub use shared::SharedSearches;
pub(crate) use shared::nearest;
pub use trace::{FusionRow, FusionTrace, RetrieverTrace, Step, Trace, TraceNode, TracedChunk};
pub use triplet::triplet;

/// How deep each retriever's list goes before fusion, whatever depth is asked of the fusion.
pub const FUSION_DEPTH: usize = 100;

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct ScoredChunk {
    pub chunk: ChunkId,
    pub score: f32,
}

impl From<Hit> for ScoredChunk {
    fn from(hit: Hit) -> Self {
        ScoredChunk { chunk: hit.row, score: hit.score }
    }
}

impl From<&FusedChunk> for ScoredChunk {
    fn from(fused: &FusedChunk) -> Self {
        ScoredChunk { chunk: fused.chunk, score: fused.score }
    }
}

/// A query as every retriever needs it: the text (lexical retrievers, entity names) and its embedding, and
/// where the searches its retrievers share are kept while they run.
#[derive(Clone, Copy)]
pub struct Query<'a> {
    pub text: &'a str,
    pub vector: &'a [f32],
    shared: Option<&'a SharedSearches>,
}

impl<'a> Query<'a> {
    pub fn new(text: &'a str, vector: &'a [f32]) -> Self {
        Query { text, vector, shared: None }
    }

    /// The query with its retrievers' searches kept in `shared`, unless it already keeps them somewhere.
    pub fn sharing<'b>(self, shared: &'b SharedSearches) -> Query<'b>
    where
        'a: 'b,
    {
        Query { shared: Some(self.shared.unwrap_or(shared)), ..self }
    }
}

impl std::fmt::Debug for Query<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Query").field("text", &self.text).finish_non_exhaustive()
    }
}

/// What one retriever returns: its chunks, best first, and what it did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Retrieval {
    pub chunks: Vec<ScoredChunk>,
    pub steps: Vec<Step>,
}

/// Chunks scored by a retriever, best first, each once with its best score; chunks with equal scores (every
/// chunk of a page scored by the page) are ordered by their own cosine with the query.
pub(crate) fn rank_chunks(
    index: &IndexedCorpus,
    query: &[f32],
    scored: impl IntoIterator<Item = (ChunkId, f32)>,
    depth: usize,
) -> Vec<ScoredChunk> {
    let mut best: HashMap<ChunkId, f32> = HashMap::new();
    for (chunk, score) in scored {
        let entry = best.entry(chunk).or_insert(f32::NEG_INFINITY);
        *entry = entry.max(score);
    }
    let vectors = index.embeddings.vectors();
    let mut ranked: Vec<(ScoredChunk, f32)> = best
        .into_iter()
        .map(|(chunk, score)| (ScoredChunk { chunk, score }, vectors.dot(query, index.rows.chunks[chunk as usize])))
        .collect();
    ranked.sort_by(|a, b| b.0.score.total_cmp(&a.0.score).then(b.1.total_cmp(&a.1)).then(a.0.chunk.cmp(&b.0.chunk)));
    ranked.truncate(depth);
    ranked.into_iter().map(|(hit, _)| hit).collect()
}

/// Chunks citing an entity.
fn citing_chunks(index: &IndexedCorpus, entity: EntityId) -> Vec<ChunkId> {
    index
        .graph
        .neighbors(NodeRef::Entity(entity), "cited_in")
        .into_iter()
        .filter_map(|n| if let NodeRef::Chunk(c) = n { Some(c) } else { None })
        .collect()
}

/// Chunks about an entity: those citing it, and those of its page.
fn chunks_about(index: &IndexedCorpus, entity: EntityId) -> Vec<ChunkId> {
    let mut chunks = citing_chunks(index, entity);
    if let Some(document) = index.corpus.entities[entity as usize].document {
        chunks.extend(index.corpus.document_chunks(document));
    }
    chunks
}

/// One retriever: a single ranked list of chunks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Retriever {
    Dense,
    Bm25,
    Page,
    Section,
    Entity,
    Path,
    Hub,
    Join,
    Triplet,
    Community,
    OneHop,
}

impl Retriever {
    /// What `rrf-all` and `zsum-all` fuse: every retriever of the seeds (not the one-hop baseline).
    pub const SEEDS: [Retriever; 10] = [
        Self::Dense,
        Self::Bm25,
        Self::Page,
        Self::Section,
        Self::Entity,
        Self::Path,
        Self::Hub,
        Self::Join,
        Self::Triplet,
        Self::Community,
    ];

    /// Every retriever: the seeds', then the one-hop baseline.
    pub fn all() -> impl Iterator<Item = Retriever> {
        Self::SEEDS.into_iter().chain([Self::OneHop])
    }

    pub fn name(self) -> &'static str {
        match self {
            Self::Dense => "dense",
            Self::Bm25 => "bm25",
            Self::Page => "page",
            Self::Section => "section",
            Self::Entity => "entity",
            Self::Path => "path",
            Self::Hub => "hub",
            Self::Join => "join",
            Self::Triplet => "triplet",
            Self::Community => "community",
            Self::OneHop => "onehop",
        }
    }

    pub fn description(self) -> &'static str {
        match self {
            Self::Dense => "cosine of query and chunk embeddings (seed 000)",
            Self::Bm25 => "Okapi BM25 (k1 1.2, b 0.75), English analyzer (seed 004)",
            Self::Page => "chunks of the 3 pages nearest the query (seed 000)",
            Self::Section => "direct chunks of the 5 sections or pages nearest the query (seed 000)",
            Self::Entity => "chunks citing the 5 entities nearest the query (seed 000)",
            Self::Path => "3 seed entities grown to 5-node subgraphs by comparison embeddings (seed 000)",
            Self::Hub => "documents as hubs of verbalised relation paths, α = 5 weighted mean (seed 001)",
            Self::Join => {
                "named and best-matching pages joined with their neighbours, ranked by anchor–neighbour pairs (seed 002)"
            }
            Self::Triplet => "verbalised relations ranked with the chunks (seed 003)",
            Self::Community => {
                "15 chunk-graph communities by hybrid search, one similarity hop to 30, hybrid search in their chunks (seed 004)"
            }
            Self::OneHop => "baseline: RRF plus the documents one title mention away",
        }
    }

    pub fn parse(name: &str) -> Option<Self> {
        let wanted = name.trim().to_ascii_lowercase();
        Self::all().find(|r| r.name() == wanted)
    }

    pub fn run(self, index: &IndexedCorpus, query: Query<'_>, depth: usize) -> Retrieval {
        let plain = |chunks| Retrieval { chunks, steps: Vec::new() };
        match self {
            Self::Dense => plain(dense(index, query, depth)),
            Self::Bm25 => plain(bm25(index, query, depth)),
            Self::Page => page(index, query, depth),
            Self::Section => section(index, query, depth),
            Self::Entity => entity(index, query, depth),
            Self::Path => path(index, query, depth),
            Self::Hub => hub(index, query, depth),
            Self::Join => join(index, query, depth),
            Self::Triplet => triplet(index, query, depth),
            Self::Community => community(index, query, depth),
            Self::OneHop => one_hop(index, query, depth),
        }
    }
}

/// A named way to rank chunks: one retriever, several fused with weights, or several fused by a trained
/// network.
#[derive(Clone, Debug, PartialEq)]
pub enum Method {
    Single(Retriever),
    Fused { fusion: Fusion, inputs: Vec<(Retriever, f32)> },
    Learned(Arc<FusionModel>),
}

/// The name of learned fusion, whichever model it runs.
pub const LEARNED: &str = "learned";

/// Fused methods known by a short name.
const PRESETS: [(&str, Fusion, &[Retriever], &str); 4] = [
    ("rrf", Fusion::Rrf, &[Retriever::Dense, Retriever::Bm25], "reciprocal-rank fusion (k = 60) of dense and BM25"),
    (
        "zsum",
        Fusion::Zsum,
        &[Retriever::Dense, Retriever::Bm25],
        "equal-weight sum of dense and BM25 scores standardised per query",
    ),
    ("rrf-all", Fusion::Rrf, &Retriever::SEEDS, "reciprocal-rank fusion of every seed retriever"),
    ("zsum-all", Fusion::Zsum, &Retriever::SEEDS, "equal-weight standardised sum of every seed retriever"),
];

impl Method {
    fn preset(fusion: Fusion, retrievers: &[Retriever]) -> Method {
        Method::Fused { fusion, inputs: retrievers.iter().map(|&r| (r, 1.0)).collect() }
    }

    /// The preset this method is, as (name, description).
    fn known_preset(&self) -> Option<(&'static str, &'static str)> {
        PRESETS.iter().find(|&&(_, f, rs, _)| *self == Self::preset(f, rs)).map(|&(name, _, _, about)| (name, about))
    }

    /// Every retriever alone, then every preset, then learned fusion with the shipped model.
    pub fn catalogue() -> Vec<Method> {
        let singles = Retriever::all().map(Method::Single);
        let presets = PRESETS.iter().map(|&(_, fusion, inputs, _)| Self::preset(fusion, inputs));
        singles.chain(presets).chain([Method::Learned(FusionModel::shipped())]).collect()
    }

    pub fn name(&self) -> String {
        match self {
            Method::Single(retriever) => retriever.name().to_string(),
            Method::Fused { fusion, inputs } => {
                if let Some((name, _)) = self.known_preset() {
                    return name.to_string();
                }
                let parts: Vec<String> = inputs
                    .iter()
                    .map(|&(r, w)| if w == 1.0 { r.name().to_string() } else { format!("{}*{w}", r.name()) })
                    .collect();
                format!("{}:{}", fusion.name(), parts.join("+"))
            }
            Method::Learned(_) => LEARNED.to_string(),
        }
    }

    pub fn description(&self) -> String {
        match self {
            Method::Single(retriever) => retriever.description().to_string(),
            Method::Fused { fusion, inputs } => self.known_preset().map_or_else(
                || format!("{} of {} lists", fusion.name(), inputs.len()),
                |(_, description)| description.to_string(),
            ),
            Method::Learned(model) => {
                let trained_on = model.about().get("dataset").map_or("", String::as_str);
                format!(
                    "seed 000's network over {} retrievers' standardised scores{}",
                    model.retrievers().len(),
                    if trained_on.is_empty() { String::new() } else { format!(", trained on {trained_on}") }
                )
            }
        }
    }

    /// A retriever (`path`), a preset (`rrf-all`), or a fusion of chosen retrievers with optional weights
    /// (`rrf:dense+bm25*2+path`, `zsum:dense+page`).
    pub fn parse(name: &str) -> Result<Self, String> {
        let wanted = name.trim().to_ascii_lowercase();
        let known = || {
            let names: Vec<String> = Self::catalogue().iter().map(Method::name).collect();
            format!("known: {}, or rrf:A+B*w… / zsum:A+B*w…", names.join(", "))
        };
        if let Some(retriever) = Retriever::parse(&wanted) {
            return Ok(Method::Single(retriever));
        }
        if wanted == LEARNED {
            return Ok(Method::Learned(FusionModel::shipped()));
        }
        if let Some(&(_, fusion, inputs, _)) = PRESETS.iter().find(|p| p.0 == wanted) {
            return Ok(Self::preset(fusion, inputs));
        }
        let Some((fusion, list)) = wanted.split_once(':') else {
            return Err(format!("unknown retriever `{name}` ({})", known()));
        };
        let fusion = match fusion {
            "rrf" => Fusion::Rrf,
            "zsum" => Fusion::Zsum,
            other => return Err(format!("unknown fusion `{other}` in `{name}` (known: rrf, zsum)")),
        };
        let inputs = list
            .split('+')
            .map(|part| {
                let (retriever, weight) = part.split_once('*').unwrap_or((part, "1"));
                let retriever = Retriever::parse(retriever)
                    .ok_or_else(|| format!("unknown retriever `{retriever}` ({})", known()))?;
                let weight: f32 =
                    weight.trim().parse().map_err(|_| format!("`{weight}` is not a weight in `{name}`"))?;
                if !weight.is_finite() || weight < 0.0 {
                    return Err(format!("weights must be finite and not negative (`{part}` in `{name}`)"));
                }
                Ok((retriever, weight))
            })
            .collect::<Result<Vec<_>, String>>()?;
        Ok(Method::Fused { fusion, inputs })
    }

    /// The `depth` best chunks for `query`.
    pub fn retrieve(&self, index: &IndexedCorpus, query: Query<'_>, depth: usize) -> Vec<ScoredChunk> {
        self.execute(index, query, depth).chunks
    }

    /// The `depth` best chunks and the trace of how they were found, showing `shown` chunks per list.
    pub fn trace(
        &self,
        index: &IndexedCorpus,
        query: Query<'_>,
        depth: usize,
        shown: usize,
    ) -> (Vec<ScoredChunk>, Trace) {
        self.trace_replacing(index, query, depth, shown, None)
    }

    /// As [`Method::trace`], with one retriever's list given instead of run (an LLM-assisted variant of it);
    /// a fusion that does not use that retriever takes the list as one more input, and a single retriever
    /// becomes the standardised sum of both.
    pub fn trace_replacing(
        &self,
        index: &IndexedCorpus,
        query: Query<'_>,
        depth: usize,
        shown: usize,
        replacement: Option<(Retriever, Retrieval)>,
    ) -> (Vec<ScoredChunk>, Trace) {
        let run = match replacement {
            None => self.execute(index, query, depth),
            Some(replacement) => self.with_input(replacement.0).execute_replacing(index, query, depth, replacement),
        };
        let corpus = &index.corpus;
        let retrievers = run
            .inputs
            .iter()
            .map(|(retriever, weight, retrieval)| RetrieverTrace {
                retriever: retriever.name().to_string(),
                weight: *weight,
                steps: retrieval.steps.clone(),
                chunks: TracedChunk::list(corpus, &retrieval.chunks, shown),
            })
            .collect();
        let fusion = run.fused.as_ref().map(|(fusion, fused)| FusionTrace {
            fusion: fusion.clone(),
            inputs: run.inputs.iter().map(|(r, _, _)| r.name().to_string()).collect(),
            rows: fused
                .iter()
                .take(shown)
                .map(|f| FusionRow {
                    chunk: f.chunk,
                    label: corpus.chunk_label(f.chunk),
                    scores: f.scores.clone(),
                    ranks: f.ranks.clone(),
                    features: f.features.clone(),
                    score: f.score,
                })
                .collect(),
        });
        let trace = Trace {
            query: query.text.to_string(),
            method: self.name(),
            retrievers,
            fusion,
            results: TracedChunk::list(corpus, &run.chunks, shown),
        };
        (run.chunks, trace)
    }

    /// Whether a list of `retriever` can change this method's ranking: it is one of its inputs, or one can be
    /// added (to anything but learned fusion, whose network reads a fixed set).
    pub fn can_take(&self, retriever: Retriever) -> bool {
        match self {
            Method::Learned(model) => model.retrievers().contains(&retriever),
            _ => true,
        }
    }

    /// This method with `retriever` among its inputs.
    fn with_input(&self, retriever: Retriever) -> Method {
        match self {
            Method::Single(single) if *single != retriever => {
                Method::Fused { fusion: Fusion::Zsum, inputs: vec![(*single, 1.0), (retriever, 1.0)] }
            }
            Method::Fused { fusion, inputs } if inputs.iter().all(|(r, _)| *r != retriever) => {
                let mut inputs = inputs.clone();
                inputs.push((retriever, 1.0));
                Method::Fused { fusion: *fusion, inputs }
            }
            _ => self.clone(),
        }
    }

    fn execute(&self, index: &IndexedCorpus, query: Query<'_>, depth: usize) -> Execution {
        let shared = SharedSearches::default();
        let query = query.sharing(&shared);
        self.execute_with(depth, &|retriever, depth| retriever.run(index, query, depth))
    }

    fn execute_replacing(
        &self,
        index: &IndexedCorpus,
        query: Query<'_>,
        depth: usize,
        (replaced, retrieval): (Retriever, Retrieval),
    ) -> Execution {
        let shared = SharedSearches::default();
        let query = query.sharing(&shared);
        self.execute_with(depth, &|retriever, depth| match retriever == replaced {
            true => Retrieval { chunks: retrieval.chunks.iter().take(depth).copied().collect(), ..retrieval.clone() },
            false => retriever.run(index, query, depth),
        })
    }

    /// The method with each retriever's list from `run` (retriever, depth).
    fn execute_with(&self, depth: usize, run: &dyn Fn(Retriever, usize) -> Retrieval) -> Execution {
        match self {
            Method::Single(retriever) => {
                let retrieval = run(*retriever, depth);
                Execution { chunks: retrieval.chunks.clone(), inputs: vec![(*retriever, 1.0, retrieval)], fused: None }
            }
            Method::Fused { fusion, inputs } => {
                let inputs = run_inputs(run, inputs.iter().copied());
                let weights: Vec<f32> = inputs.iter().map(|(_, w, _)| *w).collect();
                let fused = fusion.fuse(&input_lists(&inputs), &weights, depth);
                Execution::fused(fusion.name(), inputs, fused)
            }
            Method::Learned(model) => {
                let inputs = run_inputs(run, model.retrievers().iter().map(|&r| (r, 1.0)));
                let fused = model.fuse(&input_lists(&inputs), depth);
                Execution::fused(LEARNED, inputs, fused)
            }
        }
    }
}

/// One question's candidates with their standardised scores and labels, as [`training::train`] reads
/// them: the union of `retrievers`' lists for `query`, `relevant` deciding each chunk's label.
pub fn labelled_candidates(
    index: &IndexedCorpus,
    query: Query<'_>,
    retrievers: &[Retriever],
    relevant: &dyn Fn(ChunkId) -> bool,
) -> training::LabelledCandidates {
    let shared = SharedSearches::default();
    let query = query.sharing(&shared);
    let inputs = run_inputs(&|r, depth| r.run(index, query, depth), retrievers.iter().map(|&r| (r, 1.0)));
    let fused = fusion::standardised_candidates(&input_lists(&inputs));
    training::LabelledCandidates {
        relevant: fused.iter().map(|f| relevant(f.chunk)).collect(),
        features: fused.into_iter().map(|f| f.features).collect(),
    }
}

/// Each weighted retriever's [`FUSION_DEPTH`] best chunks for `query`: however many chunks are asked of a
/// fusion, it ranks the same candidates, so standardised scores (and what a network learned from them) do
/// not depend on how deep a caller looks.
fn run_inputs(
    run: &dyn Fn(Retriever, usize) -> Retrieval,
    inputs: impl Iterator<Item = (Retriever, f32)>,
) -> Vec<(Retriever, f32, Retrieval)> {
    inputs.map(|(r, w)| (r, w, run(r, FUSION_DEPTH))).collect()
}

fn input_lists(inputs: &[(Retriever, f32, Retrieval)]) -> Vec<&[ScoredChunk]> {
    inputs.iter().map(|(_, _, r)| r.chunks.as_slice()).collect()
}

/// Everything one query's retrieval produced, before it is reduced to chunks or a trace.
struct Execution {
    chunks: Vec<ScoredChunk>,
    inputs: Vec<(Retriever, f32, Retrieval)>,
    /// The fusion's name and its output.
    fused: Option<(String, Vec<FusedChunk>)>,
}

impl Execution {
    fn fused(name: &str, inputs: Vec<(Retriever, f32, Retrieval)>, fused: Vec<FusedChunk>) -> Self {
        let chunks = fused.iter().map(ScoredChunk::from).collect();
        Self { chunks, inputs, fused: Some((name.to_string(), fused)) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn method_names_round_trip() {
        for method in Method::catalogue() {
            assert_eq!(Method::parse(&method.name()), Ok(method.clone()), "{}", method.name());
        }
        let custom = Method::parse("rrf:dense+bm25*2+path").unwrap();
        assert_eq!(custom.name(), "rrf:dense+bm25*2+path");
        assert_eq!(Method::parse("rrf:dense+bm25").unwrap().name(), "rrf");
        assert!(Method::parse("graph").unwrap_err().contains("known: dense, bm25, page"));
        assert!(Method::parse("rrf:dense+nope").unwrap_err().contains("unknown retriever `nope`"));
        assert!(Method::parse("rrf:dense*-1").unwrap_err().contains("not negative"));
        assert!(Method::parse("max:dense").unwrap_err().contains("unknown fusion"));
    }
}
