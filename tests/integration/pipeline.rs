//! The one indexing pipeline (`store::pipeline`) as every front end drives it, through a host that records
//! what it hears and can cancel: each file is named before it is parsed, a failed file is reported and the
//! others indexed, duplicates of indexed documents are dropped, a cancel keeps nothing, an update with
//! nothing in it builds nothing, and removals alone still update; an index being built answers from what it has.

use crate::common;

use futures_executor::block_on;
use quire::corpus::{IngestError, IngestFailure, SourceFile};
use quire::embed::{EmbedError, Embedder, TextEmbedder};
use quire::store::pipeline::{self, Base, Host, InputFile, Outcome, Progress, Task};
use quire::store::{IndexBuilder, IndexSettings, IndexedCorpus, Vectors};

#[derive(Default)]
struct Recorder {
    heard: Vec<(Task, usize, usize, Option<String>)>,
    /// Answer `false` from this `carry_on` call on (counted from 1).
    cancel_at: Option<usize>,
    checks: usize,
}

impl Host for Recorder {
    type Embedder = Embedder;
    type Error = EmbedError;

    fn embedder(&self) -> &Embedder {
        common::embedder()
    }

    fn progress(&mut self, progress: Progress<'_>) {
        self.heard.push((progress.task, progress.done, progress.total, progress.current.map(String::from)));
    }

    async fn carry_on(&mut self) -> bool {
        self.checks += 1;
        self.cancel_at.is_none_or(|at| self.checks < at)
    }

    async fn embed(&mut self, builder: &mut IndexBuilder) -> Result<bool, EmbedError> {
        builder.embed_all(common::embedder())?;
        Ok(true)
    }
}

fn file(name: &str, text: &str) -> InputFile {
    Ok(SourceFile::new(name, text.as_bytes()))
}

fn run(host: &mut Recorder, base: Base<'_>, files: Vec<InputFile>) -> Outcome {
    let count = files.len();
    block_on(pipeline::run(host, base, files, count, &|| 0.0)).expect("the pipeline runs")
}

fn fresh() -> Base<'static> {
    Base::Fresh { settings: IndexSettings::default(), reuse_vectors_of: None, vectors: Vectors::All, model: None }
}

fn sources(index: &IndexedCorpus) -> Vec<&str> {
    index.corpus().documents.iter().map(|d| d.source.as_str()).collect()
}

#[test]
fn names_each_file_before_parsing_it_and_keeps_the_good_ones() {
    let unreadable = IngestError { file: "gone.md".into(), failure: IngestFailure::Unreadable("no such file".into()) };
    let files = vec![
        file("moon.md", "# Moon\n\nThe Moon orbits the Earth every 27 days.\n"),
        Err(unreadable),
        file("empty.txt", ""),
        file("sun.txt", "Sun\n\nThe Sun is the star at the centre of the Solar System.\n"),
    ];
    let mut host = Recorder::default();
    let outcome = run(&mut host, fresh(), files);
    let index = outcome.index.expect("the good files are indexed");
    assert_eq!(sources(&index), ["moon.md", "sun.txt"]);
    let failed: Vec<String> = outcome.report.errors.iter().map(ToString::to_string).collect();
    assert_eq!(failed, ["gone.md: no such file", "empty.txt: the file is empty"]);
    assert_eq!((outcome.files, outcome.documents), (4, 2));
    assert!(outcome.embedded > 0 && outcome.reused == 0);
    let parsing: Vec<(usize, Option<&str>)> = host
        .heard
        .iter()
        .filter(|(task, ..)| *task == Task::Parse)
        .map(|(_, done, _, current)| (*done, current.as_deref()))
        .collect();
    assert_eq!(parsing, [(0, Some("moon.md")), (2, Some("empty.txt")), (3, Some("sun.txt")), (4, None)]);
    assert_eq!(host.heard.last().map(|h| h.0), Some(Task::Build), "the build is announced before it runs");
}

#[test]
fn a_cancel_keeps_nothing_and_an_empty_update_builds_nothing() {
    let files = || vec![file("moon.md", "# Moon\n\nThe Moon orbits the Earth.\n")];
    for cancel_at in [1, 2, 3] {
        let mut host = Recorder { cancel_at: Some(cancel_at), ..Recorder::default() };
        let outcome = run(&mut host, fresh(), files());
        assert!(outcome.cancelled && outcome.index.is_none(), "cancelled at check {cancel_at}");
    }

    let index = run(&mut Recorder::default(), fresh(), files()).index.unwrap();
    let nothing = run(&mut Recorder::default(), Base::Update { current: Some(&index), removed: &[] }, vec![]);
    assert!(nothing.index.is_none() && !nothing.cancelled);
    let all_failed = run(&mut Recorder::default(), fresh(), vec![file("empty.txt", "")]);
    assert!(all_failed.index.is_none() && all_failed.report.errors.len() == 1);
}

#[test]
fn updates_drop_indexed_duplicates_and_removals_alone_update() {
    let moon = "# Moon\n\nThe Moon orbits the Earth.\n";
    let first = vec![file("moon.md", moon), file("sun.txt", "Sun\n\nThe Sun is a star.\n")];
    let index = run(&mut Recorder::default(), fresh(), first).index.unwrap();

    let copy = run(
        &mut Recorder::default(),
        Base::Update { current: Some(&index), removed: &[] },
        vec![file("copy-of-moon.md", moon)],
    );
    assert!(copy.index.is_none(), "a copy of an indexed document adds nothing");
    assert!(copy.report.warnings.iter().any(|(file, note)| file == "copy-of-moon.md" && note.contains("moon.md")));

    let removed = ["sun.txt".to_string()];
    let mut host = Recorder::default();
    let outcome = run(&mut host, Base::Update { current: Some(&index), removed: &removed }, vec![]);
    assert_eq!(sources(&outcome.index.unwrap()), ["moon.md"]);
    assert!(host.heard.iter().all(|(task, ..)| *task != Task::Parse), "no parsing is announced without files");
    assert_eq!(outcome.embedded, 0, "nothing new to embed");
}

/// An index embeds its chunks only unless asked for every node's vectors; a method that searches pages,
/// sections, entities or relations finds nothing on it until `Base::AllVectors` adds them (its chunk vectors
/// kept), and then ranks as on an index built with every vector. Saved, an index says which it holds.
#[test]
fn chunk_vectors_first_and_node_vectors_when_a_method_needs_them() {
    use quire::retrieve::{Method, Query, Retriever};
    let files = || common::demo_files().into_iter().map(Ok).collect::<Vec<InputFile>>();
    let chunks_only = Base::Fresh {
        settings: IndexSettings::default(),
        reuse_vectors_of: None,
        vectors: Vectors::Chunks,
        model: None,
    };
    let lean = run(&mut Recorder::default(), chunks_only, files());
    let index = lean.index.unwrap();
    assert_eq!(index.vectors(), Vectors::Chunks);
    let chunk_texts: std::collections::HashSet<String> =
        (0..index.corpus().chunks.len() as u32).map(|c| index.corpus().chunk_search_text(c)).collect();
    assert_eq!(lean.embedded, chunk_texts.len(), "every distinct chunk text, and nothing else");
    assert!(!index.summary().node_vectors);

    let full = run(&mut Recorder::default(), fresh(), files()).index.unwrap();
    assert!(full.summary().node_vectors && full.embeddings().len() > 2 * index.embeddings().len());

    let question = "Who commanded the first crewed landing on the Moon?";
    let vector = common::embedder().embed(&[question]).unwrap().remove(0);
    let page = Method::Single(Retriever::Page);
    assert!(page.reads_node_vectors() && !Method::Default.reads_node_vectors());
    let lacking = Retriever::Page.run(&index, Query::new(question, &vector), 5);
    assert!(lacking.chunks.is_empty() && !lacking.steps.is_empty(), "no node vectors, no page hits, and why");
    let saved = IndexedCorpus::from_snapshot(&index.to_snapshot().unwrap()).unwrap();
    assert_eq!(saved.vectors(), Vectors::Chunks, "a snapshot says which vectors it holds");

    let mut host = Recorder::default();
    let added = run(&mut host, Base::AllVectors { current: &index }, Vec::new());
    assert_eq!(added.reused, index.embeddings().len(), "the chunk vectors are kept");
    assert_eq!(added.embedded + added.reused, full.embeddings().len());
    assert!(host.heard.iter().all(|(task, ..)| *task != Task::Parse), "nothing is parsed again");
    let completed = added.index.unwrap();
    assert_eq!(completed.vectors(), Vectors::All);
    assert_eq!(completed.query_table(), index.query_table(), "node vectors leave the query table as it was");
    for method in [page, Method::Single(Retriever::Entity), Method::parse("zsum-all").unwrap()] {
        let ranked = |index: &IndexedCorpus| -> Vec<u32> {
            method.rank(index, Query::new(question, &vector), 5).into_chunks().iter().map(|hit| hit.chunk).collect()
        };
        assert!(!ranked(&completed).is_empty(), "{}", method.name());
        assert_eq!(ranked(&completed), ranked(&full), "{}", method.name());
    }
}

/// The first document of `index`'s best chunk in `list`.
fn first_source<'a>(index: &'a IndexedCorpus, list: &[quire::retrieve::ScoredChunk]) -> &'a str {
    let chunk = list.first().expect("a result").chunk;
    &index.corpus().documents[index.corpus().chunks[chunk as usize].document as usize].source
}

#[test]
fn a_preview_finds_documents_by_their_words_before_their_vectors_and_changes_nothing_built() {
    use quire::retrieve::{Query, Retriever};
    let files = [
        ("tides.md", "# Tides\n\nThe gauge at Porthcawl logged the spring tide at nine metres above chart datum.\n"),
        ("bread.md", "# Bread\n\nA sourdough starter needs flour and water every day, and a warm kitchen.\n"),
        ("stars.md", "# Stars\n\nBetelgeuse is a red supergiant in Orion that may explode as a supernova.\n"),
    ];
    let documents = || {
        let sources: Vec<SourceFile> =
            files.iter().map(|(name, text)| SourceFile::new(*name, text.as_bytes())).collect();
        quire::corpus::ingest(&sources, &Default::default()).documents
    };
    let embedder = common::embedder();
    let new_builder = || {
        let identity = embedder.identity().clone();
        IndexBuilder::new(documents(), embedder, identity, IndexSettings::default(), None, Vectors::Chunks)
    };
    let question = "at what height did the gauge at Porthcawl log the tide?";
    let vector = embedder.embed(&[question]).unwrap().remove(0);
    let query = Query::new(question, &vector);

    let mut builder = new_builder();
    let (preview, waiting) = builder.preview();
    assert_eq!(waiting.len(), 3, "no document has a vector yet");
    assert_eq!(first_source(&preview, &Retriever::Bm25.run(&preview, query, 3).chunks), "tides.md");
    assert!(Retriever::Dense.run(&preview, query, 3).chunks.iter().all(|hit| hit.score == 0.0));

    let tides = (0..builder.texts_to_embed().len()).find(|&i| builder.texts_to_embed()[i].contains("Porthcawl"));
    builder.embed_next(embedder, tides.expect("the tide text waits") + 1).unwrap();
    let (preview, waiting) = builder.preview();
    let dense = Retriever::Dense.run(&preview, query, 3).chunks;
    assert_eq!(first_source(&preview, &dense), "tides.md");
    assert!(dense[0].score > 0.3, "{dense:?}");
    let tide_document = preview.corpus().chunks[dense[0].chunk as usize].document;
    assert!(waiting.len() < 3 && !waiting.contains(&tide_document), "the tide document has its vector");

    // Previews leave the builder as it was: the finished index is the one built without them.
    builder.embed_all(embedder).unwrap();
    let mut plain = new_builder();
    plain.embed_all(embedder).unwrap();
    assert_eq!(builder.finish().to_snapshot().unwrap(), plain.finish().to_snapshot().unwrap());
}

/// An update that removes every document it had is a new corpus (the page's own files in place of the demo):
/// it gets the model its documents are suited to; one that keeps any keeps the index's model.
#[test]
fn an_update_that_replaces_every_document_chooses_the_model_anew() {
    use quire::embed::EmbeddingModel;
    let english = vec![file("moon.md", "# Moon\n\nThe Moon orbits the Earth every 27 days.\n")];
    let index = run(&mut Recorder::default(), fresh(), english).index.unwrap();
    let german = SourceFile::new(
        "mond.md",
        "# Der Mond\n\nDer Mond umkreist die Erde in etwa 27 Tagen, und seine Phasen wechseln dabei.\n",
    );
    let documents = quire::corpus::parse_file(&german, &Default::default()).unwrap().documents;
    let every = ["moon.md".to_string()];
    let replaced = Base::Update { current: Some(&index), removed: &every };
    assert_eq!(replaced.model_for(&documents), Some(EmbeddingModel::MultilingualE5));
    let added = Base::Update { current: Some(&index), removed: &[] };
    assert_eq!(added.model_for(&documents), Some(EmbeddingModel::MiniLm));
}
