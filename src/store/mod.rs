//! The indexed corpus: documents, their structure and graph, embeddings of every node text, the chunk
//! vector index and BM25, and the model identity and settings that produced them. Owns how it is assembled
//! (embedding only texts not already embedded, so adding or removing documents re-embeds only what
//! changed) and how it is saved to and loaded from one snapshot file.

pub mod pipeline;
mod snapshot;
mod workspace;

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use crate::corpus::{Corpus, CorpusSettings, Document, Gazetteer, TokenCounter};
use crate::embed::{EmbedError, ModelIdentity, TextEmbedder};
use crate::graph::{ChunkGraph, ChunkGraphSettings, ChunkGraphStats, GraphStats, KnowledgeGraph};
use crate::index::bm25::Bm25Params;
use crate::index::{Bm25Index, QuantizedVectors, VectorIndex};

pub use snapshot::{FORMAT_VERSION, MAGIC, SnapshotError};
pub use workspace::{ChunkView, DocumentOutline, OutlineChunk, OutlineSection, UpdateError, plan_index, plan_update};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct IndexSettings {
    pub corpus: CorpusSettings,
    /// Collections with at least this many vectors get an HNSW index; smaller ones are searched exactly.
    pub hnsw_threshold: usize,
    pub bm25: Bm25Params,
}

impl Default for IndexSettings {
    fn default() -> Self {
        Self { corpus: CorpusSettings::default(), hnsw_threshold: 20_000, bm25: Bm25Params::default() }
    }
}

type TextKey = [u8; 16];

fn text_key(text: &str) -> TextKey {
    crate::corpus::document::content_hash(text.as_bytes())
}

/// One vector per distinct embedded text, found by the text's hash.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct EmbeddingStore {
    keys: Vec<TextKey>,
    vectors: QuantizedVectors,
    #[serde(skip)]
    rows: HashMap<TextKey, u32>,
}

impl EmbeddingStore {
    fn new(dimension: usize) -> Self {
        Self { vectors: QuantizedVectors::new(dimension), ..Self::default() }
    }

    fn push(&mut self, key: TextKey, vector: &[f32]) -> Result<(), EmbedError> {
        self.vectors
            .push(vector)
            .map_err(|mismatch| EmbedError::Dimension { expected: mismatch.expected, actual: mismatch.actual })?;
        self.keys.push(key);
        self.rows.insert(key, self.keys.len() as u32 - 1);
        Ok(())
    }

    fn reindex(&mut self) {
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

/// Row in the [`EmbeddingStore`] of every node's text, per node kind.
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
    pub sections: usize,
    pub chunks: usize,
    pub entities: usize,
    pub external_entities: usize,
    pub mentions: usize,
    pub linked_mentions: usize,
    pub relations: usize,
    pub relation_types: usize,
    /// Distinct embedded texts.
    pub embeddings: usize,
    pub embedding_bytes: usize,
    pub graph: GraphStats,
    pub chunk_graph: ChunkGraphStats,
}

/// Seed 004's chunk graph over an index's parts, with the settings every index builds it with: indexing,
/// and loading a snapshot written before the chunk graph existed.
fn build_chunk_graph(
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
        settings.hnsw_threshold,
    )
}

/// A corpus ready to query.
pub struct IndexedCorpus {
    pub settings: IndexSettings,
    pub model: ModelIdentity,
    pub corpus: Corpus,
    pub embeddings: EmbeddingStore,
    pub rows: NodeRows,
    pub chunk_index: VectorIndex,
    pub bm25: Bm25Index,
    pub graph: KnowledgeGraph,
    /// Seed 004's chunk graph and communities; stored, since its similarity scans grow with the square of
    /// the documents' and communities' sizes.
    pub chunk_graph: ChunkGraph,
    /// Entity names to find in queries; derived from the corpus, never stored.
    pub gazetteer: Gazetteer,
}

/// Every node text of a corpus in a fixed order: pages, sections, chunks (with their context line),
/// entities, relation types and their inverses, relation statements.
pub fn node_texts(corpus: &Corpus) -> [Vec<String>; 7] {
    [
        (0..corpus.documents.len()).map(|d| corpus.page_text(d as u32)).collect(),
        corpus.sections.iter().map(|s| s.uri.clone()).collect(),
        (0..corpus.chunks.len()).map(|c| corpus.chunk_search_text(c as u32)).collect(),
        corpus.entities.iter().map(|e| e.name.clone()).collect(),
        corpus.relation_types.iter().map(|t| t.text()).collect(),
        corpus.relation_types.iter().map(|t| t.inverse_text()).collect(),
        (0..corpus.relations.len()).map(|r| corpus.relation_statement(r)).collect(),
    ]
}

/// Builds an [`IndexedCorpus`] in steps, so a caller can report progress (CLI) or yield to the event loop
/// between batches (browser).
pub struct IndexBuilder {
    settings: IndexSettings,
    corpus: Corpus,
    model: ModelIdentity,
    texts: [Vec<String>; 7],
    store: EmbeddingStore,
    /// Distinct texts with no vector yet, in first-seen order.
    pending: Vec<String>,
    embedded: usize,
    reused: usize,
}

impl IndexBuilder {
    /// Structures `documents`; vectors of texts already in `previous` (made by the same model) are reused.
    pub fn new(
        documents: Vec<Document>,
        counter: &dyn TokenCounter,
        model: ModelIdentity,
        settings: IndexSettings,
        previous: Option<&IndexedCorpus>,
    ) -> Self {
        let corpus = Corpus::build(documents, counter, &settings.corpus);
        let texts = node_texts(&corpus);
        let reusable =
            previous.filter(|p| p.model == model && p.settings.corpus == settings.corpus).map(|p| &p.embeddings);
        let mut store = EmbeddingStore::new(model.dimension);
        let mut pending = Vec::new();
        let mut queued = std::collections::HashSet::new();
        let mut reused = 0;
        for text in texts.iter().flatten() {
            let key = text_key(text);
            if store.rows.contains_key(&key) || queued.contains(&key) {
                continue;
            }
            match reusable.and_then(|p| p.rows.get(&key).map(|&row| (p, row))) {
                Some((previous, row)) if store.push(key, &previous.vectors.get(row)).is_ok() => reused += 1,
                _ => {
                    queued.insert(key);
                    pending.push(text.clone());
                }
            }
        }
        Self { settings, corpus, model, texts, store, pending, embedded: 0, reused }
    }

    /// Distinct texts that need the embedder, in total.
    pub fn to_embed(&self) -> usize {
        self.pending.len()
    }

    pub fn embedded(&self) -> usize {
        self.embedded
    }

    /// Distinct texts whose vectors came from the previous index.
    pub fn reused(&self) -> usize {
        self.reused
    }

    pub fn texts_to_embed(&self) -> &[String] {
        &self.pending[self.embedded..]
    }

    pub fn corpus(&self) -> &Corpus {
        &self.corpus
    }

    pub fn is_done(&self) -> bool {
        self.embedded == self.pending.len()
    }

    /// Embeds up to `max_texts` pending texts; returns how many it embedded.
    pub fn embed_next(&mut self, embedder: &dyn TextEmbedder, max_texts: usize) -> Result<usize, EmbedError> {
        let end = (self.embedded + max_texts).min(self.pending.len());
        let batch: Vec<&str> = self.pending[self.embedded..end].iter().map(String::as_str).collect();
        let vectors = embedder.embed(&batch)?;
        self.accept_next(vectors)
    }

    /// Takes the vectors of the next pending texts, in order, embedded elsewhere (the browser's embedding
    /// workers); returns how many it took. More vectors than pending texts are an error, and none is taken.
    pub fn accept_next(&mut self, vectors: Vec<Vec<f32>>) -> Result<usize, EmbedError> {
        let end = self.embedded + vectors.len();
        if end > self.pending.len() {
            return Err(EmbedError::Inference(format!(
                "{} vectors for {} pending texts",
                vectors.len(),
                self.pending.len() - self.embedded
            )));
        }
        for (text, vector) in self.pending[self.embedded..end].iter().zip(vectors) {
            self.store.push(text_key(text), &vector)?;
        }
        let done = end - self.embedded;
        self.embedded = end;
        Ok(done)
    }

    pub fn embed_all(&mut self, embedder: &dyn TextEmbedder) -> Result<(), EmbedError> {
        while !self.is_done() {
            self.embed_next(embedder, 64)?;
        }
        Ok(())
    }

    /// Embeds every pending text on `threads` threads sharing one embedder (tract plans are immutable and
    /// run concurrently). Texts are handed out longest first in batches of similar length, so padding stays
    /// small and no thread is left with the long tail; vectors are stored in the same order as
    /// [`Self::embed_all`] would store them. `on_progress` is told how many texts each finished batch held.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn embed_all_parallel(
        &mut self,
        embedder: &(dyn TextEmbedder + Sync),
        threads: usize,
        on_progress: &(dyn Fn(usize) + Sync),
    ) -> Result<(), EmbedError> {
        use std::sync::Mutex;
        use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
        const BATCH: usize = 32;
        let pending = &self.pending[self.embedded..];
        // Fixed batches of 32, as before jobs could shrink in the browser: natively, one sequence at a time
        // measured faster per text than batches of 16 (docs/BENCHMARKS.md), but the batch size is not yet
        // measured on a real corpus, so it is left as it was.
        let lengths: Vec<usize> = pending.iter().map(String::len).collect();
        let batches = crate::embed::jobs::longest_first(&lengths, threads, BATCH, BATCH);
        let next = AtomicUsize::new(0);
        let failed = AtomicBool::new(false);
        let vectors: Mutex<Vec<Vec<f32>>> = Mutex::new(vec![Vec::new(); pending.len()]);
        let first_error: Mutex<Option<EmbedError>> = Mutex::new(None);
        std::thread::scope(|scope| {
            for _ in 0..threads.clamp(1, batches.len().max(1)) {
                scope.spawn(|| {
                    while !failed.load(Ordering::Relaxed) {
                        let Some(batch) = batches.get(next.fetch_add(1, Ordering::Relaxed)) else { break };
                        let texts: Vec<&str> = batch.iter().map(|&i| pending[i].as_str()).collect();
                        match embedder.embed(&texts) {
                            Ok(embedded) => {
                                let mut vectors = vectors.lock().unwrap_or_else(|e| e.into_inner());
                                for (&i, vector) in batch.iter().zip(embedded) {
                                    vectors[i] = vector;
                                }
                                drop(vectors);
                                on_progress(batch.len());
                            }
                            Err(error) => {
                                failed.store(true, Ordering::Relaxed);
                                first_error.lock().unwrap_or_else(|e| e.into_inner()).get_or_insert(error);
                            }
                        }
                    }
                });
            }
        });
        if let Some(error) = first_error.into_inner().unwrap_or_else(|e| e.into_inner()) {
            return Err(error);
        }
        let vectors = vectors.into_inner().unwrap_or_else(|e| e.into_inner());
        for (text, vector) in self.pending[self.embedded..].iter().zip(vectors) {
            self.store.push(text_key(text), &vector)?;
        }
        self.embedded = self.pending.len();
        Ok(())
    }

    /// Assembles the indexes. Panics if called before every text is embedded.
    pub fn finish(self) -> IndexedCorpus {
        assert!(self.is_done(), "IndexBuilder::finish before all texts were embedded");
        let row = |text: &String| self.store.rows[&text_key(text)];
        let [pages, sections, chunks, entities, relation_types, inverse_relation_types, statements] =
            self.texts.each_ref().map(|texts| texts.iter().map(row).collect::<Vec<u32>>());
        let rows = NodeRows { pages, sections, chunks, entities, relation_types, inverse_relation_types, statements };
        let chunk_index = VectorIndex::build(self.store.vectors(), rows.chunks.clone(), self.settings.hnsw_threshold);
        let bm25 = Bm25Index::build(self.texts[2].iter().map(String::as_str), self.settings.bm25);
        let graph = KnowledgeGraph::build(&self.corpus);
        let chunk_graph = build_chunk_graph(&self.corpus, self.store.vectors(), &rows, &self.settings);
        let gazetteer = Gazetteer::new(&self.corpus);
        IndexedCorpus {
            settings: self.settings,
            model: self.model,
            corpus: self.corpus,
            embeddings: self.store,
            rows,
            chunk_index,
            bm25,
            graph,
            chunk_graph,
            gazetteer,
        }
    }
}

/// Every name that designates the document `source`: the source itself and, for a JSONL record
/// `file.jsonl#id`, its file. Removal and the check for unknown names both go by this one rule.
pub fn names_of_source(source: &str) -> impl Iterator<Item = &str> {
    std::iter::once(source).chain(source.match_indices('#').map(|(at, _)| &source[..at]))
}

/// Current documents with `added` replacing same-source documents (or appended) and `removed` sources
/// dropped; removing `file.jsonl` drops every record `file.jsonl#id`. Linear in the number of documents.
pub fn merge_documents(current: &[Document], added: Vec<Document>, removed: &[String]) -> Vec<Document> {
    let removed: std::collections::HashSet<&str> = removed.iter().map(String::as_str).collect();
    let added_at: HashMap<String, usize> = added.iter().enumerate().map(|(i, d)| (d.source.clone(), i)).collect();
    let mut added: Vec<Option<Document>> = added.into_iter().map(Some).collect();
    let mut merged: Vec<Document> = Vec::with_capacity(current.len() + added.len());
    for doc in current.iter().filter(|d| !names_of_source(&d.source).any(|name| removed.contains(name))) {
        let replacement = added_at.get(&doc.source).and_then(|&i| added[i].take());
        merged.push(replacement.unwrap_or_else(|| doc.clone()));
    }
    merged.extend(added.into_iter().flatten());
    merged
}

impl IndexedCorpus {
    pub fn to_snapshot(&self) -> Result<Vec<u8>, SnapshotError> {
        snapshot::encode(self)
    }

    pub fn from_snapshot(bytes: &[u8]) -> Result<Self, SnapshotError> {
        snapshot::decode(bytes)
    }

    /// The chunk graph built afresh from this index's corpus and vectors, as indexing builds it.
    pub fn rebuild_chunk_graph(&self) -> ChunkGraph {
        build_chunk_graph(&self.corpus, self.embeddings.vectors(), &self.rows, &self.settings)
    }

    pub fn summary(&self) -> CorpusSummary {
        let corpus = &self.corpus;
        CorpusSummary {
            documents: corpus.documents.len(),
            sections: corpus.sections.len(),
            chunks: corpus.chunks.len(),
            entities: corpus.entities.len(),
            external_entities: corpus.entities.iter().filter(|e| e.document.is_none()).count(),
            mentions: corpus.mentions.len(),
            linked_mentions: corpus.mentions.iter().filter(|m| m.linked).count(),
            relations: corpus.relations.len(),
            relation_types: corpus.relation_types.len(),
            embeddings: self.embeddings.len(),
            embedding_bytes: self.embeddings.vectors().bytes(),
            graph: self.graph.stats(corpus),
            chunk_graph: self.chunk_graph.stats(),
        }
    }

    /// Fails when the snapshot was embedded by a different model than `embedder`.
    pub fn check_model(&self, model: &ModelIdentity) -> Result<(), String> {
        if &self.model == model {
            Ok(())
        } else {
            Err(format!(
                "this index was embedded with `{}` (model {}), but the loaded model is `{}` (model {}); re-index the documents",
                self.model.name, self.model.model_hash, model.name, model.model_hash
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::document::{DocumentBuilder, Format, Metadata};

    fn document(source: &str, text: &str) -> Document {
        let mut builder = DocumentBuilder::new();
        builder.paragraph(crate::corpus::document::BlockKind::Paragraph, text);
        builder.finish(source.into(), [0; 16], Format::Text, Metadata::default(), source)
    }

    #[test]
    fn merging_replaces_appends_and_removes_records_of_a_file() {
        let current = vec![document("a.txt", "old a"), document("c.jsonl#1", "one"), document("c.jsonl#2", "two")];
        let added = vec![document("b.txt", "new b"), document("a.txt", "new a")];
        let merged = merge_documents(&current, added, &["c.jsonl".to_string()]);
        let shown: Vec<(&str, &str)> = merged.iter().map(|d| (d.source.as_str(), d.text.as_str())).collect();
        assert_eq!(shown, vec![("a.txt", "new a"), ("b.txt", "new b")]);
    }

    #[test]
    fn merging_many_documents_takes_linear_time() {
        // A search per document made this 60,000 x 60,000 string comparisons, hundreds of times the cost of
        // copying the documents once; a map makes it a small multiple of that copy. Timed against the copy
        // on the same machine, so a slow or busy machine slows both sides alike.
        let current: Vec<Document> = (0..60_000).map(|i| document(&format!("notes/{i}.md"), "text")).collect();
        let added: Vec<Document> = (0..60_000).rev().map(|i| document(&format!("notes/{i}.md"), "new")).collect();
        let removed: Vec<String> = (0..60_000).step_by(2).map(|i| format!("gone/{i}.md")).collect();
        // The fastest of three of each, so a pause of the machine in one run does not decide.
        let fastest = |run: &dyn Fn() -> Vec<Document>| {
            (0..3)
                .map(|_| {
                    let started = std::time::Instant::now();
                    let out = run();
                    (started.elapsed(), out)
                })
                .min_by_key(|(time, _)| *time)
                .expect("three runs")
        };
        let (copy_time, _) = fastest(&|| current.iter().chain(&added).cloned().collect());
        let (merge_time, merged) = fastest(&|| merge_documents(&current, added.clone(), &removed));
        assert!(merge_time < copy_time * 40, "merging took {merge_time:?}, copying the documents {copy_time:?}");
        assert_eq!(merged.len(), 60_000);
        assert!(merged.iter().all(|d| d.text == "new"));
    }
}
