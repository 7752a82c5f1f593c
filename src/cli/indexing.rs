//! `quire index`, `add` and `remove`, and the cached indexes of `quire eval`: the engine's pipeline
//! ([`pipeline::run`]) driven natively, files read from disk as it asks for them, embedding on every core,
//! progress as terminal bars and status lines on stderr.

use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::time::Instant;

use anyhow::{Context, bail};
use indicatif::ProgressBar;

use quire::corpus::{CorpusSettings, IngestError, IngestReport, ParsedFile, SourceFile};
use quire::embed::{EmbedError, Embedder, EmbeddingModel};
use quire::store::pipeline::{self, Base, Host, InputFile, Outcome, Progress, Task};
use quire::store::{IndexBuilder, IndexSettings, IndexedCorpus, Vectors};

use super::files::{collect_files, read_file};
use super::isolation::ParseWorker;
use super::log_lines::LogLines;
use super::shared::{CliResult, Models, load_snapshot, message, save_snapshot};

/// The terminal as the pipeline's host: one bar per counted task (or, when stderr is not a terminal,
/// plain lines: `log_lines.rs`), each file parsed in a child process, the model the pipeline asks for
/// loaded from the model folder; never cancelled, except that a dry run stops before embedding.
struct Terminal<'a> {
    models: &'a mut Models,
    embedder: Rc<Embedder>,
    bar: Option<(Task, ProgressBar)>,
    log: Option<LogLines>,
    worker: ParseWorker,
    dry_run: Option<DryRun>,
}

/// What `quire check` counts where indexing would embed.
#[derive(Clone, Copy, Debug, Default)]
struct DryRun {
    chunks: usize,
    texts_to_embed: usize,
}

impl<'a> Terminal<'a> {
    /// A terminal holding the model `base` is to be embedded by where that is known before parsing (an
    /// update's, or the one asked for), else the English one.
    fn new(models: &'a mut Models, base: &Base<'_>) -> anyhow::Result<Self> {
        use std::io::IsTerminal;
        let embedder = models.load(base.model_for(&[]).unwrap_or_default())?;
        let log = (!std::io::stderr().is_terminal()).then(LogLines::start);
        Ok(Terminal { models, embedder, bar: None, log, worker: ParseWorker::default(), dry_run: None })
    }

    /// `progress` as log lines: a stage's first line as it starts (structuring starts as parsing ends).
    fn log_progress(&self, progress: &Progress<'_>) {
        let Some(log) = &self.log else { return };
        let (name, unit) = match progress.task {
            Task::Parse if progress.done == progress.total && progress.current.is_none() => ("structuring", None),
            Task::Parse => ("parsing", Some("files")),
            Task::Embed => ("embedding", Some("texts")),
            Task::Build => ("building the graph and the indexes", None),
        };
        if log.running() != Some(name) {
            log.begin(name, unit, progress.total);
        }
        log.at(progress.done, progress.current);
    }

    fn finish_bar(&mut self) {
        if let Some((_, bar)) = self.bar.take() {
            bar.finish_and_clear();
        }
    }
}

impl Host for Terminal<'_> {
    type Embedder = Embedder;
    type Error = EmbedError;

    fn embedder(&self) -> &Embedder {
        &self.embedder
    }

    async fn use_model(&mut self, model: EmbeddingModel) -> Result<(), EmbedError> {
        if self.embedder.model() != model {
            eprintln!("embedding with {}", model.spec().name);
            self.embedder = self.models.load(model)?;
        }
        Ok(())
    }

    fn progress(&mut self, progress: Progress<'_>) {
        self.log_progress(&progress);
        if self.bar.as_ref().is_none_or(|(task, _)| *task != progress.task) {
            self.finish_bar();
            let label = match progress.task {
                Task::Parse => "parsing",
                Task::Embed => "embedding",
                Task::Build => return,
            };
            self.bar = Some((progress.task, super::shared::progress(progress.total as u64, label)));
        }
        if let Some((_, bar)) = &self.bar {
            bar.set_position(progress.done as u64);
            if let Some(file) = progress.current {
                bar.set_message(file.to_string());
            }
        }
    }

    async fn carry_on(&mut self) -> bool {
        true
    }

    fn parse(&mut self, file: &SourceFile, settings: &CorpusSettings) -> Result<ParsedFile, IngestError> {
        self.worker.parse(file, settings)
    }

    async fn embed(&mut self, builder: &mut IndexBuilder) -> Result<bool, EmbedError> {
        if let Some(dry_run) = &mut self.dry_run {
            *dry_run = DryRun { chunks: builder.corpus().chunks.len(), texts_to_embed: builder.to_embed() };
            return Ok(false);
        }
        self.progress(Progress { task: Task::Embed, done: 0, total: builder.to_embed(), current: None });
        let bar = self.bar.as_ref().map(|(_, bar)| bar.clone()).unwrap_or_else(ProgressBar::hidden);
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
        let log = self.log.as_ref();
        builder.embed_all_parallel(&*self.embedder, threads, &|done| {
            bar.inc(done as u64);
            if let Some(log) = log {
                log.advance(done);
            }
        })?;
        self.finish_bar();
        Ok(true)
    }
}

/// Runs the pipeline over `paths` (files, and supported files found under folders) from `base`, printing
/// each file's problems and the tasks' figures.
pub fn run_pipeline(models: &mut Models, base: Base<'_>, paths: &[PathBuf]) -> anyhow::Result<Outcome> {
    drive(&mut Terminal::new(models, &base)?, base, paths)
}

fn drive(terminal: &mut Terminal<'_>, base: Base<'_>, paths: &[PathBuf]) -> anyhow::Result<Outcome> {
    let files = collect_files(paths);
    let working_folder = std::env::current_dir().ok();
    let limit = base.corpus_settings().max_file_bytes;
    let inputs = files.iter().map(|file| match file {
        Ok(path) => read_file(path, working_folder.as_deref(), limit),
        Err(unlisted) => Err(unlisted.clone()),
    });
    drive_on(terminal, base, inputs, files.len())
}

/// Runs the pipeline over files already read.
pub fn run_on(
    models: &mut Models,
    base: Base<'_>,
    files: impl IntoIterator<Item = InputFile>,
    file_count: usize,
) -> anyhow::Result<Outcome> {
    drive_on(&mut Terminal::new(models, &base)?, base, files, file_count)
}

fn drive_on(
    terminal: &mut Terminal<'_>,
    base: Base<'_>,
    files: impl IntoIterator<Item = InputFile>,
    file_count: usize,
) -> anyhow::Result<Outcome> {
    let started = Instant::now();
    let clock = || started.elapsed().as_secs_f64();
    let outcome = futures_executor::block_on(pipeline::run(terminal, base, files, file_count, &clock));
    terminal.finish_bar();
    let outcome = outcome?;
    print_outcome(&outcome, terminal.embedder.pieces_embedded());
    Ok(outcome)
}

/// `quire check`: reads and structures `paths` as `quire index` would, prints what each file gave and
/// what indexing would embed, and writes nothing. Fails when no document could be read.
pub fn check(model: &Option<PathBuf>, paths: &[PathBuf]) -> CliResult {
    let mut models = Models::new(model);
    let base = Base::Fresh {
        settings: IndexSettings::default(),
        reuse_vectors_of: None,
        vectors: Vectors::Chunks,
        model: None,
    };
    let mut terminal = Terminal::new(&mut models, &base)?;
    terminal.dry_run = Some(DryRun::default());
    drive(&mut terminal, base, paths)?;
    let counted = terminal.dry_run.unwrap_or_default();
    // The pipeline stops before the dry run counts when no document could be read.
    if counted.chunks == 0 {
        bail!("no document could be read");
    }
    println!(
        "{} chunks; indexing would embed {} texts with {}",
        counted.chunks,
        counted.texts_to_embed,
        terminal.embedder.model()
    );
    Ok(())
}

fn print_outcome(outcome: &Outcome, pieces_embedded: usize) {
    if outcome.files > 0 {
        print_ingest_report(&outcome.report, outcome.documents, outcome.timings.parse);
    }
    if outcome.index.is_none() {
        return;
    }
    let timings = &outcome.timings;
    eprintln!("structured in {:.2}s", timings.structure);
    eprintln!(
        "embedded {} new texts ({pieces_embedded} word pieces), reused {} in {:.2}s",
        outcome.embedded, outcome.reused, timings.embed
    );
    eprintln!("indexed in {:.2}s", timings.build);
    if let Some(Some((terms, bytes))) = outcome.index.as_ref().map(|index| index.summary().query_table) {
        let kib = bytes as f64 / 1024.0;
        eprintln!("trained the query table ({terms} terms, {kib:.0} KiB) in {:.2}s", timings.query_table);
    }
}

/// The report: each problem and note on its line, each kind of file routinely left out on one line with
/// its files beneath; then a summary line.
fn print_ingest_report(report: &IngestReport, parsed: usize, seconds: f64) {
    let lines = report.summary();
    for line in &lines {
        eprintln!("{}: {}", if line.problem { "skipped" } else { "note" }, line.text);
        if !line.files.is_empty() {
            eprintln!("    {}", line.files.join(", "));
        }
    }
    let failed = lines.iter().filter(|line| line.problem).count();
    eprintln!("parsed {parsed} documents ({failed} files failed) in {seconds:.2}s");
}

/// `quire index`: a fresh index of `paths` with the vectors `vectors` names, reusing the vectors of an
/// existing output unless `fresh`.
pub fn index(
    model_dir: &Option<PathBuf>,
    paths: &[PathBuf],
    output: &Path,
    fresh: bool,
    (settings, vectors, model): (IndexSettings, Vectors, Option<EmbeddingModel>),
) -> CliResult {
    let mut models = Models::new(model_dir);
    let previous = if fresh || !output.exists() {
        None
    } else {
        load_snapshot(output)
            .inspect_err(|e| eprintln!("warning: not reusing embeddings from the existing output: {}", message(e)))
            .ok()
    };
    let base = Base::Fresh { settings, reuse_vectors_of: previous.as_ref(), vectors, model };
    let outcome = run_pipeline(&mut models, base, paths)?;
    let index = outcome.index.context("no document could be indexed")?;
    save_snapshot(&index, output)
}

/// `quire add` and `quire remove`: the snapshot updated in place, written only when something changed.
pub fn update(model_dir: &Option<PathBuf>, snapshot: &Path, paths: &[PathBuf], removed: &[String]) -> CliResult {
    let mut models = Models::new(model_dir);
    let current = load_snapshot(snapshot)?;
    models.for_index(&current)?;
    let base = Base::Update { current: Some(&current), removed };
    let outcome = run_pipeline(&mut models, base, paths)?;
    let Some(index) = outcome.index else {
        bail!("nothing was added; {} is unchanged", snapshot.display());
    };
    save_snapshot(&index, snapshot)
}

/// `index` with the vectors of every node when `needed` and it holds chunk vectors only: embedded now (a
/// method that reads them was asked for), and kept in `saved_to` when it names the index's file.
pub fn with_vectors_for(
    models: &mut Models,
    index: IndexedCorpus,
    needed: bool,
    saved_to: Option<&Path>,
) -> anyhow::Result<IndexedCorpus> {
    if !needed || index.vectors() == Vectors::All {
        return Ok(index);
    }
    eprintln!("this index holds chunk vectors only: embedding its pages, sections, entities and relations");
    let outcome = run_on(models, Base::AllVectors { current: &index }, Vec::new(), 0)?;
    let completed = outcome.index.context("the vectors of pages, sections, entities and relations were not added")?;
    if let Some(path) = saved_to {
        save_snapshot(&completed, path)?;
    }
    Ok(completed)
}

/// A fresh index of files already read (`quire eval`'s corpus) embedded by `model` (`None`: the one its
/// documents are suited to), with what each file gave; `None` when no document could be indexed. Texts
/// `previous` embedded with the same model are not embedded again.
pub fn index_files(
    models: &mut Models,
    files: Vec<InputFile>,
    (settings, model): (IndexSettings, Option<EmbeddingModel>),
    previous: Option<&IndexedCorpus>,
) -> anyhow::Result<(Option<IndexedCorpus>, IngestReport)> {
    let base = Base::Fresh { settings, reuse_vectors_of: previous, vectors: Vectors::Chunks, model };
    let count = files.len();
    let outcome = run_on(models, base, files, count)?;
    Ok((outcome.index, outcome.report))
}
