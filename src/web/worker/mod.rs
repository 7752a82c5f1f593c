//! The engine worker: the one place the app's index lives. It opens snapshots (answering by words while its
//! embedding model loads, `model`), parses and embeds the user's files (through a pool of embedding workers when there are many texts), answers queries
//! and outlines, and writes the index out, all off the page's thread, so typing and scrolling never wait for
//! it. A panic here is reported to the page before the module aborts; the page then restarts the worker.
//!
//! It runs the same wasm module as the page (`www/engine-worker.js` loads it), started in this role by
//! `main` when it finds itself in a worker. This file holds the engine and its message loop; the work is in
//! `indexing` (opening, updating, cancelling), `answers` (queries, outlines, LLM-assisted retrieval),
//! `evaluation` and, in bench builds, `measuring`; the model is in `model`.

mod answers;
mod evaluation;
mod fragments;
mod indexing;
#[cfg(feature = "bench")]
mod measuring;
mod model;
mod requests;

use std::cell::RefCell;
use std::collections::HashSet;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;

use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::spawn_local;
use web_sys::{DedicatedWorkerGlobalScope, MessageEvent};

use crate::corpus::DocId;
use crate::store::IndexedCorpus;

use super::browser;
use super::calls::{Engine as Serves, Request, dispatch};
use super::error::{EngineError, Replaced};
use super::pool::Pool;
use super::protocol::{FromEngine, Progress, ToEngine, from_js, post_to_parent};

/// The engine worker's state: the index it holds, its model, and what its long steps share.
struct Engine {
    held: Held,
    model: model::Model,
    pool: Option<Pool>,
    /// The last evaluated dataset's index, by the blake3 of what it was built from: a second evaluation of
    /// the same dataset (other methods, other cut-offs) embeds nothing.
    evaluated: Option<(blake3::Hash, IndexedCorpus)>,
    /// The LLM-assisted retrieval waiting for the LLM's reply (`answers::Waiting`). Its type is erased: it
    /// holds a method, and a method may hold learned fusion's network, which the page's module (whose engine
    /// never assists) must not link, not even to drop one; only the code that parks a retrieval names it.
    assisted: Option<Box<dyn std::any::Any>>,
    /// Set by the page's Cancel, which the message loop reads between the slices of a long step.
    cancelled: bool,
}

/// The index the engine holds, and so what answers questions (each behind a pointer: they are large).
enum Held {
    Empty,
    Whole(Rc<IndexedCorpus>),
    /// An update builds the next index from `current` (`None`: the first), which answers questions until its
    /// texts go to the pool; from then on `preview` does: the index being built as far as it is embedded,
    /// so new documents are found by their words at once and by their meaning as they are embedded. Never
    /// exported or saved.
    Updating {
        current: Option<Rc<IndexedCorpus>>,
        preview: Option<Box<Preview>>,
    },
    /// The index by its fragments on the site, until its whole snapshot has loaded (`fragments`).
    Fragments(Box<fragments::Fragments>),
}

/// The index being built, as far as it is embedded (`IndexBuilder::preview`).
struct Preview {
    index: IndexedCorpus,
    /// Documents with a text still waiting for its vector.
    waiting: HashSet<DocId>,
}

impl Held {
    /// The whole index, as it was before any update now running.
    fn whole(&self) -> Option<&Rc<IndexedCorpus>> {
        match self {
            Held::Whole(index) | Held::Updating { current: Some(index), .. } => Some(index),
            _ => None,
        }
    }

    /// An update begins on the index held, which it is given; an update begun meanwhile builds on the same.
    fn begin_update(&mut self) -> Result<Option<Rc<IndexedCorpus>>, EngineError> {
        let current = match self {
            Held::Empty => None,
            Held::Whole(index) => Some(index.clone()),
            Held::Updating { current, .. } => return Ok(current.clone()),
            Held::Fragments(_) => return Err(EngineError::WholeIndexLoading),
        };
        *self = Held::Updating { current: current.clone(), preview: None };
        Ok(current)
    }

    /// Questions are answered from `preview` until the update ends; the previous preview is dropped first
    /// (two at once would double the engine's memory). Whether there was one.
    fn drop_preview(&mut self) -> bool {
        match self {
            Held::Updating { preview, .. } => preview.take().is_some(),
            _ => false,
        }
    }

    fn show_preview(&mut self, shown: Preview) {
        if let Held::Updating { preview, .. } = self {
            *preview = Some(Box::new(shown));
        }
    }

    /// The update begun on `from` ends: with `built` in its place, unless another index was opened
    /// meanwhile (it would silently undo that one); without, the index as it was answers again.
    fn end_update(
        &mut self,
        from: &Option<Rc<IndexedCorpus>>,
        built: Option<IndexedCorpus>,
    ) -> Result<(), EngineError> {
        let unchanged = match (self.whole(), from) {
            (Some(now), Some(then)) => Rc::ptr_eq(now, then),
            (now, then) => now.is_none() && then.is_none() && !matches!(self, Held::Fragments(_)),
        };
        if let Held::Updating { current, .. } = self {
            *self = current.take().map_or(Held::Empty, Held::Whole);
        }
        match built {
            Some(_) if !unchanged => Err(Replaced::WhileIndexing.into()),
            Some(index) => {
                *self = Held::Whole(Rc::new(index));
                Ok(())
            }
            None => Ok(()),
        }
    }
}

thread_local! {
    // A worker is single-threaded: one engine per worker, reached from its message handler and the tasks
    // it spawns.
    static ENGINE: RefCell<Option<Engine>> = const { RefCell::new(None) };
}

fn scope() -> DedicatedWorkerGlobalScope {
    js_sys::global().unchecked_into()
}

fn post(message: &FromEngine) {
    post_to_parent(message);
}

fn send_progress(progress: Progress) {
    post(&FromEngine::Progress(progress));
}

/// Units per second since `started`, once there is something to tell.
fn rate(done: usize, started: f64) -> Option<f64> {
    let seconds = (browser::now_ms() - started) / 1000.0;
    (done > 0 && seconds > 0.0).then(|| done as f64 / seconds)
}

/// Starts the full engine: it takes requests at once, while its model loads behind it (`model`). It starts
/// once the index it will open is in the page (behind the engine by words, or restarting one), so the model
/// downloads now, while that index is decoded.
pub fn serve() {
    start::<requests::Full>();
    model::load();
}

/// Starts the engine that answers by words: the page's own module, which carries no embedder and no
/// parsers, serves it until the full engine has loaded (`web::client`).
pub fn serve_by_words() {
    start::<requests::ByWords>();
}

fn start<E: Serves + 'static>() {
    std::panic::set_hook(Box::new(|info| {
        console_error_panic_hook::hook(info);
        // The page shows the message beside the file it blames; the location stays in the console.
        post(&FromEngine::Crashed(info.payload_as_str().unwrap_or("a panic").to_string()));
    }));
    let engine = Engine {
        held: Held::Empty,
        model: model::Model::NotRequested,
        pool: None,
        evaluated: None,
        assisted: None,
        cancelled: false,
    };
    ENGINE.with(|slot| *slot.borrow_mut() = Some(engine));
    listen(|request| Box::pin(dispatch::<E>(request)));
    post(&FromEngine::Started(Ok(())));
}

type Handler = fn(Request) -> Pin<Box<dyn Future<Output = Result<Vec<u8>, EngineError>>>>;

fn listen(handle: Handler) {
    let handler = Closure::<dyn FnMut(MessageEvent)>::new(move |event: MessageEvent| match from_js(&event) {
        Ok(ToEngine::Cancel) => {
            let _ = with_engine(|engine| engine.cancelled = true);
        }
        Ok(ToEngine::Call { id, request }) => spawn_local(async move {
            let reply = handle(request).await.map(serde_bytes::ByteBuf::from);
            post(&FromEngine::Reply { id, reply });
        }),
        Err(damaged) => post(&FromEngine::Crashed(damaged.to_string())),
    });
    scope().set_onmessage(Some(handler.as_ref().unchecked_ref()));
    // The handler lives as long as the worker.
    handler.forget();
}

fn with_engine<T>(f: impl FnOnce(&mut Engine) -> T) -> Result<T, EngineError> {
    ENGINE.with(|e| e.borrow_mut().as_mut().map(f)).ok_or(EngineError::NotStarted)
}

fn with_index<T>(f: impl FnOnce(&IndexedCorpus) -> Result<T, EngineError>) -> Result<T, EngineError> {
    with_engine(|engine| match engine.held.whole() {
        Some(index) => f(index),
        None => Err(no_index(&engine.held)),
    })?
}

fn no_index(held: &Held) -> EngineError {
    match held {
        Held::Fragments(_) => EngineError::AnsweredOnceWhole,
        _ => EngineError::NoIndex,
    }
}

/// Questions are answered from the index being built while an update embeds (with its documents that
/// still wait for vectors), else from the index (`None`).
fn with_searchable_index<T>(
    f: impl FnOnce(&IndexedCorpus, Option<&HashSet<DocId>>) -> Result<T, EngineError>,
) -> Result<T, EngineError> {
    with_engine(|engine| match &engine.held {
        Held::Updating { preview: Some(preview), .. } => f(&preview.index, Some(&preview.waiting)),
        held => match held.whole() {
            Some(index) => f(index, None),
            None => Err(no_index(held)),
        },
    })?
}

/// Whether the page's Cancel came since the running step began.
fn cancelled() -> bool {
    with_engine(|engine| engine.cancelled).unwrap_or(true)
}
