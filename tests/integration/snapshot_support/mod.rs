//! Shared by the snapshot tests: real indexes of the demo corpus, snapshot framing, and a twin of the
//! encoded chunk vector index so tests can craft what a hostile file could hold.
#![allow(dead_code)]

use std::ops::Range;
use std::sync::OnceLock;

use quire::corpus::{self, CorpusSettings};
use quire::embed::TextEmbedder;
use quire::store::{FORMAT_VERSION, IndexBuilder, IndexSettings, IndexedCorpus, MAGIC, Vectors};
use serde::{Deserialize, Serialize};

use crate::common;

pub const HEADER_LEN: usize = 52;

pub fn demo_index(settings: IndexSettings) -> IndexedCorpus {
    let report = corpus::ingest(&common::demo_files(), &CorpusSettings::default());
    let embedder = common::embedder();
    let mut builder =
        IndexBuilder::new(report.documents, embedder, embedder.identity().clone(), settings, None, Vectors::All);
    builder.embed_all(embedder).unwrap();
    builder.finish()
}

/// Every chunk in an HNSW index (the demo corpus is far below the default threshold).
pub fn hnsw_settings() -> IndexSettings {
    IndexSettings { hnsw_threshold: 0, ..IndexSettings::default() }
}

/// The demo index with a flat chunk index, built once per test binary.
pub fn flat_demo() -> &'static IndexedCorpus {
    static INDEX: OnceLock<IndexedCorpus> = OnceLock::new();
    INDEX.get_or_init(|| demo_index(IndexSettings::default()))
}

pub fn hnsw_demo() -> &'static IndexedCorpus {
    static INDEX: OnceLock<IndexedCorpus> = OnceLock::new();
    INDEX.get_or_init(|| demo_index(hnsw_settings()))
}

/// A well-framed snapshot file around `payload`: right magic, version, length and checksum.
pub fn frame(payload: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEADER_LEN + payload.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    out.extend_from_slice(blake3::hash(payload).as_bytes());
    out.extend_from_slice(payload);
    out
}

/// Where the chunk vector index lies in `index`'s encoded payload: just before BM25, the chunk graph,
/// which vectors it holds and the query table, the last parts.
pub fn chunk_index_span(index: &IndexedCorpus) -> Range<usize> {
    let payload_len = index.to_snapshot().unwrap().len() - HEADER_LEN;
    let after = postcard::to_allocvec(&index.bm25()).unwrap().len()
        + postcard::to_allocvec(&index.chunk_graph()).unwrap().len()
        + postcard::to_allocvec(&index.vectors()).unwrap().len()
        + postcard::to_allocvec(&index.query_table()).unwrap().len();
    let vectors_len = postcard::to_allocvec(&index.chunk_index()).unwrap().len();
    payload_len - after - vectors_len..payload_len - after
}

/// The encoded `VectorIndex` (`rows`, then `Structure`), with `instant-distance`'s `HnswMap { hnsw: Hnsw {
/// ef_search, points, zero, layers }, values }` flattened: postcard writes nested structs as their fields in
/// order, so the bytes are the same.
#[derive(Debug, Serialize, Deserialize)]
pub struct VectorIndexTwin {
    pub rows: Vec<u32>,
    pub structure: StructureTwin,
}

#[derive(Debug, Serialize, Deserialize)]
pub enum StructureTwin {
    Flat,
    Hnsw {
        ef_search: usize,
        points: Vec<(Vec<i8>, f32)>,
        /// 64 links per node, as two 32-tuples (the same postcard bytes as one 64-tuple).
        zero: Vec<([u32; 32], [u32; 32])>,
        layers: Vec<Vec<[u32; 32]>>,
        values: Vec<u32>,
    },
}

/// `index`'s snapshot with its chunk vector index rewritten by `tamper`, framed with a valid checksum.
pub fn with_chunk_index(index: &IndexedCorpus, tamper: impl FnOnce(&mut VectorIndexTwin)) -> Vec<u8> {
    let bytes = index.to_snapshot().unwrap();
    let payload = &bytes[HEADER_LEN..];
    let span = chunk_index_span(index);
    assert!(payload[span.clone()] == postcard::to_allocvec(&index.chunk_index()).unwrap()[..]);
    let mut twin: VectorIndexTwin = postcard::from_bytes(&payload[span.clone()]).unwrap();
    tamper(&mut twin);
    let mut tampered = payload[..span.start].to_vec();
    tampered.extend(postcard::to_allocvec(&twin).unwrap());
    tampered.extend_from_slice(&payload[span.end..]);
    frame(&tampered)
}
