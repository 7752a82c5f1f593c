//! Snapshot round trip (flat and HNSW indexes), clear errors for truncated, corrupt, foreign, other-version
//! and overlong files, refusal of crafted indexes, and the golden file that pins the byte layout.

use crate::common;
use crate::snapshot_support;

use std::sync::atomic::{AtomicUsize, Ordering};

use proptest::prelude::*;
use proptest::test_runner::TestRunner;
use quire::corpus::{self, Corpus, CorpusSettings, SourceFile};
use quire::embed::TextEmbedder;
use quire::index::VectorIndexKind;
use quire::retrieve::{Method, Query};
use quire::store::{
    FORMAT_VERSION, IndexBuilder, IndexSettings, IndexedCorpus, MAGIC, NoQueryTable, NodeRows, PIECE_BYTES,
    SnapshotError, SnapshotSink, TableQueries, Vectors,
};
use snapshot_support::{HEADER_LEN, StructureTwin, flat_demo, frame, hnsw_demo, with_chunk_index};

fn snapshot_bytes() -> &'static [u8] {
    static BYTES: std::sync::OnceLock<Vec<u8>> = std::sync::OnceLock::new();
    BYTES.get_or_init(|| flat_demo().to_snapshot().unwrap())
}

/// Dense, BM25 and their RRF give the same lists, scores and fusion rows on both indexes.
fn same_answers(a: &IndexedCorpus, b: &IndexedCorpus) {
    let rrf = Method::parse("rrf").unwrap();
    for query in ["Who walked on the Moon?", "storms on gas giants", "how many moons does Saturn have"] {
        let vector = common::embedder().embed(&[query]).unwrap().remove(0);
        let query = Query::new(query, &vector);
        assert_eq!(rrf.rank(a, query, 5).trace(a, 5), rrf.rank(b, query, 5).trace(b, 5), "{}", query.text);
    }
}

#[test]
fn round_trip_preserves_everything() {
    let original = flat_demo();
    let bytes = original.to_snapshot().unwrap();
    assert_eq!(&bytes[..8], MAGIC);
    let loaded = IndexedCorpus::from_snapshot(&bytes).unwrap();
    assert_eq!(loaded.corpus(), original.corpus());
    assert_eq!(loaded.settings(), original.settings());
    assert_eq!(loaded.model(), original.model());
    assert_eq!(loaded.rows(), original.rows());
    assert_eq!(loaded.bm25(), original.bm25());
    assert_eq!(loaded.chunk_graph(), original.chunk_graph());
    assert_eq!(loaded.embeddings().vectors(), original.embeddings().vectors());
    assert_eq!(loaded.graph().stats(loaded.corpus()), original.graph().stats(original.corpus()));
    assert!(loaded.embeddings().row_of(&original.corpus().entities[0].name).is_some());
    same_answers(original, &loaded);
    assert!(loaded.to_snapshot().unwrap() == bytes, "encoding is deterministic");
}

#[test]
fn hnsw_index_round_trips() {
    let original = hnsw_demo();
    assert_eq!(original.chunk_index().kind(), VectorIndexKind::Hnsw);
    let loaded = IndexedCorpus::from_snapshot(&original.to_snapshot().unwrap()).unwrap();
    assert_eq!(loaded.chunk_index().kind(), VectorIndexKind::Hnsw);
    same_answers(original, &loaded);
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
    // A crafted file: the demo index's parts, one of them tampered with, encoded as a snapshot's payload is
    // (its parts in order) and framed with a valid checksum.
    let inconsistent = |tamper: &dyn Fn(&mut Corpus, &mut NodeRows)| {
        let index = IndexedCorpus::from_snapshot(snapshot_bytes()).unwrap();
        let (mut corpus, mut rows) = (index.corpus().clone(), index.rows().clone());
        tamper(&mut corpus, &mut rows);
        let parts =
            (index.settings(), index.model(), &corpus, index.embeddings(), &rows, index.chunk_index(), index.bm25());
        let payload =
            postcard::to_allocvec(&(parts, index.chunk_graph(), index.vectors(), index.query_table())).unwrap();
        IndexedCorpus::from_snapshot(&frame(&payload)).err().expect("must be refused")
    };
    // A query table with no row for the index's terms.
    let index = IndexedCorpus::from_snapshot(snapshot_bytes()).unwrap();
    let parts =
        (index.settings(), index.model(), index.corpus(), index.embeddings(), index.rows(), index.chunk_index());
    let empty = Some(quire::index::QueryTable::default());
    let payload = postcard::to_allocvec(&(parts, index.bm25(), index.chunk_graph(), index.vectors(), empty)).unwrap();
    let terms = index.bm25().term_count();
    assert_eq!(
        IndexedCorpus::from_snapshot(&frame(&payload)).err(),
        Some(SnapshotError::Inconsistent(format!("a query table of 0 rows of 0 dimensions for {terms} terms of 384")))
    );
    assert_eq!(
        inconsistent(&|corpus, _| corpus.mentions[0].entity = 9_999),
        SnapshotError::Inconsistent("a mention of a missing chunk or entity".into())
    );
    assert_eq!(
        inconsistent(&|corpus, _| corpus.chunks[0].span.end = 1_000_000),
        SnapshotError::Inconsistent("a chunk outside its document".into())
    );
    assert_eq!(
        inconsistent(&|corpus, _| corpus.sections[1].parent = Some(5)),
        SnapshotError::Inconsistent("a section with an invalid parent".into())
    );
    assert_eq!(
        inconsistent(&|_, rows| rows.chunks.truncate(3)),
        SnapshotError::Inconsistent("node embedding rows disagree with the corpus".into())
    );
    assert_eq!(
        inconsistent(&|corpus, _| {
            corpus.chunks.pop();
            let chunks = corpus.chunks.len() as u32;
            corpus.mentions.retain(|mention| mention.chunk < chunks);
        }),
        SnapshotError::Inconsistent("node embedding rows disagree with the corpus".into())
    );
}

#[test]
fn crafted_settings_are_refused_before_they_drive_anything() {
    // The demo index's parts with its stored settings changed, framed with a valid checksum.
    let crafted = |change: &dyn Fn(&mut IndexSettings)| {
        let index = IndexedCorpus::from_snapshot(snapshot_bytes()).unwrap();
        let mut settings = index.settings().clone();
        change(&mut settings);
        let parts = (
            &settings,
            index.model(),
            index.corpus(),
            index.embeddings(),
            index.rows(),
            index.chunk_index(),
            index.bm25(),
        );
        let payload =
            postcard::to_allocvec(&(parts, index.chunk_graph(), index.vectors(), index.query_table())).unwrap();
        refusal(&frame(&payload))
    };
    assert_eq!(
        crafted(&|s| s.corpus.chunk_target_tokens = 3),
        SnapshotError::Inconsistent("the setting chunk_target_tokens is 3, outside 16 to 256".into())
    );
    assert_eq!(
        crafted(&|s| s.bm25.k1 = f32::NAN),
        SnapshotError::Inconsistent("the setting BM25 k1 is NaN, outside 0 to 10".into())
    );
    assert_eq!(
        crafted(&|s| s.bm25.k1 = 2.0),
        SnapshotError::Inconsistent("BM25 scores with other parameters than the settings say".into())
    );
}

/// What a snapshot with one byte set must give, from where the byte lies.
#[derive(Debug)]
enum Verdict {
    /// The byte was set to the value it had: the snapshot as written.
    Unchanged,
    /// The header's checks name what changed; a changed payload under the old checksum is corrupt.
    Refused(SnapshotError),
    /// The version now names an older layout, which reads this payload's body and finds bytes after it.
    OlderLayout,
    /// Under a recomputed checksum, the decoder and the checks behind it decide.
    Decoder,
}

/// The verdict on `damaged`, the snapshot with the byte at `position` set (and its checksum `recomputed`).
fn verdict(damaged: &[u8], position: usize, recomputed: bool) -> Verdict {
    let header = |range: std::ops::Range<usize>| damaged[range].iter().rev().fold(0u64, |n, &b| n << 8 | b as u64);
    let actual = damaged.len() as u64;
    match position {
        _ if damaged == snapshot_bytes() => Verdict::Unchanged,
        0..8 => Verdict::Refused(SnapshotError::NotASnapshot),
        8..12 => match header(8..12) as u32 {
            4 | 5 => Verdict::OlderLayout,
            found => Verdict::Refused(SnapshotError::UnsupportedVersion { found, supported: FORMAT_VERSION }),
        },
        12..20 => match header(12..20).saturating_add(HEADER_LEN as u64) {
            expected if expected > actual => Verdict::Refused(SnapshotError::Truncated { expected, actual }),
            expected => Verdict::Refused(SnapshotError::TrailingBytes { expected, actual }),
        },
        _ if position < HEADER_LEN || !recomputed => Verdict::Refused(SnapshotError::ChecksumMismatch),
        _ => Verdict::Decoder,
    }
}

/// A decoded snapshot is the demo index with a detail changed: as many documents, sections and chunks,
/// and it answers a question with chunks it holds, and saves to a snapshot that loads.
fn check_decoded(index: &IndexedCorpus) {
    let (summary, demo) = (index.summary(), flat_demo().summary());
    assert_eq!((summary.documents, summary.sections, summary.chunks), (demo.documents, demo.sections, demo.chunks));
    let vectors = index.embeddings().vectors();
    let vector = vectors.get(index.rows().chunks[0]);
    // Every chunk is in the (flat) vector index, so exact search finds five, the first chunk's own first.
    let nearest = index.chunk_index().search(vectors, &vector, 5);
    assert_eq!(nearest.len(), 5, "{nearest:?}");
    assert!(nearest.iter().all(|hit| (hit.id as usize) < summary.chunks), "{nearest:?}");
    assert_eq!(nearest[0].score, vectors.dot(&vector, index.rows().chunks[0]), "{nearest:?}");
    let words =
        Method::parse("bm25").unwrap().rank(index, Query::new("Who walked on the Moon?", &vector), 5).into_chunks();
    assert!(words.len() <= 5 && words.iter().all(|hit| (hit.chunk as usize) < summary.chunks), "{words:?}");
    let again = IndexedCorpus::from_snapshot(&index.to_snapshot().unwrap()).expect("it saves to a snapshot that loads");
    assert_eq!(again.summary().chunks, summary.chunks);
}

/// Any byte set anywhere, with or without a recomputed checksum, gives the error its position calls for,
/// or (past the header, under a recomputed checksum) a decoder's refusal or a sound index: never a panic.
#[test]
fn damaged_snapshots_never_panic() {
    // A quarter of the cases in the header, which is 52 bytes of a file of many kilobytes.
    let position = prop_oneof![1 => 0usize..HEADER_LEN, 3 => 0usize..100_000];
    let counts: [AtomicUsize; 3] = Default::default();
    let config = ProptestConfig { cases: 64, failure_persistence: None, ..ProptestConfig::default() };
    let strategy = (position, any::<u8>(), any::<bool>());
    let result = TestRunner::new(config).run(&strategy, |(position, value, recompute_checksum)| {
        let mut bytes = snapshot_bytes().to_vec();
        let position = position % bytes.len();
        bytes[position] = value;
        if recompute_checksum && position >= HEADER_LEN {
            let digest = blake3::hash(&bytes[HEADER_LEN..]);
            bytes[20..HEADER_LEN].copy_from_slice(digest.as_bytes());
        }
        let len = bytes.len() as u64;
        // 0: settled before the payload is decoded, 1: refused by the decoder, 2: decoded.
        let outcome = match (verdict(&bytes, position, recompute_checksum), IndexedCorpus::from_snapshot(&bytes)) {
            (Verdict::Unchanged, Ok(index)) => {
                assert!(index.to_snapshot().unwrap() == bytes, "it saves as it was");
                0
            }
            (Verdict::Refused(expected), Err(error)) if error == expected => 0,
            (Verdict::OlderLayout, Err(SnapshotError::TrailingBytes { actual, .. })) if actual == len => 0,
            (Verdict::Decoder, Err(SnapshotError::Decode(_) | SnapshotError::Inconsistent(_))) => 1,
            (Verdict::Decoder, Err(SnapshotError::TrailingBytes { actual, .. })) if actual == len => 1,
            (Verdict::Decoder, Ok(index)) => {
                check_decoded(&index);
                2
            }
            (verdict, decoded) => panic!("{verdict:?} expected, got {:?}", decoded.map(|_| "an index")),
        };
        counts[outcome].fetch_add(1, Ordering::Relaxed);
        Ok(())
    });
    if let Err(failure) = result {
        panic!("{failure}");
    }
    let [settled, refused, decoded] = counts.map(AtomicUsize::into_inner);
    eprintln!(
        "damaged snapshots: {settled} settled by the header, {refused} refused by the decoder, {decoded} decoded"
    );
    // Otherwise the decoder's side, and what a decoded index must answer, went untested.
    assert!(settled > 0 && decoded > 0, "{settled} settled by the header, {decoded} decoded");
}

fn refusal(bytes: &[u8]) -> SnapshotError {
    IndexedCorpus::from_snapshot(bytes).err().expect("must be refused")
}

#[test]
fn bytes_after_the_payload_are_refused() {
    let bytes = snapshot_bytes();
    let length = bytes.len() as u64;
    let mut appended = bytes.to_vec();
    appended.extend_from_slice(b"\0tail");
    assert_eq!(refusal(&appended), SnapshotError::TrailingBytes { expected: length, actual: length + 5 });
    assert_eq!(
        refusal(&appended).to_string(),
        format!("the snapshot has bytes after its contents: {} bytes where {length} were expected", length + 5)
    );
    // Within the stated length and checksum but after the body, where postcard alone would ignore them.
    let mut payload = bytes[HEADER_LEN..].to_vec();
    payload.push(0);
    assert_eq!(refusal(&frame(&payload)), SnapshotError::TrailingBytes { expected: length, actual: length + 1 });
}

#[test]
fn a_length_that_overflows_is_refused() {
    let mut bytes = snapshot_bytes().to_vec();
    bytes[12..20].copy_from_slice(&u64::MAX.to_le_bytes());
    assert_eq!(refusal(&bytes), SnapshotError::Truncated { expected: u64::MAX, actual: bytes.len() as u64 });
}

#[test]
fn crafted_hnsw_links_are_refused() {
    let index = hnsw_demo();
    assert!(with_chunk_index(index, |_| ()) == index.to_snapshot().unwrap(), "the twin must re-encode exactly");
    let crafted = with_chunk_index(index, |twin| {
        let StructureTwin::Hnsw { zero, .. } = &mut twin.structure else { panic!("not HNSW") };
        let beyond = zero.len() as u32 + 7;
        zero.iter_mut().for_each(|links| links.0[0] = beyond);
    });
    assert_eq!(refusal(&crafted), SnapshotError::Inconsistent("an HNSW link beyond its layer".into()));
}

/// Dense hits are positions in the chunk index, read as chunk ids: a longer index would name missing chunks.
#[test]
fn a_chunk_index_over_other_rows_is_refused() {
    let crafted = with_chunk_index(flat_demo(), |twin| twin.rows.push(twin.rows[0]));
    assert_eq!(
        refusal(&crafted),
        SnapshotError::Inconsistent("the vector index does not index the chunks' embedding rows".into())
    );
}

/// Pins the byte layout: the golden file must decode and re-encode to itself, and was written by this
/// `FORMAT_VERSION`. After a deliberate layout change, bump `FORMAT_VERSION` in `src/store/snapshot.rs`, then
/// re-bless: `QUIRE_BLESS=1 cargo test --test integration snapshot::golden` (needs the model in `models/`). Blessing
/// refuses to overwrite a golden file of the current version whose layout no longer decodes. Not named
/// `.quire`: `.gitignore` ignores those, and this file must be checked in.
const GOLDEN: &str = "tests/fixtures/golden-snapshot.bin";
/// The golden file as format version 4 wrote it, before the chunk graph was stored.
const GOLDEN_V4: &str = "tests/fixtures/golden-snapshot-v4.bin";
/// The golden file as format version 5 wrote it, before an index could hold chunk vectors alone.
const GOLDEN_V5: &str = "tests/fixtures/golden-snapshot-v5.bin";
/// The golden file as format version 7 wrote it, before documents had a language.
const GOLDEN_V7: &str = "tests/fixtures/golden-snapshot-v7.bin";
/// The golden file as format version 8 wrote it, before the query table.
const GOLDEN_V8: &str = "tests/fixtures/golden-snapshot-v8.bin";

/// Small and inline so the golden file stays a few KiB; HNSW so it pins `instant-distance`'s layout too.
fn golden_index() -> IndexedCorpus {
    let files = [
        (
            "vesta.md",
            "---\ntitle: Vesta\ntype: asteroid\norbits: \"[[Sun]]\"\n---\n# Vesta\n\nVesta is the second-largest body \
             in the asteroid belt. It orbits the [[Sun]] every 3.6 years.\n\n## Dawn\n\nThe Dawn probe orbited Vesta \
             in 2011 and mapped its south-pole crater.\n",
        ),
        ("sun.txt", "Sun\n\nThe Sun is the star at the centre of the Solar System.\n"),
    ];
    let files: Vec<SourceFile> = files.iter().map(|(name, text)| SourceFile::new(*name, text.as_bytes())).collect();
    let report = corpus::ingest(&files, &CorpusSettings::default());
    let embedder = common::embedder();
    let settings = IndexSettings { hnsw_threshold: 0, ..IndexSettings::default() };
    let mut builder =
        IndexBuilder::new(report.documents, embedder, embedder.identity().clone(), settings, None, Vectors::All);
    builder.embed_all(embedder).unwrap();
    builder.finish()
}

fn round_trips(bytes: &[u8]) -> Result<(), String> {
    let index = IndexedCorpus::from_snapshot(bytes).map_err(|e| e.to_string())?;
    let again = index.to_snapshot().map_err(|e| e.to_string())?;
    if again == bytes { Ok(()) } else { Err("re-encoding it changes its bytes".into()) }
}

fn format_version(bytes: &[u8]) -> u32 {
    u32::from_le_bytes(bytes[8..12].try_into().unwrap())
}

fn bless(path: &std::path::Path) {
    if let Ok(old) = std::fs::read(path)
        && format_version(&old) == FORMAT_VERSION
        && let Err(problem) = round_trips(&old)
    {
        panic!(
            "the golden snapshot of format version {FORMAT_VERSION} no longer round-trips ({problem}): bump \
             FORMAT_VERSION before re-blessing (or delete {GOLDEN} if no build with this version has been released)"
        );
    }
    std::fs::write(path, golden_index().to_snapshot().unwrap()).unwrap();
}

#[test]
fn golden_snapshot_pins_the_layout() {
    let path = common::root().join(GOLDEN);
    if std::env::var_os("QUIRE_BLESS").is_some() {
        bless(&path);
    }
    let golden = std::fs::read(&path).unwrap_or_else(|e| panic!("{GOLDEN}: {e}"));
    assert_eq!(
        format_version(&golden),
        FORMAT_VERSION,
        "FORMAT_VERSION changed: re-bless {GOLDEN} (QUIRE_BLESS=1 cargo test --test integration snapshot::golden)"
    );
    if let Err(problem) = round_trips(&golden) {
        panic!(
            "{GOLDEN} no longer round-trips ({problem}): the snapshot layout changed; bump FORMAT_VERSION, then re-bless"
        );
    }
    let index = IndexedCorpus::from_snapshot(&golden).unwrap();
    assert_eq!(index.chunk_index().kind(), VectorIndexKind::Hnsw);
    // What it decodes to is what indexing the same files gives today, and it answers from the right chunk.
    assert_eq!(
        structure(index.corpus()),
        structure(golden_index().corpus()),
        "indexing the golden files now gives another structure: if ingest changed on purpose, re-bless {GOLDEN}"
    );
    let question = "When did the Dawn probe orbit Vesta?";
    let vector = common::embedder().embed(&[question]).unwrap().remove(0);
    for method in Method::catalogue() {
        let hits = method.rank(&index, Query::new(question, &vector), 3).into_chunks();
        assert!(!hits.is_empty(), "{}", method.name());
        assert!(hits.windows(2).all(|w| w[0].score >= w[1].score), "{} ranks best first", method.name());
    }
    for name in ["dense", "bm25", "rrf", "zsum"] {
        let top = Method::parse(name).unwrap().rank(&index, Query::new(question, &vector), 1).into_chunks()[0].chunk;
        assert!(index.corpus().chunk_text(top).contains("The Dawn probe orbited Vesta in 2011"), "{name}");
    }
    // Its query table, decoded, answers by meaning without the model as the table indexing trains today.
    assert_eq!(index.query_table().unwrap().len(), index.bm25().term_count());
    let by_table = TableQueries::of(&index).unwrap().embed_query(question).unwrap();
    let top = Method::parse("dense").unwrap().rank(&index, Query::new(question, &by_table), 1).into_chunks()[0].chunk;
    assert!(index.corpus().chunk_text(top).contains("The Dawn probe orbited Vesta in 2011"));
}

/// A version-8 file was written before indexing trained a query table: it loads without one, says so when
/// asked by the table, and answers by the model as it did.
#[test]
fn a_version_8_snapshot_loads_without_a_query_table() {
    let old = std::fs::read(common::root().join(GOLDEN_V8)).unwrap_or_else(|e| panic!("{GOLDEN_V8}: {e}"));
    assert_eq!(format_version(&old), 8);
    let index = IndexedCorpus::from_snapshot(&old).unwrap();
    assert!(index.query_table().is_none());
    assert_eq!(TableQueries::of(&index).err(), Some(NoQueryTable));
    assert_eq!(structure(index.corpus()), structure(golden_index().corpus()));
    let question = "When did the Dawn probe orbit Vesta?";
    let vector = common::embedder().embed(&[question]).unwrap().remove(0);
    let top = Method::parse("dense").unwrap().rank(&index, Query::new(question, &vector), 1).into_chunks()[0].chunk;
    assert!(index.corpus().chunk_text(top).contains("The Dawn probe orbited Vesta in 2011"));
    let saved = index.to_snapshot().unwrap();
    assert_eq!(format_version(&saved), FORMAT_VERSION, "saved again, it is written in the current version");
    assert!(IndexedCorpus::from_snapshot(&saved).unwrap().query_table().is_none());
}

type Structure =
    (Vec<(String, String)>, Vec<(u32, Option<u32>, u8)>, Vec<(u32, Option<u32>, u32, u32)>, Vec<(u32, u32, u32)>);

/// A corpus without its names: each document's text, the section tree, the chunks, the mentions.
fn structure(corpus: &quire::corpus::Corpus) -> Structure {
    (
        corpus.documents.iter().map(|d| (d.source.clone(), d.text.clone())).collect(),
        corpus.sections.iter().map(|s| (s.document, s.parent, s.depth)).collect(),
        corpus.chunks.iter().map(|c| (c.document, c.section, c.span.start, c.span.end)).collect(),
        corpus.mentions.iter().map(|m| (m.chunk, m.entity, m.span.start)).collect(),
    )
}

#[test]
fn a_version_5_snapshot_loads_with_every_vector_it_held() {
    let old = std::fs::read(common::root().join(GOLDEN_V5)).unwrap_or_else(|e| panic!("{GOLDEN_V5}: {e}"));
    assert_eq!(format_version(&old), 5);
    let index = IndexedCorpus::from_snapshot(&old).unwrap();
    assert_eq!(index.vectors(), Vectors::All);
    assert_eq!(index.rows().pages.len(), index.corpus().documents.len());
    let question = "When did the Dawn probe orbit Vesta?";
    let vector = common::embedder().embed(&[question]).unwrap().remove(0);
    let pages = Method::parse("page").unwrap().rank(&index, Query::new(question, &vector), 3).into_chunks();
    assert!(!pages.is_empty(), "its page vectors are searched as they were");
    let saved = index.to_snapshot().unwrap();
    assert_eq!(format_version(&saved), FORMAT_VERSION, "saved again, it is written in the current version");
    assert_eq!(IndexedCorpus::from_snapshot(&saved).unwrap().vectors(), Vectors::All);
}

/// Every document of a version-7 file was analysed as English: it loads so, and answers by words as it did.
#[test]
fn a_version_7_snapshot_loads_its_documents_as_english() {
    let old = std::fs::read(common::root().join(GOLDEN_V7)).unwrap_or_else(|e| panic!("{GOLDEN_V7}: {e}"));
    assert_eq!(format_version(&old), 7);
    let index = IndexedCorpus::from_snapshot(&old).unwrap();
    assert!(index.corpus().documents.iter().all(|d| d.language == quire::language::Language::English));
    assert_eq!(index.languages(), [quire::language::Language::English]);
    assert_eq!(structure(index.corpus()), structure(golden_index().corpus()));
    let question = "When did the Dawn probe orbit Vesta?";
    let top = Method::parse("bm25").unwrap().rank(&index, Query::new(question, &[]), 1).into_chunks()[0].chunk;
    assert!(index.corpus().chunk_text(top).contains("The Dawn probe orbited Vesta in 2011"));
    let saved = index.to_snapshot().unwrap();
    assert_eq!(format_version(&saved), FORMAT_VERSION, "saved again, it is written in the current version");
    assert_eq!(IndexedCorpus::from_snapshot(&saved).unwrap().corpus(), index.corpus());
}

#[test]
fn a_snapshot_of_chunk_vectors_has_no_row_for_another_node() {
    let files =
        [SourceFile::new("sun.txt", b"Sun\n\nThe Sun is the star at the centre of the Solar System.\n".to_vec())];
    let report = corpus::ingest(&files, &CorpusSettings::default());
    let embedder = common::embedder();
    let identity = embedder.identity().clone();
    let mut builder =
        IndexBuilder::new(report.documents, embedder, identity, IndexSettings::default(), None, Vectors::Chunks);
    builder.embed_all(embedder).unwrap();
    let index = builder.finish();
    assert!(index.rows().pages.is_empty() && index.rows().entities.is_empty());
    let bytes = index.to_snapshot().unwrap();
    assert_eq!(IndexedCorpus::from_snapshot(&bytes).unwrap().vectors(), Vectors::Chunks);
}

#[test]
fn a_version_4_snapshot_gains_the_chunk_graph_on_load() {
    let path = common::root().join(GOLDEN_V4);
    let old = std::fs::read(&path).unwrap_or_else(|e| panic!("{GOLDEN_V4}: {e}"));
    assert_eq!(format_version(&old), 4);
    let upgraded = IndexedCorpus::from_snapshot(&old).unwrap();
    // Built from the stored vectors, it is the graph indexing builds from them, to the bit.
    assert_eq!(upgraded.chunk_graph(), &upgraded.rebuild_chunk_graph());
    // And it has the structure indexing the same files today gives (its floats may differ in the last bit:
    // the embedder's kernels depend on the CPU). Names may differ: titles are chosen better than when the
    // file was written (`sun.txt` is named "Sun" by its heading now, "sun" by its file name then).
    let fresh = golden_index();
    assert_eq!(structure(upgraded.corpus()), structure(fresh.corpus()));
    assert_eq!(upgraded.chunk_graph().communities, fresh.chunk_graph().communities);
    assert_eq!(upgraded.chunk_graph().community_of, fresh.chunk_graph().community_of);
    assert!(!upgraded.chunk_graph().communities.is_empty());
    let saved = upgraded.to_snapshot().unwrap();
    assert_eq!(format_version(&saved), FORMAT_VERSION, "saved again, it is written in the current version");
    assert_eq!(IndexedCorpus::from_snapshot(&saved).unwrap().chunk_graph(), upgraded.chunk_graph());
}

/// An export written in pieces (the page's engine writes it into the page's buffer): the same file as
/// `to_snapshot`, each byte written once, the header (with the payload's checksum) last.
#[test]
fn a_snapshot_written_in_pieces_is_the_same_file_header_last() {
    struct Recorded {
        file: Vec<u8>,
        writes: Vec<(usize, usize)>,
        allocated: usize,
    }
    impl SnapshotSink for Recorded {
        fn allocate(&mut self, len: usize) {
            self.allocated = len;
            self.file = vec![0xAA; len];
        }
        fn write_at(&mut self, offset: usize, bytes: &[u8]) {
            self.writes.push((offset, bytes.len()));
            self.file[offset..offset + bytes.len()].copy_from_slice(bytes);
        }
    }
    let index = hnsw_demo();
    let mut sink = Recorded { file: Vec::new(), writes: Vec::new(), allocated: 0 };
    index.write_snapshot(&mut sink).unwrap();
    assert_eq!(sink.file, index.to_snapshot().unwrap());
    assert_eq!(sink.allocated, sink.file.len());
    assert_eq!(sink.writes.last(), Some(&(0, HEADER_LEN)), "the header comes last");
    let mut covered = vec![0u8; sink.file.len()];
    for &(offset, len) in &sink.writes {
        assert!(len <= PIECE_BYTES);
        covered[offset..offset + len].iter_mut().for_each(|byte| *byte += 1);
    }
    assert!(covered.iter().all(|&times| times == 1), "every byte is written once");
    assert!(IndexedCorpus::from_snapshot(&sink.file).is_ok());
}
