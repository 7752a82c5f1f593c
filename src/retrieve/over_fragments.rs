//! Answering over an index's fragments (`store::fragments`) on a large site, while the rest loads: by
//! words (BM25) in the engine by words, and by words and meaning (the standardised sum of dense and BM25,
//! the default's hybrid less the community retriever, which reads the graph) in the full engine before the
//! whole index has loaded. BM25 ranks as over the whole index, to the bit; dense ranks the chunks of the
//! partitions the question's nearest centroids point to, each scored as the whole index scores it. The
//! caller fetches what each step names ([`FragmentedIndex::missing_for_query`],
//! [`FragmentedIndex::missing_for_meaning`], [`Ranked::shown_chunks`]).

use std::collections::HashMap;

use super::execute::GivenRun;
use super::grouping::group_chunks;
use super::{DocumentHit, FUSION_DEPTH, Method, Retrieval, Retriever, ScoredChunk, Trace};
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

/// The `documents` best documents for `query` by BM25; `None` until every bucket its terms lie in is
/// fetched.
pub fn rank_by_words(index: &FragmentedIndex, query: &str, documents: usize) -> Option<Ranked> {
    let depth = FUSION_DEPTH.max(documents);
    Some(ranked(index, query, vec![(Retriever::Bm25, by_words(index, query, depth)?)], documents))
}

/// The `documents` best documents for `query`, whose vector is `vector`, by the standardised sum of dense
/// and BM25; `None` until its buckets, the centroids and the partitions they point to are fetched.
pub fn rank_by_meaning(index: &FragmentedIndex, query: &str, vector: &[f32], documents: usize) -> Option<Ranked> {
    let dense: Vec<ScoredChunk> = index.dense_hits(vector, FUSION_DEPTH)?.into_iter().map(ScoredChunk::from).collect();
    let inputs = vec![
        (Retriever::Dense, Retrieval { chunks: dense, steps: Vec::new() }),
        (Retriever::Bm25, by_words(index, query, FUSION_DEPTH)?),
    ];
    Some(ranked(index, query, inputs, documents))
}

fn by_words(index: &FragmentedIndex, query: &str, depth: usize) -> Option<Retrieval> {
    let chunks = best(index.bm25_scores(query)?, depth).into_iter().map(ScoredChunk::from).collect();
    Some(Retrieval { chunks, steps: Vec::new() })
}

fn ranked(index: &FragmentedIndex, query: &str, inputs: Vec<(Retriever, Retrieval)>, documents: usize) -> Ranked {
    let run = Method::given(inputs, index.copies(), FUSION_DEPTH.max(documents));
    let hits = group_chunks(&|chunk| index.document_of(chunk), index.copies(), run.chunks(), documents);
    Ranked { query: query.to_string(), run, hits, documents }
}

impl Ranked {
    /// The chunks the answer shows: each result and the chunks of its document behind it, and the trace's
    /// lists.
    pub fn shown_chunks(&self) -> Vec<ChunkId> {
        let results = self.hits.iter().flat_map(|hit| std::iter::once(&hit.best).chain(&hit.more));
        self.run.traced_chunks(self.documents).into_iter().chain(results.map(|hit| hit.chunk)).collect()
    }

    /// The results and the trace; `None` until the text runs of [`Self::shown_chunks`] are fetched.
    pub fn finish(self, index: &FragmentedIndex) -> Option<(Vec<DocumentHit>, Trace)> {
        let labels: HashMap<ChunkId, String> = self
            .shown_chunks()
            .into_iter()
            .map(|chunk| index.chunk_view(chunk).map(|view| (chunk, view.label)))
            .collect::<Option<_>>()?;
        let label = |chunk: ChunkId| labels.get(&chunk).cloned().unwrap_or_default();
        let (_, trace) = self.run.trace(&self.query, &label, self.documents);
        Some((self.hits, trace))
    }
}
