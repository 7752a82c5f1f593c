//! An index split into fragments for a static host (`store::fragments`) answers by words and through the
//! graph as the whole index does: the same documents, chunks, scores, texts, trace and teaching graph for
//! every question, fetching the graph once and only the term buckets and text runs each question needs. By meaning, its partitioned vectors find what exact search
//! finds when every partition is scanned, scored alike, and the hybrid of dense and BM25 over them is the
//! whole index's; scanning fewer fetches only the nearest partitions. A fragment of another index, a
//! damaged one or one under another part's name is refused, and no byte of a fragment makes the reader
//! panic.

use crate::common;

use std::collections::HashMap;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};

use proptest::prelude::*;
use proptest::test_runner::TestRunner;
use quire::corpus::{DocId, SourceFile};
use quire::embed::TextEmbedder;
use quire::index::{VectorIndex, VectorIndexKind};
use quire::retrieve::over_fragments::{self, Ranked};
use quire::retrieve::{DocumentHit, Fusion, Method, Query, Retriever, Step, Trace, document_depth};
use quire::store::fragments::{self, Fragment, FragmentError, FragmentedIndex, LEXICON, Sizes};
use quire::store::{IndexBuilder, IndexSettings, IndexedCorpus, Vectors};

/// Small parts, so that the demo corpus spans many buckets and runs.
const SMALL: Sizes = Sizes { bucket_bytes: 128, text_run_bytes: 256, partition_bytes: 800 };

/// Signature, version, index id and checksum (`store::fragments`).
const HEADER_LEN: usize = 8 + 4 + 16 + 32;

const PASSAGE: &str = "Spring tides happen when the Sun, the Moon and the Earth line up, at new and full moon, twice \
                       a month; the range between high and low water is then at its largest, and harbour pilots \
                       plan the deepest ships around them.";

/// The demo corpus, with a guide and a mail that forwards a passage of it (a copy, shown "also in").
fn index() -> &'static IndexedCorpus {
    static INDEX: OnceLock<IndexedCorpus> = OnceLock::new();
    INDEX.get_or_init(|| {
        let mut files = common::demo_files();
        let guide = format!(
            "# Tides\n\n## Spring tides\n\n{PASSAGE}\n\n## Neap tides\n\nNeap tides come at the quarter moons, when \
             the Sun and the Moon pull at right angles and the range is smallest.\n"
        );
        files.push(SourceFile::new("guide/tides.md", guide));
        let mail = format!("# Fwd: tides for Thursday\n\nHi all, see below.\n\n{PASSAGE}\n");
        files.push(SourceFile::new("mail/fwd-tides.md", mail));
        let settings = IndexSettings::default();
        let report = quire::corpus::ingest(&files, &settings.corpus);
        assert!(report.errors.is_empty(), "{:?}", report.errors);
        let embedder = common::embedder();
        let mut builder =
            IndexBuilder::new(report.documents, embedder, embedder.identity().clone(), settings, None, Vectors::Chunks);
        builder.embed_all(embedder).unwrap();
        builder.finish()
    })
}

fn split(index: &IndexedCorpus, sizes: Sizes) -> HashMap<String, Vec<u8>> {
    fragments::split(index, &index.to_snapshot().unwrap(), sizes).unwrap().into_iter().collect()
}

/// What the engine by words does for a question: the buckets of its terms, its ranking, the runs of what it
/// shows, then the answer; and the paths it fetched.
fn answer(
    fragmented: &mut FragmentedIndex,
    files: &HashMap<String, Vec<u8>>,
    question: &str,
    documents: usize,
) -> ((Vec<DocumentHit>, Trace), Vec<String>) {
    answer_with(fragmented, files, question, documents, None)
}

/// As [`answer`], by meaning, as the full engine does: the centroids and the partitions too.
fn answer_by_meaning(
    fragmented: &mut FragmentedIndex,
    files: &HashMap<String, Vec<u8>>,
    question: &str,
    documents: usize,
) -> ((Vec<DocumentHit>, Trace), Vec<String>) {
    let vector = common::embedder().embed(&[question]).unwrap().remove(0);
    answer_with(fragmented, files, question, documents, Some(&vector))
}

fn answer_with(
    fragmented: &mut FragmentedIndex,
    files: &HashMap<String, Vec<u8>>,
    question: &str,
    documents: usize,
    vector: Option<&[f32]>,
) -> ((Vec<DocumentHit>, Trace), Vec<String>) {
    let mut fetched = Vec::new();
    let mut fetch = |fragmented: &mut FragmentedIndex, wanted: Vec<Fragment>| {
        for fragment in wanted {
            fragmented.add(fragment, &files[&fragment.path()]).unwrap();
            fetched.push(fragment.path());
        }
    };
    match vector {
        // The groups' centroids, then the groups they point to, then those groups' partitions.
        Some(vector) => {
            fetch(fragmented, fragmented.missing_for_query(question));
            fetch(fragmented, fragmented.missing_for_meaning(vector));
            fetch(fragmented, fragmented.missing_for_meaning(vector));
            fetch(fragmented, fragmented.missing_for_meaning(vector));
        }
        // The graph, then the buckets of the community summaries.
        None => {
            fetch(fragmented, fragmented.missing_for_words(question));
            fetch(fragmented, fragmented.missing_for_words(question));
        }
    }
    let query = Query::new(question, vector.unwrap_or_default());
    assert!(over_fragments::missing(fragmented, query).is_empty(), "what the worker fetches is what ranking reads");
    let ranked = over_fragments::ranked(fragmented, query, documents)
        .expect("its buckets, centroids and partitions were fetched");
    fetch(fragmented, fragmented.missing_for_chunks(ranked.shown_chunks(fragmented)));
    (ranked.finish(fragmented).expect("its runs were fetched"), fetched)
}

fn questions() -> Vec<String> {
    let listed: Vec<serde_json::Value> =
        serde_json::from_slice(&std::fs::read(common::root().join("public/demo/questions.json")).unwrap()).unwrap();
    let mut questions: Vec<String> = listed.iter().map(|q| q["text"].as_str().unwrap().to_string()).collect();
    questions.extend(index().corpus().documents.iter().map(|d| d.title.clone()));
    questions.extend(
        ["When is the range between high and low water largest?", "moon", "zzzz unknown words", "", "the of and"]
            .map(String::from),
    );
    questions
}

#[test]
fn fragments_answer_by_words_as_the_whole_index_does() {
    let index = index();
    let (mut joined, mut communities) = (0, 0);
    for sizes in [SMALL, Sizes::default()] {
        let files = split(index, sizes);
        let mut fragmented = FragmentedIndex::open(&files[LEXICON]).unwrap();
        assert_eq!(fragmented.summary(), &index.summary());
        for question in questions() {
            for documents in [1, 3, 10] {
                let whole = Method::Words
                    .rank(index, Query::new(&question, &[]), document_depth(documents))
                    .grouped(index, documents);
                let (by_fragments, _) = answer(&mut fragmented, &files, &question, documents);
                assert_eq!(by_fragments, whole, "{question:?} at {documents}");
                let trace = &whole.1;
                assert_eq!(over_fragments::trace_graph(&fragmented, trace), trace.graph(index.corpus()));
                for retriever in &trace.retrievers {
                    for step in &retriever.steps {
                        match step {
                            Step::Seeds { note, nodes } if note.starts_with("entities named") => {
                                joined += usize::from(!nodes.is_empty())
                            }
                            Step::Expand { relation, .. } if relation == "comm_similar_to" => communities += 1,
                            _ => {}
                        }
                    }
                }
                for hit in &whole.0 {
                    for chunk in std::iter::once(&hit.best).chain(&hit.more) {
                        assert_eq!(fragmented.chunk_view(chunk.chunk), Some(index.chunk_view(chunk.chunk)));
                    }
                }
            }
        }
    }
    // The graph took part: questions naming pages joined from them, and communities led to their neighbours.
    assert!(joined > 10 && communities > 10, "{joined} joins from named entities, {communities} community hops");
}

/// A site of German and Japanese pages answers by words as its whole index does, each question analysed in
/// both languages, and marks the question's words in its own language's excerpt.
#[test]
fn fragments_of_two_languages_answer_by_words_as_the_whole_index_does() {
    let german = "# Paketverwaltung\n\nDie Paketverwaltung installiert Programme aus den Archiven, löst ihre \
                  Abhängigkeiten auf und hält das System auf dem neuesten Stand.\n\n## Bandbreite\n\nDie \
                  Download-Bandbreite von APT wird mit der Option Acquire::http::Dl-Limit begrenzt.\n";
    let japanese = "# パッケージ管理\n\nパッケージ管理システムは、アーカイブからプログラムをインストールし、依存関係を\
                    解決します。\n\n## 帯域幅\n\nAPT のダウンロードの帯域幅は Acquire::http::Dl-Limit で制限します。\n";
    let files = [SourceFile::new("de/pakete.md", german), SourceFile::new("ja/pakete.md", japanese)];
    let settings = IndexSettings::default();
    let report = quire::corpus::ingest(&files, &settings.corpus);
    let embedder = common::embedder();
    let mut builder =
        IndexBuilder::new(report.documents, embedder, embedder.identity().clone(), settings, None, Vectors::Chunks);
    builder.embed_all(embedder).unwrap();
    let index = builder.finish();
    use quire::language::Language;
    assert_eq!(index.languages(), [Language::German, Language::Japanese]);
    let files = split(&index, SMALL);
    let mut fragmented = FragmentedIndex::open(&files[LEXICON]).unwrap();
    for (question, source) in
        [("Wie begrenze ich die Bandbreite?", "de/pakete.md"), ("帯域幅を制限するには", "ja/pakete.md")]
    {
        let whole = Method::Words.rank(&index, Query::new(question, &[]), document_depth(2)).grouped(&index, 2);
        let (by_fragments, _) = answer(&mut fragmented, &files, question, 2);
        assert_eq!(by_fragments, whole, "{question}");
        let best = &whole.0[0].best;
        assert_eq!(
            index.corpus().documents[index.corpus().chunks[best.chunk as usize].document as usize].source,
            source
        );
        let view = fragmented.chunk_view(best.chunk).unwrap();
        assert_eq!(view, index.chunk_view(best.chunk));
        let excerpt = quire::index::excerpt::Excerpts::for_question(question).of(&view.text, view.language);
        assert!(excerpt.iter().any(|piece| piece.marked), "{question}: {excerpt:?}");
    }
}

/// The demo corpus is far below [`fragments::PROBED_VECTORS`]: every partition is scanned, and the answer
/// is exactly the whole index's.
#[test]
fn fragments_answer_by_meaning_as_the_whole_index_does_when_every_partition_is_scanned() {
    let index = index();
    assert!(index.corpus().chunks.len() < fragments::PROBED_VECTORS);
    let hybrid = Method::Fused { fusion: Fusion::Zsum, inputs: vec![(Retriever::Dense, 1.0), (Retriever::Bm25, 1.0)] };
    let exact =
        VectorIndex::build_kind(index.embeddings().vectors(), index.rows().chunks.clone(), VectorIndexKind::Flat);
    for sizes in [SMALL, Sizes::default()] {
        let files = split(index, sizes);
        let mut fragmented = FragmentedIndex::open(&files[LEXICON]).unwrap();
        for question in questions() {
            let vector = common::embedder().embed(&[question.as_str()]).unwrap().remove(0);
            for documents in [1, 3, 10] {
                let whole = hybrid
                    .rank(index, Query::new(&question, &vector), document_depth(documents))
                    .grouped(index, documents);
                let (by_fragments, _) = answer_by_meaning(&mut fragmented, &files, &question, documents);
                assert_eq!(by_fragments, whole, "{question:?} at {documents}");
            }
            let nearest = exact.search(index.embeddings().vectors(), &vector, 10);
            assert_eq!(fragmented.dense_hits(&vector, 10), Some(nearest), "{question:?}");
        }
        assert_eq!(fragmented.model(), Some(index.model()));
    }
}

/// The term buckets carry the query table's rows: the buckets a question fetches by words give its vector
/// by meaning, the whole index's to the bit, and the hybrid over that vector is the whole index's answer,
/// without the model.
#[test]
fn fragments_give_a_question_the_query_tables_vector_as_the_whole_index_does() {
    let index = index();
    assert!(index.query_table().is_some());
    let hybrid = over_fragments::method(Query::new("", &[1.0]));
    for sizes in [SMALL, Sizes::default()] {
        let files = split(index, sizes);
        let mut fragmented = FragmentedIndex::open(&files[LEXICON]).unwrap();
        assert!(fragmented.has_query_table());
        for question in questions() {
            let whole = index.table_vector(&question);
            if !fragmented.missing_for_query(&question).is_empty() {
                assert_eq!(fragmented.table_vector(&question), None, "{question:?}: its buckets are not fetched");
            }
            answer(&mut fragmented, &files, &question, 1);
            assert_eq!(fragmented.table_vector(&question), Some(whole.clone()), "{question:?}");
            let Some(vector) = whole else { continue };
            let expected = hybrid.rank(index, Query::new(&question, &vector), document_depth(3)).grouped(index, 3);
            let (by_fragments, _) = answer_with(&mut fragmented, &files, &question, 3, Some(&vector));
            assert_eq!(by_fragments, expected, "{question:?}");
            // The site search's ranking, which names no other retriever, is the same hybrid.
            let query = Query::new(&question, &vector);
            assert_eq!(over_fragments::hybrid(&fragmented, query, 3), Some(expected.0.clone()), "{question:?}");
        }
    }
}

/// Scanning a few vectors fetches the centroids of the nearest groups and the partitions of the nearest
/// of those centroids only, and still finds the chunk a question is about.
#[test]
fn a_question_by_meaning_fetches_the_nearest_partitions_only() {
    let index = index();
    let files = split(index, SMALL);
    let partitions = files.keys().filter(|path| path.starts_with("vectors/") && !path.contains("centroids")).count();
    assert!(partitions > 10, "{partitions} partitions");
    let mut fragmented = FragmentedIndex::open(&files[LEXICON]).unwrap();
    fragmented.probe(4);
    let question = "Which planet has the Great Red Spot?";
    let ((hits, _), fetched) = answer_by_meaning(&mut fragmented, &files, question, 3);
    assert_eq!(fragmented.chunk_view(hits[0].best.chunk).unwrap().source, "jupiter.html");
    let scanned = fetched.iter().filter(|path| path.starts_with("vectors/") && !path.contains("centroids")).count();
    assert!((1..partitions / 2).contains(&scanned), "{scanned} of {partitions} partitions: {fetched:?}");
    // Scanning fewer, the centroids of the nearest groups only: not every partition's.
    let groups = files.keys().filter(|path| path.starts_with("centroids/")).count();
    let mut fewer = FragmentedIndex::open(&files[LEXICON]).unwrap();
    fewer.probe(1);
    let (_, fetched_fewer) = answer_by_meaning(&mut fewer, &files, question, 3);
    let read = fetched_fewer.iter().filter(|path| path.starts_with("centroids/")).count();
    assert!(groups > 2 && (1..groups).contains(&read), "{read} of {groups} groups' centroids: {fetched_fewer:?}");
    let vector = common::embedder().embed(&[question]).unwrap().remove(0);
    assert!(fragmented.missing_for_meaning(&vector).is_empty(), "asked again, it fetches nothing");
}

#[test]
fn a_question_fetches_only_the_parts_it_needs() {
    let index = index();
    let files = split(index, SMALL);
    let buckets = files.keys().filter(|path| path.starts_with("terms/")).count();
    let runs = files.keys().filter(|path| path.starts_with("texts/")).count();
    assert!(buckets > 20 && runs > 10, "{buckets} buckets and {runs} runs");
    let mut fragmented = FragmentedIndex::open(&files[LEXICON]).unwrap();
    let ((hits, _), fetched) = answer(&mut fragmented, &files, "Which planet has the Great Red Spot?", 3);
    assert_eq!(index.chunk_view(hits[0].best.chunk).source, "jupiter.html");
    let terms = fetched.iter().filter(|path| path.starts_with("terms/")).count();
    assert!((1..=5).contains(&terms), "a bucket per term at most: {fetched:?}");
    assert!(fetched.len() < buckets / 2 + runs / 2, "{fetched:?}");
    let (_, again) = answer(&mut fragmented, &files, "Which planet has the Great Red Spot?", 3);
    assert!(again.is_empty(), "a question asked again fetches nothing: {again:?}");
}

#[test]
fn a_copied_passage_is_one_result_also_in_its_copy() {
    let index = index();
    let files = split(index, SMALL);
    let mut fragmented = FragmentedIndex::open(&files[LEXICON]).unwrap();
    let ((hits, _), _) = answer(&mut fragmented, &files, "When is the range between high and low water largest?", 3);
    let best = fragmented.chunk_view(hits[0].best.chunk).unwrap();
    assert_eq!(best.source, "guide/tides.md");
    let also_in: Vec<String> = hits[0].also_in.iter().map(|&d| fragmented.source(d)).collect();
    assert_eq!(also_in, ["mail/fwd-tides.md"]);
}

#[test]
fn a_fragment_of_another_index_a_damaged_one_or_a_misplaced_one_is_refused() {
    let index = index();
    let files = split(index, SMALL);
    let other = common::index_files(&[("notes.md", "# Notes\n\nThe moon and the tides.\n")], IndexSettings::default());
    let other_files = split(&other, SMALL);
    let mut fragmented = FragmentedIndex::open(&files[LEXICON]).unwrap();
    let bucket = fragmented.missing_for_query("moon")[0];
    assert_eq!(fragmented.add(bucket, &other_files["terms/000.bin"]), Err(FragmentError::OtherIndex));
    let mut damaged = files[&bucket.path()].clone();
    *damaged.last_mut().unwrap() ^= 1;
    assert_eq!(fragmented.add(bucket, &damaged), Err(FragmentError::ChecksumMismatch));
    let elsewhere = files.keys().find(|path| path.starts_with("terms/") && **path != bucket.path()).unwrap();
    assert!(matches!(fragmented.add(bucket, &files[elsewhere]), Err(FragmentError::Inconsistent(_))));
    assert!(matches!(
        fragmented.add(Fragment::Texts(0), &files[&bucket.path()]),
        Err(FragmentError::Decode(_)) | Err(FragmentError::Inconsistent(_))
    ));
    assert_eq!(FragmentedIndex::open(&files[LEXICON][..40]).err(), Some(FragmentError::NotAFragment));
    assert!(
        over_fragments::ranked(&fragmented, Query::new("moon", &[]), 3).is_none(),
        "no ranking without its buckets"
    );
}

/// One damage done to fragments: a cut at `at`, or the byte there flipped by `value` (at least one bit),
/// `at` taken modulo the file's length; then the checksum recomputed (`reframe`), or not.
#[derive(Clone, Copy, Debug)]
struct Damage {
    at: usize,
    value: u8,
    cut: bool,
    reframe: bool,
}

/// What reading a damaged file must give.
#[derive(Debug, PartialEq)]
enum Expected {
    /// Taken in: the file is as written.
    Read,
    /// Taken in as a lexicon of another index: its id is not under the checksum. Every other part is then
    /// another index's.
    OtherId,
    Refused(FragmentError),
    /// Cut short behind a valid header: the decoder runs out of bytes.
    Undecodable,
    /// A changed body behind a valid checksum: the decoder and the checks behind it take it in or refuse it.
    Checked,
}

impl Damage {
    fn apply(self, bytes: &[u8]) -> Vec<u8> {
        let mut bytes = bytes.to_vec();
        let at = self.at % bytes.len();
        if self.cut {
            bytes.truncate(at)
        } else {
            bytes[at] ^= self.value.max(1)
        }
        // Mostly past the checksum, so that the decoder and the checks behind it see the change.
        if self.reframe && bytes.len() >= HEADER_LEN {
            let checksum = *blake3::hash(&bytes[HEADER_LEN..]).as_bytes();
            bytes[HEADER_LEN - 32..HEADER_LEN].copy_from_slice(&checksum);
        }
        bytes
    }

    /// What reading `original` so damaged gives, from where the damage fell: the header is read in order
    /// (signature, version, index id, checksum), and a part must carry the id of the lexicon read before it.
    fn expected(self, original: &[u8], is_part: bool) -> Expected {
        let at = self.at % original.len();
        let refused = Expected::Refused;
        match at {
            _ if self.cut && at < HEADER_LEN => refused(FragmentError::NotAFragment),
            _ if self.cut && !self.reframe => refused(FragmentError::ChecksumMismatch),
            _ if self.cut => Expected::Undecodable,
            0..8 => refused(FragmentError::NotAFragment),
            8..12 => {
                let mut version: [u8; 4] = original[8..12].try_into().unwrap();
                version[at - 8] ^= self.value.max(1);
                refused(FragmentError::UnsupportedVersion { found: u32::from_le_bytes(version) })
            }
            12..28 if is_part => refused(FragmentError::OtherIndex),
            12..28 => Expected::OtherId,
            // The recomputed checksum overwrites the flipped byte.
            28..HEADER_LEN if self.reframe => Expected::Read,
            _ if !self.reframe => refused(FragmentError::ChecksumMismatch),
            _ => Expected::Checked,
        }
    }
}

/// That reading `path` gave what was `expected` of it.
fn check(path: &str, result: Result<(), &FragmentError>, expected: &Expected) {
    let fits = match expected {
        Expected::Read | Expected::OtherId => result.is_ok(),
        Expected::Refused(error) => result == Err(error),
        Expected::Undecodable => matches!(result, Err(FragmentError::Decode(_))),
        Expected::Checked => matches!(result, Ok(()) | Err(FragmentError::Decode(_) | FragmentError::Inconsistent(_))),
    };
    assert!(fits, "{path}: {result:?} where {expected:?} was expected");
}

/// The fragments as a page reads them, the damage done to the parts `which` picks (0 the lexicon, 1 the
/// term buckets, 2 the text runs, 3 the documents, the graph and its summaries, 4 the centroids, their groups
/// and the partitions), each
/// outcome checked against what the damage calls for.
struct Reader {
    files: &'static HashMap<String, Vec<u8>>,
    damage: Damage,
    which: usize,
    index: FragmentedIndex,
    /// The lexicon's id was damaged: every other part is another index's.
    other_id: bool,
    /// A damaged body was taken in: answers may differ from the whole index's, and undamaged parts may be
    /// refused as inconsistent with it.
    tainted: bool,
    /// Parts refused so far (they stay missing).
    refusals: usize,
}

impl Reader {
    fn open(damage: Damage, which: usize) -> Option<Reader> {
        let files = small_files();
        let original = &files[LEXICON];
        let (bytes, expected) = if which == 0 {
            (damage.apply(original), damage.expected(original, false))
        } else {
            (original.clone(), Expected::Read)
        };
        let opened = FragmentedIndex::open(&bytes);
        check(LEXICON, opened.as_ref().map(|_| ()), &expected);
        let (other_id, tainted) = (expected == Expected::OtherId, expected == Expected::Checked);
        Some(Reader { files, damage, which, index: opened.ok()?, other_id, tainted, refusals: 0 })
    }

    fn damages(&self, fragment: Fragment) -> bool {
        let which = match fragment {
            Fragment::Terms(_) => 1,
            Fragment::Texts(_) => 2,
            Fragment::Documents | Fragment::Graph | Fragment::Summaries(_) => 3,
            Fragment::Centroids | Fragment::CentroidGroup(_) | Fragment::Vectors(_) => 4,
        };
        self.which == which
    }

    /// Fetches `wanted`, three times over (what the first parts name comes second, and what those name
    /// third); whether all were taken in.
    fn fetch(&mut self, wanted: impl Fn(&FragmentedIndex) -> Vec<Fragment>) -> bool {
        let before = self.refusals;
        for _ in 0..3 {
            wanted(&self.index).into_iter().for_each(|fragment| self.add(fragment));
        }
        self.refusals == before
    }

    fn add(&mut self, fragment: Fragment) {
        let path = fragment.path();
        let Some(original) = self.files.get(&path) else {
            assert!(self.tainted, "an undamaged lexicon names {path}, which the split did not write");
            self.refusals += 1;
            return;
        };
        let damaged = self.damages(fragment);
        let expected = if self.other_id {
            Expected::Refused(FragmentError::OtherIndex)
        } else if damaged {
            self.damage.expected(original, true)
        } else {
            Expected::Read
        };
        // A part read after a damaged body was taken in may disagree with it; the graph, read after the
        // documents were refused, has no pages to name.
        let orphan = fragment == Fragment::Graph && self.index.documents().is_empty();
        let expected =
            if expected == Expected::Read && (self.tainted || orphan) { Expected::Checked } else { expected };
        let bytes = if damaged { self.damage.apply(original) } else { original.clone() };
        let added = self.index.add(fragment, &bytes);
        check(&path, added.as_ref().copied(), &expected);
        self.tainted |= added.is_ok() && expected == Expected::Checked;
        self.refusals += usize::from(added.is_err());
    }

    /// Fetches the runs `ranked` shows and finishes it: an answer exactly when they were all taken in, and
    /// then the whole index's `whole` unless damaged parts were taken in.
    fn finish(&mut self, ranked: Ranked, whole: &(Vec<DocumentHit>, Trace)) -> Option<Vec<DocumentHit>> {
        let shown = ranked.shown_chunks(&self.index);
        let fetched = self.fetch(|index| index.missing_for_chunks(shown.iter().copied()));
        let answer = ranked.finish(&self.index);
        match self.tainted {
            true => assert!(fetched || answer.is_none(), "answered without its runs"),
            false => {
                assert_eq!(answer.is_some(), fetched, "answered exactly when its runs were taken in");
                assert!(answer.as_ref().is_none_or(|answer| answer == whole), "{answer:?}");
            }
        }
        let (hits, _) = answer?;
        self.check_hits(&hits);
        Some(hits)
    }

    /// At most three documents, each once, named by chunks and copies the lexicon has.
    fn check_hits(&self, hits: &[DocumentHit]) {
        let (chunks, documents) = (self.index.summary().chunks, self.index.summary().documents as DocId);
        assert!(hits.len() <= 3, "{hits:?}");
        let named: std::collections::HashSet<DocId> =
            hits.iter().map(|hit| self.index.document_of(hit.best.chunk)).collect();
        assert_eq!(named.len(), hits.len(), "{hits:?}");
        for hit in hits {
            assert!(std::iter::once(&hit.best).chain(&hit.more).all(|c| (c.chunk as usize) < chunks), "{hit:?}");
            assert!(hit.also_in.iter().all(|&document| document < documents), "{hit:?}");
        }
    }
}

const ASKED: [&str; 2] = ["moon", "Which planet has the Great Red Spot?"];

fn small_files() -> &'static HashMap<String, Vec<u8>> {
    static FILES: OnceLock<HashMap<String, Vec<u8>>> = OnceLock::new();
    FILES.get_or_init(|| split(index(), SMALL))
}

/// A method's answer: its documents and its trace.
type Answered = (Vec<DocumentHit>, Trace);

/// The whole index's answers to [`ASKED`], by words, then the last by meaning, and that question's vector.
fn whole_answers() -> &'static ([Answered; 3], Vec<f32>) {
    static ANSWERS: OnceLock<([Answered; 3], Vec<f32>)> = OnceLock::new();
    ANSWERS.get_or_init(|| {
        let vector = common::embedder().embed(&[ASKED[1]]).unwrap().remove(0);
        let hybrid =
            Method::Fused { fusion: Fusion::Zsum, inputs: vec![(Retriever::Dense, 1.0), (Retriever::Bm25, 1.0)] };
        let by_words =
            |question| Method::Words.rank(index(), Query::new(question, &[]), document_depth(3)).grouped(index(), 3);
        let answers = [
            by_words(ASKED[0]),
            by_words(ASKED[1]),
            hybrid.rank(index(), Query::new(ASKED[1], &vector), document_depth(3)).grouped(index(), 3),
        ];
        (answers, vector)
    })
}

/// How a damaged case ended: refused before an answer, answered as the whole index does, or answered
/// from damaged parts that were taken in.
#[derive(Clone, Copy)]
enum Ending {
    Refused,
    Whole,
    Damaged,
}

/// Reads the fragments with `damage` done to the parts `which` picks, asks [`ASKED`] by words and the last
/// by meaning, and checks every step.
fn ask_damaged(damage: Damage, which: usize) -> Ending {
    let Some(mut reader) = Reader::open(damage, which) else { return Ending::Refused };
    let (whole, vector) = whole_answers();
    let mut answered = false;
    for (question, whole) in ASKED.iter().zip(whole) {
        let fetched = reader.fetch(|index| index.missing_for_words(question));
        let ranked = over_fragments::ranked(&reader.index, Query::new(question, &[]), 3);
        assert_eq!(ranked.is_some(), fetched, "{question}: ranked exactly when its parts were taken in");
        answered |= ranked.and_then(|ranked| reader.finish(ranked, whole)).is_some();
    }
    let fetched = reader.fetch(|index| index.missing_for_meaning(vector));
    let terms = reader.index.missing_for_query(ASKED[1]).is_empty();
    let ranked = over_fragments::ranked(&reader.index, Query::new(ASKED[1], vector), 3);
    assert_eq!(ranked.is_some(), fetched && terms, "ranked by meaning exactly when its parts were taken in");
    answered |= ranked.and_then(|ranked| reader.finish(ranked, &whole[2])).is_some();
    match (answered, reader.tainted) {
        (false, _) => Ending::Refused,
        (true, false) => Ending::Whole,
        (true, true) => Ending::Damaged,
    }
}

/// Flipped or cut fragments are read, or refused with the error the place of the damage calls for; what
/// is read answers: as the whole index does while no damaged body was taken in, and with documents and
/// chunks the index has when one was. Nothing panics, whatever is asked of them.
#[test]
fn no_fragment_makes_the_reader_panic() {
    let strategy = (any::<usize>(), any::<u8>(), any::<bool>(), any::<bool>(), 0usize..5);
    let endings: [AtomicUsize; 3] = Default::default();
    let config = ProptestConfig { cases: 200, failure_persistence: None, ..ProptestConfig::default() };
    let result = TestRunner::new(config).run(&strategy, |(at, value, cut, reframe, which)| {
        let ending = ask_damaged(Damage { at, value, cut, reframe }, which);
        endings[ending as usize].fetch_add(1, Ordering::Relaxed);
        Ok(())
    });
    if let Err(failure) = result {
        panic!("{failure}");
    }
    let [refused, whole, damaged] = endings.map(AtomicUsize::into_inner);
    eprintln!(
        "damaged fragments: {refused} refused, {whole} answered as the whole index, {damaged} from damaged parts"
    );
    // Otherwise the answers' checks above never ran on one side or the other.
    assert!(whole > 0 && damaged > 0, "{whole} answered as the whole index, {damaged} from damaged parts");
}

/// What the site search takes in: every part but the graph's, which it refuses rather than holds unread.
#[test]
fn taking_in_all_but_the_graph_refuses_the_graphs_parts() {
    let files = split(index(), SMALL);
    for path in files.keys().filter(|path| *path != LEXICON) {
        assert_eq!(Fragment::of_path(path).map(Fragment::path).as_ref(), Some(path), "every part is named by its path");
    }
    for path in [LEXICON, "terms/zz.bin", "terms/+1.bin", "texts/1", "other/1.bin", "vectors/"] {
        assert_eq!(Fragment::of_path(path), None, "{path}");
    }
    let mut fragmented = FragmentedIndex::open(&files[LEXICON]).unwrap();
    let graph = &files[&Fragment::Graph.path()];
    assert!(matches!(fragmented.add_except_graph(Fragment::Graph, graph), Err(FragmentError::Inconsistent(_))));
    assert!(fragmented.graph().is_none());
    fragmented.add_except_graph(Fragment::Centroids, &files[&Fragment::Centroids.path()]).unwrap();
    let refused = fragmented.add(Fragment::Graph, graph);
    assert!(matches!(refused, Err(FragmentError::Inconsistent(_))), "the graph names pages: {refused:?}");
    fragmented.add_except_graph(Fragment::Documents, &files[&Fragment::Documents.path()]).unwrap();
    fragmented.add(Fragment::Graph, graph).unwrap();
    assert!(fragmented.graph().is_some());
}
