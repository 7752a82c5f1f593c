//! One engine worker as the page holds it: the worker, its calls waiting for their replies, and what it
//! last said it was doing. Which worker answers, and when one replaces another, is `engines`' business.

use std::collections::HashMap;
use std::rc::Rc;

use futures_channel::oneshot;
use wasm_bindgen::prelude::*;
use web_sys::{ErrorEvent, MessageEvent, Worker};

use crate::web::browser::{self, describe};
use crate::web::calls::Request;
use crate::web::error::{EngineError, Failure, ModelUnavailable};
use crate::web::protocol::{FromEngine, Listeners, Progress, Task, ToEngine, from_js, to_js};
use crate::web::roles::{self, Kind};

/// What the page hears from whichever engine runs: progress, and the model having loaded (with the
/// engine's memory then) or failed.
#[derive(Clone)]
pub struct Listener {
    pub on_progress: Rc<dyn Fn(Progress)>,
    pub on_model: Rc<dyn Fn(Result<u32, ModelUnavailable>)>,
}

/// Where a worker's messages go, by the generation it was started with: a late message of a replaced or
/// crashed worker never reaches another's calls.
pub(super) struct Routes {
    pub message: fn(u32, FromEngine),
    pub crash: fn(u32, String),
}

pub(super) struct Connection {
    pub generation: u32,
    pub kind: Kind,
    worker: Worker,
    /// Told once the engine takes calls, or why it could not start.
    starting: Option<oneshot::Sender<Result<(), Failure>>>,
    /// Each call waiting for its reply, as the engine encoded it.
    waiting: HashMap<u32, oneshot::Sender<Result<Vec<u8>, Failure>>>,
    next_id: u32,
    /// What the engine last said it was doing: the file it was parsing when it crashed is the one to blame.
    last_progress: Option<Progress>,
    pub listener: Listener,
    listeners: Listeners,
}

/// Told when the engine takes calls, or why it could not start.
pub(super) type Started = oneshot::Receiver<Result<(), Failure>>;
/// Told the reply to a call, encoded.
pub(super) type Replied = oneshot::Receiver<Result<Vec<u8>, Failure>>;

impl Connection {
    /// Starts a worker of `kind`, its messages routed by `generation`.
    pub fn launch(
        kind: Kind,
        generation: u32,
        listener: Listener,
        routes: Routes,
    ) -> Result<(Self, Started), EngineError> {
        let worker = match kind {
            Kind::ByWords => browser::start_worker(roles::ENGINE, None),
            // Trunk's worker build of the `quire` binary (www/index.html), beside the page.
            Kind::Full => browser::start_worker(roles::ENGINE, Some(&browser::engine_module()?)),
        }
        .map_err(EngineError::WorkerNotStarted)?;
        let Routes { message, crash } = routes;
        let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |event: MessageEvent| match from_js(&event) {
            Ok(said) => message(generation, said),
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

    /// Posts `request`; its reply will come to the receiver.
    pub fn send(&mut self, request: Request) -> Result<Replied, EngineError> {
        let id = self.next_id;
        self.next_id += 1;
        let (bytes, transfer) = to_js(&ToEngine::Call { id, request });
        let posted = self.worker.post_message_with_transfer(&bytes, &transfer);
        posted.map_err(|e| EngineError::Unposted(describe(e)))?;
        let (sender, replied) = oneshot::channel();
        self.waiting.insert(id, sender);
        Ok(replied)
    }

    /// Stops the engine's running update at its next step.
    pub fn cancel(&self) {
        let (bytes, transfer) = to_js(&ToEngine::<Request>::Cancel);
        // Fails only when the worker is gone, and then there is nothing to stop.
        let _ = self.worker.post_message_with_transfer(&bytes, &transfer);
    }

    pub fn started(&mut self, started: Result<(), EngineError>) {
        if let Some(starting) = self.starting.take() {
            let _ = starting.send(started.map_err(Failure::Refused));
        }
    }

    pub fn replied(&mut self, id: u32, reply: Result<Vec<u8>, EngineError>) {
        if let Some(waiting) = self.waiting.remove(&id) {
            let _ = waiting.send(reply.map_err(Failure::Refused));
        }
    }

    pub fn heard(&mut self, progress: &Progress) {
        self.last_progress = Some(progress.clone());
    }

    /// Whether no call waits for this engine.
    pub fn idle(&self) -> bool {
        self.waiting.is_empty()
    }

    /// Ends the worker and tells everything that waited on it that it crashed, naming the file it was
    /// parsing.
    pub fn end(self, message: &str) {
        self.worker.set_onmessage(None);
        self.worker.set_onerror(None);
        self.worker.terminate();
        // This may run inside one of the listeners: they are dropped once it has returned.
        let listeners = self.listeners;
        wasm_bindgen_futures::spawn_local(async move { drop(listeners) });
        let parsing = self.last_progress.filter(|p| p.task == Task::Parse).and_then(|p| p.current);
        if let Some(starting) = self.starting {
            let _ = starting.send(Err(Failure::Crashed { message: message.to_string(), parsing: None }));
        }
        for (_, waiting) in self.waiting {
            let _ = waiting.send(Err(Failure::Crashed { message: message.to_string(), parsing: parsing.clone() }));
        }
    }
}
