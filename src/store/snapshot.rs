//! Snapshot file: `MAGIC` (8 bytes) | format version (u32 LE) | payload length (u64 LE) | blake3 of the
//! payload (32 bytes) | payload (postcard). The knowledge graph is not stored: it is rebuilt from the
//! stored corpus on load, in linear time, so the file cannot hold a graph that disagrees with its corpus.
//! Seed 004's chunk graph is stored (its similarity scans are not linear); a version-4 file, written before
//! it existed, is the same payload without it, and gains it on load.
//! A version-5 file, written before an index could hold chunk vectors alone, is the same payload without
//! the closing [`Vectors`], and holds every node's vectors. Files of version 6 and earlier hold chunks
//! without a table header ([`ChunkBeforeHeaders`]); files of version 7 and earlier hold documents without a
//! language ([`DocumentBeforeLanguages`]): English, the one analyzer their BM25 index was built with. Files
//! of version 8 and earlier end before the query table, and load without one.
//! The file is exactly header and payload, and every decoded part is checked against the others (the HNSW
//! chunk graph included) before anything is searched. `tests/fixtures/golden-snapshot.bin` pins this
//! layout: a change to it needs a `FORMAT_VERSION` bump and a re-blessed golden file (see `tests/integration/snapshot.rs`).

use serde::{Deserialize, Serialize};

use super::indexed::{EmbeddingStore, IndexParts, IndexSettings, IndexedCorpus, NodeRows, Vectors, build_chunk_graph};
use crate::corpus::Corpus;
use crate::embed::ModelIdentity;
use crate::error::Inconsistent;
use crate::graph::ChunkGraph;
use crate::index::vectors::UncheckedVectorIndex;
use crate::index::{Bm25Index, QuantizedVectors, QueryTable};

mod earlier;
mod pieces;

use earlier::{CorpusBeforeHeaders, CorpusBeforeLanguages};
pub use pieces::{PIECE_BYTES, SnapshotSink};

pub const MAGIC: &[u8; 8] = b"QUIRESNP";
pub const FORMAT_VERSION: u32 = 9;
/// The last version without the query table, still read (its index has none until it is indexed again).
const WITHOUT_QUERY_TABLE: u32 = 8;
/// The last version whose documents had no language (all were analysed as English), still read.
const WITHOUT_LANGUAGES: u32 = 7;
/// The last version whose chunks had no table header (their rows said the header in every cell), still read.
const WITHOUT_TABLE_HEADERS: u32 = 6;
/// The last version whose every index held node vectors (no [`Vectors`] closes its payload), still read.
const ALL_VECTORS: u32 = 5;
/// The last version without the chunk graph, still read.
const WITHOUT_CHUNK_GRAPH: u32 = 4;
const HEADER_LEN: usize = 8 + 4 + 8 + 32;

#[derive(Debug, thiserror::Error, PartialEq)]
pub enum SnapshotError {
    #[error("not a Quire snapshot (the file does not start with the Quire signature)")]
    NotASnapshot,
    #[error(
        "snapshot format version {found} is not supported by this build (it reads version {supported}); re-index the documents"
    )]
    UnsupportedVersion { found: u32, supported: u32 },
    #[error("the snapshot is truncated: {actual} bytes where {expected} were expected")]
    Truncated { expected: u64, actual: u64 },
    #[error("the snapshot has bytes after its contents: {actual} bytes where {expected} were expected")]
    TrailingBytes { expected: u64, actual: u64 },
    #[error("the snapshot is corrupt: its checksum does not match its contents")]
    ChecksumMismatch,
    #[error("the snapshot could not be decoded: {0}")]
    Decode(String),
    #[error("the snapshot is inconsistent: {0}")]
    Inconsistent(String),
    #[error("the index could not be encoded: {0}")]
    Encode(String),
}

#[derive(Serialize, Deserialize)]
struct Body<C, E, R, V, B, S, M, G, N, T> {
    settings: S,
    model: M,
    corpus: C,
    embeddings: E,
    rows: R,
    chunk_index: V,
    bm25: B,
    /// So that a version-4 payload is this body with `()` here (postcard writes `()` as no bytes).
    chunk_graph: G,
    /// So that a version-5 (or 4) payload is this body with `()` here: every vector was stored then.
    vectors: N,
    /// Last, so that a version-8 (or earlier) payload is this body with `()` here.
    query_table: T,
}

impl IndexedCorpus {
    pub fn to_snapshot(&self) -> Result<Vec<u8>, SnapshotError> {
        encode(self)
    }

    /// The snapshot written into `sink` in pieces ([`SnapshotSink`]).
    pub fn write_snapshot(&self, sink: &mut impl SnapshotSink) -> Result<(), SnapshotError> {
        encode_into(self, sink)
    }

    pub fn from_snapshot(bytes: &[u8]) -> Result<Self, SnapshotError> {
        decode(bytes)
    }
}

pub fn encode(index: &IndexedCorpus) -> Result<Vec<u8>, SnapshotError> {
    let mut file = Vec::new();
    encode_into(index, &mut file)?;
    Ok(file)
}

fn encode_into(index: &IndexedCorpus, sink: &mut impl SnapshotSink) -> Result<(), SnapshotError> {
    let body = Body {
        settings: &index.settings,
        model: &index.model,
        corpus: &index.corpus,
        embeddings: &index.embeddings,
        rows: &index.rows,
        chunk_index: &index.chunk_index,
        bm25: &index.bm25,
        chunk_graph: &index.chunk_graph,
        vectors: index.vectors,
        query_table: &index.query_table,
    };
    // Written once, in place after its header, into storage of its exact size: a payload encoded on its own
    // and then copied behind the header held the snapshot about two and a half times over (a 94 MB
    // snapshot raised the peak by 183 MB, issue 48).
    let encode_error = |e: postcard::Error| SnapshotError::Encode(e.to_string());
    let payload_len = postcard::experimental::serialized_size(&body).map_err(encode_error)?;
    sink.allocate(HEADER_LEN + payload_len);
    let (checksum, end) =
        postcard::serialize_with_flavor(&body, pieces::Pieces::new(sink, HEADER_LEN)).map_err(encode_error)?;
    if end != HEADER_LEN + payload_len {
        return Err(SnapshotError::Encode(format!(
            "{} bytes encoded where {payload_len} were sized",
            end - HEADER_LEN
        )));
    }
    let mut header = Vec::with_capacity(HEADER_LEN);
    header.extend_from_slice(MAGIC);
    header.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    header.extend_from_slice(&(payload_len as u64).to_le_bytes());
    header.extend_from_slice(checksum.as_bytes());
    sink.write_at(0, &header);
    Ok(())
}

type OwnedBody<G, N, T, C = Corpus> =
    Body<C, EmbeddingStore, NodeRows, UncheckedVectorIndex, Bm25Index, IndexSettings, ModelIdentity, G, N, T>;

impl<G, N, T, C: Into<Corpus>> OwnedBody<G, N, T, C> {
    fn into_current(self) -> OwnedBody<G, N, T> {
        let Body { settings, model, corpus, embeddings, rows, chunk_index, bm25, chunk_graph, vectors, query_table } =
            self;
        let corpus = corpus.into();
        Body { settings, model, corpus, embeddings, rows, chunk_index, bm25, chunk_graph, vectors, query_table }
    }
}

/// What a payload holds in place of the query table: the table or its absence, or nothing (version 8 and
/// earlier).
trait StoredQueryTable {
    fn table(&self) -> Option<&QueryTable>;
    fn into_table(self) -> Option<QueryTable>;
}

impl StoredQueryTable for Option<QueryTable> {
    fn table(&self) -> Option<&QueryTable> {
        self.as_ref()
    }

    fn into_table(self) -> Option<QueryTable> {
        self
    }
}

impl StoredQueryTable for () {
    fn table(&self) -> Option<&QueryTable> {
        None
    }

    fn into_table(self) -> Option<QueryTable> {
        None
    }
}

/// What a payload holds in place of the [`Vectors`]: which vectors it holds, or nothing (version 5 and
/// earlier, which held them all).
trait StoredVectors {
    fn vectors(&self) -> Vectors;
}

impl StoredVectors for Vectors {
    fn vectors(&self) -> Vectors {
        *self
    }
}

impl StoredVectors for () {
    fn vectors(&self) -> Vectors {
        Vectors::All
    }
}

/// What a payload holds in place of the chunk graph: the graph itself, or nothing (version 4).
trait StoredChunkGraph {
    fn check(&self, corpus: &Corpus, dimension: usize) -> Result<(), Inconsistent>;
    /// The chunk graph, built from the index's parts when the payload had none.
    fn into_chunk_graph(
        self,
        corpus: &Corpus,
        vectors: &QuantizedVectors,
        rows: &NodeRows,
        settings: &IndexSettings,
    ) -> ChunkGraph;
}

impl StoredChunkGraph for ChunkGraph {
    fn check(&self, corpus: &Corpus, dimension: usize) -> Result<(), Inconsistent> {
        ChunkGraph::check(self, corpus.documents.len(), corpus.chunks.len(), dimension)
    }

    fn into_chunk_graph(self, _: &Corpus, _: &QuantizedVectors, _: &NodeRows, _: &IndexSettings) -> ChunkGraph {
        self
    }
}

impl StoredChunkGraph for () {
    fn check(&self, _: &Corpus, _: usize) -> Result<(), Inconsistent> {
        Ok(())
    }

    fn into_chunk_graph(
        self,
        corpus: &Corpus,
        vectors: &QuantizedVectors,
        rows: &NodeRows,
        settings: &IndexSettings,
    ) -> ChunkGraph {
        build_chunk_graph(corpus, vectors, rows, settings)
    }
}

impl<G: StoredChunkGraph, N: StoredVectors, T: StoredQueryTable> OwnedBody<G, N, T> {
    /// Whether decoded parts agree with each other, so that nothing indexes out of range later.
    fn check(&self) -> Result<(), Inconsistent> {
        self.settings.check()?;
        self.corpus.check()?;
        let vectors = self.embeddings.vectors();
        vectors.check()?;
        if self.embeddings.keys.len() != vectors.len() || vectors.dimension() != self.model.dimension {
            return Err("embedding keys, vectors and model dimension disagree".into());
        }
        let corpus = &self.corpus;
        // An index of chunk vectors has no row for any other node.
        let nodes = |count: usize| if self.vectors.vectors() == Vectors::All { count } else { 0 };
        let expected = [
            (&self.rows.pages, nodes(corpus.documents.len())),
            (&self.rows.sections, nodes(corpus.sections.len())),
            (&self.rows.chunks, corpus.chunks.len()),
            (&self.rows.entities, nodes(corpus.entities.len())),
            (&self.rows.relation_types, nodes(corpus.relation_types.len())),
            (&self.rows.inverse_relation_types, nodes(corpus.relation_types.len())),
            (&self.rows.statements, nodes(corpus.relations.len())),
        ];
        for (rows, count) in expected {
            if rows.len() != count || rows.iter().any(|&r| r as usize >= vectors.len()) {
                return Err("node embedding rows disagree with the corpus".into());
            }
        }
        self.bm25.check(corpus.chunks.len())?;
        if self.bm25.params() != self.settings.bm25 {
            return Err("BM25 scores with other parameters than the settings say".into());
        }
        self.chunk_graph.check(corpus, vectors.dimension())?;
        match self.query_table.table() {
            Some(table) => table.check(self.bm25.term_count(), self.model.dimension),
            None => Ok(()),
        }
    }

    /// The index, once every part is checked; the knowledge graph is rebuilt from the checked corpus.
    fn into_index(self) -> Result<IndexedCorpus, Inconsistent> {
        self.check()?;
        let Body {
            settings,
            model,
            corpus,
            mut embeddings,
            rows,
            chunk_index,
            bm25,
            chunk_graph,
            vectors,
            query_table,
        } = self;
        let chunk_index = chunk_index.validate(&rows.chunks, embeddings.vectors())?;
        let chunk_graph = chunk_graph.into_chunk_graph(&corpus, embeddings.vectors(), &rows, &settings);
        embeddings.reindex();
        let copies = crate::corpus::copies::Copies::find(&corpus);
        Ok(IndexedCorpus::assemble(
            IndexParts {
                settings,
                model,
                corpus,
                embeddings,
                rows,
                chunk_index,
                bm25,
                chunk_graph,
                vectors: vectors.vectors(),
                query_table: query_table.into_table(),
            },
            copies,
        ))
    }
}

/// The payload and its format version, once the header says it is one of ours, of a version this build
/// reads, exactly as long as the file, and its checksum vouches for it.
fn payload(bytes: &[u8]) -> Result<(u32, &[u8]), SnapshotError> {
    if bytes.len() < MAGIC.len() || &bytes[..MAGIC.len()] != MAGIC {
        return Err(SnapshotError::NotASnapshot);
    }
    let actual = bytes.len() as u64;
    if bytes.len() < HEADER_LEN {
        return Err(SnapshotError::Truncated { expected: HEADER_LEN as u64, actual });
    }
    let version = u32::from_le_bytes(bytes[8..12].try_into().expect("4 bytes"));
    if ![
        FORMAT_VERSION,
        WITHOUT_QUERY_TABLE,
        WITHOUT_LANGUAGES,
        WITHOUT_TABLE_HEADERS,
        ALL_VECTORS,
        WITHOUT_CHUNK_GRAPH,
    ]
    .contains(&version)
    {
        return Err(SnapshotError::UnsupportedVersion { found: version, supported: FORMAT_VERSION });
    }
    // Saturating: a damaged length must give an error, not an overflow.
    let expected = u64::from_le_bytes(bytes[12..20].try_into().expect("8 bytes")).saturating_add(HEADER_LEN as u64);
    if actual < expected {
        return Err(SnapshotError::Truncated { expected, actual });
    }
    // Bytes past the stated length are no part of the snapshot; accepting them would let two different
    // files load as one index, and hide a writer that appended where it should have replaced.
    if actual > expected {
        return Err(SnapshotError::TrailingBytes { expected, actual });
    }
    let payload = &bytes[HEADER_LEN..];
    if blake3::hash(payload).as_bytes() != &bytes[20..52] {
        return Err(SnapshotError::ChecksumMismatch);
    }
    Ok((version, payload))
}

pub fn decode(bytes: &[u8]) -> Result<IndexedCorpus, SnapshotError> {
    match payload(bytes)? {
        (WITHOUT_CHUNK_GRAPH, payload) => decode_body::<(), (), (), CorpusBeforeHeaders>(bytes, payload),
        (ALL_VECTORS, payload) => decode_body::<ChunkGraph, (), (), CorpusBeforeHeaders>(bytes, payload),
        (WITHOUT_TABLE_HEADERS, payload) => decode_body::<ChunkGraph, Vectors, (), CorpusBeforeHeaders>(bytes, payload),
        (WITHOUT_LANGUAGES, payload) => decode_body::<ChunkGraph, Vectors, (), CorpusBeforeLanguages>(bytes, payload),
        (WITHOUT_QUERY_TABLE, payload) => decode_body::<ChunkGraph, Vectors, (), Corpus>(bytes, payload),
        (_, payload) => decode_body::<ChunkGraph, Vectors, Option<QueryTable>, Corpus>(bytes, payload),
    }
}

fn decode_body<G, N, T, C>(bytes: &[u8], payload: &[u8]) -> Result<IndexedCorpus, SnapshotError>
where
    G: StoredChunkGraph + serde::de::DeserializeOwned,
    N: StoredVectors + serde::de::DeserializeOwned,
    T: StoredQueryTable + serde::de::DeserializeOwned,
    C: Into<Corpus> + serde::de::DeserializeOwned,
{
    let (body, rest) = postcard::take_from_bytes::<OwnedBody<G, N, T, C>>(payload)
        .map_err(|e| SnapshotError::Decode(e.to_string()))?;
    // The payload must be exactly one body: postcard on its own ignores what follows.
    if !rest.is_empty() {
        let actual = bytes.len() as u64;
        return Err(SnapshotError::TrailingBytes { expected: actual - rest.len() as u64, actual });
    }
    // The checksum catches accidents; this catches a payload that decodes but does not hang together.
    body.into_current().into_index().map_err(|problem| SnapshotError::Inconsistent(problem.0))
}
