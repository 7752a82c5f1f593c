//! The index the page shows and every engine call that replaces or changes it: [`IndexSession`] owns the
//! phase, what the page shows of the index, what this browser stores of it, and the orchestration around
//! the engine: starting it (the index a link names, else the saved index, else the build's first published
//! corpus), opening published corpora and imported files, updating,
//! removing, exporting and forgetting, and restarting a crashed engine with the index as it was.

mod changes;
mod opening;
mod restart;

use std::rc::Rc;

use futures_util::future::{LocalBoxFuture, Shared};
use leptos::prelude::*;
use leptos::task::spawn_local;

use super::corpora;
use super::phase::{Phase, Step};
use super::results::Search;
use crate::retrieve::lesson::Lesson;
use crate::store::CorpusSummary;
use crate::store::published::PublishedCorpus;
use crate::web::client::{self, Failure, Lifecycle, Model};
use crate::web::protocol::{IndexOutcome, IndexState, Progress, Task};
use crate::web::{browser, storage};

/// The name an exported index is offered under.
const EXPORT_NAME: &str = "quire-index.quire";
/// How long the full engine's downloads (its module, the model, the whole index: tens of megabytes) wait
/// for a first question on an index opened by its fragments: on a slow link a question asked while they
/// run shares the link with them, and its few kilobytes of fragments wait behind megabytes.
const FIRST_QUESTION_GRACE_MS: u32 = 5_000;

/// The restart after a crash, which every call the crash failed awaits: why it failed, if it did.
type Restart = Shared<LocalBoxFuture<'static, Result<(), String>>>;

/// Why the session could not show an index: the engine's failure, or the published corpus's.
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    #[error(transparent)]
    Engine(#[from] Failure),
    #[error(transparent)]
    Corpus(#[from] corpora::CorpusError),
    /// A restarted engine has no index to open again.
    #[error("no index was shown")]
    NothingShown,
}

#[derive(Clone, Copy)]
pub struct IndexSession {
    /// What the session does with the index; the phase shown derives from it and the engine's lifecycle.
    step: RwSignal<Step>,
    pub phase: Memo<Phase>,
    /// The engine's lifecycle, as the client last published it, and its model's state in it.
    pub engine: RwSignal<Lifecycle>,
    pub model: Memo<Model>,
    pub summary: RwSignal<Option<CorpusSummary>>,
    pub engine_memory: RwSignal<u32>,
    /// Every document as (source, title).
    pub documents: RwSignal<Vec<(String, String)>>,
    pub last_outcome: RwSignal<Option<IndexOutcome>>,
    /// The corpora this build publishes (the demos, or a site's own) and its title.
    pub published: RwSignal<Vec<PublishedCorpus>>,
    pub title: RwSignal<Option<String>>,
    /// The published or linked corpus shown, or last shown: a restarted engine opens it again unless the
    /// index is saved.
    pub corpus: RwSignal<Option<PublishedCorpus>>,
    /// The lesson published with the corpus shown, if any.
    pub lesson: RwSignal<Option<Lesson>>,
    /// Problems that leave the index as it was (a refused import, a failed save): reported, not a failed state.
    pub notice: RwSignal<Option<String>>,
    /// Whether the index shown holds the user's own documents (restored, imported or changed): files added
    /// to a published corpus as it was published start a corpus of their own unless the user keeps it beside
    /// them (`add_picked`).
    pub own: RwSignal<bool>,
    /// Whether the index shown is the one saved in this browser, and what the browser stores.
    pub saved: RwSignal<bool>,
    pub restored: RwSignal<bool>,
    pub usage: RwSignal<Option<storage::Usage>>,
    /// Files of the update being indexed now (0 when none): the index as it was answers questions meanwhile.
    pub indexing_files: RwSignal<usize>,
    /// The restart after the last crash, and when the last one not blamed on a file began.
    restart: StoredValue<Option<Restart>, LocalStorage>,
    restarted_at: StoredValue<Option<f64>>,
    /// Whether the service worker was registered by this page (`keep_offline`).
    offline_registered: RwSignal<bool>,
    /// The report of a `?bench=` page (measured in builds with the `bench` feature).
    pub bench: RwSignal<Option<String>>,
    /// What was shown of an index goes with it.
    search: Search,
}

impl IndexSession {
    pub fn new(search: Search) -> Self {
        let step = RwSignal::new(Step::Starting);
        let engine = RwSignal::new(Lifecycle::Stopped);
        IndexSession {
            step,
            phase: Memo::new(move |_| engine.with(|engine| step.with(|step| Phase::of(step, engine)))),
            engine,
            model: Memo::new(move |_| engine.with(Lifecycle::model)),
            summary: RwSignal::new(None),
            engine_memory: RwSignal::new(0),
            documents: RwSignal::new(Vec::new()),
            last_outcome: RwSignal::new(None),
            published: RwSignal::new(Vec::new()),
            title: RwSignal::new(None),
            corpus: RwSignal::new(None),
            lesson: RwSignal::new(None),
            notice: RwSignal::new(None),
            own: RwSignal::new(false),
            saved: RwSignal::new(false),
            restored: RwSignal::new(false),
            usage: RwSignal::new(None),
            indexing_files: RwSignal::new(0),
            restart: StoredValue::new_local(None),
            restarted_at: StoredValue::new(None),
            offline_registered: RwSignal::new(false),
            bench: RwSignal::new(None),
            search,
        }
    }

    /// Whether the engine takes every request now, its model loaded (tracked: controls are enabled by it).
    pub fn ready(self) -> bool {
        matches!(self.phase.get(), Phase::Ready)
    }

    /// Whether the full engine holds the index by its fragments while its whole snapshot loads
    /// (`client::load_whole_index`; tracked): answers come by words and meaning, without the graph's
    /// retrievers, and changes to the index wait.
    pub fn held_by_fragments(self) -> bool {
        self.engine.with(Lifecycle::by_fragments)
    }

    /// Whether the embedding model has loaded (tracked).
    pub fn model_loaded(self) -> bool {
        self.model.with(Model::is_loaded)
    }

    /// Whether a question can be asked now (tracked): the engine is ready, or answers by words while its
    /// model loads, or it is indexing new files while the index as it was answers (the engine worker answers
    /// between the update's steps).
    pub fn answers_questions(self) -> bool {
        match self.phase.get() {
            Phase::Ready | Phase::AnsweringByWords(_) => true,
            Phase::Working(_) => self.indexing_files.get() > 0,
            _ => false,
        }
    }

    fn show(self, state: IndexState) {
        self.summary.set(Some(state.summary));
        self.documents.set(state.documents);
        self.engine_memory.set(state.engine_memory_bytes);
    }

    /// With an index open: the phase is the engine's, ready, or answering by words while the model loads
    /// (or since it failed to).
    pub fn settle(self) {
        self.step.set(Step::Settled);
    }

    /// The session cannot go on: the phase says why.
    fn fail(self, reason: String) {
        self.step.set(Step::Failed(reason));
    }

    /// Every step but the model's download goes to the phase (the lifecycle carries the download); a model
    /// an update's documents asked for (another language's) is that update's step too, shown with its name
    /// and size.
    fn on_progress(self) -> impl Fn(Progress) + 'static {
        move |progress| match progress.task {
            Task::LoadModel if !matches!(self.step.get_untracked(), Step::Working(_)) => {}
            _ => self.step.set(Step::Working(progress)),
        }
    }

    /// The engine's lifecycle, kept; a crash of the engine answering starts a new one (`engine_crashed`),
    /// and a model that has loaded or failed lets what waited for it go on (`model_settled`).
    fn on_lifecycle(self) -> impl Fn(Lifecycle) + 'static {
        move |lifecycle| {
            let model_before = self.engine.with_untracked(Lifecycle::model);
            self.engine.set(lifecycle.clone());
            let model = lifecycle.model();
            if model != model_before && !matches!(model, Model::Loading(_)) {
                self.model_settled(model);
            }
            if let Lifecycle::Crashed { why, parsing } = lifecycle {
                self.engine_crashed(why, parsing);
            }
        }
    }

    /// Once the model has loaded or failed: the engine's memory then, and the whole snapshot still to load
    /// behind fragments (`load_whole_index`), else the service worker (`keep_offline`).
    fn model_settled(self, model: Model) {
        if let Model::Loaded { engine_memory } = model {
            self.engine_memory.set(engine_memory);
        }
        match self.engine.with_untracked(Lifecycle::by_fragments) {
            true => spawn_local(self.load_whole_index()),
            false => self.keep_offline(),
        }
    }

    async fn start_engine(self, kind: client::Kind) -> Result<(), Failure> {
        let listener =
            client::Listener { on_progress: Rc::new(self.on_progress()), on_lifecycle: Rc::new(self.on_lifecycle()) };
        client::start(kind, listener).await
    }

    /// With an index shown by the engine that answers by words: the full engine comes up behind it with the
    /// same index, and takes over once its model has loaded (`model_settled`). Behind an index opened by its
    /// fragments, it waits for the first answer, or [`FIRST_QUESTION_GRACE_MS`] without a question. An engine by words that crashed
    /// meanwhile is replaced by a full one with the index as it was.
    /// Whether there was one to bring up.
    async fn bring_up_full_engine(self) -> bool {
        if client::current_kind() != Some(client::Kind::ByWords) || self.summary.get_untracked().is_none() {
            return false;
        }
        let starts = client::starts();
        client::first_answer_by_fragments(FIRST_QUESTION_GRACE_MS).await;
        match client::bring_up_full(starts).await {
            // Loaded once the model has (`model_settled`): on a slow link the two would share it, and the answers
            // by meaning wait for the model.
            // The lifecycle the client published says so (`Lifecycle::by_fragments`).
            Ok(true) if self.engine.with_untracked(Lifecycle::by_fragments) => {
                if !matches!(self.model.get_untracked(), Model::Loading(_)) {
                    self.load_whole_index().await;
                }
            }
            Ok(_) => {}
            Err(crash @ Failure::Crashed { .. }) if client::current_kind().is_none() => self.recover(crash).await,
            // The lifecycle tells that the model will not come (`Engines::full_not_brought_up`).
            Err(_) => {}
        }
        true
    }

    /// The whole snapshot of an index the full engine opened by its fragments, loaded behind them once the
    /// model has: the answers by words and meaning are asked again by the chosen method once it has.
    async fn load_whole_index(self) {
        match client::load_whole_index().await {
            Some(Ok(state)) => self.show(state),
            Some(Err(crash @ Failure::Crashed { .. })) => self.recover(crash).await,
            // The full engine goes on answering from the fragments.
            Some(Err(failure)) => self.notice.set(Some(format!(
                "The site's whole index could not be loaded ({failure}): questions are answered from its \
                 fragments, by words and meaning, without the graph's retrievers."
            ))),
            None => {}
        }
        // The service worker keeps the whole snapshot too: registered now, it does not download it a second
        // time beside this page.
        self.keep_offline();
    }

    /// Registers the service worker once per page, after the first index is shown and its model has loaded
    /// (or could not be): caching the build for offline use must not slow the first answers, nor fetch the
    /// model a second time while the engine fetches it.
    fn keep_offline(self) {
        if !self.offline_registered.get_untracked() {
            self.offline_registered.set(true);
            spawn_local(browser::register_service_worker());
        }
    }

    /// Starts the engine, then opens the index the address links, else the saved index, else the first
    /// published corpus (or runs the benchmark the address asks for, in the full engine).
    pub fn start(self) {
        spawn_local(async move {
            if let Some(benchmark) = requested_benchmark() {
                // Nothing caches the build behind a measurement.
                self.offline_registered.set(true);
                if let Err(failure) = self.start_engine(client::Kind::Full).await {
                    return self.fail(failure.to_string());
                }
                match client::call(benchmark).await {
                    Ok(report) => self.bench.set(Some(report)),
                    Err(failure) => return self.fail(failure.to_string()),
                }
                return self.settle();
            }
            if let Err(failure) = self.start_engine(client::Kind::ByWords).await {
                return self.fail(failure.to_string());
            }
            self.open_first_index().await;
            if !self.bring_up_full_engine().await {
                self.keep_offline();
            }
        });
    }
}

/// The measurement the address asks for: `?bench=embed&count=N&tokens=T&workers=W&here=1` or
/// `?bench=index&count=N&kind=flat|hnsw`.
fn requested_benchmark() -> Option<crate::web::protocol::Benchmark> {
    use crate::web::protocol::Benchmark;
    let number = |name: &str, default: usize| {
        browser::query_parameter(name).and_then(|value| value.parse().ok()).unwrap_or(default)
    };
    match browser::query_parameter("bench")?.as_str() {
        "embed" => {
            let (count, tokens, workers) = (number("count", 32), number("tokens", 128), number("workers", 0));
            let here = number("here", 0) == 1;
            Some(Benchmark::Embed { count, tokens, workers, here })
        }
        "index" => {
            use crate::index::VectorIndexKind;
            let kind = match browser::query_parameter("kind").as_deref() {
                Some("flat") => VectorIndexKind::Flat,
                _ => VectorIndexKind::Hnsw,
            };
            Some(Benchmark::VectorIndex { vectors: number("count", 10_000), kind })
        }
        _ => None,
    }
}
