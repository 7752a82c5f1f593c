//! The engine worker: the one place the app's index lives. It opens snapshots (answering by words while its
//! embedding model loads, `model`), parses and embeds the user's files (through a pool of embedding workers when there are many texts), answers queries
//! and outlines, and writes the index out, all off the page's thread, so typing and scrolling never wait for
//! it. A panic here is reported to the page before the module aborts; the page then restarts the worker.
//!
//! It runs the same wasm module as the page (`www/engine-worker.js` loads it), started in this role by
//! `main` when it finds itself in a worker. This file starts the engine and holds its message loop; its state is in `state`, the work in
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
mod serving;
mod state;

use std::future::Future;
use std::pin::Pin;

use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::spawn_local;
use web_sys::MessageEvent;

use super::calls::{Engine as Serves, Request, dispatch};
use super::error::EngineError;
use super::protocol::{FromEngine, ToEngine, from_js};
use state::{post, post_reply, scope, with_engine};

/// Starts the full engine: it takes requests at once, while its model loads behind it (`model`). It starts
/// once the index it will open is in the page (behind the engine by words, or restarting one), so the model
/// downloads now, while that index is decoded.
pub fn serve() {
    start::<requests::Full>();
    // The model most indexes have; an index of another opened meanwhile switches it (`model::follow_index`).
    model::load(crate::embed::EmbeddingModel::default());
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
    state::install();
    listen(|request| Box::pin(dispatch::<E>(request)));
    post(&FromEngine::Started(Ok(())));
}

type Handler = fn(Request) -> Pin<Box<dyn Future<Output = Result<js_sys::Uint8Array, EngineError>>>>;

fn listen(handle: Handler) {
    let handler = Closure::<dyn FnMut(MessageEvent)>::new(move |event: MessageEvent| {
        match from_js::<ToEngine<Request>>(&event) {
            Ok(ToEngine::Cancel { id }) => {
                let _ = with_engine(|engine| engine.cancel(id));
            }
            Ok(ToEngine::Call { id, request }) => spawn_local(async move {
                let _ = with_engine(|engine| engine.running.insert(id, false));
                let reply = serving::in_call(id, handle(request)).await;
                let _ = with_engine(|engine| engine.running.remove(&id));
                post_reply(id, reply);
            }),
            Err(damaged) => post(&FromEngine::Crashed(damaged.to_string())),
        }
    });
    scope().set_onmessage(Some(handler.as_ref().unchecked_ref()));
    // The handler lives as long as the worker.
    handler.forget();
}
