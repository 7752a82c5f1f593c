//! The one indexing pipeline, from files to a finished index: parse every file (one bad file never loses
//! the others) → drop documents an index already holds under another name, and pages that only repeat other
//! documents (`corpus::containment`) → plan (merge with the current index, structure, find the texts not
//! embedded before) → embed → finish the graphs and indexes.
//!
//! `quire index`, `quire add`/`remove`, `quire eval` and the browser's engine worker all run it. What differs
//! between them is the [`Host`]: how progress is shown, how embedding is spread over cores (threads natively,
//! a pool of workers in the browser), and whether the user has cancelled. The pipeline is `async` because the
//! browser must hand control back to its event loop between steps; native hosts never wait, and drive it with
//! `futures_executor::block_on`.

use crate::corpus::Document;
use crate::corpus::{CorpusSettings, IngestError, IngestReport, ParsedFile, SourceFile, TokenCounter};
use crate::embed::{EmbeddingModel, TextEmbedder};

use super::{IndexBuilder, IndexSettings, IndexedCorpus, UpdateError, Vectors, plan_index, plan_update};

/// Bumped whenever the same files would give another index (what is dropped, how text is structured), so
/// caches keyed by their input (`quire eval`'s) are rebuilt. 2: pages that only repeat others are dropped.
/// 3: HTML read from its main content, redirect stubs left out, site-wide title suffixes removed.
/// 4: a chunk that copies another document's passage takes its original's vector.
/// 5: titles and headings bounded in length, table labels bounded per table, pages nested too deep refused.
/// 6: long sentences split at the word-pieces of one tokenization, chunks bounded in bytes, a document's
/// text and links bounded, pages of more than a million elements refused. 7: chunks compared with the 512 on
/// each side for the chunk graph, one HNSW point per distinct vector.
pub const REVISION: u32 = 7;

/// The long tasks of indexing, each reported with its own unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Task {
    /// Files parsed, one by one; `current` names the file about to be parsed.
    Parse,
    /// Distinct texts embedded.
    Embed,
    /// The knowledge graph, the chunk graph and the search indexes; no count.
    Build,
}

/// How far a task has come.
#[derive(Clone, Debug, PartialEq)]
pub struct Progress<'a> {
    pub task: Task,
    pub done: usize,
    pub total: usize,
    /// The file about to be parsed: if its parser crashes the host, this is the file to blame.
    pub current: Option<&'a str>,
}

/// What runs the pipeline: a front end's progress display, its embedding, and its cancel button.
// Hosts are used as generic parameters only, and the browser's futures are not `Send`, so the trait's
// `async fn`s need no `Send` bound.
#[allow(async_fn_in_trait)]
pub trait Host {
    type Embedder: TextEmbedder + TokenCounter;
    /// Why [`Host::embed`] failed, in the host's own terms (a model that failed, a pool that could not start).
    type Error: std::error::Error;

    /// The embedder: its tokenizer bounds the chunks, its identity keys the stored vectors.
    fn embedder(&self) -> &Self::Embedder;

    /// Makes `model` the embedder's before the documents are chunked: the model a fresh index's documents
    /// are suited to or the user chose, or the one the index being updated was embedded by. By default the
    /// host keeps the one model it has (the pipeline's tests, hosts that embed by another means).
    async fn use_model(&mut self, _model: EmbeddingModel) -> Result<(), Self::Error> {
        Ok(())
    }

    fn progress(&mut self, progress: Progress<'_>);

    /// Called between files and before the long steps: a browser host yields to its event loop here.
    /// `false` when the user has cancelled; the pipeline then stops with the current index unchanged.
    async fn carry_on(&mut self) -> bool;

    /// Reads one file into its documents. By default in this process; the CLI isolates each file in a
    /// child process, so that a parser's crash, stack overflow or runaway memory fails that file only.
    fn parse(&mut self, file: &SourceFile, settings: &CorpusSettings) -> Result<ParsedFile, IngestError> {
        crate::corpus::parse_file(file, settings)
    }

    /// Every document is parsed and structured, and `builder` holds what is still to embed: a host that
    /// answers questions while it embeds may take [`IndexBuilder::preview`] here. By default nothing.
    fn planned(&mut self, _builder: &IndexBuilder) {}

    /// Embeds every text `builder` still needs, reporting [`Task::Embed`] progress; `false` when cancelled.
    async fn embed(&mut self, builder: &mut IndexBuilder) -> Result<bool, Self::Error>;
}

/// What the new index starts from.
pub enum Base<'a> {
    /// A fresh index with these settings, embedded by `model` (`None`: the one its documents are suited to);
    /// texts embedded in `reuse_vectors_of` by the same model (a previous build of the same output) are not
    /// embedded again, and nothing else of it is kept.
    Fresh {
        settings: IndexSettings,
        reuse_vectors_of: Option<&'a IndexedCorpus>,
        vectors: Vectors,
        model: Option<EmbeddingModel>,
    },
    /// `current` with the new files added (replacing same-named documents) and `removed` sources taken out,
    /// under its own settings, with vectors of the texts it has them of.
    Update { current: Option<&'a IndexedCorpus>, removed: &'a [String] },
    /// `current`'s documents with vectors of every node, when a method that reads node vectors is first run
    /// on an index of chunk vectors: its own vectors are kept, the others' texts embedded. It takes no files.
    AllVectors { current: &'a IndexedCorpus },
}

impl Base<'_> {
    fn current(&self) -> Option<&IndexedCorpus> {
        match self {
            Base::Fresh { .. } => None,
            Base::Update { current, .. } => *current,
            Base::AllVectors { current } => Some(current),
        }
    }

    fn removed(&self) -> &[String] {
        match self {
            Base::Update { removed, .. } => removed,
            Base::Fresh { .. } | Base::AllVectors { .. } => &[],
        }
    }

    /// The model the index is to be embedded by: for a fresh index, the one asked for or the one `documents`
    /// are suited to; for an update, the current index's (`None` where that is not a model of the catalogue),
    /// unless it removes every document the index had: then it is a new corpus (the page's own files in
    /// place of a demo), and its documents choose.
    pub fn model_for(&self, documents: &[Document]) -> Option<EmbeddingModel> {
        match (self, self.current()) {
            (Base::Fresh { model, .. }, _) => Some(model.unwrap_or_else(|| EmbeddingModel::suited_to(documents))),
            (Base::Update { removed, .. }, Some(current)) if removes_everything(current, removed) => {
                Some(EmbeddingModel::suited_to(documents))
            }
            (_, Some(current)) => EmbeddingModel::of(current.model()),
            (_, None) => Some(EmbeddingModel::suited_to(documents)),
        }
    }

    pub fn corpus_settings(&self) -> CorpusSettings {
        match self {
            Base::Fresh { settings, .. } => settings.corpus.clone(),
            _ => self.current().map(|c| c.settings.corpus.clone()).unwrap_or_default(),
        }
    }
}

/// Whether `removed` names every document of `current`.
fn removes_everything(current: &IndexedCorpus, removed: &[String]) -> bool {
    let removed: std::collections::HashSet<&str> = removed.iter().map(String::as_str).collect();
    current.corpus.documents.iter().all(|document| removed.contains(document.source.as_str()))
}

/// A file as the pipeline takes it: read, or why it could not be read.
pub type InputFile = Result<SourceFile, IngestError>;

/// What one run of the pipeline did.
#[derive(Default)]
pub struct Outcome {
    /// Every file's errors and warnings; its documents have moved into the index.
    pub report: IngestReport,
    /// Files given, and documents parsed from them (before duplicates of indexed documents were dropped).
    pub files: usize,
    pub documents: usize,
    pub embedded: usize,
    pub reused: usize,
    /// Seconds spent parsing, structuring, embedding, building and training the query table, as the host's
    /// clock measured them.
    pub timings: Timings,
    /// The new index; `None` when there was nothing to index (every file failed, or an update with no
    /// document and no removal) or the user cancelled.
    pub index: Option<IndexedCorpus>,
    pub cancelled: bool,
}

#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Timings {
    pub parse: f64,
    pub structure: f64,
    pub embed: f64,
    pub build: f64,
    pub query_table: f64,
}

impl Timings {
    pub fn total(&self) -> f64 {
        self.parse + self.structure + self.embed + self.build + self.query_table
    }
}

/// Why the pipeline produced no index where one was expected: the update could not be made, or the host's
/// embedding failed (`E`, its [`Host::Error`]).
#[derive(Debug, thiserror::Error)]
pub enum PipelineError<E> {
    #[error(transparent)]
    Update(#[from] UpdateError),
    #[error(transparent)]
    Embed(E),
}

/// Runs the whole pipeline over `files` (`file_count` of them, for progress), timed by `clock` (seconds).
pub async fn run<H: Host>(
    host: &mut H,
    base: Base<'_>,
    files: impl IntoIterator<Item = InputFile>,
    file_count: usize,
    clock: &dyn Fn() -> f64,
) -> Result<Outcome, PipelineError<H::Error>> {
    let mut outcome = Outcome { files: file_count, ..Outcome::default() };
    let started = clock();
    let documents = match &base {
        Base::AllVectors { current } => current.corpus.documents.clone(),
        _ => {
            let Some(mut report) = parse(host, files, file_count, &base.corpus_settings()).await else {
                return Ok(Outcome { cancelled: true, ..outcome });
            };
            outcome.documents = report.documents.len();
            let indexed = base.current().map_or(&[][..], |current| current.corpus.documents.as_slice());
            report.drop_indexed_duplicates(indexed, base.removed());
            for (source, note) in crate::corpus::containment::drop_repeating_pages(&mut report.documents, indexed) {
                report.warnings.push((source, note));
            }
            let documents = std::mem::take(&mut report.documents);
            outcome.report = report;
            if documents.is_empty() && base.removed().is_empty() {
                return Ok(outcome);
            }
            documents
        }
    };
    outcome.timings.parse = clock() - started;

    let started = clock();
    if let Some(model) = base.model_for(&documents) {
        host.use_model(model).await.map_err(PipelineError::Embed)?;
    }
    let embedder = host.embedder();
    let identity = embedder.identity().clone();
    // Node vectors change neither BM25 nor a chunk's vector, from which the table is trained: it is kept.
    let current_table = match &base {
        Base::AllVectors { current } => current.query_table().cloned(),
        _ => None,
    };
    let mut builder = match base {
        Base::Fresh { settings, reuse_vectors_of, vectors, .. } => {
            plan_index(documents, reuse_vectors_of, embedder, identity, settings, vectors)?
        }
        Base::Update { current, removed } => plan_update(current, documents, removed, embedder, identity, None)?,
        Base::AllVectors { current } => {
            plan_index(documents, Some(current), embedder, identity, current.settings.clone(), Vectors::All)?
        }
    };
    outcome.timings.structure = clock() - started;
    outcome.reused = builder.reused();
    if !builder.is_done() {
        host.planned(&builder);
    }

    let started = clock();
    let embedded = host.embed(&mut builder).await.map_err(PipelineError::Embed)?;
    outcome.embedded = builder.embedded();
    outcome.timings.embed = clock() - started;
    if !embedded || !host.carry_on().await {
        return Ok(Outcome { cancelled: true, ..outcome });
    }

    let started = clock();
    host.progress(Progress { task: Task::Build, done: 0, total: 0, current: None });
    if !host.carry_on().await {
        return Ok(Outcome { cancelled: true, ..outcome });
    }
    let index = builder.finish_without_table();
    outcome.timings.build = clock() - started;
    let started = clock();
    outcome.index = Some(match current_table {
        Some(table) => index.keeping_query_table(table),
        None => index.with_query_table(),
    });
    outcome.timings.query_table = clock() - started;
    Ok(outcome)
}

/// Every file parsed into one report, or `None` when cancelled. The host hears of each file before it is
/// parsed, so a crash in a parser can be blamed on its file.
async fn parse<H: Host>(
    host: &mut H,
    files: impl IntoIterator<Item = InputFile>,
    total: usize,
    settings: &CorpusSettings,
) -> Option<IngestReport> {
    let mut report = IngestReport::default();
    if total == 0 {
        return Some(report);
    }
    for (done, file) in files.into_iter().enumerate() {
        if !host.carry_on().await {
            return None;
        }
        match file {
            Ok(file) => {
                host.progress(Progress { task: Task::Parse, done, total, current: Some(&file.path) });
                let parsed = host.parse(&file, settings);
                report.add_parsed(&file.path, parsed);
            }
            Err(error) => report.errors.push(error),
        }
    }
    host.progress(Progress { task: Task::Parse, done: total, total, current: None });
    Some(report)
}
