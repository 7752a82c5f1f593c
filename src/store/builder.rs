//! Building an [`IndexedCorpus`] from documents in steps: structure the corpus, gather every node's text,
//! reuse the vectors an earlier index of the same model already holds, embed the rest (in slices, or on
//! every core at once), then assemble the graphs and search indexes. A chunk that copies another
//! document's passage (`corpus::copies`) is not embedded: it takes its original's vector.

use std::collections::HashSet;

use crate::corpus::copies::Copies;
use crate::corpus::{ChunkId, Corpus, DocId, Document, TokenCounter};
use crate::embed::{EmbedError, ModelIdentity, TextEmbedder};
use crate::index::{Bm25Index, VectorIndex};

use super::indexed::{
    EmbeddingStore, IndexParts, IndexSettings, IndexedCorpus, NodeRows, Vectors, build_chunk_graph, text_key,
};

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

/// Where the chunks' texts are in [`node_texts`].
const CHUNKS: usize = 2;

/// Builds an [`IndexedCorpus`] in steps, so a caller can report progress (CLI) or yield to the event loop
/// between batches (browser).
#[derive(Clone)]
pub struct IndexBuilder {
    settings: IndexSettings,
    corpus: Corpus,
    model: ModelIdentity,
    /// Every node's text, per kind; only the chunks' in an index of [`Vectors::Chunks`].
    texts: [Vec<String>; 7],
    vectors: Vectors,
    copies: Copies,
    store: EmbeddingStore,
    /// Distinct texts with no vector yet, in first-seen order.
    pending: Vec<String>,
    embedded: usize,
    reused: usize,
}

impl IndexBuilder {
    /// Structures `documents`, to embed the texts `vectors` names; vectors of texts already in `previous`
    /// (made by the same model) are reused.
    pub fn new(
        documents: Vec<Document>,
        counter: &dyn TokenCounter,
        model: ModelIdentity,
        settings: IndexSettings,
        previous: Option<&IndexedCorpus>,
        vectors: Vectors,
    ) -> Self {
        let corpus = Corpus::build(documents, counter, &settings.corpus);
        let mut texts = node_texts(&corpus);
        if vectors == Vectors::Chunks {
            for (_, texts) in texts.iter_mut().enumerate().filter(|(kind, _)| *kind != CHUNKS) {
                texts.clear();
            }
        }
        let copies = Copies::find(&corpus);
        let reusable =
            previous.filter(|p| p.model == model && p.settings.corpus == settings.corpus).map(|p| &p.embeddings);
        let mut store = EmbeddingStore::new(model.dimension);
        let mut pending = Vec::new();
        let mut queued = HashSet::new();
        let mut reused = 0;
        let copy_texts: HashSet<&str> = (0..corpus.chunks.len() as ChunkId)
            .filter(|&chunk| copies.original(chunk) != chunk)
            .map(|chunk| texts[CHUNKS][chunk as usize].as_str())
            .collect();
        for (kind, text) in texts.iter().enumerate().flat_map(|(kind, texts)| texts.iter().map(move |t| (kind, t))) {
            if kind == CHUNKS && copy_texts.contains(text.as_str()) {
                continue;
            }
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
        Self { settings, corpus, model, texts, vectors, copies, store, pending, embedded: 0, reused }
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
    /// Each batch's vectors are quantised as it finishes: held as f32 until the last one, the 62,108 vectors
    /// of a million-column CSV were 97 MB at the peak, where their int8 codes are 24 MB (issue 48).
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
        let dimension = self.store.vectors().dimension();
        let quantized: Mutex<Vec<crate::index::QuantizedVectors>> =
            Mutex::new(vec![crate::index::QuantizedVectors::new(dimension); batches.len()]);
        let first_error: Mutex<Option<EmbedError>> = Mutex::new(None);
        std::thread::scope(|scope| {
            for _ in 0..threads.clamp(1, batches.len().max(1)) {
                scope.spawn(|| {
                    while !failed.load(Ordering::Relaxed) {
                        let number = next.fetch_add(1, Ordering::Relaxed);
                        let Some(batch) = batches.get(number) else { break };
                        let texts: Vec<&str> = batch.iter().map(|&i| pending[i].as_str()).collect();
                        match embedder.embed(&texts).and_then(|embedded| quantize_batch(dimension, &embedded)) {
                            Ok(codes) => {
                                quantized.lock().unwrap_or_else(|e| e.into_inner())[number] = codes;
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
        let quantized = quantized.into_inner().unwrap_or_else(|e| e.into_inner());
        let mut place = vec![(0, 0); pending.len()];
        for (number, batch) in batches.iter().enumerate() {
            for (row, &i) in batch.iter().enumerate() {
                place[i] = (number, row as u32);
            }
        }
        for (text, (number, row)) in self.pending[self.embedded..].iter().zip(place) {
            self.store.push_codes(text_key(text), &quantized[number], row);
        }
        self.embedded = self.pending.len();
        Ok(())
    }

    /// The index as far as it is embedded: every document searchable by its words, and by its meaning where
    /// its texts have vectors; a text still waiting stands at the zero vector, which no question's vector is
    /// near. What the browser answers from while the rest is embedded; nothing saves it. With it, the
    /// documents with a chunk still waiting for its vector.
    pub fn preview(&self) -> (IndexedCorpus, HashSet<DocId>) {
        let waiting: HashSet<_> = self.texts_to_embed().iter().map(|t| text_key(t)).collect();
        let documents_waiting: HashSet<DocId> = (0..self.corpus.chunks.len())
            .filter(|&chunk| waiting.contains(&text_key(self.vector_text(chunk))))
            .map(|chunk| self.corpus.chunks[chunk].document)
            .collect();
        let mut preview = self.clone();
        // Searched by brute force: an HNSW graph costs seconds per thousand vectors to build, for an index
        // that lives only until the next round.
        preview.settings.hnsw_threshold = usize::MAX;
        let zero = vec![0.0; self.model.dimension];
        for text in self.texts_to_embed() {
            // The model's own dimension: the push cannot fail.
            let _ = preview.store.push(text_key(text), &zero);
        }
        preview.embedded = preview.pending.len();
        (preview.finish_without_table(), documents_waiting)
    }

    /// The text whose vector `chunk` takes: its own, or for a copied passage its original's.
    fn vector_text(&self, chunk: usize) -> &String {
        &self.texts[CHUNKS][self.copies.original(chunk as ChunkId) as usize]
    }

    /// Assembles the indexes and trains the query table. Panics if called before every text is embedded.
    pub fn finish(self) -> IndexedCorpus {
        self.finish_without_table().with_query_table()
    }

    /// Assembles the indexes, without the query table ([`IndexedCorpus::with_query_table`] trains it).
    /// Panics if called before every text is embedded.
    pub fn finish_without_table(self) -> IndexedCorpus {
        assert!(self.is_done(), "IndexBuilder::finish before all texts were embedded");
        let row = |text: &String| self.store.rows[&text_key(text)];
        let rows_of = |kind: usize| self.texts[kind].iter().map(row).collect::<Vec<u32>>();
        let rows = NodeRows {
            pages: rows_of(0),
            sections: rows_of(1),
            chunks: (0..self.texts[CHUNKS].len()).map(|chunk| row(self.vector_text(chunk))).collect(),
            entities: rows_of(3),
            relation_types: rows_of(4),
            inverse_relation_types: rows_of(5),
            statements: rows_of(6),
        };
        let chunk_index = VectorIndex::build(self.store.vectors(), rows.chunks.clone(), self.settings.hnsw_threshold);
        let language_of = |chunk: usize| self.corpus.documents[self.corpus.chunks[chunk].document as usize].language;
        let chunk_texts =
            self.texts[CHUNKS].iter().enumerate().map(|(chunk, text)| (text.as_str(), language_of(chunk)));
        let bm25 = Bm25Index::build(chunk_texts, self.settings.bm25);
        let chunk_graph = build_chunk_graph(&self.corpus, self.store.vectors(), &rows, &self.settings);
        let copies = self.copies;
        IndexedCorpus::assemble(
            IndexParts {
                settings: self.settings,
                model: self.model,
                corpus: self.corpus,
                embeddings: self.store,
                rows,
                chunk_index,
                bm25,
                chunk_graph,
                vectors: self.vectors,
                query_table: None,
            },
            copies,
        )
    }
}

/// `vectors` quantised as the store holds them; a vector of another dimension is an error, as in the store.
#[cfg(not(target_arch = "wasm32"))]
fn quantize_batch(dimension: usize, vectors: &[Vec<f32>]) -> Result<crate::index::QuantizedVectors, EmbedError> {
    let mut codes = crate::index::QuantizedVectors::new(dimension);
    for vector in vectors {
        codes.push(vector)?;
    }
    Ok(codes)
}
