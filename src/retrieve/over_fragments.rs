//! Answering over an index's fragments (`store::fragments`) on a large site, while the rest loads: by
//! words and through the graph ([`Method::Words`]: BM25, the community retriever and the node-set join) in
//! the engine by words, and by words and meaning (the standardised sum of dense and BM25, the default's
//! hybrid) in the full engine before the whole index has loaded. By words it ranks as the whole index does,
//! to the bit; dense ranks the chunks of the partitions the question's nearest centroids point to, each
//! scored as the whole index scores it. The caller fetches what each step names
//! ([`FragmentedIndex::missing_for_words`], [`FragmentedIndex::missing_for_query`],
//! [`FragmentedIndex::missing_for_meaning`], [`Ranked::shown_chunks`]).

use std::collections::HashMap;

use super::community::{community_label, first_chunk};
use super::execute::GivenRun;
use super::grouping::group_chunks;
use super::trace::{NodeKind, TraceGraph};
use super::{DocumentHit, FUSION_DEPTH, Method, Retrieval, Retriever, ScoredChunk, Trace, by_words};
use crate::corpus::ChunkId;
use crate::index::bm25::best;
use crate::store::fragments::FragmentedIndex;

/// A question ranked, before the texts it shows are known.
pub struct Ranked {
    query: String,
    run: GivenRun,
    /// The run's chunks grouped by document.
    hits: Vec<DocumentHit>,
    documents: usize,
}

/// The `documents` best documents for `query` by words and through the graph; `None` until the graph and
/// every bucket its terms lie in are fetched.
pub fn rank_by_words(index: &FragmentedIndex, query: &str, documents: usize) -> Option<Ranked> {
    if !index.missing_for_words(query).is_empty() {
        return None;
    }
    Some(ranked(index, query, by_words::run(index, query, documents), documents))
}

/// The `documents` best documents for `query`, whose vector is `vector`, by the standardised sum of dense
/// and BM25; `None` until its buckets, the centroids and the partitions they point to are fetched.
pub fn rank_by_meaning(index: &FragmentedIndex, query: &str, vector: &[f32], documents: usize) -> Option<Ranked> {
    let dense: Vec<ScoredChunk> = index.dense_hits(vector, FUSION_DEPTH)?.into_iter().map(ScoredChunk::from).collect();
    let inputs = vec![
        (Retriever::Dense, Retrieval { chunks: dense, steps: Vec::new() }),
        (Retriever::Bm25, lexical(index, query)?),
    ];
    let run = Method::given(inputs, index.copies(), FUSION_DEPTH.max(documents));
    Some(ranked(index, query, run, documents))
}

fn lexical(index: &FragmentedIndex, query: &str) -> Option<Retrieval> {
    let chunks = best(index.bm25_scores(query)?, FUSION_DEPTH).into_iter().map(ScoredChunk::from).collect();
    Some(Retrieval { chunks, steps: Vec::new() })
}

fn ranked(index: &FragmentedIndex, query: &str, run: GivenRun, documents: usize) -> Ranked {
    let hits = group_chunks(&|chunk| index.document_of(chunk), index.copies(), run.chunks(), documents);
    Ranked { query: query.to_string(), run, hits, documents }
}

impl Ranked {
    /// The chunks the answer shows: each result and the chunks of its document behind it, the trace's
    /// lists, and the chunks that name the communities the trace passes through.
    pub fn shown_chunks(&self, index: &FragmentedIndex) -> Vec<ChunkId> {
        let results = self.hits.iter().flat_map(|hit| std::iter::once(&hit.best).chain(&hit.more));
        let communities =
            self.run.steps().flat_map(|step| step.nodes()).filter(|node| node.kind == NodeKind::Community);
        let naming = communities.filter_map(|node| first_chunk(index, node.id));
        self.run.traced_chunks(self.documents).into_iter().chain(results.map(|hit| hit.chunk)).chain(naming).collect()
    }

    /// The results and the trace; `None` until the text runs of [`Self::shown_chunks`] are fetched.
    pub fn finish(self, index: &FragmentedIndex) -> Option<(Vec<DocumentHit>, Trace)> {
        let labels: HashMap<ChunkId, String> = self
            .shown_chunks(index)
            .into_iter()
            .map(|chunk| index.chunk_view(chunk).map(|view| (chunk, view.label)))
            .collect::<Option<_>>()?;
        let label = |chunk: ChunkId| labels.get(&chunk).cloned().unwrap_or_default();
        let (_, mut trace) = self.run.trace(&self.query, &label, self.documents);
        // The communities were named before the chunks naming them were fetched.
        let steps = trace.retrievers.iter_mut().flat_map(|retriever| &mut retriever.steps);
        for node in steps.flat_map(|step| step.nodes_mut()).filter(|node| node.kind == NodeKind::Community) {
            node.label = community_label(index, node.id);
        }
        Some((self.hits, trace))
    }
}

/// `trace` drawn as the teaching view draws it (`Trace::graph`), over the fragments: the graph retrievers'
/// steps name pages, entities, communities and chunks, never sections.
pub fn trace_graph(index: &FragmentedIndex, trace: &Trace) -> TraceGraph {
    trace.graph_holding(&|kind, id, chunk| match kind {
        NodeKind::Page | NodeKind::Entity => index.document_of(chunk) == id,
        NodeKind::Chunk => id == chunk,
        NodeKind::Section | NodeKind::Relation | NodeKind::Community => false,
    })
}
