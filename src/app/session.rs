//! The index the page shows and every engine call that replaces or changes it: [`IndexSession`] owns the
//! phase, what the page shows of the index, what this browser stores of it, and the orchestration around
//! the engine: starting it (the index a link names, else the saved index, else the build's first published
//! corpus), opening published corpora and imported files, updating,
//! removing, exporting and forgetting, and restarting a crashed engine with the index as it was.

use leptos::prelude::*;
use leptos::task::spawn_local;

use super::corpora;
use super::engine::{self, Failure};
use super::phase::Phase;
use super::protocol::{FileBytes, IndexOutcome, IndexState, Progress, Task};
use super::results::Search;
use super::{browser, storage};
use crate::corpus::ReportLine;
use crate::retrieve::lesson::Lesson;
use crate::store::CorpusSummary;
use crate::store::published::{PublishedCorpus, SampleQuestion};

/// The name an exported index is offered under.
const EXPORT_NAME: &str = "quire-index.quire";
/// What the index saved in this browser is called in messages.
const SAVED_INDEX: &str = "the index saved in this browser";
/// How long the full engine's downloads (its module, the model, the whole index: tens of megabytes) wait
/// for a first question on an index opened by its fragments: on a slow link a question asked while they
/// run shares the link with them, and its few kilobytes of fragments wait behind megabytes.
const FIRST_QUESTION_GRACE_MS: u32 = 5_000;

/// The engine's embedding model, which loads behind it while questions are answered by words.
#[derive(Clone, Debug, PartialEq)]
pub enum Model {
    /// Downloading, as last reported.
    Loading(Option<Progress>),
    Loaded,
    Failed(String),
}

#[derive(Clone, Copy)]
pub struct IndexSession {
    pub phase: RwSignal<Phase>,
    pub model: RwSignal<Model>,
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
    /// Whether the index shown is the one saved in this browser, and what the browser stores.
    pub saved: RwSignal<bool>,
    pub restored: RwSignal<bool>,
    pub usage: RwSignal<Option<storage::Usage>>,
    /// Files of the update being indexed now (0 when none): the index as it was answers questions meanwhile.
    pub indexing_files: RwSignal<usize>,
    /// Whether the full engine holds the index by its fragments while its whole snapshot loads
    /// (`engine::load_whole_index`): answers come by words and meaning, without the graph's retrievers.
    pub held_by_fragments: RwSignal<bool>,
    /// Whether the service worker was registered by this page (`keep_offline`).
    offline_registered: RwSignal<bool>,
    /// The report of a `?bench=` page (measured in builds with the `bench` feature).
    pub bench: RwSignal<Option<String>>,
    /// What was shown of an index goes with it.
    search: Search,
}

impl IndexSession {
    pub fn new(search: Search) -> Self {
        IndexSession {
            phase: RwSignal::new(Phase::Starting),
            model: RwSignal::new(Model::Loading(None)),
            summary: RwSignal::new(None),
            engine_memory: RwSignal::new(0),
            documents: RwSignal::new(Vec::new()),
            last_outcome: RwSignal::new(None),
            published: RwSignal::new(Vec::new()),
            title: RwSignal::new(None),
            corpus: RwSignal::new(None),
            lesson: RwSignal::new(None),
            notice: RwSignal::new(None),
            saved: RwSignal::new(false),
            restored: RwSignal::new(false),
            usage: RwSignal::new(None),
            indexing_files: RwSignal::new(0),
            held_by_fragments: RwSignal::new(false),
            offline_registered: RwSignal::new(false),
            bench: RwSignal::new(None),
            search,
        }
    }

    /// Whether the engine takes every request now, its model loaded (tracked: controls are enabled by it).
    pub fn ready(self) -> bool {
        matches!(self.phase.get(), Phase::Ready)
    }

    /// Whether the embedding model has loaded (tracked).
    pub fn model_loaded(self) -> bool {
        self.model.get() == Model::Loaded
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

    /// With an index open: ready, or answering by words while the model loads (or since it failed to).
    fn settle(self) {
        let phase = match self.model.get_untracked() {
            Model::Loaded => Phase::Ready,
            Model::Loading(progress) => Phase::AnsweringByWords(Ok(progress)),
            Model::Failed(reason) => Phase::AnsweringByWords(Err(reason)),
        };
        self.phase.set(phase);
    }

    /// The model's news, shown in the phase while questions are answered by words.
    fn model_changed(self, model: Model) {
        self.model.set(model);
        if matches!(self.phase.get_untracked(), Phase::AnsweringByWords(_)) {
            self.settle();
        }
    }

    /// The model's download goes to `model`, every other step to the phase.
    fn on_progress(self) -> impl Fn(Progress) + 'static {
        move |progress| match progress.task {
            Task::LoadModel => self.model_changed(Model::Loading(Some(progress))),
            _ => self.phase.set(Phase::Working(progress)),
        }
    }

    fn on_model(self) -> impl Fn(Result<u32, String>) + 'static {
        move |loaded| {
            if let Ok(engine_memory) = loaded {
                self.engine_memory.set(engine_memory);
            }
            self.model_changed(loaded.map_or_else(Model::Failed, |_| Model::Loaded));
            // Behind a whole snapshot still to load, once it has (`load_whole_index`).
            if !self.held_by_fragments.get_untracked() {
                self.keep_offline();
            }
        }
    }

    async fn start_engine(self, kind: engine::Kind) -> Result<(), String> {
        self.model.set(Model::Loading(None));
        engine::start(kind, self.on_progress(), self.on_model()).await
    }

    /// The index the page shows, as a snapshot and the name it goes by: the saved one if it is saved, else
    /// the corpus shown (for an engine that starts afresh).
    async fn shown_index(self) -> Result<(String, Vec<u8>), String> {
        if self.saved.get_untracked()
            && let Some(bytes) = storage::load().await?
        {
            return Ok((SAVED_INDEX.to_string(), bytes));
        }
        let shown = self.corpus.get_untracked().ok_or("no index was shown")?;
        Ok((shown.snapshot.clone(), corpora::fetch(&shown).await?.0))
    }

    /// With an index shown by the engine that answers by words: the full engine comes up behind it with the
    /// same index, and takes over once its model has loaded (`on_model`). Behind an index opened by its
    /// fragments, it waits for the first answer, or [`FIRST_QUESTION_GRACE_MS`] without a question. An engine by words that crashed
    /// meanwhile is replaced by a full one with the index as it was.
    /// Whether there was one to bring up.
    async fn bring_up_full_engine(self) -> bool {
        if engine::current_kind() != Some(engine::Kind::ByWords) || self.summary.get_untracked().is_none() {
            return false;
        }
        let starts = engine::starts();
        let mut waited = 0;
        while engine::awaits_first_answer_by_fragments() && waited < FIRST_QUESTION_GRACE_MS {
            gloo_timers::future::TimeoutFuture::new(100).await;
            waited += 100;
        }
        match engine::bring_up_full(starts).await {
            Ok(true) => self.load_whole_index().await,
            Ok(false) => {}
            Err(crash @ Failure::Crashed { .. }) if engine::current_kind().is_none() => self.recover(crash).await,
            // Unless the page was told already (its model could not be loaded).
            Err(failure) if matches!(self.model.get_untracked(), Model::Loading(_)) => {
                self.on_model()(Err(format!("the engine with the embedding model could not start: {failure}")))
            }
            Err(_) => {}
        }
        true
    }

    /// The whole snapshot of an index the full engine opened by its fragments, loaded behind them once the
    /// model has (on a slow link the two would share it, and the answers by meaning wait for the model): the
    /// answers by words and meaning are asked again by the chosen method once it has.
    async fn load_whole_index(self) {
        if !engine::whole_index_to_load() {
            return;
        }
        self.held_by_fragments.set(true);
        while matches!(self.model.get_untracked(), Model::Loading(_)) {
            gloo_timers::future::TimeoutFuture::new(200).await;
        }
        match engine::load_whole_index().await {
            Some(Ok(state)) => {
                self.held_by_fragments.set(false);
                self.show(state);
            }
            Some(Err(crash @ Failure::Crashed { .. })) => {
                self.held_by_fragments.set(false);
                self.recover(crash).await;
            }
            // The full engine goes on answering from the fragments.
            Some(Err(failure)) => self.notice.set(Some(format!(
                "The site's whole index could not be loaded ({failure}): questions are answered from its \
                 fragments, by words and meaning, without the graph's retrievers."
            ))),
            None => self.held_by_fragments.set(false),
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
                if let Err(reason) = self.start_engine(engine::Kind::Full).await {
                    return self.phase.set(Phase::Failed(reason));
                }
                match engine::benchmark(benchmark).await {
                    Ok(report) => self.bench.set(Some(report)),
                    Err(failure) => return self.phase.set(Phase::Failed(failure.to_string())),
                }
                return self.settle();
            }
            if let Err(reason) = self.start_engine(engine::Kind::ByWords).await {
                return self.phase.set(Phase::Failed(reason));
            }
            self.open_first_index().await;
            if !self.bring_up_full_engine().await {
                self.keep_offline();
            }
        });
    }

    async fn persist(self) {
        self.saved.set(false);
        let stored = match engine::export().await {
            Ok(bytes) => storage::save(&bytes).await,
            Err(failure) => Err(failure.to_string()),
        };
        match stored {
            Ok(()) => self.saved.set(true),
            Err(reason) => self.notice.set(Some(reason)),
        }
        self.usage.set(storage::usage().await);
    }

    /// A new full engine with the index the page shows: the saved one if it is saved, else the corpus shown.
    async fn restart_engine(self) -> Result<(), String> {
        self.start_engine(engine::Kind::Full).await?;
        let (name, bytes) = self.shown_index().await?;
        self.show(engine::open(&name, bytes).await.map_err(|failure| failure.to_string())?);
        Ok(())
    }

    /// What a failed request leaves: a refusal is reported; a crash restarts the engine with the index as it
    /// was.
    pub async fn recover(self, failure: Failure) {
        match failure {
            Failure::Refused(reason) => self.notice.set(Some(reason)),
            Failure::Crashed { message, .. } => {
                self.notice
                    .set(Some(format!("The engine stopped ({message}); it was restarted with the index as it was.")));
                match self.restart_engine().await {
                    Ok(()) => self.settle(),
                    Err(reason) => self.phase.set(Phase::Failed(reason)),
                }
            }
        }
    }

    /// Adds `files` and removes `removed`. A file whose parser crashes the engine is skipped with an error
    /// naming it; the engine restarts with the index as it was and the update goes on with the other files.
    async fn update_index(self, mut files: Vec<FileBytes>, removed: Vec<String>) {
        if self.held_by_fragments.get_untracked() {
            return self.notice.set(Some(
                "The site's whole index is still loading: files can be added or removed once it has.".into(),
            ));
        }
        self.indexing_files.set(files.len());
        let mut crashed_on = Vec::new();
        let result = loop {
            match engine::update(files.clone(), removed.clone()).await {
                Err(Failure::Crashed { message, parsing: Some(file) }) => {
                    crashed_on.push(format!("{file}: the parser crashed on this file ({message}); it was skipped"));
                    // The engine names a file as its pipeline does, by its normalised path.
                    let before = files.len();
                    files.retain(|f| crate::corpus::path::normalize(&f.path) != file);
                    if files.len() == before {
                        break Err(Failure::Refused(format!("{file}: the parser crashed on this file ({message})")));
                    }
                    if let Err(reason) = self.restart_engine().await {
                        break Err(Failure::Refused(reason));
                    }
                }
                other => break other,
            }
        };
        self.indexing_files.set(0);
        match result {
            Ok((mut outcome, state)) => {
                let crashes = crashed_on.into_iter().map(|text| ReportLine { text, problem: true, files: Vec::new() });
                outcome.report.splice(0..0, crashes);
                self.last_outcome.set(Some(outcome));
                self.settle();
                if let Some(state) = state {
                    self.show(state);
                    self.persist().await;
                }
            }
            Err(Failure::Refused(reason)) => self.phase.set(Phase::Failed(reason)),
            Err(crash) => self.recover(crash).await,
        }
    }

    /// Before a method runs that searches page, section, entity or relation vectors (`reads_node_vectors`):
    /// an index of chunk vectors gains them, with the progress of indexing (a Cancel keeps it as it was), and
    /// is saved with them. Whether the method may run.
    pub async fn vectors_for(self, reads_node_vectors: bool) -> bool {
        if !reads_node_vectors || self.summary.get_untracked().is_none_or(|summary| summary.node_vectors) {
            return true;
        }
        if self.indexing_files.get_untracked() > 0 {
            self.notice.set(Some(
                "This method searches pages, sections, entities and relations, which are embedded after the files \
                 being indexed now: ask again when indexing is done, or use a method of chunks meanwhile."
                    .into(),
            ));
            return false;
        }
        match engine::add_node_vectors().await {
            Ok((outcome, state)) => {
                self.settle();
                let Some(state) = state.filter(|_| !outcome.cancelled) else { return false };
                self.notice.set(Some(format!(
                    "Embedded this index's pages, sections, entities and relations ({} texts, {:.0} s): the \
                     retrievers that search them run on it from now on.",
                    outcome.embedded, outcome.seconds
                )));
                self.show(state);
                // Kept where the index is the user's own (saved); a published or linked one is not saved
                // over it by a question.
                if self.saved.get_untracked() {
                    self.persist().await;
                }
                true
            }
            Err(Failure::Refused(reason)) => {
                self.settle();
                self.notice.set(Some(reason));
                false
            }
            Err(crash) => {
                self.recover(crash).await;
                false
            }
        }
    }

    pub fn remove(self, source: String) {
        spawn_local(self.update_index(Vec::new(), vec![source]));
    }

    /// Reads picked or dropped files and adds them; `unreadable` are those already known to be unreadable.
    pub fn add_picked(self, picked: Vec<(String, web_sys::File)>, mut unreadable: Vec<String>) {
        spawn_local(async move {
            let (files, unread) = browser::read_picked(picked).await;
            unreadable.extend(unread);
            self.notice.set((!unreadable.is_empty()).then(|| unreadable.join("; ")));
            self.update_index(files, Vec::new()).await;
        });
    }

    /// A whole index replaced (a published corpus, the saved one, an imported file): what was shown of the old one goes.
    /// `from_storage`: it is the index saved in this browser.
    fn show_new_index(self, state: IndexState, questions: Vec<SampleQuestion>, from_storage: bool) {
        self.show(state);
        self.lesson.set(None);
        self.search.new_index(questions);
        self.last_outcome.set(None);
        self.saved.set(from_storage);
        self.restored.set(from_storage);
    }

    /// Opens a published (or linked) corpus in place of the index shown.
    pub async fn open_corpus(self, chosen: PublishedCorpus) {
        if let Err(failure) = self.try_open_corpus(chosen).await {
            self.phase.set(Phase::Failed(failure));
        }
    }

    async fn try_open_corpus(self, chosen: PublishedCorpus) -> Result<(), String> {
        self.phase.set(Phase::OpeningPublished);
        // The engine by words answers from the index's fragments where the site has them: a large index is
        // searchable after its lexicon, not after its whole snapshot. A site kept offline has the snapshot
        // at hand (its service worker keeps it, not the fragments).
        let by_fragments = engine::current_kind() == Some(engine::Kind::ByWords) && !browser::kept_offline();
        let by_fragments = match &chosen.fragments {
            Some(folder) if by_fragments => {
                let (questions, lesson) = corpora::fetch_extras(&chosen).await?;
                // Fragments that cannot be opened (a host that lacks them, a damaged lexicon) leave the snapshot.
                engine::open_fragments(folder, &chosen.snapshot).await.ok().map(|state| (state, questions, lesson))
            }
            _ => None,
        };
        let (state, questions, lesson) = match by_fragments {
            Some(opened) => opened,
            None => {
                let (snapshot, questions, lesson) = corpora::fetch(&chosen).await?;
                let state = engine::open(&chosen.snapshot, snapshot).await.map_err(|failure| failure.to_string())?;
                (state, questions, lesson)
            }
        };
        self.corpus.set(Some(chosen));
        self.show_new_index(state, questions, false);
        self.lesson.set(lesson);
        self.settle();
        Ok(())
    }

    /// Opens the index the address links; a failure is a notice, and the caller goes on as without a link.
    async fn open_linked(self, linked: PublishedCorpus) -> bool {
        let path = linked.snapshot.clone();
        if let Err(reason) = self.try_open_corpus(linked).await {
            self.notice.set(Some(format!("The link's index could not be opened: {reason}")));
            return false;
        }
        if storage::is_saved().await {
            self.notice.set(Some(format!(
                "Showing {path}, which the link names. The index saved in this browser is kept and opens on a \
                 visit without the link; a change to the one shown here replaces it."
            )));
        }
        true
    }

    /// The first index to show: the one the address links (`?index=`), else the one saved in this browser,
    /// else the first corpus the build publishes. A saved index that cannot be opened is left in place (a
    /// change replaces it, Forget removes it) and the published corpus opens.
    async fn open_first_index(self) {
        let published = match corpora::fetch_published().await {
            Ok(published) => {
                self.title.set(published.title.clone());
                if let Some(title) = &published.title {
                    browser::set_document_title(&format!("{title} · Quire"));
                }
                self.published.set(published.corpora.clone());
                published.corpora
            }
            Err(reason) => {
                self.notice.set(Some(reason));
                Vec::new()
            }
        };
        let linked = corpora::linked_index(&published);
        let first = published.into_iter().next();
        match linked {
            Some(Ok(linked)) if self.open_linked(linked.clone()).await => {
                return self.usage.set(storage::usage().await);
            }
            Some(Err(refused)) => self.notice.set(Some(refused)),
            _ => {}
        }
        let instead = first.as_ref().map_or_else(|| "nothing".to_string(), |corpus| format!("\"{}\"", corpus.title));
        let restored_index = match storage::load().await {
            Ok(Some(bytes)) => engine::open(SAVED_INDEX, bytes).await.map(Some).map_err(|failure| {
                format!("{failure}. Showing {instead} instead; your next change replaces the saved index, or Forget removes it.")
            }),
            Ok(None) => Ok(None),
            Err(reason) => Err(format!("{reason}. Showing {instead} instead.")),
        };
        match (restored_index, first) {
            (Ok(Some(state)), _) => {
                self.show_new_index(state, Vec::new(), true);
                self.settle();
            }
            (not_restored, Some(first)) => {
                if let Err(reason) = not_restored {
                    self.notice.set(Some(reason));
                }
                self.open_corpus(first).await;
            }
            (not_restored, None) => {
                let why = not_restored.err().or_else(|| self.notice.get_untracked()).unwrap_or_default();
                self.phase.set(Phase::Failed(format!("there is no index to open: {why}")));
            }
        }
        self.usage.set(storage::usage().await);
    }

    /// Replaces the index with an exported `.quire` file's, and saves it in this browser.
    pub fn import(self, file: web_sys::File) {
        spawn_local(async move {
            let imported = match browser::read_file(&file).await {
                Ok(bytes) => engine::open(&file.name(), bytes).await,
                Err(reason) => Err(Failure::Refused(reason)),
            };
            match imported {
                Ok(state) => {
                    self.notice.set(None);
                    self.show_new_index(state, Vec::new(), false);
                    self.persist().await;
                }
                Err(failure) => self.recover(failure).await,
            }
        });
    }

    /// Offers the index as a `.quire` file to download.
    pub fn export(self) {
        spawn_local(async move {
            let exported = match engine::export().await {
                Ok(bytes) => browser::download(EXPORT_NAME, &bytes),
                Err(failure) => Err(failure.to_string()),
            };
            self.notice.set(exported.err());
        })
    }

    /// Deletes the index saved in this browser; the index shown stays.
    pub fn forget(self) {
        spawn_local(async move {
            match storage::forget().await {
                Ok(()) => {
                    self.saved.set(false);
                    self.restored.set(false);
                    self.notice.set(Some(
                        "The saved index is forgotten: the next visit starts from the published index.".into(),
                    ));
                }
                Err(reason) => self.notice.set(Some(reason)),
            }
            self.usage.set(storage::usage().await);
        })
    }
}

/// The measurement the address asks for: `?bench=embed&count=N&tokens=T&workers=W&here=1` or
/// `?bench=hnsw&count=N`.
fn requested_benchmark() -> Option<super::protocol::Benchmark> {
    use super::protocol::Benchmark;
    let number = |name: &str, default: usize| {
        browser::query_parameter(name).and_then(|value| value.parse().ok()).unwrap_or(default)
    };
    match browser::query_parameter("bench")?.as_str() {
        "embed" => {
            let (count, tokens, workers) = (number("count", 32), number("tokens", 128), number("workers", 0));
            let here = number("here", 0) == 1;
            Some(Benchmark::Embed { count, tokens, workers, here })
        }
        "hnsw" => Some(Benchmark::Hnsw { vectors: number("count", 10_000) }),
        _ => None,
    }
}
