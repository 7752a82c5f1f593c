//! Which engine workers run and which one answers: the page's side of the engine as one state, [`Stage`],
//! whose transitions are the methods of [`Engines`]. A visit starts with the engine that answers by words
//! (the page's own module); the full engine (the `quire` module, with the embedder) comes up behind it,
//! opens the same index, and takes over once its model has loaded; the one it replaces ends when its last
//! answer is in. A restarted engine is always the full one.
//!
//! ```text
//!  Stopped ──start(ByWords)──▶ ByWords ──start_full_behind──▶ FullBehind ──take over──▶ Full
//!     ▲                           ▲                               │  (index opened, model loaded)
//!     │                           └──────── end_next ─────────────┘  (no model, a crash, a restart)
//!     └───────── a crash of the engine answering ── start(Full) from any stage ──▶ Full
//! ```
//!
//! Over 400 lines: the stages and every transition between them are one state machine, read in one place.

use std::cell::RefCell;
use std::rc::Rc;

use futures_channel::oneshot;

use super::connection::{Connection, Listener, Routes, Started};
use crate::web::error::{EngineError, ModelUnavailable};
use crate::web::protocol::FromEngine;
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
pub(super) struct WholeToLoad {
    pub snapshot: String,
    pub opens_sent: u32,
}

/// The full engine coming up behind the engine by words.
pub(super) struct Next {
    connection: Connection,
    /// Whether it has opened the index, and its model's news if that came first: it takes over with both.
    index_opened: bool,
    model_news: Option<Result<u32, ModelUnavailable>>,
    whole_to_load: Option<WholeToLoad>,
}

/// Which engine answers.
pub(super) enum Stage {
    /// None: before the first start, or after the engine answering crashed.
    Stopped,
    /// The engine by words answers; `opened` is the index it opened last, for the full engine.
    ByWords { current: Connection, opened: Option<OpenedByWords> },
    /// The full engine comes up behind the engine by words, which answers until it takes over (`None`
    /// once it crashed: the full engine still takes over, or a restart replaces both).
    FullBehind { current: Option<Connection>, next: Next, opened: Option<OpenedByWords> },
    /// The full engine answers.
    Full { current: Connection, whole_to_load: Option<WholeToLoad> },
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
}

thread_local! {
    // The page's one engine state: the page is single-threaded, and the workers' message handlers and the
    // calls awaiting them reach it from the event loop.
    static ENGINES: RefCell<Engines> = const {
        RefCell::new(Engines { stage: Stage::Stopped, retiring: None, generations: 0, starts: 0, opened: 0, opens_sent: 0 })
    };
}

/// The engines' state, borrowed for `f`; never call a listener inside it (it may call the engine).
pub(super) fn with<T>(f: impl FnOnce(&mut Engines) -> T) -> T {
    ENGINES.with_borrow_mut(f)
}

fn routes() -> Routes {
    Routes { message: receive, crash }
}

/// A message from the worker of `generation`.
fn receive(generation: u32, message: FromEngine) {
    match message {
        FromEngine::Started(started) => with(|e| {
            if let Some(connection) = e.connection(generation) {
                connection.started(started);
            }
        }),
        FromEngine::Reply { id, reply } => with(|e| {
            if let Some(connection) = e.connection(generation) {
                connection.replied(id, reply.map(serde_bytes::ByteBuf::into_vec));
            }
            e.retire_when_idle();
        }),
        FromEngine::Progress(progress) => {
            let tell = with(|e| {
                e.connection(generation).map(|c| {
                    c.heard(&progress);
                    c.listener.on_progress.clone()
                })
            });
            if let Some(tell) = tell {
                tell(progress);
            }
        }
        FromEngine::ModelLoaded(news) => {
            if let Some((news, tell)) = with(|e| e.model_news(generation, news)) {
                tell(news);
            }
        }
        FromEngine::Crashed(message) => crash(generation, message),
    }
}

/// The worker of `generation` is gone. The full engine coming up is ended and the page told its model will
/// not come; the engine answering is ended with its waiting calls told it crashed (the page restarts it
/// with the index as it was).
fn crash(generation: u32, message: String) {
    if let Some(tell) = with(|e| e.crashed(generation, &message)) {
        tell(Err(ModelUnavailable::EngineStopped(message)));
    }
}

type TellModel = Rc<dyn Fn(Result<u32, ModelUnavailable>)>;

impl Engines {
    /// The kind of the engine calls go to now.
    pub fn current_kind(&mut self) -> Option<Kind> {
        self.current().map(|c| c.kind)
    }

    pub fn current(&mut self) -> Option<&mut Connection> {
        match &mut self.stage {
            Stage::Stopped | Stage::FullBehind { current: None, .. } => None,
            Stage::ByWords { current, .. } | Stage::Full { current, .. } => Some(current),
            Stage::FullBehind { current: Some(current), .. } => Some(current),
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

    /// Starts an engine of `kind` as the one calls go to, ending every running one.
    pub fn start(&mut self, kind: Kind, listener: Listener) -> Result<Started, EngineError> {
        self.starts += 1;
        self.end_all("the engine was restarted");
        let (current, started) = self.launch(kind, listener)?;
        self.stage = match kind {
            Kind::ByWords => Stage::ByWords { current, opened: None },
            Kind::Full => Stage::Full { current, whole_to_load: None },
        };
        Ok(started)
    }

    fn launch(&mut self, kind: Kind, listener: Listener) -> Result<(Connection, Started), EngineError> {
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
                if let Some(current) = current {
                    current.end(why);
                }
            }
        }
    }

    /// Starts the full engine behind the engine by words, with the same listener; it takes over once it
    /// has opened the index ([`Engines::next_opened`]) and its model has loaded.
    pub fn start_full_behind(&mut self) -> Result<Started, EngineError> {
        self.end_next("the full engine was started again");
        let listener = match &self.stage {
            Stage::ByWords { current, .. } => current.listener.clone(),
            _ => return Err(EngineError::NoEngineByWords),
        };
        let (connection, started) = self.launch(Kind::Full, listener)?;
        let next = Next { connection, index_opened: false, model_news: None, whole_to_load: None };
        if let Stage::ByWords { current, opened } = std::mem::replace(&mut self.stage, Stage::Stopped) {
            self.stage = Stage::FullBehind { current: Some(current), next, opened };
        }
        Ok(started)
    }

    /// Ends the full engine coming up, if any, without telling the page: whoever started it gave up on it.
    pub fn end_next(&mut self, why: &str) {
        match std::mem::replace(&mut self.stage, Stage::Stopped) {
            Stage::FullBehind { current, next, opened } => {
                next.connection.end(why);
                if let Some(current) = current {
                    self.stage = Stage::ByWords { current, opened };
                }
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
    /// load when it opened it by its fragments. What to tell the page if it took over or was ended.
    pub fn next_opened(
        &mut self,
        whole_to_load: Option<WholeToLoad>,
    ) -> Option<(Result<u32, ModelUnavailable>, TellModel)> {
        if let Stage::FullBehind { next, .. } = &mut self.stage {
            next.index_opened = true;
            next.whole_to_load = whole_to_load;
        }
        self.take_over_when_ready()
    }

    /// The whole snapshot the full engine is to load, taken.
    /// Where the stages with a full engine keep the whole snapshot it is to load.
    fn whole_to_load_slot(&mut self) -> Option<&mut Option<WholeToLoad>> {
        match &mut self.stage {
            Stage::FullBehind { next, .. } => Some(&mut next.whole_to_load),
            Stage::Full { whole_to_load, .. } => Some(whole_to_load),
            _ => None,
        }
    }

    pub fn take_whole_to_load(&mut self) -> Option<WholeToLoad> {
        self.whole_to_load_slot()?.take()
    }

    pub fn whole_to_load(&mut self) -> bool {
        self.whole_to_load_slot().is_some_and(|slot| slot.is_some())
    }

    fn model_news(
        &mut self,
        generation: u32,
        news: Result<u32, ModelUnavailable>,
    ) -> Option<(Result<u32, ModelUnavailable>, TellModel)> {
        if self.next().is_some_and(|c| c.generation == generation) {
            if let Stage::FullBehind { next, .. } = &mut self.stage {
                next.model_news = Some(news);
            }
            return self.take_over_when_ready();
        }
        self.connection(generation).map(|c| (news, c.listener.on_model.clone()))
    }

    /// Once the full engine coming up has opened the index and heard from its model: with the model loaded
    /// it takes over (calls go to it from now on, and the one it replaces answers what it was asked);
    /// without, it is ended. Either way the page is to be told.
    fn take_over_when_ready(&mut self) -> Option<(Result<u32, ModelUnavailable>, TellModel)> {
        let Stage::FullBehind { next, .. } = &mut self.stage else { return None };
        let failed = next.model_news.as_ref().is_some_and(Result::is_err);
        if !(next.index_opened || failed) {
            return None;
        }
        let news = next.model_news.take()?;
        let tell = next.connection.listener.on_model.clone();
        if failed {
            self.end_next("its model could not be loaded");
            return Some((news, tell));
        }
        let Stage::FullBehind { current, next, .. } = std::mem::replace(&mut self.stage, Stage::Stopped) else {
            return None;
        };
        self.stage = Stage::Full { current: next.connection, whole_to_load: next.whole_to_load };
        if let Some(replaced) = std::mem::replace(&mut self.retiring, current) {
            replaced.end("it was replaced");
        }
        self.retire_when_idle();
        Some((news, tell))
    }

    fn retire_when_idle(&mut self) {
        if self.retiring.as_ref().is_some_and(Connection::idle)
            && let Some(retiring) = self.retiring.take()
        {
            retiring.end("it was replaced");
        }
    }

    /// The worker of `generation` crashed: see [`crash`]. Whom to tell that the model will not come.
    fn crashed(&mut self, generation: u32, message: &str) -> Option<TellModel> {
        if self.retiring.as_ref().is_some_and(|c| c.generation == generation) {
            self.retiring.take()?.end(message);
            return None;
        }
        match std::mem::replace(&mut self.stage, Stage::Stopped) {
            Stage::FullBehind { current, next, opened } if next.connection.generation == generation => {
                let tell = next.connection.listener.on_model.clone();
                next.connection.end(message);
                if let Some(current) = current {
                    self.stage = Stage::ByWords { current, opened };
                }
                Some(tell)
            }
            Stage::FullBehind { current: Some(current), next, opened } if current.generation == generation => {
                current.end(message);
                self.stage = Stage::FullBehind { current: None, next, opened };
                None
            }
            Stage::ByWords { current, .. } | Stage::Full { current, .. } if current.generation == generation => {
                current.end(message);
                None
            }
            unchanged => {
                self.stage = unchanged;
                None
            }
        }
    }
}
