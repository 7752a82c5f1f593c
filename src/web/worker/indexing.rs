//! The engine worker's index changes: opening a snapshot, and updating the index with the user's files
//! through the engine's pipeline (`store::pipeline`) with the page as its host: progress posted to the
//! page, embedding here or through the pool, each step stoppable by a Cancel with the index kept as it was.

use std::rc::Rc;

use crate::corpus::SourceFile;
use crate::corpus::TokenCounter;
use crate::embed::jobs::TimeLeft;
use crate::embed::{Embedder, EmbeddingModel, ModelIdentity, TextEmbedder};
use crate::store::pipeline::{self, Base, Host, InputFile, Outcome};
use crate::store::{IndexBuilder, IndexedCorpus};

use crate::web::browser;
use crate::web::calls::Updated;
use crate::web::error::EngineError;
use crate::web::pool::Pool;
use crate::web::protocol::{FileBytes, IndexOutcome, IndexState, Progress, Task};

use super::state::{Held, Preview, cancelled, rate, send_progress, with_engine};

/// Texts the engine worker embeds itself between two looks at its messages: a Cancel, or a question asked
/// while files are indexed, waits at most this (a batch is no faster per text in wasm32).
const TEXTS_PER_SLICE: usize = 2;
/// Fewer texts than this are embedded here: starting the pool (a model per worker) would cost more.
const POOL_THRESHOLD: usize = 96;
/// Files of at least this many bytes in all start the pool before they are parsed, so that its workers load
/// their models while the engine worker parses: a folder this large holds far more than [`POOL_THRESHOLD`]
/// texts (a kilobyte of HTML is a few dozen words), and a pool started for a smaller one waits for the next.
const POOL_EARLY_BYTES: usize = 1 << 20;
/// How long parsing runs before the worker yields to read its messages.
const PARSE_SLICE_MS: f64 = 50.0;
/// An update's texts, when they go to the pool, are embedded in this many rounds; after each but the last,
/// questions are answered from the index as far as it is embedded (`IndexBuilder::preview`, which costs a
/// build of the graphs and search indexes each time).
const PREVIEW_ROUNDS: usize = 4;

fn state(index: &IndexedCorpus) -> IndexState {
    IndexState {
        summary: index.summary(),
        documents: index.corpus().documents.iter().map(|d| (d.source.clone(), d.title.clone())).collect(),
        engine_memory_bytes: browser::wasm_memory_bytes(),
    }
}

/// Replaces the index with a `.quire` file's; a file that is not a snapshot, or was embedded by a model
/// outside the catalogue (compared with `model`), is refused and the current index kept. Opened before the model has loaded (`None`),
/// the index is checked by the first question by meaning (`answers::query`).
pub(super) fn open(name: &str, bytes: &[u8], model: Option<&ModelIdentity>) -> Result<IndexState, EngineError> {
    let index = IndexedCorpus::from_snapshot(bytes).map_err(|e| EngineError::snapshot(name, e))?;
    // An index of a model in the catalogue brings its model (`model::follow_index`); of another, it is
    // refused once a model is here to compare it with.
    if let (None, Some(model)) = (EmbeddingModel::of(index.model()), model) {
        index.check_model(model).map_err(|e| EngineError::snapshot(name, e))?;
    }
    let shown = state(&index);
    with_engine(|engine| engine.held = Held::Whole(Rc::new(index)))?;
    Ok(shown)
}

/// Parses `files` file by file, adds them to the corpus (replacing same-named documents) and removes
/// `removed`, through the engine's pipeline; only new texts are embedded. The current index answers
/// questions while the files are parsed, then the new one as far as it is embedded (its new documents by
/// their words at once, by their meaning as they are embedded); a Cancel or a failure leaves the index as
/// it was.
pub(super) async fn update(files: Vec<FileBytes>, removed: Vec<String>) -> Result<Updated, EngineError> {
    let current = with_engine(|engine| engine.held.begin_update())??;
    if files.iter().map(|file| file.bytes.len()).sum::<usize>() >= POOL_EARLY_BYTES {
        // Its workers load the model most folders get; a folder in another language replaces the pool once
        // its documents have chosen their model (`Page::use_model`).
        let model = super::model::embedder()?.model();
        with_engine(|engine| {
            engine.pool.get_or_insert_with(|| Pool::for_this_device(model));
        })?;
    }
    let base = Base::Update { current: current.as_deref(), removed: &removed };
    let files = files.into_iter().map(|file| Ok(SourceFile::new(file.path, file.bytes)));
    let outcome = run_pipeline_previewed(base, files, true).await;
    // An LLM-assisted retrieval started on the preview holds its chunk ids, which after a Cancel name nothing.
    super::answers::forget_assisted();
    replace_index(current, outcome)
}

/// Adds the vectors of pages, sections, entities and relations to an index of chunk vectors, through the
/// engine's pipeline (`Base::AllVectors`), before a method that searches them runs; stoppable as an update.
pub(super) async fn add_node_vectors() -> Result<Updated, EngineError> {
    let current = with_engine(|engine| engine.held.begin_update())??;
    let outcome = match current.as_deref() {
        Some(index) => run_pipeline(Base::AllVectors { current: index }, std::iter::empty()).await,
        None => Err(EngineError::NoIndexForVectors),
    };
    replace_index(current, outcome)
}

/// The pipeline's new index in place of `current` (unless the user opened another meanwhile), and what
/// the page shows of the run; after a failure, the index as it was.
fn replace_index(
    current: Option<Rc<IndexedCorpus>>,
    outcome: Result<Outcome, EngineError>,
) -> Result<Updated, EngineError> {
    let mut outcome = match outcome {
        Ok(outcome) => outcome,
        Err(failure) => {
            with_engine(|engine| engine.held.end_update(&current, None))??;
            super::model::follow_index();
            return Err(failure);
        }
    };
    let built = outcome.index.take();
    let shown = built.as_ref().map(state);
    with_engine(|engine| engine.held.end_update(&current, built))??;
    super::model::follow_index();
    let outcome_shown = IndexOutcome {
        cancelled: outcome.cancelled,
        report: outcome.report.summary(),
        embedded: outcome.embedded,
        reused: outcome.reused,
        seconds: outcome.timings.total(),
    };
    Ok(Updated { outcome: outcome_shown, state: shown })
}

/// Runs the engine's pipeline here: progress to the page, embedding here or through the pool, the page's
/// Cancel read between steps.
pub(super) async fn run_pipeline(
    base: Base<'_>,
    files: impl ExactSizeIterator<Item = InputFile>,
) -> Result<Outcome, EngineError> {
    run_pipeline_previewed(base, files, false).await
}

/// As [`run_pipeline`]; with `previews`, questions are answered from the index as far as it is embedded.
async fn run_pipeline_previewed(
    base: Base<'_>,
    files: impl ExactSizeIterator<Item = InputFile>,
    previews: bool,
) -> Result<Outcome, EngineError> {
    let embedder = super::model::embedder()?;
    let now = browser::now_ms();
    let mut page = Page { embedder, task: None, task_started: now, last_yield: now, previews };
    let count = files.len();
    let clock = || browser::now_ms() / 1000.0;
    pipeline::run(&mut page, base, files, count, &clock).await.map_err(EngineError::from)
}

/// The page as the pipeline's host.
struct Page {
    embedder: Rc<Embedder>,
    task: Option<pipeline::Task>,
    task_started: f64,
    last_yield: f64,
    /// Whether questions are answered from the index being built (an update of the user's index).
    previews: bool,
}

impl Host for Page {
    type Embedder = Embedder;
    type Error = EngineError;

    fn embedder(&self) -> &Embedder {
        &self.embedder
    }

    /// Loads `model` if the engine holds another (the first folder in another language: the page said its
    /// size as the download began); a pool of workers holding another model is dropped.
    async fn use_model(&mut self, model: EmbeddingModel) -> Result<(), EngineError> {
        if self.embedder.model() != model {
            self.embedder = super::model::ready_for(model).await?;
        }
        with_engine(|engine| {
            if engine.pool.as_ref().is_some_and(|pool| pool.model() != model) {
                engine.pool = None;
            }
        })
    }

    fn progress(&mut self, progress: pipeline::Progress<'_>) {
        if self.task != Some(progress.task) {
            self.task = Some(progress.task);
            self.task_started = browser::now_ms();
        }
        let task = match progress.task {
            pipeline::Task::Parse => Task::Parse,
            pipeline::Task::Embed => Task::Embed,
            pipeline::Task::Build => Task::Build,
        };
        let (done, total) = (progress.done, progress.total);
        let rate = rate(done, self.task_started);
        let current = progress.current.map(String::from);
        send_progress(Progress { task, done, total, rate, current, seconds_left: None });
    }

    /// Yields to the worker's event loop every [`PARSE_SLICE_MS`], so a Cancel can arrive.
    async fn carry_on(&mut self) -> bool {
        if browser::now_ms() - self.last_yield > PARSE_SLICE_MS {
            browser::next_tick().await;
            self.last_yield = browser::now_ms();
        }
        !cancelled()
    }

    fn planned(&mut self, builder: &IndexBuilder) {
        if self.previews && goes_to_pool(builder) {
            publish_preview(builder);
        }
    }

    async fn embed(&mut self, builder: &mut IndexBuilder) -> Result<bool, EngineError> {
        embed(builder, &self.embedder, self.previews).await
    }
}

/// Whether `builder`'s texts go to the pool: fewer are embedded here, in a few seconds, with no preview
/// (each costs a build of every graph and index).
fn goes_to_pool(builder: &IndexBuilder) -> bool {
    builder.to_embed() >= POOL_THRESHOLD
}

/// Questions are answered from `builder`'s index as far as it is embedded, from now on.
fn publish_preview(builder: &IndexBuilder) {
    // The previous preview goes first: two at once would double the engine's memory.
    let Ok(had_one) = with_engine(|engine| engine.held.drop_preview()) else { return };
    let (index, waiting) = builder.preview();
    let _ = with_engine(|engine| engine.held.show_preview(Preview { index, waiting }));
    if !had_one {
        // An LLM-assisted retrieval started on the index as it was holds that index's ids; the previews of
        // one update share theirs.
        super::answers::forget_assisted();
    }
}

/// Embeds every pending text, here or through the pool; `false` when cancelled. Through the pool with
/// `previews`, in [`PREVIEW_ROUNDS`] rounds, each followed by a new preview.
async fn embed(builder: &mut IndexBuilder, embedder: &Embedder, previews: bool) -> Result<bool, EngineError> {
    let (started, total, already) = (browser::now_ms(), builder.to_embed(), builder.embedded());
    let pooled = goes_to_pool(builder);
    let count = |text: &String| embedder.count_tokens(text).min(embedder.identity().max_tokens);
    let pieces: Vec<usize> = builder.texts_to_embed().iter().map(count).collect();
    let rounds = if previews { PREVIEW_ROUNDS } else { 1 };
    let round = total.div_ceil(rounds).max(1);
    // The pool hands each round's texts out longest first; here they go in the builder's order.
    let time_left = TimeLeft::new(pieces, if pooled { round } else { 1 });
    let tell = |done: usize| {
        let elapsed = (browser::now_ms() - started) / 1000.0;
        let seconds_left = time_left.seconds_left(done.saturating_sub(already), elapsed);
        send_progress(Progress {
            task: Task::Embed,
            done,
            total,
            rate: rate(done, started),
            current: None,
            seconds_left,
        })
    };
    tell(0);
    if pooled {
        let model = embedder.model();
        let mut pool = with_engine(|engine| engine.pool.take())?.unwrap_or_else(|| Pool::for_this_device(model));
        let embedded = embed_in_rounds(&mut pool, builder, round, &tell).await;
        // A pool that failed is dropped (its workers end with it); the next large update starts a new one.
        if embedded.is_ok() {
            with_engine(|engine| engine.pool = Some(pool))?;
        }
        return embedded;
    }
    while !builder.is_done() {
        browser::next_tick().await;
        if cancelled() {
            return Ok(false);
        }
        builder.embed_next(embedder, TEXTS_PER_SLICE)?;
        tell(builder.embedded());
    }
    Ok(true)
}

/// Embeds `builder`'s pending texts through `pool` in rounds of `round` texts, a new preview after each
/// but the last when there are several; `false` when cancelled.
async fn embed_in_rounds(
    pool: &mut Pool,
    builder: &mut IndexBuilder,
    round: usize,
    tell: &dyn Fn(usize),
) -> Result<bool, EngineError> {
    let several = round < builder.to_embed();
    while !builder.is_done() {
        if !pool.embed(builder, round, Some(&embed_here), &cancelled, tell).await? {
            return Ok(false);
        }
        if several && !builder.is_done() {
            publish_preview(builder);
        }
    }
    Ok(true)
}

/// Embeds with the engine's own model: the engine worker's share of a pool's jobs.
pub(super) fn embed_here(texts: &[&str]) -> Result<Vec<Vec<f32>>, EngineError> {
    Ok(super::model::embedder()?.embed(texts)?)
}
