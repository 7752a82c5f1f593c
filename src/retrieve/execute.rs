//! Running a [`Method`] over any [`IndexReader`]: [`Method::rank`], the one ranking function (each input
//! retriever's list to [`FUSION_DEPTH`], then the fusion), and its [`Ranking`], reduced to chunks, to the
//! [`Trace`] the CLI and the teaching view show, or to documents (`grouping.rs`).

use super::default_method;
use super::fusion::{self, FusedChunk, training};
use super::reader::IndexReader;
use super::trace::{FusionRow, FusionTrace, RetrieverTrace, Step, Trace, TracedChunk};
use super::{FUSION_DEPTH, Fusion, LEARNED, Method, Query, Retrieval, Retriever, ScoredChunk, SharedSearches};
use crate::corpus::ChunkId;
use crate::corpus::copies::Copies;

impl Method {
    /// The one ranking function: the `depth` best chunks for `query` over `index` (the whole index, its
    /// preview or its fragments), each input retriever's list to [`FUSION_DEPTH`], then the fusion, each
    /// copy of another document's passage folded into its original. The [`Ranking`] gives the chunks, the
    /// trace, or the documents.
    pub fn rank(&self, index: &dyn IndexReader, query: Query<'_>, depth: usize) -> Ranking {
        let shared = SharedSearches::default();
        let query = self.as_read(query).sharing(&shared);
        let run = |retriever: Retriever, depth: usize| match query.given {
            Some((given, list)) if given == retriever => {
                Retrieval { chunks: list.chunks.iter().take(depth).copied().collect(), ..list.clone() }
            }
            _ => retriever.run(index, query, depth),
        };
        let method = match query.given {
            Some((given, _)) => self.with_input(given),
            None => self.clone(),
        };
        let mut run = method.execute_inputs(index, depth, &run);
        run.chunks = fold_copies(index.copies(), std::mem::take(&mut run.chunks));
        Ranking { method: self.name(), query: query.text.to_string(), run }
    }

    /// Whether a list of `retriever` can change this method's ranking: it is one of its inputs, or one can be
    /// added (to anything but learned fusion, the default and the default without the model, which read a
    /// fixed set).
    pub fn can_take(&self, retriever: Retriever) -> bool {
        match self {
            Method::Learned(model) => model.retrievers().contains(&retriever),
            Method::Default => default_method::INPUTS.contains(&retriever),
            Method::Words => default_method::WORDS_INPUTS.contains(&retriever),
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

    /// `query` as this method reads it: [`Method::Words`] by its words alone.
    fn as_read<'a>(&self, query: Query<'a>) -> Query<'a> {
        if *self == Method::Words { query.without_vector() } else { query }
    }

    /// The method over each retriever's list from `run` (retriever, depth).
    fn execute_inputs(
        &self,
        index: &dyn IndexReader,
        depth: usize,
        run: &dyn Fn(Retriever, usize) -> Retrieval,
    ) -> Execution {
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
            Method::Default | Method::Words => {
                let inputs = run_inputs(run, self.inputs().into_iter().map(|r| (r, 1.0)));
                let document = |chunk: ChunkId| index.document_of(chunk);
                let fused = default_method::combine(&document, &input_lists(&inputs), depth);
                Execution::fused(&self.name(), inputs, fused)
            }
        }
    }
}

/// `chunks` with each copy of a passage (`corpus::copies`) replaced by its original, at the best place either
/// had: a document that quotes another, or a copy in another folder, never takes the source's place, and the
/// result names the source ("also in" the copies, see [`super::grouping`]).
pub(crate) fn fold_copies(copies: &Copies, chunks: Vec<ScoredChunk>) -> Vec<ScoredChunk> {
    if copies.is_empty() {
        return chunks;
    }
    let mut placed = std::collections::HashSet::new();
    chunks
        .into_iter()
        .map(|hit| ScoredChunk { chunk: copies.original(hit.chunk), ..hit })
        .filter(|hit| placed.insert(hit.chunk))
        .collect()
}

/// One question's candidates with their standardised scores and labels, as [`training::train`] reads
/// them: the union of `retrievers`' lists for `query`, `relevant` deciding each chunk's label.
pub fn labelled_candidates(
    index: &dyn IndexReader,
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

/// One question ranked ([`Method::rank`]): its chunks, what each input retriever found, and the fusion.
pub struct Ranking {
    /// The name of the method that ranked it.
    method: String,
    query: String,
    run: Execution,
}

impl Ranking {
    /// Its chunks, best first, each copy folded into its original.
    pub fn chunks(&self) -> &[ScoredChunk] {
        &self.run.chunks
    }

    pub fn into_chunks(self) -> Vec<ScoredChunk> {
        self.run.chunks
    }

    /// The steps its retrievers took.
    pub fn steps(&self) -> impl Iterator<Item = &Step> {
        self.run.inputs.iter().flat_map(|(_, _, retrieval)| &retrieval.steps)
    }

    /// The chunks its trace shows at `shown` per list.
    pub fn traced_chunks(&self, shown: usize) -> Vec<ChunkId> {
        let inputs = self.run.inputs.iter().flat_map(|(_, _, retrieval)| retrieval.chunks.iter().take(shown));
        let fused = self.run.fused.iter().flat_map(|(_, fused)| fused.iter().take(shown).map(|f| f.chunk));
        let results = self.run.chunks.iter().take(shown);
        inputs.chain(results).map(|hit| hit.chunk).chain(fused).collect()
    }

    /// Its chunks and trace, showing `shown` chunks per list, each named as `index` labels it (blank where
    /// a fragment's label is not fetched yet: [`Self::traced_chunks`] says which to fetch first).
    pub fn trace(self, index: &dyn IndexReader, shown: usize) -> (Vec<ScoredChunk>, Trace) {
        let label = |chunk| index.chunk_label(chunk).unwrap_or_default();
        self.run.trace(&self.method, &self.query, &label, shown)
    }
}

/// Everything one query's retrieval produced, before it is reduced to chunks or a trace.
struct Execution {
    chunks: Vec<ScoredChunk>,
    inputs: Vec<(Retriever, f32, Retrieval)>,
    /// The fusion's name and its output.
    fused: Option<(String, Vec<FusedChunk>)>,
}

impl Execution {
    /// Its chunks, and the trace of it showing `shown` chunks per list, each chunk named by `label`.
    fn trace(
        self,
        method: &str,
        query: &str,
        label: &dyn Fn(ChunkId) -> String,
        shown: usize,
    ) -> (Vec<ScoredChunk>, Trace) {
        let retrievers = self
            .inputs
            .iter()
            .map(|(retriever, weight, retrieval)| RetrieverTrace {
                retriever: retriever.name().to_string(),
                weight: *weight,
                steps: retrieval.steps.clone(),
                chunks: TracedChunk::list(label, &retrieval.chunks, shown),
            })
            .collect();
        let fusion = self.fused.as_ref().map(|(fusion, fused)| FusionTrace {
            fusion: fusion.clone(),
            inputs: self.inputs.iter().map(|(r, _, _)| r.name().to_string()).collect(),
            rows: fused
                .iter()
                .take(shown)
                .map(|f| FusionRow {
                    chunk: f.chunk,
                    label: label(f.chunk),
                    scores: f.scores.clone(),
                    ranks: f.ranks.clone(),
                    features: f.features.clone(),
                    score: f.score,
                })
                .collect(),
        });
        let trace = Trace {
            query: query.to_string(),
            method: method.to_string(),
            retrievers,
            fusion,
            results: TracedChunk::list(label, &self.chunks, shown),
        };
        (self.chunks, trace)
    }

    fn fused(name: &str, inputs: Vec<(Retriever, f32, Retrieval)>, fused: Vec<FusedChunk>) -> Self {
        let chunks = fused.iter().map(ScoredChunk::from).collect();
        Self { chunks, inputs, fused: Some((name.to_string(), fused)) }
    }
}
