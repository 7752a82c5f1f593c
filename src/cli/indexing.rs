//! `quire index`, `add` and `remove`, and the cached indexes of `quire eval`: the engine's pipeline
//! ([`pipeline::run`]) driven natively, files read from disk as it asks for them, embedding on every core,
//! progress as terminal bars and status lines on stderr.

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, bail};
use indicatif::ProgressBar;

use quire::corpus::{self, CorpusSettings, IngestError, IngestFailure, IngestReport, ParsedFile, SourceFile};
use quire::embed::{EmbedError, MiniLmEmbedder};
use quire::store::pipeline::{self, Base, Host, InputFile, Outcome, Progress, Task};
use quire::store::{IndexBuilder, IndexSettings, IndexedCorpus, Vectors};

use super::isolation::ParseWorker;
use super::log_lines::LogLines;
use super::shared::{CliResult, load_embedder, load_snapshot, message, save_snapshot};

/// The terminal as the pipeline's host: one bar per counted task (or, when stderr is not a terminal,
/// plain lines: `log_lines.rs`), each file parsed in a child process; never cancelled, except that a dry
/// run stops before embedding.
struct Terminal<'a> {
    embedder: &'a MiniLmEmbedder,
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
    fn new(embedder: &'a MiniLmEmbedder) -> Self {
        use std::io::IsTerminal;
        let log = (!std::io::stderr().is_terminal()).then(LogLines::start);
        Terminal { embedder, bar: None, log, worker: ParseWorker::default(), dry_run: None }
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
    type Embedder = MiniLmEmbedder;
    type Error = EmbedError;

    fn embedder(&self) -> &MiniLmEmbedder {
        self.embedder
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
        builder.embed_all_parallel(self.embedder, threads, &|done| {
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
pub fn run_pipeline(embedder: &MiniLmEmbedder, base: Base<'_>, paths: &[PathBuf]) -> anyhow::Result<Outcome> {
    drive(&mut Terminal::new(embedder), base, paths)
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
    embedder: &MiniLmEmbedder,
    base: Base<'_>,
    files: impl IntoIterator<Item = InputFile>,
    file_count: usize,
) -> anyhow::Result<Outcome> {
    drive_on(&mut Terminal::new(embedder), base, files, file_count)
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
    let embedder = load_embedder(model)?;
    let mut terminal = Terminal::new(&embedder);
    terminal.dry_run = Some(DryRun::default());
    let base = Base::Fresh { settings: IndexSettings::default(), reuse_vectors_of: None, vectors: Vectors::Chunks };
    drive(&mut terminal, base, paths)?;
    let counted = terminal.dry_run.unwrap_or_default();
    // The pipeline stops before the dry run counts when no document could be read.
    if counted.chunks == 0 {
        bail!("no document could be read");
    }
    println!("{} chunks; indexing would embed {} texts", counted.chunks, counted.texts_to_embed);
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

/// A file read from disk under its source name, or why it could not be read. Its size is checked before
/// it is read, and no more than `limit` bytes and one are read whatever the file claims (a file can grow
/// while it is read).
fn read_file(path: &Path, working_folder: Option<&Path>, limit: usize) -> InputFile {
    use std::io::Read;
    let name = source_name(path, working_folder);
    let too_large = |bytes: u64| IngestError {
        file: corpus::path::normalize(&name),
        failure: IngestFailure::TooLarge { bytes: usize::try_from(bytes).unwrap_or(usize::MAX), limit },
    };
    let file = std::fs::File::open(path).map_err(|e| unreadable(&name, &e))?;
    let claimed = file.metadata().map_err(|e| unreadable(&name, &e))?.len();
    if claimed > limit as u64 {
        return Err(too_large(claimed));
    }
    let mut bytes = Vec::with_capacity(claimed as usize);
    file.take(limit as u64 + 1).read_to_end(&mut bytes).map_err(|e| unreadable(&name, &e))?;
    if bytes.len() > limit {
        return Err(too_large(bytes.len() as u64));
    }
    Ok(SourceFile::new(&name, bytes))
}

fn unreadable(name: &str, error: &std::io::Error) -> IngestError {
    let reason = match error.kind() {
        std::io::ErrorKind::NotFound => "no such file or folder".to_string(),
        _ => error.to_string(),
    };
    unreadable_because(name, reason)
}

/// The file `name` could not be read, for `reason`.
fn unreadable_because(name: &str, reason: String) -> IngestError {
    IngestError { file: corpus::path::normalize(name), failure: IngestFailure::Unreadable(reason) }
}

/// Files named explicitly (missing ones too, so they are reported), plus files with a supported extension
/// found under named folders; a folder that cannot be listed, as its error. Only regular files are read: a
/// FIFO would block the run and a device (`/dev/zero`) never ends.
fn collect_files(paths: &[PathBuf]) -> Vec<Result<PathBuf, IngestError>> {
    let mut files = Vec::new();
    for path in paths {
        match std::fs::metadata(path) {
            Ok(metadata) if metadata.is_dir() => walk(path, &mut files),
            Ok(metadata) if !metadata.is_file() => files.push(Err(not_a_file(path))),
            _ => files.push(Ok(path.clone())),
        }
    }
    files
}

/// Supported regular files under `dir`, in name order; hidden files and folders are skipped. Symbolic links
/// are followed (a linked folder is part of the tree), and a link back into its own ancestors is reported
/// once instead of walked forever (walkdir keeps the ancestors' identities).
fn walk(dir: &Path, files: &mut Vec<Result<PathBuf, IngestError>>) {
    let hidden = |entry: &walkdir::DirEntry| {
        entry.depth() > 0 && corpus::path::hidden_name(&entry.file_name().to_string_lossy())
    };
    let root = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
    let escapes = std::cell::RefCell::new(Vec::new());
    let inside = |entry: &walkdir::DirEntry| {
        let outside =
            entry.path_is_symlink() && entry.path().canonicalize().is_ok_and(|target| !target.starts_with(&root));
        if outside {
            escapes.borrow_mut().push(Err(unreadable_because(
                &entry.path().display().to_string(),
                "a link out of the folder, not followed".into(),
            )));
        }
        !outside
    };
    let entries = walkdir::WalkDir::new(dir).follow_links(true).sort_by_file_name().into_iter();
    for entry in entries.filter_entry(|entry| !hidden(entry) && inside(entry)) {
        match entry {
            Ok(entry) if !entry.file_type().is_dir() => {
                if corpus::detect_format(&entry.path().to_string_lossy(), &[]).is_ok() {
                    let is_file = entry.file_type().is_file();
                    files.push(if is_file { Ok(entry.into_path()) } else { Err(not_a_file(entry.path())) });
                }
            }
            Ok(_) => {}
            Err(error) => {
                let place = error.path().unwrap_or(dir).display().to_string();
                let reason = match error.loop_ancestor() {
                    Some(ancestor) => format!("a link back to {}, not followed", ancestor.display()),
                    None => error.to_string(),
                };
                files.push(Err(unreadable_because(&place, reason)));
            }
        }
    }
    files.extend(escapes.into_inner());
}

fn not_a_file(path: &Path) -> IngestError {
    unreadable_because(&path.display().to_string(), "not a regular file (a pipe, a device or a socket)".into())
}

/// A document's identity is its path relative to the working folder where it lies inside it, so
/// `/home/me/notes/a.md` and `notes/a.md` (run from `/home/me`) name one document.
fn source_name(path: &Path, working_folder: Option<&Path>) -> String {
    let relative = working_folder.and_then(|folder| path.strip_prefix(folder).ok());
    relative.unwrap_or(path).to_string_lossy().into_owned()
}

/// `quire index`: a fresh index of `paths` with the vectors `vectors` names, reusing the vectors of an
/// existing output unless `fresh`.
pub fn index(
    model: &Option<PathBuf>,
    paths: &[PathBuf],
    output: &Path,
    fresh: bool,
    (settings, vectors): (IndexSettings, Vectors),
) -> CliResult {
    let embedder = load_embedder(model)?;
    let previous = if fresh || !output.exists() {
        None
    } else {
        load_snapshot(output)
            .inspect_err(|e| eprintln!("warning: not reusing embeddings from the existing output: {}", message(e)))
            .ok()
    };
    let base = Base::Fresh { settings, reuse_vectors_of: previous.as_ref(), vectors };
    let outcome = run_pipeline(&embedder, base, paths)?;
    let index = outcome.index.context("no document could be indexed")?;
    save_snapshot(&index, output)
}

/// `quire add` and `quire remove`: the snapshot updated in place, written only when something changed.
pub fn update(model: &Option<PathBuf>, snapshot: &Path, paths: &[PathBuf], removed: &[String]) -> CliResult {
    let embedder = load_embedder(model)?;
    let current = load_snapshot(snapshot)?;
    let base = Base::Update { current: Some(&current), removed };
    let outcome = run_pipeline(&embedder, base, paths)?;
    let Some(index) = outcome.index else {
        bail!("nothing was added; {} is unchanged", snapshot.display());
    };
    save_snapshot(&index, snapshot)
}

/// `index` with the vectors of every node when `needed` and it holds chunk vectors only: embedded now (a
/// method that reads them was asked for), and kept in `saved_to` when it names the index's file.
pub fn with_vectors_for(
    embedder: &MiniLmEmbedder,
    index: IndexedCorpus,
    needed: bool,
    saved_to: Option<&Path>,
) -> anyhow::Result<IndexedCorpus> {
    if !needed || index.vectors() == Vectors::All {
        return Ok(index);
    }
    eprintln!("this index holds chunk vectors only: embedding its pages, sections, entities and relations");
    let outcome = run_on(embedder, Base::AllVectors { current: &index }, Vec::new(), 0)?;
    let completed = outcome.index.context("the vectors of pages, sections, entities and relations were not added")?;
    if let Some(path) = saved_to {
        save_snapshot(&completed, path)?;
    }
    Ok(completed)
}

/// Every supported file under `root` (hidden ones skipped), read, each named by its path inside `root`:
/// a labelled folder's documents are known by those paths.
pub fn read_folder(root: &Path) -> Vec<InputFile> {
    collect_files(&[root.to_path_buf()])
        .into_iter()
        .map(|file| file.and_then(|path| read_file(&path, Some(root), IndexSettings::default().corpus.max_file_bytes)))
        .collect()
}

/// A fresh index of files already read (`quire eval`'s corpus), with what each file gave; `None` when no
/// document could be indexed. Texts `previous` embedded with the same model are not embedded again.
pub fn index_files(
    embedder: &MiniLmEmbedder,
    files: Vec<InputFile>,
    settings: IndexSettings,
    previous: Option<&IndexedCorpus>,
) -> anyhow::Result<(Option<IndexedCorpus>, IngestReport)> {
    let base = Base::Fresh { settings, reuse_vectors_of: previous, vectors: Vectors::Chunks };
    let count = files.len();
    let outcome = run_on(embedder, base, files, count)?;
    Ok((outcome.index, outcome.report))
}
