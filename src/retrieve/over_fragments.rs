//! Answering over an index's fragments (`store::fragments`) on a large site, while the rest loads, by the
//! one ranking function ([`Method::rank`] over the fragments as an [`IndexReader`](super::IndexReader)): by
//! words and through the graph ([`Method::Words`]: BM25, the community retriever and the node-set join) in
//! the engine by words, and by words and meaning (the standardised sum of dense and BM25) in the full engine
//! before the whole index has loaded. By words it ranks as the whole index does, to the bit; dense ranks the
//! chunks of the partitions the question's nearest centroids point to, each scored as the whole index scores
//! it. The caller fetches what each step names ([`missing`], then [`Ranked::shown_chunks`]).
//!
//! A built site's search (`site_search`) ranks by the same hybrid through [`hybrid`], which names dense and
//! BM25 alone: a module that ranks only so links no graph retriever, no fusion but the standardised sum and
//! none of the graph's decoding, and stays a fraction of the size.

use super::community::{community_label, first_chunk};
use super::execute::{Ranking, fold_copies};
use super::trace::{NodeKind, TraceGraph};
use super::{
    DocumentHit, FUSION_DEPTH, Fusion, Method, Query, Retriever, ScoredChunk, Trace, document_depth, group_by_document,
};
use crate::corpus::ChunkId;
use crate::store::fragments::{Fragment, FragmentedIndex};

/// A question ranked, before the texts it shows are known.
pub struct Ranked {
    ranking: Ranking,
    /// The ranking's chunks grouped by document.
    hits: Vec<DocumentHit>,
    documents: usize,
}

/// The method the fragments answer `query` by: [`Method::Words`] without a vector; with one, the
/// standardised sum of dense and BM25 (the fragments hold no community vectors, so not the default).
pub fn method(query: Query<'_>) -> Method {
    match query.has_vector() {
        true => Method::Fused { fusion: Fusion::Zsum, inputs: vec![(Retriever::Dense, 1.0), (Retriever::Bm25, 1.0)] },
        false => Method::Words,
    }
}

/// What ranking `query` by [`method`] needs and is not fetched yet: by words, its buckets and the graph,
/// then the community summaries' buckets; by meaning, its buckets, the centroids and the partitions they
/// point to.
pub fn missing(index: &FragmentedIndex, query: Query<'_>) -> Vec<Fragment> {
    match query.has_vector() {
        true => [index.missing_for_query(query.text), index.missing_for_meaning(query.vector)].concat(),
        false => index.missing_for_words(query.text),
    }
}

/// The `documents` best documents for `query` by [`method`], ranked by [`Method::rank`] as over the whole
/// index; `None` until [`missing`] names nothing.
pub fn ranked(index: &FragmentedIndex, query: Query<'_>, documents: usize) -> Option<Ranked> {
    if !missing(index, query).is_empty() {
        return None;
    }
    let ranking = method(query).rank(index, query, document_depth(documents));
    let hits = group_by_document(index, ranking.chunks(), documents);
    Some(Ranked { ranking, hits, documents })
}

impl Ranked {
    /// The chunks the answer shows: each result and the chunks of its document behind it, the trace's
    /// lists, and the chunks that name the communities the trace passes through.
    pub fn shown_chunks(&self, index: &FragmentedIndex) -> Vec<ChunkId> {
        let results = self.hits.iter().flat_map(|hit| std::iter::once(&hit.best).chain(&hit.more));
        let communities =
            self.ranking.steps().flat_map(|step| step.nodes()).filter(|node| node.kind == NodeKind::Community);
        let naming = communities.filter_map(|node| first_chunk(index, node.id));
        self.ranking
            .traced_chunks(self.documents)
            .into_iter()
            .chain(results.map(|hit| hit.chunk))
            .chain(naming)
            .collect()
    }

    /// The results and the trace; `None` until the text runs of [`Self::shown_chunks`] are fetched.
    pub fn finish(self, index: &FragmentedIndex) -> Option<(Vec<DocumentHit>, Trace)> {
        if self.shown_chunks(index).into_iter().any(|chunk| index.chunk_view(chunk).is_none()) {
            return None;
        }
        let (_, mut trace) = self.ranking.trace(index, self.documents);
        // The communities were named before the chunks naming them were fetched.
        let steps = trace.retrievers.iter_mut().flat_map(|retriever| &mut retriever.steps);
        for node in steps.flat_map(|step| step.nodes_mut()).filter(|node| node.kind == NodeKind::Community) {
            node.label = community_label(index, node.id);
        }
        Some((self.hits, trace))
    }
}

/// The `documents` best documents for `query` by the standardised sum of dense and BM25, as [`ranked`]
/// gives them for a query with a vector (by BM25 alone for one without, where [`ranked`] would read the
/// graph), naming no other retriever; `None` until the buckets of its terms and, with a vector, the
/// partitions it probes are fetched ([`FragmentedIndex::missing_for_query`],
/// [`FragmentedIndex::missing_for_meaning`]).
pub fn hybrid(index: &FragmentedIndex, query: Query<'_>, documents: usize) -> Option<Vec<DocumentHit>> {
    let chunks = hybrid_chunks(index, query, document_depth(documents))?;
    Some(group_by_document(index, &chunks, documents))
}

/// The `depth` best chunks of [`hybrid`]'s ranking, each copy folded into its original.
pub fn hybrid_chunks(index: &FragmentedIndex, query: Query<'_>, depth: usize) -> Option<Vec<ScoredChunk>> {
    let lexical = crate::index::bm25::best(index.bm25_scores(query.text)?, FUSION_DEPTH);
    let lexical: Vec<ScoredChunk> = lexical.into_iter().map(ScoredChunk::from).collect();
    let chunks = match query.has_vector() {
        true => {
            let dense: Vec<ScoredChunk> =
                index.dense_hits(query.vector, FUSION_DEPTH)?.into_iter().map(ScoredChunk::from).collect();
            let fused = Fusion::Zsum.fuse(&[&dense, &lexical], &[1.0, 1.0], depth);
            fused.iter().map(ScoredChunk::from).collect()
        }
        false => lexical.into_iter().take(depth).collect(),
    };
    Some(fold_copies(index.copies(), chunks))
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
