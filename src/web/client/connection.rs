//! One engine worker as the page holds it: the worker, its calls waiting for their replies, and what it
//! last said it was doing. Which worker answers, and when one replaces another, is `engines`' business.

use std::collections::HashMap;
use std::rc::Rc;

use futures_channel::oneshot;
use wasm_bindgen::prelude::*;
use web_sys::{ErrorEvent, MessageEvent, Worker};

use super::lifecycle::Lifecycle;
use crate::web::browser::{self, describe};
use crate::web::calls::Request;
use crate::web::error::{ClientError, EngineError, Failure};
use crate::web::protocol::{FromEngine, Listeners, Progress, Task, ToEngine, from_js_with, to_js};
use crate::web::roles::{self, Kind};

/// What the page hears from whichever engine runs: progress, and every change of the engines' lifecycle
/// (their model's included).
#[derive(Clone)]
pub struct Listener {
    pub on_progress: Rc<dyn Fn(Progress)>,
    pub on_lifecycle: Rc<dyn Fn(Lifecycle)>,
}

/// Where a worker's messages go, by the generation it was started with: a late message of a replaced or
/// crashed worker never reaches another's calls.
pub(super) struct Routes {
    /// A message, with the bytes of the reply it carries.
    pub message: fn(u32, FromEngine, Option<js_sys::Uint8Array>),
    pub crash: fn(u32, String),
}

pub(super) struct Connection {
    pub generation: u32,
    pub kind: Kind,
    worker: Worker,
    /// Told once the engine takes calls, or why it could not start.
    starting: Option<oneshot::Sender<Result<(), Failure>>>,
    /// Each call waiting for its reply, as the engine encoded it.
    waiting: HashMap<u32, Waiting>,
    next_id: u32,
    /// What the engine last said it was doing: the file it was parsing when it crashed is the one to blame.
    last_progress: Option<Progress>,
    pub listener: Listener,
    listeners: Listeners,
}

/// A call waiting for its reply, and whether the page's Cancel stops it.
struct Waiting {
    reply: oneshot::Sender<Result<js_sys::Uint8Array, Failure>>,
    stoppable: bool,
}

/// Told when the engine takes calls, or why it could not start.
pub(super) type Started = oneshot::Receiver<Result<(), Failure>>;
/// Told the reply to a call, its bytes as they crossed.
pub(super) type Replied = oneshot::Receiver<Result<js_sys::Uint8Array, Failure>>;

impl Connection {
    /// Starts a worker of `kind`, its messages routed by `generation`.
    pub fn launch(
        kind: Kind,
        generation: u32,
        listener: Listener,
        routes: Routes,
    ) -> Result<(Self, Started), ClientError> {
        let worker = match kind {
            Kind::ByWords => browser::start_worker(roles::ENGINE, None),
            // Trunk's worker build of the `quire` binary (www/index.html), beside the page.
            Kind::Full => browser::start_worker(roles::ENGINE, Some(&browser::engine_module()?)),
        }
        .map_err(ClientError::WorkerNotStarted)?;
        let Routes { message, crash } = routes;
        let on_message =
            Closure::<dyn FnMut(MessageEvent)>::new(move |event: MessageEvent| match from_js_with(&event) {
                Ok((said, payload)) => message(generation, said, payload),
                Err(damaged) => crash(generation, damaged.to_string()),
            });
        let on_error = Closure::<dyn FnMut(ErrorEvent)>::new(move |event: ErrorEvent| {
            event.prevent_default();
            crash(generation, event.message());
        });
        worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
        let (starting, started) = oneshot::channel();
        let connection = Connection {
            generation,
            kind,
            worker,
            starting: Some(starting),
            waiting: HashMap::new(),
            next_id: 0,
            last_progress: None,
            listener,
            listeners: (on_message, on_error),
        };
        Ok((connection, started))
    }

    /// Posts `request` as call `id`, whose reply will come to the receiver.
    pub fn send(&mut self, request: Request) -> Result<(u32, Replied), ClientError> {
        let id = self.next_id;
        self.next_id += 1;
        let stoppable = request.stoppable();
        let (bytes, transfer) = to_js(&ToEngine::Call { id, request });
        let posted = self.worker.post_message_with_transfer(&bytes, &transfer);
        posted.map_err(|e| ClientError::Unposted(describe(e)))?;
        let (reply, replied) = oneshot::channel();
        self.waiting.insert(id, Waiting { reply, stoppable });
        Ok((id, replied))
    }

    /// Stops call `id` at its next step; its reply will say what it left.
    fn cancel(&self, id: u32) {
        let (bytes, transfer) = to_js(&ToEngine::<Request>::Cancel { id });
        // Fails only when the worker is gone, and then there is nothing to stop.
        let _ = self.worker.post_message_with_transfer(&bytes, &transfer);
    }

    /// Stops every waiting call the page's Cancel stops (updates, node vectors, evaluations), each at its
    /// next step.
    pub fn cancel_stoppable(&self) {
        for (id, _) in self.waiting.iter().filter(|(_, waiting)| waiting.stoppable) {
            self.cancel(*id);
        }
    }

    /// Call `id`'s caller no longer waits for it: it is cancelled, and its reply and progress are dropped.
    pub fn forget(&mut self, id: u32) {
        if self.waiting.remove(&id).is_some() {
            self.cancel(id);
        }
    }

    pub fn started(&mut self, started: Result<(), EngineError>) {
        if let Some(starting) = self.starting.take() {
            let _ = starting.send(started.map_err(Failure::Refused));
        }
    }

    pub fn replied(&mut self, id: u32, reply: Result<js_sys::Uint8Array, Failure>) {
        if let Some(waiting) = self.waiting.remove(&id) {
            let _ = waiting.reply.send(reply);
        }
    }

    /// The engine's progress on `call` (`None`: the model's download behind every call): whether the page
    /// is to hear it, which it is unless its call is no longer waited for.
    pub fn heard(&mut self, call: Option<u32>, progress: &Progress) -> bool {
        if call.is_some_and(|id| !self.waiting.contains_key(&id)) {
            return false;
        }
        self.last_progress = Some(progress.clone());
        true
    }

    /// Whether the engine has not said yet that it takes calls.
    pub fn is_starting(&self) -> bool {
        self.starting.is_some()
    }

    /// The file the engine was parsing, as it last said: the one to blame for a crash.
    pub fn parsing(&self) -> Option<String> {
        self.last_progress.as_ref().filter(|p| p.task == Task::Parse).and_then(|p| p.current.clone())
    }

    /// Whether no call waits for this engine.
    pub fn idle(&self) -> bool {
        self.waiting.is_empty()
    }

    /// Ends the worker and tells everything that waited on it that it crashed, naming the file it was
    /// parsing.
    pub fn end(self, message: &str) {
        let parsing = self.parsing();
        self.worker.set_onmessage(None);
        self.worker.set_onerror(None);
        self.worker.terminate();
        // This may run inside one of the listeners: they are dropped once it has returned.
        let listeners = self.listeners;
        wasm_bindgen_futures::spawn_local(async move { drop(listeners) });
        if let Some(starting) = self.starting {
            let _ = starting.send(Err(Failure::Crashed { message: message.to_string(), parsing: None }));
        }
        for (_, waiting) in self.waiting {
            let crashed = Failure::Crashed { message: message.to_string(), parsing: parsing.clone() };
            let _ = waiting.reply.send(Err(crashed));
        }
    }
}
