//! What every retriever reads of an index: its BM25 and dense searches, its documents' chunks, its entities
//! and their links, its communities. The whole index (or its preview while an update runs) reads all of it
//! in memory; an index's fragments on a static site (`over_fragments`) read it from the parts they fetched,
//! so [`Method::rank`](super::Method::rank), the one ranking function, runs over either and ranks alike.
//!
//! The vectors of pages, sections, entities and relations, and the graph of sections and relations the
//! retrievers over them walk, exist only in a whole index that was given them: a retriever over node
//! vectors asks [`IndexReader::node_vectors`] and explains, as its one step, why it found nothing without.

use std::collections::HashMap;
use std::ops::Range;

use super::query::Query;
use super::scored::ScoredChunk;
use super::trace::{NodeKind, TraceNode};
use crate::corpus::copies::Copies;
use crate::corpus::{ChunkId, DocId, EntityId};
use crate::graph::CommunityLink;
use crate::index::{Hit, top_k};
use crate::store::IndexedCorpus;
use crate::store::fragments::{FragmentGraph, FragmentedIndex};

pub trait IndexReader {
    /// BM25's `k` best chunks for the query, searched afresh (the BM25 retriever shares one search among a
    /// question's retrievers).
    fn lexical(&self, query: Query<'_>, k: usize) -> Vec<ScoredChunk>;
    /// BM25's score of every chunk holding a term of `text`.
    fn lexical_scores(&self, text: &str) -> HashMap<ChunkId, f32>;
    /// Dense search's `k` best chunks for the query's vector, searched afresh; none without a vector.
    fn dense(&self, query: Query<'_>, k: usize) -> Vec<ScoredChunk>;
    /// The whole index in memory, where it holds the vectors of its pages, sections, entities and relations
    /// (`store::Vectors::All`): what the retrievers over node vectors read beside its graph. `None` for an
    /// index of chunk vectors alone and for fragments.
    fn node_vectors(&self) -> Option<&IndexedCorpus>;
    /// The query vector's similarity to `chunk`'s vector; 0 where there is none to compare.
    fn similarity(&self, vector: &[f32], chunk: ChunkId) -> f32;
    fn document_of(&self, chunk: ChunkId) -> DocId;
    /// The passages that repeat another document's (`corpus::copies`).
    fn copies(&self) -> &Copies;
    fn document_chunks(&self, document: DocId) -> Range<ChunkId>;
    /// The entities `text` names, by the gazetteer.
    fn named_entities(&self, text: &str) -> Vec<EntityId>;
    /// The document that is `entity`'s page, if it has one.
    fn page_of(&self, entity: EntityId) -> Option<DocId>;
    /// The chunks citing `entity`.
    fn citing_chunks(&self, entity: EntityId) -> Vec<ChunkId>;
    /// The entities one relation or mention away from `entity`.
    fn linked_entities(&self, entity: EntityId) -> Vec<EntityId>;
    fn entity_name(&self, entity: EntityId) -> String;
    /// `chunk`'s label (`Page › Section › #n`); `None` where it is not at hand yet.
    fn chunk_label(&self, chunk: ChunkId) -> Option<String>;
    /// A community's chunks, best by PageRank first.
    fn community_chunks(&self, community: u32) -> &[ChunkId];
    fn community_links(&self, community: u32) -> &[CommunityLink];
    /// BM25's `k` best communities by their summaries.
    fn community_summaries(&self, text: &str, k: usize) -> Vec<Hit>;
    /// The `k` communities nearest the query's vector; none without one.
    fn community_dense(&self, query: Query<'_>, k: usize) -> Vec<Hit>;

    /// The chunks that speak for an entity: its page's, or for an entity without a page those citing it.
    fn own_chunks(&self, entity: EntityId) -> Vec<ChunkId> {
        match self.page_of(entity) {
            Some(document) => self.document_chunks(document).collect(),
            None => self.citing_chunks(entity),
        }
    }

    /// An entity as the trace shows it: a page when it has one.
    fn entity_node(&self, entity: EntityId, score: f32) -> TraceNode {
        let kind = if self.page_of(entity).is_some() { NodeKind::Page } else { NodeKind::Entity };
        TraceNode { kind, id: entity, label: self.entity_name(entity), score }
    }
}

impl IndexReader for IndexedCorpus {
    fn lexical(&self, query: Query<'_>, k: usize) -> Vec<ScoredChunk> {
        self.bm25().search(&self.query_terms(query.text), k).into_iter().map(ScoredChunk::from).collect()
    }

    fn lexical_scores(&self, text: &str) -> HashMap<ChunkId, f32> {
        self.bm25().scores(&self.query_terms(text))
    }

    fn dense(&self, query: Query<'_>, k: usize) -> Vec<ScoredChunk> {
        if !query.has_vector() {
            return Vec::new();
        }
        let hits = self.chunk_index().search(self.embeddings().vectors(), query.vector, k);
        hits.into_iter().map(ScoredChunk::from).collect()
    }

    fn node_vectors(&self) -> Option<&IndexedCorpus> {
        (self.vectors() == crate::store::Vectors::All).then_some(self)
    }

    fn similarity(&self, vector: &[f32], chunk: ChunkId) -> f32 {
        self.embeddings().vectors().dot(vector, self.rows().chunks[chunk as usize])
    }

    fn document_of(&self, chunk: ChunkId) -> DocId {
        self.corpus().chunks[chunk as usize].document
    }

    fn copies(&self) -> &Copies {
        IndexedCorpus::copies(self)
    }

    fn document_chunks(&self, document: DocId) -> Range<ChunkId> {
        self.corpus().document_chunks(document)
    }

    fn named_entities(&self, text: &str) -> Vec<EntityId> {
        self.gazetteer().find(text)
    }

    fn page_of(&self, entity: EntityId) -> Option<DocId> {
        self.corpus().entities[entity as usize].document
    }

    fn citing_chunks(&self, entity: EntityId) -> Vec<ChunkId> {
        super::citing_chunks(self, entity)
    }

    fn linked_entities(&self, entity: EntityId) -> Vec<EntityId> {
        self.graph().entity_links(self.corpus(), entity).into_iter().map(|(target, _)| target).collect()
    }

    fn entity_name(&self, entity: EntityId) -> String {
        self.corpus().entities[entity as usize].name.clone()
    }

    fn chunk_label(&self, chunk: ChunkId) -> Option<String> {
        Some(self.corpus().chunk_label(chunk))
    }

    fn community_chunks(&self, community: u32) -> &[ChunkId] {
        &self.chunk_graph().communities[community as usize].chunks
    }

    fn community_links(&self, community: u32) -> &[CommunityLink] {
        &self.chunk_graph().links[community as usize]
    }

    fn community_summaries(&self, text: &str, k: usize) -> Vec<Hit> {
        self.chunk_graph().summaries.search(&self.query_terms(text), k)
    }

    fn community_dense(&self, query: Query<'_>, k: usize) -> Vec<Hit> {
        let vectors = &self.chunk_graph().vectors;
        let rows = if query.has_vector() { vectors.len() as u32 } else { 0 };
        top_k((0..rows).map(|row| Hit { id: row, score: vectors.dot(query.vector, row) }), k)
    }
}

/// Over the fragments fetched so far: what is missing reads as nothing (the caller fetches first what
/// [`FragmentedIndex::missing_for_words`] and [`FragmentedIndex::missing_for_meaning`] name). Dense search
/// ranks the chunks of the partitions the query's nearest centroids point to.
impl IndexReader for FragmentedIndex {
    fn lexical(&self, query: Query<'_>, k: usize) -> Vec<ScoredChunk> {
        crate::index::bm25::best(self.lexical_scores(query.text), k).into_iter().map(ScoredChunk::from).collect()
    }

    fn lexical_scores(&self, text: &str) -> HashMap<ChunkId, f32> {
        self.bm25_scores(text).unwrap_or_default()
    }

    fn dense(&self, query: Query<'_>, k: usize) -> Vec<ScoredChunk> {
        if !query.has_vector() {
            return Vec::new();
        }
        let hits = self.dense_hits(query.vector, k).unwrap_or_default();
        hits.into_iter().map(ScoredChunk::from).collect()
    }

    fn node_vectors(&self) -> Option<&IndexedCorpus> {
        None
    }

    fn similarity(&self, _: &[f32], _: ChunkId) -> f32 {
        0.0
    }

    fn document_of(&self, chunk: ChunkId) -> DocId {
        FragmentedIndex::document_of(self, chunk)
    }

    fn copies(&self) -> &Copies {
        FragmentedIndex::copies(self)
    }

    fn document_chunks(&self, document: DocId) -> Range<ChunkId> {
        FragmentedIndex::document_chunks(self, document)
    }

    fn named_entities(&self, text: &str) -> Vec<EntityId> {
        self.graph().map(|graph| graph.named_entities(text)).unwrap_or_default()
    }

    fn page_of(&self, entity: EntityId) -> Option<DocId> {
        self.graph()?.page_of(entity)
    }

    fn citing_chunks(&self, entity: EntityId) -> Vec<ChunkId> {
        self.graph().map(|graph| graph.citing_chunks(entity).to_vec()).unwrap_or_default()
    }

    fn linked_entities(&self, entity: EntityId) -> Vec<EntityId> {
        self.graph().map(|graph| graph.linked_entities(entity).to_vec()).unwrap_or_default()
    }

    fn entity_name(&self, entity: EntityId) -> String {
        self.graph().map(|graph| graph.name(entity).to_string()).unwrap_or_default()
    }

    fn chunk_label(&self, chunk: ChunkId) -> Option<String> {
        self.chunk_view(chunk).map(|view| view.label)
    }

    fn community_chunks(&self, community: u32) -> &[ChunkId] {
        self.graph().map_or(&[], |graph: &FragmentGraph| graph.community_chunks(community))
    }

    fn community_links(&self, community: u32) -> &[CommunityLink] {
        self.graph().map_or(&[], |graph: &FragmentGraph| graph.community_links(community))
    }

    fn community_summaries(&self, text: &str, k: usize) -> Vec<Hit> {
        crate::index::bm25::best(self.summary_scores(text).unwrap_or_default(), k)
    }

    fn community_dense(&self, _: Query<'_>, _: usize) -> Vec<Hit> {
        Vec::new()
    }
}

/// Chunks scored by a retriever, best first, each once with its best score; chunks with equal scores (every
/// chunk of a page scored by the page) are ordered by their own cosine with the query.
pub(crate) fn rank_chunks(
    index: &dyn IndexReader,
    query: &[f32],
    scored: impl IntoIterator<Item = (ChunkId, f32)>,
    depth: usize,
) -> Vec<ScoredChunk> {
    let mut best: HashMap<ChunkId, f32> = HashMap::new();
    for (chunk, score) in scored {
        let entry = best.entry(chunk).or_insert(f32::NEG_INFINITY);
        *entry = entry.max(score);
    }
    let mut ranked: Vec<(ScoredChunk, f32)> =
        best.into_iter().map(|(chunk, score)| (ScoredChunk { chunk, score }, index.similarity(query, chunk))).collect();
    ranked.sort_by(|a, b| b.0.score.total_cmp(&a.0.score).then(b.1.total_cmp(&a.1)).then(a.0.chunk.cmp(&b.0.chunk)));
    ranked.truncate(depth);
    ranked.into_iter().map(|(hit, _)| hit).collect()
}

/// Chunks citing an entity.
pub(super) fn citing_chunks(index: &IndexedCorpus, entity: EntityId) -> Vec<ChunkId> {
    index.graph().citing_chunks(entity)
}

/// Chunks about an entity: those citing it, and those of its page.
pub(super) fn chunks_about(index: &IndexedCorpus, entity: EntityId) -> Vec<ChunkId> {
    let mut chunks = citing_chunks(index, entity);
    if let Some(document) = index.corpus().entities[entity as usize].document {
        chunks.extend(index.corpus().document_chunks(document));
    }
    chunks
}
