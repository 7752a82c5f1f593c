//! Which engine workers run and which one answers: the page's side of the engine as one state, [`Stage`],
//! whose transitions are the methods of [`Engines`], and the [`Lifecycle`] the page sees of it, published
//! to the page after every change. A visit starts with the engine that answers by words (the page's own
//! module); the full engine (the `quire` module, with the embedder) comes up behind it, opens the same
//! index, and takes over once its model has loaded; the one it replaces ends when its last answer is in. A
//! restarted engine is always the full one.
//!
//! ```text
//!  Stopped ──start(ByWords)──▶ ByWords ──start_full_behind──▶ FullBehind ──take over──▶ Full
//!   ▲  ▲                          ▲                               │  (index opened, model loaded)
//!   │  │                          └──────── end_next ─────────────┘  (no model, its crash, a restart)
//!   │  └── a crash of the engine answering, from ByWords, FullBehind or Full (Lifecycle::Crashed) ──┐
//!   └──────────────────────────── start(Full), from any stage (the page's restart) ──▶ Full ◀───────┘
//! ```
//!
//! Over 400 lines: the stages and every transition between them are one state machine, read in one place.

use std::cell::RefCell;
use std::rc::Rc;

use futures_channel::oneshot;

use super::connection::{Connection, Listener, Routes, Started};
use super::lifecycle::{Lifecycle, Model};
use crate::web::error::{ClientError, Damaged, Failure, ModelUnavailable};
use crate::web::protocol::{FromEngine, Task};
use crate::web::roles::Kind;

/// The index the engine by words last opened, for the full engine to open: the snapshot's bytes as the
/// page gave them (no second download, no export, dropped once it has), the index saved in this browser
/// (which the full engine reads itself), or, for an index it opened by its fragments, where they and the
/// whole snapshot lie.
pub(super) enum OpenedByWords {
    Bytes {
        name: String,
        bytes: Vec<u8>,
    },
    Saved,
    Fragments {
        folder: String,
        snapshot: String,
        /// Whether a question was answered from them; told to whoever waits for that.
        answered: bool,
        waiting_for_answer: Vec<oneshot::Sender<()>>,
    },
}

/// The whole snapshot of the index the full engine opened by its fragments, to load behind them, and how
/// many opens had been sent then: an open sent since is one it must not replace.
#[derive(Clone)]
pub(super) struct WholeToLoad {
    pub snapshot: String,
    pub opens_sent: u32,
}

/// The whole snapshot a full engine holding fragments is to load, and whether its load has begun (it begins
/// once: a load that failed leaves the engine answering from the fragments).
pub(super) struct WholeSnapshot {
    pub to_load: WholeToLoad,
    pub loading: bool,
}

/// The full engine coming up behind the engine by words.
pub(super) struct Next {
    connection: Connection,
    /// Whether it has opened the index, and its model's news if that came first: it takes over with both.
    index_opened: bool,
    model_news: Option<Result<u32, ModelUnavailable>>,
    whole_to_load: Option<WholeSnapshot>,
}

/// Which engine answers.
pub(super) enum Stage {
    /// None: before the first start, or after the engine answering crashed (`Engines::crash` says why).
    Stopped,
    /// The engine by words answers; `opened` is the index it opened last, for the full engine.
    ByWords { current: Connection, opened: Option<OpenedByWords> },
    /// The full engine comes up behind the engine by words, which answers until it takes over.
    FullBehind { current: Connection, next: Next, opened: Option<OpenedByWords> },
    /// The full engine answers.
    Full { current: Connection, whole_to_load: Option<WholeSnapshot> },
}

pub(super) struct Engines {
    pub stage: Stage,
    /// An engine the full one replaced, until its last answer is in.
    retiring: Option<Connection>,
    /// Workers started: each worker's messages are routed by its generation.
    generations: u32,
    /// Times an engine was started: a step that spans awaits checks it did not change meanwhile.
    pub starts: u32,
    /// Indexes opened, and opens sent (answered or not: an open still being decoded is one the site's whole
    /// snapshot must not replace).
    pub opened: u32,
    pub opens_sent: u32,
    /// Why the engine answering last crashed, and the file it was parsing, while none has been started since.
    crash: Option<(String, Option<String>)>,
    /// The model of the engine answering, or of the full engine coming up behind the engine by words, as
    /// the page is told it (the one coming up tells it once it takes over, or fails).
    model: Model,
    /// Whom to tell of the lifecycle (the listener of the last start), and what it was told last.
    listener: Option<Listener>,
    published: Lifecycle,
}

thread_local! {
    // The page's one engine state: the page is single-threaded, and the workers' message handlers and the
    // calls awaiting them reach it from the event loop.
    static ENGINES: RefCell<Engines> = const {
        RefCell::new(Engines {
            stage: Stage::Stopped,
            retiring: None,
            generations: 0,
            starts: 0,
            opened: 0,
            opens_sent: 0,
            crash: None,
            model: Model::Loading(None),
            listener: None,
            published: Lifecycle::Stopped,
        })
    };
}

/// The engines' state, borrowed for `f`; never call a listener inside it (it may call the engine). A
/// lifecycle `f` changed is published once the borrow has ended, so every transition is told, once.
pub(super) fn with<T>(f: impl FnOnce(&mut Engines) -> T) -> T {
    let (result, news) = ENGINES.with_borrow_mut(|e| {
        let result = f(e);
        (result, e.lifecycle_news())
    });
    if let Some((lifecycle, tell)) = news {
        tell(lifecycle);
    }
    result
}

fn routes() -> Routes {
    Routes { message: receive, crash }
}

/// A message from the worker of `generation`, with the bytes of the reply it carries.
fn receive(generation: u32, message: FromEngine, payload: Option<js_sys::Uint8Array>) {
    match message {
        FromEngine::Started(started) => with(|e| {
            if let Some(connection) = e.connection(generation) {
                connection.started(started);
            }
        }),
        FromEngine::Reply { id, reply } => with(|e| {
            if let Some(connection) = e.connection(generation) {
                let missing = || Failure::from(ClientError::Damaged(Damaged("a reply without its bytes".into())));
                connection.replied(id, reply.map_err(Failure::Refused).and_then(|()| payload.ok_or_else(missing)));
            }
            e.retire_when_idle();
        }),
        FromEngine::Progress { call, progress } => {
            let tell = with(|e| {
                if progress.task == Task::LoadModel && e.answering_or_next(generation) {
                    e.model = Model::Loading(Some(progress.clone()));
                }
                let connection = e.connection(generation)?;
                connection.heard(call, &progress).then(|| connection.listener.on_progress.clone())
            });
            if let Some(tell) = tell {
                tell(progress);
            }
        }
        FromEngine::ModelLoaded(news) => with(|e| e.model_news(generation, news)),
        FromEngine::Crashed(message) => crash(generation, message),
    }
}

/// The worker of `generation` is gone. The full engine coming up is ended and its model will not come;
/// the engine answering is ended with its waiting calls told it crashed (the page restarts it with the
/// index as it was).
fn crash(generation: u32, message: String) {
    with(|e| e.crashed(generation, &message))
}

/// What the page is told of a model: loaded, with the engine's memory then, or why it is not.
fn told(news: Result<u32, ModelUnavailable>) -> Model {
    news.map_or_else(Model::Failed, |engine_memory| Model::Loaded { engine_memory })
}

type TellLifecycle = Rc<dyn Fn(Lifecycle)>;

impl Engines {
    /// The kind of the engine calls go to now.
    pub fn current_kind(&mut self) -> Option<Kind> {
        self.current().map(|c| c.kind)
    }

    pub fn current(&mut self) -> Option<&mut Connection> {
        match &mut self.stage {
            Stage::Stopped => None,
            Stage::ByWords { current, .. } | Stage::Full { current, .. } | Stage::FullBehind { current, .. } => {
                Some(current)
            }
        }
    }

    /// The full engine coming up.
    pub fn next(&mut self) -> Option<&mut Connection> {
        match &mut self.stage {
            Stage::FullBehind { next, .. } => Some(&mut next.connection),
            _ => None,
        }
    }

    /// The full engine, coming up or taken over.
    pub fn full(&mut self) -> Option<&mut Connection> {
        match &mut self.stage {
            Stage::FullBehind { next, .. } => Some(&mut next.connection),
            Stage::Full { current, .. } => Some(current),
            _ => None,
        }
    }

    fn connection(&mut self, generation: u32) -> Option<&mut Connection> {
        let is_it = |c: &Connection| c.generation == generation;
        if self.retiring.as_ref().is_some_and(is_it) {
            return self.retiring.as_mut();
        }
        if self.next().is_some_and(|c| is_it(c)) {
            return self.next();
        }
        self.current().filter(|c| is_it(c))
    }

    /// Call `id` to the worker of `generation` is no longer waited for: it is cancelled.
    pub fn forget_call(&mut self, generation: u32, id: u32) {
        if let Some(connection) = self.connection(generation) {
            connection.forget(id);
        }
        self.retire_when_idle();
    }

    /// Starts an engine of `kind` as the one calls go to, ending every running one.
    pub fn start(&mut self, kind: Kind, listener: Listener) -> Result<Started, ClientError> {
        self.starts += 1;
        self.end_all("the engine was restarted");
        self.crash = None;
        self.model = Model::Loading(None);
        self.listener = Some(listener.clone());
        let (current, started) = self.launch(kind, listener)?;
        self.stage = match kind {
            Kind::ByWords => Stage::ByWords { current, opened: None },
            Kind::Full => Stage::Full { current, whole_to_load: None },
        };
        Ok(started)
    }

    fn launch(&mut self, kind: Kind, listener: Listener) -> Result<(Connection, Started), ClientError> {
        self.generations += 1;
        Connection::launch(kind, self.generations, listener, routes())
    }

    fn end_all(&mut self, why: &str) {
        if let Some(retiring) = self.retiring.take() {
            retiring.end(why);
        }
        match std::mem::replace(&mut self.stage, Stage::Stopped) {
            Stage::Stopped => {}
            Stage::ByWords { current, .. } | Stage::Full { current, .. } => current.end(why),
            Stage::FullBehind { current, next, .. } => {
                next.connection.end(why);
                current.end(why);
            }
        }
    }

    /// Starts the full engine behind the engine by words, with the same listener; it takes over once it
    /// has opened the index ([`Engines::next_opened`]) and its model has loaded.
    pub fn start_full_behind(&mut self) -> Result<Started, ClientError> {
        self.end_next("the full engine was started again");
        let listener = match &self.stage {
            Stage::ByWords { current, .. } => current.listener.clone(),
            _ => return Err(ClientError::NoEngineByWords),
        };
        let (connection, started) = self.launch(Kind::Full, listener)?;
        let next = Next { connection, index_opened: false, model_news: None, whole_to_load: None };
        self.model = Model::Loading(None);
        if let Stage::ByWords { current, opened } = std::mem::replace(&mut self.stage, Stage::Stopped) {
            self.stage = Stage::FullBehind { current, next, opened };
        }
        Ok(started)
    }

    /// Ends the full engine coming up, if any, without telling the page: whoever started it gave up on it.
    pub fn end_next(&mut self, why: &str) {
        match std::mem::replace(&mut self.stage, Stage::Stopped) {
            Stage::FullBehind { current, next, opened } => {
                next.connection.end(why);
                self.stage = Stage::ByWords { current, opened };
            }
            other => self.stage = other,
        }
    }

    /// Where the stages with an engine by words keep the index it opened last.
    fn opened_by_words(&mut self) -> Option<&mut Option<OpenedByWords>> {
        match &mut self.stage {
            Stage::ByWords { opened, .. } | Stage::FullBehind { opened, .. } => Some(opened),
            _ => None,
        }
    }

    /// The index the engine by words opened last, taken for the full engine to open.
    pub fn take_opened_by_words(&mut self) -> Option<OpenedByWords> {
        self.opened_by_words()?.take()
    }

    /// An index was opened; `held` is the engine by words' record of it, for the full engine to open.
    pub fn index_opened(&mut self, held: Option<OpenedByWords>) {
        self.opened += 1;
        if let Some(slot) = self.opened_by_words() {
            *slot = held;
        }
        // A whole snapshot still to load was the replaced index's.
        if let Some(whole) = self.whole_to_load_slot() {
            *whole = None;
        }
    }

    /// Whether the engine by words holds an index by its fragments and has not answered from it yet; if so,
    /// a receiver told when it has (or when that index is replaced).
    pub fn first_answer_by_fragments(&mut self) -> Option<oneshot::Receiver<()>> {
        match &mut self.stage {
            Stage::ByWords {
                opened: Some(OpenedByWords::Fragments { answered: false, waiting_for_answer, .. }),
                ..
            } => {
                let (told, answered) = oneshot::channel();
                waiting_for_answer.push(told);
                Some(answered)
            }
            _ => None,
        }
    }

    /// A question was answered from the index opened last.
    pub fn answered(&mut self) {
        if let Some(Some(OpenedByWords::Fragments { answered, waiting_for_answer, .. })) = self.opened_by_words() {
            *answered = true;
            for told in waiting_for_answer.drain(..) {
                let _ = told.send(());
            }
        }
    }

    /// The full engine coming up has opened the index the page gave it, with its whole snapshot still to
    /// load when it opened it by its fragments; it takes over once its model has loaded.
    pub fn next_opened(&mut self, whole_to_load: Option<WholeToLoad>) {
        if let Stage::FullBehind { next, .. } = &mut self.stage {
            next.index_opened = true;
            next.whole_to_load = whole_to_load.map(|to_load| WholeSnapshot { to_load, loading: false });
        }
        self.take_over_when_ready()
    }

    /// The full engine could not be brought up: its model will not come, unless the page was told why
    /// already (it crashed, or said its model could not be loaded).
    pub fn full_not_brought_up(&mut self, failure: &Failure) {
        self.end_next("it could not open the index");
        if self.full().is_none() && matches!(self.model, Model::Loading(_)) {
            self.model = Model::Failed(ModelUnavailable::EngineNotStarted(Box::new(failure.clone())));
        }
    }

    /// Where the stages with a full engine keep the whole snapshot it is to load.
    fn whole_to_load_slot(&mut self) -> Option<&mut Option<WholeSnapshot>> {
        match &mut self.stage {
            Stage::FullBehind { next, .. } => Some(&mut next.whole_to_load),
            Stage::Full { whole_to_load, .. } => Some(whole_to_load),
            _ => None,
        }
    }

    /// The whole snapshot the full engine is to load, its load begun; `None` when there is none, or when
    /// its load has begun already.
    pub fn begin_loading_whole(&mut self) -> Option<WholeToLoad> {
        let whole = self.whole_to_load_slot()?.as_mut().filter(|whole| !whole.loading)?;
        whole.loading = true;
        Some(whole.to_load.clone())
    }

    /// The full engine opened the whole snapshot: it holds the whole index.
    pub fn whole_loaded(&mut self) {
        if let Some(whole) = self.whole_to_load_slot() {
            *whole = None;
        }
    }

    /// The lifecycle the stage shows the page.
    fn lifecycle(&self) -> Lifecycle {
        match &self.stage {
            Stage::Stopped => match &self.crash {
                Some((why, parsing)) => Lifecycle::Crashed { why: why.clone(), parsing: parsing.clone() },
                None => Lifecycle::Stopped,
            },
            Stage::ByWords { current, .. } | Stage::Full { current, .. } if current.is_starting() => {
                Lifecycle::Starting(current.kind)
            }
            Stage::ByWords { .. } => {
                Lifecycle::ByWords { full_coming_up: false, by_fragments: false, model: self.model.clone() }
            }
            Stage::FullBehind { next, .. } => Lifecycle::ByWords {
                full_coming_up: true,
                by_fragments: next.whole_to_load.is_some(),
                model: self.model.clone(),
            },
            Stage::Full { whole_to_load, .. } => {
                Lifecycle::Full { by_fragments: whole_to_load.is_some(), model: self.model.clone() }
            }
        }
    }

    /// The lifecycle, and whom to tell, when it changed since it was last told.
    fn lifecycle_news(&mut self) -> Option<(Lifecycle, TellLifecycle)> {
        let now = self.lifecycle();
        if now == self.published {
            return None;
        }
        self.published = now.clone();
        Some((now, self.listener.as_ref()?.on_lifecycle.clone()))
    }

    /// Whether the worker of `generation` is the engine answering or the full engine coming up.
    fn answering_or_next(&mut self, generation: u32) -> bool {
        let is_it = |c: &mut Connection| c.generation == generation;
        self.current().is_some_and(is_it) || self.next().is_some_and(is_it)
    }

    /// The model of the worker of `generation` loaded or failed: the engine answering's is the page's now;
    /// that of the full engine coming up once it takes over (or is ended without one).
    fn model_news(&mut self, generation: u32, news: Result<u32, ModelUnavailable>) {
        if self.next().is_some_and(|c| c.generation == generation) {
            if let Stage::FullBehind { next, .. } = &mut self.stage {
                next.model_news = Some(news);
            }
            return self.take_over_when_ready();
        }
        if self.current().is_some_and(|c| c.generation == generation) {
            self.model = told(news);
        }
    }

    /// Once the full engine coming up has opened the index and heard from its model: with the model loaded
    /// it takes over (calls go to it from now on, and the one it replaces answers what it was asked);
    /// without, it is ended. Either way the page is told its model's state.
    fn take_over_when_ready(&mut self) {
        let Stage::FullBehind { next, .. } = &mut self.stage else { return };
        let failed = next.model_news.as_ref().is_some_and(Result::is_err);
        if !(next.index_opened || failed) {
            return;
        }
        let Some(news) = next.model_news.take() else { return };
        self.model = told(news);
        if failed {
            return self.end_next("its model could not be loaded");
        }
        let Stage::FullBehind { current, next, .. } = std::mem::replace(&mut self.stage, Stage::Stopped) else {
            return;
        };
        self.stage = Stage::Full { current: next.connection, whole_to_load: next.whole_to_load };
        if let Some(replaced) = self.retiring.replace(current) {
            replaced.end("it was replaced");
        }
        self.retire_when_idle();
    }

    fn retire_when_idle(&mut self) {
        if self.retiring.as_ref().is_some_and(Connection::idle)
            && let Some(retiring) = self.retiring.take()
        {
            retiring.end("it was replaced");
        }
    }

    /// The worker of `generation` crashed: see [`crash`].
    fn crashed(&mut self, generation: u32, message: &str) {
        if self.retiring.as_ref().is_some_and(|c| c.generation == generation) {
            if let Some(retiring) = self.retiring.take() {
                retiring.end(message);
            }
            return;
        }
        match std::mem::replace(&mut self.stage, Stage::Stopped) {
            Stage::FullBehind { current, next, opened } if next.connection.generation == generation => {
                next.connection.end(message);
                self.model = Model::Failed(ModelUnavailable::EngineStopped(message.to_string()));
                self.stage = Stage::ByWords { current, opened };
            }
            stage => {
                self.stage = stage;
                // The engine answering: every engine ends (a full one coming up behind it too), and the
                // page, told by the lifecycle, starts a new one.
                if let Some(parsing) = self.current().filter(|c| c.generation == generation).map(|c| c.parsing()) {
                    self.end_all(message);
                    self.crash = Some((message.to_string(), parsing));
                }
            }
        }
    }
}
