//! Running a [`Method`]: each input retriever's list to [`FUSION_DEPTH`], then the fusion, reduced to
//! chunks or to the [`Trace`] the CLI and the teaching view show.

use super::default_method::{self, WORDS};
use super::fusion::{self, FusedChunk, training};
use super::trace::{FusionRow, FusionTrace, RetrieverTrace, Step, Trace, TracedChunk};
use super::{FUSION_DEPTH, Fusion, LEARNED, Method, Query, Retrieval, Retriever, ScoredChunk, SharedSearches};
use crate::corpus::copies::Copies;
use crate::corpus::{ChunkId, DocId};
use crate::store::IndexedCorpus;

impl Method {
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
        let corpus = index.corpus();
        run.trace(self, query.text, &|chunk| corpus.chunk_label(chunk), shown)
    }

    /// The run of retrievers whose lists were ranked elsewhere, to `depth` chunks: over an index's
    /// fragments (`store::fragments`), BM25 alone by the engine by words, or BM25 and dense, in their
    /// standardised sum, by the full engine before the whole index has loaded.
    pub fn given(inputs: Vec<(Retriever, Retrieval)>, copies: &Copies, depth: usize) -> GivenRun {
        let method = match inputs.as_slice() {
            [(retriever, _)] => Method::Single(*retriever),
            _ => Method::Fused { fusion: Fusion::Zsum, inputs: inputs.iter().map(|(r, _)| (*r, 1.0)).collect() },
        };
        let inputs: Vec<(Retriever, f32, Retrieval)> = inputs.into_iter().map(|(r, list)| (r, 1.0, list)).collect();
        let mut run = match &method {
            Method::Fused { fusion, .. } => {
                let fused = fusion.fuse(&input_lists(&inputs), &vec![1.0; inputs.len()], depth);
                Execution::fused(fusion.name(), inputs, fused)
            }
            _ => Execution { chunks: inputs[0].2.chunks.iter().take(depth).copied().collect(), inputs, fused: None },
        };
        run.chunks = fold_copies(copies, std::mem::take(&mut run.chunks));
        GivenRun { method, run }
    }

    /// The run of [`Method::Words`] over its retrievers' lists ([`default_method::WORDS_INPUTS`], in order),
    /// ranked by a caller that runs them itself so as to link no other retriever (the engine by words);
    /// `document` names each chunk's document.
    pub fn given_words(
        inputs: Vec<(Retriever, Retrieval)>,
        document: &dyn Fn(ChunkId) -> DocId,
        copies: &Copies,
        depth: usize,
    ) -> GivenRun {
        let inputs = inputs.into_iter().map(|(r, list)| (r, 1.0, list)).collect();
        let mut run = Execution::combined(WORDS, inputs, document, depth);
        run.chunks = fold_copies(copies, std::mem::take(&mut run.chunks));
        GivenRun { method: Method::Words, run }
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

    fn execute(&self, index: &IndexedCorpus, query: Query<'_>, depth: usize) -> Execution {
        let shared = SharedSearches::default();
        let query = self.as_read(query).sharing(&shared);
        self.execute_with(index, depth, &|retriever, depth| retriever.run(index, query, depth))
    }

    fn execute_replacing(
        &self,
        index: &IndexedCorpus,
        query: Query<'_>,
        depth: usize,
        (replaced, retrieval): (Retriever, Retrieval),
    ) -> Execution {
        let shared = SharedSearches::default();
        let query = self.as_read(query).sharing(&shared);
        self.execute_with(index, depth, &|retriever, depth| match retriever == replaced {
            true => Retrieval { chunks: retrieval.chunks.iter().take(depth).copied().collect(), ..retrieval.clone() },
            false => retriever.run(index, query, depth),
        })
    }

    /// `query` as this method reads it: [`Method::Words`] by its words alone.
    fn as_read<'a>(&self, query: Query<'a>) -> Query<'a> {
        if *self == Method::Words { query.without_vector() } else { query }
    }

    /// The method with each retriever's list from `run` (retriever, depth), each copy of another
    /// document's passage in its original's place.
    fn execute_with(
        &self,
        index: &IndexedCorpus,
        depth: usize,
        run: &dyn Fn(Retriever, usize) -> Retrieval,
    ) -> Execution {
        let mut execution = self.execute_inputs(index, depth, run);
        execution.chunks = fold_copies(index.copies(), std::mem::take(&mut execution.chunks));
        execution
    }

    fn execute_inputs(
        &self,
        index: &IndexedCorpus,
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
                let document = |chunk: ChunkId| index.corpus().chunks[chunk as usize].document;
                Execution::combined(&self.name(), inputs, &document, depth)
            }
        }
    }
}

/// `chunks` with each copy of a passage (`corpus::copies`) replaced by its original, at the best place either
/// had: a document that quotes another, or a copy in another folder, never takes the source's place, and the
/// result names the source ("also in" the copies, see [`super::grouping`]).
pub(super) fn fold_copies(copies: &Copies, chunks: Vec<ScoredChunk>) -> Vec<ScoredChunk> {
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

/// A run of lists ranked elsewhere ([`Method::given`]), before the labels its trace shows are known.
pub struct GivenRun {
    method: Method,
    run: Execution,
}

impl GivenRun {
    /// Its chunks, each copy folded into its original.
    pub fn chunks(&self) -> &[ScoredChunk] {
        &self.run.chunks
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

    /// Its chunks and trace, showing `shown` chunks per list, each named by `label`.
    pub fn trace(self, query: &str, label: &dyn Fn(ChunkId) -> String, shown: usize) -> (Vec<ScoredChunk>, Trace) {
        self.run.trace(&self.method, query, label, shown)
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
        method: &Method,
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
            method: method.name(),
            retrievers,
            fusion,
            results: TracedChunk::list(label, &self.chunks, shown),
        };
        (self.chunks, trace)
    }

    /// The default's combination of `inputs` (`default_method::combine`), under the method's `name`.
    fn combined(
        name: &str,
        inputs: Vec<(Retriever, f32, Retrieval)>,
        document: &dyn Fn(ChunkId) -> DocId,
        depth: usize,
    ) -> Self {
        let fused = default_method::combine(document, &input_lists(&inputs), depth);
        Execution::fused(name, inputs, fused)
    }

    fn fused(name: &str, inputs: Vec<(Retriever, f32, Retrieval)>, fused: Vec<FusedChunk>) -> Self {
        let chunks = fused.iter().map(ScoredChunk::from).collect();
        Self { chunks, inputs, fused: Some((name.to_string(), fused)) }
    }
}
