//! The engine workers the page talks to, and which one answers. A visit starts with the engine that
//! answers by words (the page's own module); the full engine (the `quire` module, with the embedder) comes
//! up beside it, opens the same index, and takes over once its model has loaded. The one it replaces ends
//! when its last answer is in. Each worker's messages are routed by the generation it was started with, so
//! a late message of a replaced or crashed worker never reaches another's requests.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;
use std::thread::LocalKey;

use futures_channel::oneshot;
use wasm_bindgen::prelude::*;
use web_sys::{ErrorEvent, MessageEvent, Worker};

use super::Failure;
use crate::app::browser::{self, describe};
use crate::app::protocol::{FromEngine, Listeners, Progress, Reply, Request, Task, ToEngine, from_js, to_js};

/// The role `main` takes in an engine worker.
pub const ROLE: &str = "engine";

/// Which engine a worker runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// The page's own module: opens an index and answers by words at once.
    ByWords,
    /// The engine's module: everything, answering by words until its model has loaded.
    Full,
}

/// What the page hears from whichever engine runs: progress, and the model having loaded (with the
/// engine's memory then) or failed.
#[derive(Clone)]
pub struct Listener {
    pub on_progress: Rc<dyn Fn(Progress)>,
    pub on_model: Rc<dyn Fn(Result<u32, String>)>,
}

struct Connection {
    generation: u32,
    kind: Kind,
    worker: Worker,
    /// Told once the engine takes requests, or why it could not start.
    starting: Option<oneshot::Sender<Result<(), Failure>>>,
    waiting: HashMap<u32, oneshot::Sender<Result<Reply, Failure>>>,
    next_id: u32,
    /// What the engine last said it was doing: the file it was parsing when it crashed is the one to blame.
    last_progress: Option<Progress>,
    listener: Listener,
    listeners: Listeners,
    /// For the full engine coming up: whether it has opened the index (`index_opened`), and its model's
    /// news if that came first; it takes over only with both.
    index_opened: bool,
    model_news: Option<Result<u32, String>>,
}

type Slot = &'static LocalKey<RefCell<Option<Connection>>>;

thread_local! {
    /// The engine requests go to.
    static CURRENT: RefCell<Option<Connection>> = const { RefCell::new(None) };
    /// The full engine coming up behind the one answering by words.
    static NEXT: RefCell<Option<Connection>> = const { RefCell::new(None) };
    /// An engine the full one replaced, until its last answer is in.
    static RETIRING: RefCell<Option<Connection>> = const { RefCell::new(None) };
    static GENERATIONS: Cell<u32> = const { Cell::new(0) };
    static STARTS: Cell<u32> = const { Cell::new(0) };
}

const SLOTS: [Slot; 3] = [&CURRENT, &NEXT, &RETIRING];

/// The kind of the engine requests go to now.
pub fn current_kind() -> Option<Kind> {
    CURRENT.with_borrow(|c| c.as_ref().map(|c| c.kind))
}

/// Starts an engine of `kind` as the one requests go to, ending every running one, and waits until it
/// takes requests.
pub async fn start(kind: Kind, listener: Listener) -> Result<(), String> {
    STARTS.set(STARTS.get() + 1);
    for slot in SLOTS {
        end(slot, "the engine was restarted");
    }
    launch(&CURRENT, kind, listener).await
}

/// Whether a full engine runs, coming up or taken over.
pub fn full_engine_runs() -> bool {
    NEXT.with_borrow(Option::is_some) || current_kind() == Some(Kind::Full)
}

/// How many times an engine was started: a step that spans awaits checks it did not change meanwhile.
pub fn starts() -> u32 {
    STARTS.get()
}

/// Starts the full engine beside the one answering by words, with the same listener, and waits until it
/// takes requests; it takes over when its model has loaded (`call(Next, Open)` gives it the index first).
pub async fn start_full_behind() -> Result<(), String> {
    let listener = CURRENT
        .with_borrow(|c| c.as_ref().filter(|c| c.kind == Kind::ByWords).map(|c| c.listener.clone()))
        .ok_or("no engine answering by words runs")?;
    end(&NEXT, "the full engine was started again");
    launch(&NEXT, Kind::Full, listener).await
}

/// Ends the full engine coming up, if any, without telling the page: whoever started it gave up on it.
pub fn end_next(why: &str) {
    end(&NEXT, why);
}

async fn launch(slot: Slot, kind: Kind, listener: Listener) -> Result<(), String> {
    let worker = match kind {
        Kind::ByWords => browser::start_worker(ROLE, None)?,
        // Trunk's worker build of the `quire` binary (www/index.html), beside the page.
        Kind::Full => browser::start_worker(ROLE, Some(&browser::engine_module()?))?,
    };
    let generation = GENERATIONS.with(|g| g.replace(g.get() + 1) + 1);
    let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |event: MessageEvent| match from_js(&event) {
        Ok(message) => receive(generation, message),
        Err(reason) => crash(generation, reason),
    });
    let on_error = Closure::<dyn FnMut(ErrorEvent)>::new(move |event: ErrorEvent| {
        event.prevent_default();
        crash(generation, event.message());
    });
    worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
    let (sender, started) = oneshot::channel();
    slot.set(Some(Connection {
        generation,
        kind,
        worker,
        starting: Some(sender),
        waiting: HashMap::new(),
        next_id: 0,
        last_progress: None,
        listener,
        listeners: (on_message, on_error),
        index_opened: false,
        model_news: None,
    }));
    match started.await {
        Ok(Ok(())) => Ok(()),
        Ok(Err(failure)) => Err(failure.to_string()),
        Err(_) => Err("the engine stopped while starting".into()),
    }
}

/// The slot holding the worker of `generation`, if it still runs.
fn slot_of(generation: u32) -> Option<Slot> {
    SLOTS.into_iter().find(|slot| slot.with_borrow(|c| c.as_ref().is_some_and(|c| c.generation == generation)))
}

fn receive(generation: u32, message: FromEngine) {
    let Some(slot) = slot_of(generation) else { return };
    match message {
        FromEngine::Started(started) => {
            if let Some(starting) = slot.with_borrow_mut(|c| c.as_mut().and_then(|c| c.starting.take())) {
                let _ = starting.send(started.map_err(Failure::Refused));
            }
        }
        FromEngine::Reply { id, reply } => {
            let waiting = slot.with_borrow_mut(|c| c.as_mut().and_then(|c| c.waiting.remove(&id)));
            if let Some(waiting) = waiting {
                let _ = waiting.send(reply.map_err(Failure::Refused));
            }
            retire_when_idle();
        }
        FromEngine::Progress(progress) => {
            let tell = slot.with_borrow_mut(|c| {
                c.as_mut().map(|c| {
                    c.last_progress = Some(progress.clone());
                    c.listener.on_progress.clone()
                })
            });
            // Told with the connection released: whatever the page does on progress may call the engine.
            if let Some(tell) = tell {
                tell(progress);
            }
        }
        FromEngine::ModelLoaded(loaded) if std::ptr::eq(slot, &NEXT) => {
            NEXT.with_borrow_mut(|c| c.as_mut().map(|c| c.model_news = Some(loaded)));
            take_over_when_ready();
        }
        FromEngine::ModelLoaded(loaded) => {
            if let Some(tell) = slot.with_borrow(|c| c.as_ref().map(|c| c.listener.on_model.clone())) {
                tell(loaded);
            }
        }
        FromEngine::Crashed(message) => crash(generation, message),
    }
}

/// The full engine coming up has opened the index the page gave it (`call(Next, Open)` answered).
pub fn next_opened_the_index() {
    NEXT.with_borrow_mut(|c| c.as_mut().map(|c| c.index_opened = true));
    take_over_when_ready();
}

/// Once the full engine coming up has opened the index and heard from its model: with the model loaded it
/// takes over (requests go to it from now on, and the one it replaces answers what it was asked); without,
/// it is ended. Either way the page is told.
fn take_over_when_ready() {
    let ready = NEXT.with_borrow_mut(|c| {
        let c = c.as_mut()?;
        if !c.index_opened && c.model_news.as_ref().is_none_or(Result::is_ok) {
            return None;
        }
        Some((c.model_news.take()?, c.listener.on_model.clone()))
    });
    let Some((news, tell)) = ready else { return };
    match news {
        Ok(_) => {
            let next = NEXT.take();
            if let Some(previous) = CURRENT.replace(next) {
                end(&RETIRING, "it was replaced");
                RETIRING.set(Some(previous));
            }
            retire_when_idle();
        }
        Err(_) => end(&NEXT, "its model could not be loaded"),
    }
    tell(news);
}

fn retire_when_idle() {
    if RETIRING.with_borrow(|c| c.as_ref().is_some_and(|c| c.waiting.is_empty())) {
        end(&RETIRING, "it was replaced");
    }
}

/// A worker is gone: the one requests go to is ended with its waiting requests told that it crashed (the
/// page restarts it with the index as it was); the full engine coming up is ended, and the page told its
/// model will not come.
fn crash(generation: u32, message: String) {
    match slot_of(generation) {
        Some(slot) if std::ptr::eq(slot, &NEXT) => {
            let tell = NEXT.with_borrow(|c| c.as_ref().map(|c| c.listener.on_model.clone()));
            end(&NEXT, &message);
            if let Some(tell) = tell {
                tell(Err(format!("the engine with the embedding model stopped: {message}")));
            }
        }
        Some(slot) => end(slot, &message),
        None => {}
    }
}

/// Ends the worker in `slot`, if any, and tells everything that waited on it that it crashed, naming the
/// file it was parsing.
fn end(slot: Slot, message: &str) {
    let Some(connection) = slot.take() else { return };
    connection.worker.set_onmessage(None);
    connection.worker.set_onerror(None);
    connection.worker.terminate();
    // This may run inside one of the listeners: they are dropped once it has returned.
    let listeners = connection.listeners;
    wasm_bindgen_futures::spawn_local(async move { drop(listeners) });
    let parsing = connection.last_progress.filter(|p| p.task == Task::Parse).and_then(|p| p.current);
    let message = message.to_string();
    if let Some(starting) = connection.starting {
        let _ = starting.send(Err(Failure::Crashed { message: message.clone(), parsing: None }));
    }
    for (_, waiting) in connection.waiting {
        let _ = waiting.send(Err(Failure::Crashed { message: message.clone(), parsing: parsing.clone() }));
    }
}

/// Which engine a request goes to.
#[derive(Clone, Copy)]
pub enum To {
    Current,
    /// The full engine coming up (`start_full_behind`).
    Next,
    /// The full engine, coming up or taken over.
    Full,
}

pub async fn call(to: To, request: Request) -> Result<Reply, Failure> {
    let slot: Slot = match to {
        To::Current => &CURRENT,
        To::Next => &NEXT,
        To::Full if NEXT.with_borrow(Option::is_some) => &NEXT,
        To::Full => match current_kind() {
            Some(Kind::Full) => &CURRENT,
            _ => return Err(Failure::Refused("the full engine is not running".into())),
        },
    };
    let (sender, reply) = oneshot::channel();
    slot.with_borrow_mut(|connection| {
        let connection = connection.as_mut().ok_or_else(|| "the engine is not running".to_string())?;
        let id = connection.next_id;
        connection.next_id += 1;
        let (bytes, transfer) = to_js(&ToEngine::Call { id, request });
        connection.worker.post_message_with_transfer(&bytes, &transfer).map_err(describe)?;
        connection.waiting.insert(id, sender);
        Ok::<_, String>(())
    })?;
    reply.await.unwrap_or_else(|_| Err(Failure::Crashed { message: "the engine stopped".into(), parsing: None }))
}

/// Stops the running update at its next step.
pub fn cancel() {
    CURRENT.with_borrow(|connection| {
        if let Some(connection) = connection.as_ref() {
            let (bytes, transfer) = to_js(&ToEngine::Cancel);
            let _ = connection.worker.post_message_with_transfer(&bytes, &transfer);
        }
    });
}
