//! The indexed corpus in memory: documents, their structure and graph, embeddings of every node text, the
//! chunk vector index and BM25, and the model identity and settings that produced them, with how its
//! chunk graph is built and what it sums up to.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use crate::corpus::copies::Copies;
use crate::corpus::{Corpus, CorpusSettings, Gazetteer};
use crate::embed::{EmbedError, ModelIdentity};
use crate::graph::{ChunkGraph, ChunkGraphSettings, ChunkGraphStats, GraphStats, KnowledgeGraph};
use crate::index::bm25::Bm25Params;
use crate::index::vectors::DimensionMismatch;
use crate::index::{Bm25Index, QuantizedVectors, QueryTable, VectorIndex};
use crate::language::{self, Language};

/// An index whose vectors another model made: searching it with this model's query vectors would rank
/// nonsense.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[error(
    "this index was embedded with `{}` (model {}), but the loaded model is `{}` (model {}); re-index the documents",
    index.name, index.model_hash, loaded.name, loaded.model_hash
)]
pub struct ModelMismatch {
    pub index: Box<ModelIdentity>,
    pub loaded: Box<ModelIdentity>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct IndexSettings {
    pub corpus: CorpusSettings,
    /// Collections with at least this many vectors get an HNSW index; smaller ones are searched exactly.
    /// 100,000 by default: a flat scan is linear in the vectors (at 100,000, 4.3 ms a question natively and
    /// 11.5 ms in the page, under half the question's own embedding in each), while the graph costs about a millisecond of CPU per vector to
    /// build, which it earns back only after some 20,000 questions; exact search needs no build and returns
    /// the true nearest (docs/BENCHMARKS.md, "Vector index: flat vs HNSW").
    pub hnsw_threshold: usize,
    pub bm25: Bm25Params,
}

impl Default for IndexSettings {
    fn default() -> Self {
        Self { corpus: CorpusSettings::default(), hnsw_threshold: 100_000, bm25: Bm25Params::default() }
    }
}

pub(super) type TextKey = [u8; 16];

pub(super) fn text_key(text: &str) -> TextKey {
    crate::corpus::document::content_hash(text.as_bytes())
}

/// One vector per distinct embedded text, found by the text's hash.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct EmbeddingStore {
    pub(super) keys: Vec<TextKey>,
    pub(super) vectors: QuantizedVectors,
    #[serde(skip)]
    pub(super) rows: HashMap<TextKey, u32>,
}

impl From<DimensionMismatch> for EmbedError {
    fn from(mismatch: DimensionMismatch) -> Self {
        EmbedError::Dimension { expected: mismatch.expected, actual: mismatch.actual }
    }
}

impl EmbeddingStore {
    pub(super) fn new(dimension: usize) -> Self {
        Self { vectors: QuantizedVectors::new(dimension), ..Self::default() }
    }

    pub(super) fn push(&mut self, key: TextKey, vector: &[f32]) -> Result<(), EmbedError> {
        self.vectors.push(vector)?;
        self.add_key(key);
        Ok(())
    }

    /// Stores `row` of `codes`, quantised already (by the same rule as [`Self::push`]), under `key`.
    #[cfg(not(target_arch = "wasm32"))]
    pub(super) fn push_codes(&mut self, key: TextKey, codes: &QuantizedVectors, row: u32) {
        self.vectors.push_codes(codes, row);
        self.add_key(key);
    }

    fn add_key(&mut self, key: TextKey) {
        self.keys.push(key);
        self.rows.insert(key, self.keys.len() as u32 - 1);
    }

    pub(super) fn reindex(&mut self) {
        self.rows = self.keys.iter().enumerate().map(|(row, key)| (*key, row as u32)).collect();
    }

    pub fn row_of(&self, text: &str) -> Option<u32> {
        self.rows.get(&text_key(text)).copied()
    }

    pub fn vectors(&self) -> &QuantizedVectors {
        &self.vectors
    }

    pub fn len(&self) -> usize {
        self.keys.len()
    }

    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }
}

/// Which texts an index holds vectors of. Dense search, the default method and seed 004's community
/// retriever read chunk vectors only; the seed-000 retrievers that search pages, sections, entities and
/// relations (`page`, `section`, `entity`, `path`, `hub`, `triplet`) read node vectors too, which are about
/// as many texts again (docs/BENCHMARKS.md). An index is built with chunk vectors, and gains node vectors
/// when a method that reads them is first run on it ([`pipeline::Base::AllVectors`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Vectors {
    #[default]
    Chunks,
    /// Chunks and every other node: pages, sections, entities, relation types and statements.
    All,
}

/// Row in the [`EmbeddingStore`] of every node's text, per node kind; only `chunks` in an index of
/// [`Vectors::Chunks`], whose other lists are empty.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct NodeRows {
    /// Indexed by document (page node text: title and type hint).
    pub pages: Vec<u32>,
    pub sections: Vec<u32>,
    pub chunks: Vec<u32>,
    pub entities: Vec<u32>,
    pub relation_types: Vec<u32>,
    /// The inverse of each relation type (`is_<type>_of`), which a traversal against the edge follows.
    pub inverse_relation_types: Vec<u32>,
    /// Each relation verbalised as `{subject} {relation} {object}` (seed 003's triplets, seed 001's hub paths).
    pub statements: Vec<u32>,
}

/// Counts that describe an indexed corpus, as the CLI and the app show them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CorpusSummary {
    pub documents: usize,
    /// Each language's ISO 639-1 code with its count of documents, the most documents first.
    pub languages: Vec<(String, usize)>,
    pub sections: usize,
    pub chunks: usize,
    /// Chunks that copy another document's passage, searched as their original (`corpus::copies`).
    pub copied_chunks: usize,
    pub entities: usize,
    pub external_entities: usize,
    pub mentions: usize,
    pub linked_mentions: usize,
    pub relations: usize,
    pub relation_types: usize,
    /// Distinct embedded texts.
    pub embeddings: usize,
    /// Whether pages, sections, entities and relations have vectors too, not only chunks.
    pub node_vectors: bool,
    pub embedding_bytes: usize,
    /// The terms with a row in the query table and the table's bytes; `None` in an index without one.
    pub query_table: Option<(usize, usize)>,
    pub graph: GraphStats,
    pub chunk_graph: ChunkGraphStats,
}

/// From this many communities on (or the index's `hnsw_threshold`, if lower), community links are found
/// through an HNSW index: the exact scan compares every pair of communities, quadratic where the chunk
/// index's flat scan is linear, and about 2·10⁸ pairs at 20,000.
const COMMUNITY_LINKS_BY_HNSW_FROM: usize = 20_000;

/// Seed 004's chunk graph over an index's parts, with the settings every index builds it with: indexing,
/// and loading a snapshot written before the chunk graph existed.
pub(super) fn build_chunk_graph(
    corpus: &Corpus,
    vectors: &QuantizedVectors,
    rows: &NodeRows,
    settings: &IndexSettings,
) -> ChunkGraph {
    ChunkGraph::build(
        corpus,
        vectors,
        &rows.chunks,
        settings.bm25,
        ChunkGraphSettings::default(),
        COMMUNITY_LINKS_BY_HNSW_FROM.min(settings.hnsw_threshold),
    )
}

/// A corpus ready to query. Its parts are read through accessors and put together only by
/// [`IndexedCorpus::assemble`], so every index (built, or loaded from a snapshot) derives its graph and
/// gazetteer the same way and no part changes behind the others' back.
pub struct IndexedCorpus {
    pub(super) settings: IndexSettings,
    pub(super) model: ModelIdentity,
    pub(super) corpus: Corpus,
    pub(super) embeddings: EmbeddingStore,
    pub(super) rows: NodeRows,
    pub(super) chunk_index: VectorIndex,
    pub(super) bm25: Bm25Index,
    pub(super) graph: KnowledgeGraph,
    /// Seed 004's chunk graph and communities; stored, since its similarity scans grow with the square of
    /// the documents' and communities' sizes.
    pub(super) chunk_graph: ChunkGraph,
    /// Entity names to find in queries; derived from the corpus, never stored.
    pub(super) gazetteer: Gazetteer,
    /// Chunks that repeat another document's passage; derived from the corpus, never stored.
    pub(super) copies: Copies,
    pub(super) vectors: Vectors,
    /// Questions' vectors without the model; `None` in an index read from a snapshot written before it
    /// existed (version 8 and earlier), and in the preview the browser answers from while it embeds.
    pub(super) query_table: Option<QueryTable>,
    /// The languages of its documents, each once: what a question is analysed in; derived, never stored.
    pub(super) languages: Vec<Language>,
}

/// The stored parts of an index, from which [`IndexedCorpus::assemble`] derives the rest.
pub(crate) struct IndexParts {
    pub settings: IndexSettings,
    pub model: ModelIdentity,
    pub corpus: Corpus,
    pub embeddings: EmbeddingStore,
    pub rows: NodeRows,
    pub chunk_index: VectorIndex,
    pub bm25: Bm25Index,
    pub chunk_graph: ChunkGraph,
    pub vectors: Vectors,
    pub query_table: Option<QueryTable>,
}

impl IndexedCorpus {
    /// The index of `parts`: the knowledge graph and the gazetteer are derived from the corpus here;
    /// `copies` are its copied passages, found by whoever built or decoded the corpus (`Copies::find`).
    pub(crate) fn assemble(parts: IndexParts, copies: Copies) -> Self {
        let IndexParts {
            settings,
            model,
            corpus,
            embeddings,
            rows,
            chunk_index,
            bm25,
            chunk_graph,
            vectors,
            query_table,
        } = parts;
        let graph = KnowledgeGraph::build(&corpus);
        let gazetteer = Gazetteer::new(&corpus);
        let languages = language::distinct(corpus.documents.iter().map(|document| document.language));
        IndexedCorpus {
            languages,
            settings,
            model,
            corpus,
            embeddings,
            rows,
            chunk_index,
            bm25,
            graph,
            chunk_graph,
            gazetteer,
            copies,
            vectors,
            query_table,
        }
    }

    /// The languages of its documents, each once.
    pub fn languages(&self) -> &[Language] {
        &self.languages
    }

    /// A question's distinct BM25 terms, as every language of the index analyses it.
    pub fn query_terms(&self, question: &str) -> Vec<String> {
        crate::index::bm25::query_terms(question, &self.languages)
    }

    /// Which texts this index holds vectors of.
    pub fn vectors(&self) -> Vectors {
        self.vectors
    }

    pub fn settings(&self) -> &IndexSettings {
        &self.settings
    }

    /// The model that embedded every vector.
    pub fn model(&self) -> &ModelIdentity {
        &self.model
    }

    pub fn corpus(&self) -> &Corpus {
        &self.corpus
    }

    pub fn embeddings(&self) -> &EmbeddingStore {
        &self.embeddings
    }

    pub fn rows(&self) -> &NodeRows {
        &self.rows
    }

    pub fn chunk_index(&self) -> &VectorIndex {
        &self.chunk_index
    }

    pub fn bm25(&self) -> &Bm25Index {
        &self.bm25
    }

    pub fn graph(&self) -> &KnowledgeGraph {
        &self.graph
    }

    pub fn chunk_graph(&self) -> &ChunkGraph {
        &self.chunk_graph
    }

    pub fn gazetteer(&self) -> &Gazetteer {
        &self.gazetteer
    }

    pub fn copies(&self) -> &Copies {
        &self.copies
    }

    pub fn query_table(&self) -> Option<&QueryTable> {
        self.query_table.as_ref()
    }

    /// The index with its query table trained from its BM25 terms and chunk vectors (as every index is
    /// trained at indexing; seconds on SciFact's 10,961 chunks, docs/BENCHMARKS.md).
    pub fn with_query_table(mut self) -> Self {
        let training = crate::index::query_table::TableTraining::default();
        let table = QueryTable::train(&self.bm25, self.embeddings.vectors(), &self.rows.chunks, training);
        self.query_table = Some(table);
        self
    }

    /// The index with `table`, trained for an index of the same terms and chunk vectors, where it has a row
    /// for each of this index's terms; trained afresh otherwise.
    pub(super) fn keeping_query_table(mut self, table: QueryTable) -> Self {
        match table.check(self.bm25.term_count(), self.model.dimension) {
            Ok(()) => {
                self.query_table = Some(table);
                self
            }
            Err(_) => self.with_query_table(),
        }
    }

    /// A question's vector by the query table ([`crate::index::query_table`]): `None` where the index has
    /// no table or the table knows none of the question's terms.
    pub fn table_vector(&self, question: &str) -> Option<Vec<f32>> {
        self.query_table.as_ref()?.query_vector(&self.bm25, &self.query_terms(question))
    }
}

impl IndexedCorpus {
    /// The chunk graph built afresh from this index's corpus and vectors, as indexing builds it.
    pub fn rebuild_chunk_graph(&self) -> ChunkGraph {
        build_chunk_graph(&self.corpus, self.embeddings.vectors(), &self.rows, &self.settings)
    }

    pub fn summary(&self) -> CorpusSummary {
        let corpus = &self.corpus;
        CorpusSummary {
            documents: corpus.documents.len(),
            languages: corpus.language_counts(),
            sections: corpus.sections.len(),
            chunks: corpus.chunks.len(),
            copied_chunks: self.copies.len(),
            entities: corpus.entities.len(),
            external_entities: corpus.entities.iter().filter(|e| e.document.is_none()).count(),
            mentions: corpus.mentions.len(),
            linked_mentions: corpus.mentions.iter().filter(|m| m.linked).count(),
            relations: corpus.relations.len(),
            relation_types: corpus.relation_types.len(),
            embeddings: self.embeddings.len(),
            node_vectors: self.vectors == Vectors::All,
            embedding_bytes: self.embeddings.vectors().bytes(),
            query_table: self.query_table.as_ref().map(|table| (table.len(), table.bytes())),
            graph: self.graph.stats(corpus),
            chunk_graph: self.chunk_graph.stats(),
        }
    }

    /// Fails when the snapshot was embedded by a different model than `embedder`.
    pub fn check_model(&self, model: &ModelIdentity) -> Result<(), ModelMismatch> {
        match &self.model == model {
            true => Ok(()),
            false => Err(ModelMismatch { index: Box::new(self.model.clone()), loaded: Box::new(model.clone()) }),
        }
    }
}
