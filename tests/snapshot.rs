//! Snapshot round trip (flat and HNSW indexes), and clear errors for truncated, corrupt, foreign and
//! other-version files.

mod common;

use proptest::prelude::*;
use quire::corpus::{self, CorpusSettings};
use quire::embed::TextEmbedder;
use quire::retrieve;
use quire::store::{FORMAT_VERSION, IndexBuilder, IndexSettings, IndexedCorpus, MAGIC, SnapshotError};

fn demo_index(settings: IndexSettings) -> IndexedCorpus {
    let report = corpus::ingest(&common::demo_files(), &CorpusSettings::default());
    let embedder = common::embedder();
    let mut builder = IndexBuilder::new(report.documents, embedder, embedder.identity().clone(), settings, None);
    builder.embed_all(embedder).unwrap();
    builder.finish()
}

fn snapshot_bytes() -> &'static [u8] {
    static BYTES: std::sync::OnceLock<Vec<u8>> = std::sync::OnceLock::new();
    BYTES.get_or_init(|| demo_index(IndexSettings::default()).to_snapshot().unwrap())
}

fn same_answers(a: &IndexedCorpus, b: &IndexedCorpus) {
    for query in ["Who walked on the Moon?", "storms on gas giants", "how many moons does Saturn have"] {
        let ra = retrieve::hybrid(a, common::embedder(), query, 5).unwrap();
        let rb = retrieve::hybrid(b, common::embedder(), query, 5).unwrap();
        assert_eq!(ra.fused, rb.fused, "{query}");
        assert_eq!(ra.dense, rb.dense, "{query}");
    }
}

#[test]
fn round_trip_preserves_everything() {
    let original = demo_index(IndexSettings::default());
    let bytes = original.to_snapshot().unwrap();
    assert_eq!(&bytes[..8], MAGIC);
    let loaded = IndexedCorpus::from_snapshot(&bytes).unwrap();
    assert_eq!(loaded.corpus, original.corpus);
    assert_eq!(loaded.settings, original.settings);
    assert_eq!(loaded.model, original.model);
    assert_eq!(loaded.rows, original.rows);
    assert_eq!(loaded.bm25, original.bm25);
    assert_eq!(loaded.embeddings.vectors(), original.embeddings.vectors());
    assert_eq!(loaded.graph.stats(&loaded.corpus), original.graph.stats(&original.corpus));
    assert!(loaded.embeddings.row_of(&original.corpus.entities[0].name).is_some());
    same_answers(&original, &loaded);
    assert!(loaded.to_snapshot().unwrap() == bytes, "encoding is deterministic");
}

#[test]
fn hnsw_index_round_trips() {
    let original = demo_index(IndexSettings { hnsw_threshold: 1, ..IndexSettings::default() });
    assert_eq!(original.chunk_index.kind(), quire::index::VectorIndexKind::Hnsw);
    let loaded = IndexedCorpus::from_snapshot(&original.to_snapshot().unwrap()).unwrap();
    assert_eq!(loaded.chunk_index.kind(), quire::index::VectorIndexKind::Hnsw);
    same_answers(&original, &loaded);
}

#[test]
fn damaged_files_give_clear_errors() {
    let bytes = snapshot_bytes();
    let error = |b: &[u8]| IndexedCorpus::from_snapshot(b).err().expect("must fail");
    assert_eq!(error(&[]), SnapshotError::NotASnapshot);
    assert_eq!(error(b"%PDF-1.7 definitely not a snapshot"), SnapshotError::NotASnapshot);
    assert_eq!(error(&bytes[..30]), SnapshotError::Truncated { expected: 52, actual: 30 });
    let cut = bytes.len() - 100;
    assert_eq!(error(&bytes[..cut]), SnapshotError::Truncated { expected: bytes.len() as u64, actual: cut as u64 });
    let mut flipped = bytes.to_vec();
    flipped[bytes.len() / 2] ^= 0x01;
    assert_eq!(error(&flipped), SnapshotError::ChecksumMismatch);
    let mut future = bytes.to_vec();
    future[8..12].copy_from_slice(&(FORMAT_VERSION + 1).to_le_bytes());
    assert_eq!(
        error(&future),
        SnapshotError::UnsupportedVersion { found: FORMAT_VERSION + 1, supported: FORMAT_VERSION }
    );
    assert_eq!(
        error(&future).to_string(),
        format!(
            "snapshot format version {} is not supported by this build (it reads version {FORMAT_VERSION}); re-index the documents",
            FORMAT_VERSION + 1
        )
    );
}

#[test]
fn payloads_that_decode_but_do_not_hang_together_are_refused() {
    let inconsistent = |tamper: &dyn Fn(&mut IndexedCorpus)| {
        let mut index = IndexedCorpus::from_snapshot(snapshot_bytes()).unwrap();
        tamper(&mut index);
        IndexedCorpus::from_snapshot(&index.to_snapshot().unwrap()).err().expect("must be refused")
    };
    assert_eq!(
        inconsistent(&|i| i.corpus.mentions[0].entity = 9_999),
        SnapshotError::Inconsistent("a mention of a missing chunk or entity".into())
    );
    assert_eq!(
        inconsistent(&|i| i.corpus.chunks[0].span.end = 1_000_000),
        SnapshotError::Inconsistent("a chunk outside its document".into())
    );
    assert_eq!(
        inconsistent(&|i| i.corpus.sections[1].parent = Some(5)),
        SnapshotError::Inconsistent("a section with an invalid parent".into())
    );
    assert_eq!(
        inconsistent(&|i| i.rows.chunks.truncate(3)),
        SnapshotError::Inconsistent("node embedding rows disagree with the corpus".into())
    );
    assert_eq!(
        inconsistent(&|i| i.corpus.chunks.pop().map(drop).unwrap_or_default()),
        SnapshotError::Inconsistent("node embedding rows disagree with the corpus".into())
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// Any damage, with or without a recomputed checksum, yields an error or a valid index: never a panic.
    #[test]
    fn damaged_snapshots_never_panic(position in 0usize..100_000, value in any::<u8>(), recompute_checksum in any::<bool>()) {
        let mut bytes = snapshot_bytes().to_vec();
        let position = position % bytes.len();
        bytes[position] = value;
        if recompute_checksum && position >= 52 {
            let digest = blake3::hash(&bytes[52..]);
            bytes[20..52].copy_from_slice(digest.as_bytes());
        }
        let _ = IndexedCorpus::from_snapshot(&bytes);
    }
}
