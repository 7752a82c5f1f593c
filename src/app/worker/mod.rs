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

use std::cell::{Cell, RefCell};
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
use super::pool::Pool;
use super::protocol::{FromEngine, Progress, Reply, Request, ToEngine, from_js, post_to_parent};

struct Engine {
    /// Shared with a running update, which builds the next index from it while this one answers.
    index: Option<Rc<IndexedCorpus>>,
    /// While an update embeds, the index it is building as far as it is embedded: questions are answered
    /// from it, so new documents are found by their words at once and by their meaning as they are embedded.
    /// Never exported or saved.
    preview: Option<Preview>,
    pool: Option<Pool>,
    /// The index by its fragments on the site, until its whole snapshot has loaded (`fragments`); `index` is
    /// `None` then.
    fragments: Option<fragments::Fragments>,
    /// The last evaluated dataset's index, by the blake3 of what it was built from: a second evaluation of
    /// the same dataset (other methods, other cut-offs) embeds nothing.
    evaluated: Option<(blake3::Hash, IndexedCorpus)>,
}

/// The index being built, as far as it is embedded (`IndexBuilder::preview`).
struct Preview {
    index: IndexedCorpus,
    /// Documents with a text still waiting for its vector.
    waiting: HashSet<DocId>,
}

thread_local! {
    // A worker is single-threaded: one engine per worker, reached from its message handler.
    static ENGINE: RefCell<Option<Engine>> = const { RefCell::new(None) };
    // Set by the page's Cancel, which the message loop reads between the slices of a long step.
    static CANCELLED: Cell<bool> = const { Cell::new(false) };
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
    start(|request| Box::pin(requests::handle(request)));
    model::load();
}

/// Starts the engine that answers by words: the page's own module, which carries no embedder and no
/// parsers, serves it until the full engine has loaded (`app::engine`).
pub fn serve_by_words() {
    start(|request| Box::pin(requests::handle_by_words(request)));
}

type Handler = fn(Request) -> Pin<Box<dyn Future<Output = Result<Reply, String>>>>;

fn start(handle: Handler) {
    std::panic::set_hook(Box::new(|info| {
        console_error_panic_hook::hook(info);
        // The page shows the message beside the file it blames; the location stays in the console.
        post(&FromEngine::Crashed(info.payload_as_str().unwrap_or("a panic").to_string()));
    }));
    let engine = Engine { index: None, preview: None, fragments: None, pool: None, evaluated: None };
    ENGINE.with(|slot| *slot.borrow_mut() = Some(engine));
    listen(handle);
    post(&FromEngine::Started(Ok(())));
}

fn listen(handle: Handler) {
    let handler = Closure::<dyn FnMut(MessageEvent)>::new(move |event: MessageEvent| match from_js(&event) {
        Ok(ToEngine::Cancel) => CANCELLED.set(true),
        Ok(ToEngine::Call { id, request }) => spawn_local(async move {
            let reply = handle(request).await;
            post(&FromEngine::Reply { id, reply });
        }),
        Err(reason) => post(&FromEngine::Crashed(reason)),
    });
    scope().set_onmessage(Some(handler.as_ref().unchecked_ref()));
    // The handler lives as long as the worker.
    handler.forget();
}

fn with_engine<T>(f: impl FnOnce(&mut Engine) -> T) -> Result<T, String> {
    ENGINE.with(|e| e.borrow_mut().as_mut().map(f)).ok_or_else(|| "the engine is not started yet".to_string())
}

fn with_index<T>(f: impl FnOnce(&Engine, &IndexedCorpus) -> Result<T, String>) -> Result<T, String> {
    with_engine(|engine| match &engine.index {
        Some(index) => f(engine, index),
        None => Err(no_index(engine)),
    })?
}

fn no_index(engine: &Engine) -> String {
    match engine.fragments {
        Some(_) => {
            "this is answered once the whole index has loaded; until then questions are answered from its fragments"
        }
        None => "no documents are indexed yet",
    }
    .to_string()
}

/// Questions are answered from the index being built while an update embeds (with its documents that
/// still wait for vectors), else from the index (`None`).
fn with_searchable_index<T>(
    f: impl FnOnce(&Engine, &IndexedCorpus, Option<&HashSet<DocId>>) -> Result<T, String>,
) -> Result<T, String> {
    with_engine(|engine| match (&engine.preview, &engine.index) {
        (Some(preview), _) => f(engine, &preview.index, Some(&preview.waiting)),
        (None, Some(index)) => f(engine, index, None),
        (None, None) => Err(no_index(engine)),
    })?
}
