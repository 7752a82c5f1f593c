//! Answering by words over an index's fragments (`store::fragments`), as the engine by words does on a large
//! site while the rest loads: BM25's ranking grouped by document, and its trace, exactly as
//! `Method::Single(Retriever::Bm25).grouped` gives them over the whole index. The ranking needs the buckets
//! of the question's terms, and the trace and the results need the text runs of the chunks they show; the
//! caller fetches what each step names ([`FragmentedIndex::missing_for_query`], [`Ranked::shown_chunks`]).

use std::collections::HashMap;

use super::execute::fold_copies;
use super::grouping::group_chunks;
use super::{DocumentHit, FUSION_DEPTH, Method, Query, Retrieval, Retriever, ScoredChunk, Trace, group_by_document};
use crate::corpus::ChunkId;
use crate::index::bm25::best;
use crate::store::IndexedCorpus;
use crate::store::fragments::FragmentedIndex;

/// As `Method::Single(Retriever::Bm25).grouped(index, …)`, without the methods' machinery: the engine by
/// words, in the page's module, links neither the other retrievers nor any fusion (learned fusion's network
/// among them).
pub fn grouped(index: &IndexedCorpus, query: &str, documents: usize) -> (Vec<DocumentHit>, Trace) {
    let chunks = super::bm25(index, Query::new(query, &[]), FUSION_DEPTH.max(documents));
    let retrieval = Retrieval { chunks, steps: Vec::new() };
    let corpus = index.corpus();
    let label = |chunk| corpus.chunk_label(chunk);
    let (chunks, trace) = Method::trace_given(Retriever::Bm25, retrieval, index.copies(), query, &label, documents);
    (group_by_document(index, &chunks, documents), trace)
}

/// A question ranked by its words, before the texts it shows are known.
pub struct Ranked {
    query: String,
    /// BM25's list, as deep as a method ranks.
    list: Vec<ScoredChunk>,
    /// The list with copies folded into their originals, grouped by document.
    hits: Vec<DocumentHit>,
    folded: Vec<ScoredChunk>,
    documents: usize,
}

/// The `documents` best documents for `query` by BM25 over `index`'s fragments; `None` until every bucket
/// its terms lie in is fetched.
pub fn rank(index: &FragmentedIndex, query: &str, documents: usize) -> Option<Ranked> {
    let depth = FUSION_DEPTH.max(documents);
    let list: Vec<ScoredChunk> = best(index.bm25_scores(query)?, depth).into_iter().map(ScoredChunk::from).collect();
    let folded = fold_copies(index.copies(), list.clone());
    let hits = group_chunks(&|chunk| index.document_of(chunk), index.copies(), &folded, documents);
    Some(Ranked { query: query.to_string(), list, hits, folded, documents })
}

impl Ranked {
    /// The chunks the answer shows: each result and the chunks of its document behind it, and the trace's
    /// lists.
    pub fn shown_chunks(&self) -> Vec<ChunkId> {
        let traced = self.list.iter().take(self.documents).chain(self.folded.iter().take(self.documents));
        let results = self.hits.iter().flat_map(|hit| std::iter::once(&hit.best).chain(&hit.more));
        traced.chain(results).map(|hit| hit.chunk).collect()
    }

    /// The results and the trace; `None` until the text runs of [`Self::shown_chunks`] are fetched.
    pub fn finish(self, index: &FragmentedIndex) -> Option<(Vec<DocumentHit>, Trace)> {
        let labels: HashMap<ChunkId, String> = self
            .shown_chunks()
            .into_iter()
            .map(|chunk| index.chunk_view(chunk).map(|view| (chunk, view.label)))
            .collect::<Option<_>>()?;
        let label = |chunk: ChunkId| labels.get(&chunk).cloned().unwrap_or_default();
        let retrieval = Retrieval { chunks: self.list, steps: Vec::new() };
        let (_, trace) =
            Method::trace_given(Retriever::Bm25, retrieval, index.copies(), &self.query, &label, self.documents);
        Some((self.hits, trace))
    }
}
