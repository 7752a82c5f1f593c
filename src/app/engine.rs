//! The page's handle on the engine worker (`worker/`): starts it, sends requests and awaits their replies,
//! passes its progress on, and notices when it crashes (a panic aborts a wasm module), so that the page can
//! start a new one with the index as it was.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use futures_channel::oneshot;
use wasm_bindgen::prelude::*;
use web_sys::{ErrorEvent, MessageEvent, Worker};

use crate::graph::overview::Overview;
use crate::retrieve::assist::Assist;
use crate::store::DocumentOutline;

use super::browser::describe;
use super::protocol::{
    Answer, AssistTurn, Evaluation, FileBytes, FromEngine, IndexOutcome, IndexState, Listeners, MethodSpec, Progress,
    Reply, Request, Task, ToEngine, from_js, to_js,
};

/// The role `main` takes in the engine worker.
pub const ROLE: &str = "engine";

/// Why a request got no answer.
#[derive(Clone, Debug, PartialEq)]
pub enum Failure {
    /// The engine refused or failed the request; it runs on, its index as it was.
    Refused(String),
    /// The engine crashed and is gone; `parsing` is the file it was parsing, if it was.
    Crashed { message: String, parsing: Option<String> },
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failure::Refused(reason) => f.write_str(reason),
            Failure::Crashed { message, .. } => write!(f, "the engine stopped: {message}"),
        }
    }
}

impl From<String> for Failure {
    fn from(reason: String) -> Self {
        Failure::Refused(reason)
    }
}

type Waiting = oneshot::Sender<Result<Reply, Failure>>;

struct Connection {
    worker: Worker,
    /// Told once the engine takes requests, or why it could not start.
    starting: Option<oneshot::Sender<Result<(), Failure>>>,
    waiting: HashMap<u32, Waiting>,
    next_id: u32,
    /// What the engine last said it was doing: the file it was parsing when it crashed is the one to blame.
    last_progress: Option<Progress>,
    on_progress: Rc<dyn Fn(Progress)>,
    /// Hears when the embedding model has loaded behind the engine (with the engine's memory then), or
    /// why it could not.
    on_model: Rc<dyn Fn(Result<u32, String>)>,
    listeners: Listeners,
}

thread_local! {
    static CONNECTION: RefCell<Option<Connection>> = const { RefCell::new(None) };
}

/// Starts an engine worker (ending any running one) and waits until it takes requests; it answers by
/// words while its model loads. `on_progress` hears about the model's download and every later long step,
/// `on_model` when the model has loaded.
pub async fn start(
    on_progress: impl Fn(Progress) + 'static,
    on_model: impl Fn(Result<u32, String>) + 'static,
) -> Result<(), String> {
    stop();
    let worker = super::browser::start_worker(ROLE)?;
    let on_message = Closure::<dyn FnMut(MessageEvent)>::new(|event: MessageEvent| match from_js(&event) {
        Ok(message) => receive(message),
        Err(reason) => crash(reason),
    });
    let on_error = Closure::<dyn FnMut(ErrorEvent)>::new(|event: ErrorEvent| {
        event.prevent_default();
        crash(event.message());
    });
    worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
    let (sender, started) = oneshot::channel();
    CONNECTION.with(|connection| {
        *connection.borrow_mut() = Some(Connection {
            worker,
            starting: Some(sender),
            waiting: HashMap::new(),
            next_id: 0,
            last_progress: None,
            on_progress: Rc::new(on_progress),
            on_model: Rc::new(on_model),
            listeners: (on_message, on_error),
        })
    });
    match started.await {
        Ok(Ok(())) => Ok(()),
        Ok(Err(failure)) => Err(failure.to_string()),
        Err(_) => Err("the engine stopped while starting".into()),
    }
}

/// Ends the engine worker, if one runs; whatever waits on it is told it crashed.
fn stop() {
    crash("the engine was restarted".into());
}

fn receive(message: FromEngine) {
    match message {
        FromEngine::Started(started) => {
            let starting = CONNECTION.with(|c| c.borrow_mut().as_mut().and_then(|c| c.starting.take()));
            if let Some(starting) = starting {
                let _ = starting.send(started.map_err(Failure::Refused));
            }
        }
        FromEngine::ModelLoaded(loaded) => {
            let tell = CONNECTION.with(|c| c.borrow().as_ref().map(|c| c.on_model.clone()));
            if let Some(tell) = tell {
                tell(loaded);
            }
        }
        FromEngine::Reply { id, reply } => answer(id, reply),
        FromEngine::Progress(progress) => {
            let tell = CONNECTION.with(|connection| {
                connection.borrow_mut().as_mut().map(|c| {
                    c.last_progress = Some(progress.clone());
                    c.on_progress.clone()
                })
            });
            // Told with the connection released: whatever the page does on progress may call the engine.
            if let Some(tell) = tell {
                tell(progress);
            }
        }
        FromEngine::Crashed(message) => crash(message),
    }
}

fn answer(id: u32, reply: Result<Reply, String>) {
    let waiting = CONNECTION.with(|c| c.borrow_mut().as_mut().and_then(|c| c.waiting.remove(&id)));
    if let Some(waiting) = waiting {
        let _ = waiting.send(reply.map_err(Failure::Refused));
    }
}

/// The engine is gone: end its worker, and tell everything that waited on it which file it was parsing.
fn crash(message: String) {
    let Some(connection) = CONNECTION.with(|c| c.borrow_mut().take()) else { return };
    connection.worker.set_onmessage(None);
    connection.worker.set_onerror(None);
    connection.worker.terminate();
    // This may run inside one of the listeners: they are dropped once it has returned.
    let listeners = connection.listeners;
    wasm_bindgen_futures::spawn_local(async move { drop(listeners) });
    let parsing = connection.last_progress.filter(|p| p.task == Task::Parse).and_then(|p| p.current);
    if let Some(starting) = connection.starting {
        let _ = starting.send(Err(Failure::Crashed { message: message.clone(), parsing: None }));
    }
    for (_, waiting) in connection.waiting {
        let _ = waiting.send(Err(Failure::Crashed { message: message.clone(), parsing: parsing.clone() }));
    }
}

async fn call(request: Request) -> Result<Reply, Failure> {
    let (sender, reply) = oneshot::channel();
    CONNECTION.with(|connection| {
        let mut connection = connection.borrow_mut();
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

/// The reply `pick` expects of `request`.
async fn call_for<T>(request: Request, pick: impl FnOnce(Reply) -> Option<T>) -> Result<T, Failure> {
    pick(call(request).await?).ok_or_else(|| Failure::Refused("the engine answered another request".into()))
}

/// Replaces the index with a `.quire` file's; `name` says where it came from in an error.
pub async fn open(name: &str, bytes: Vec<u8>) -> Result<IndexState, Failure> {
    call_for(Request::Open { name: name.into(), bytes }, |reply| match reply {
        Reply::Opened(state) => Some(state),
        _ => None,
    })
    .await
}

/// Adds `files` and removes `removed`; the state is `None` when the index did not change.
pub async fn update(
    files: Vec<FileBytes>,
    removed: Vec<String>,
) -> Result<(IndexOutcome, Option<IndexState>), Failure> {
    call_for(Request::Update { files, removed }, |reply| match reply {
        Reply::Updated { outcome, state } => Some((outcome, state)),
        _ => None,
    })
    .await
}

/// Adds the vectors of pages, sections, entities and relations to the index; answered as an update.
pub async fn add_node_vectors() -> Result<(IndexOutcome, Option<IndexState>), Failure> {
    call_for(Request::AddNodeVectors, |reply| match reply {
        Reply::Updated { outcome, state } => Some((outcome, state)),
        _ => None,
    })
    .await
}

/// Stops the running update at its next step.
pub fn cancel() {
    CONNECTION.with(|connection| {
        if let Some(connection) = connection.borrow().as_ref() {
            let (bytes, transfer) = to_js(&ToEngine::Cancel);
            let _ = connection.worker.post_message_with_transfer(&bytes, &transfer);
        }
    });
}

pub async fn query(text: &str, method: MethodSpec, k: usize) -> Result<Answer, Failure> {
    call_for(Request::Query { text: text.into(), method, k }, |reply| match reply {
        Reply::Answer(answer) => Some(answer),
        _ => None,
    })
    .await
}

/// Starts an LLM-assisted retrieval (`assist`) searching by `method`.
pub async fn assist(text: &str, method: MethodSpec, k: usize, assist: Assist) -> Result<AssistTurn, Failure> {
    let request = Request::Assist { text: text.into(), method, k, assist };
    call_for(request, |reply| match reply {
        Reply::Assist(turn) => Some(turn),
        _ => None,
    })
    .await
}

/// The LLM's reply to the running assisted retrieval.
pub async fn assist_reply(reply: String) -> Result<AssistTurn, Failure> {
    call_for(Request::AssistReply { reply }, |reply| match reply {
        Reply::Assist(turn) => Some(turn),
        _ => None,
    })
    .await
}

/// The index as a `.quire` file, the same format the CLI reads.
pub async fn export() -> Result<Vec<u8>, Failure> {
    call_for(Request::Export, |reply| match reply {
        Reply::Snapshot(bytes) => Some(bytes),
        _ => None,
    })
    .await
}

pub async fn outline(source: &str, query: Option<String>) -> Result<DocumentOutline, Failure> {
    call_for(Request::Outline { source: source.into(), query }, |reply| match reply {
        Reply::Outline(outline) => Some(outline),
        _ => None,
    })
    .await
}

/// The corpus graph laid out, at most `max_nodes` nodes of it.
pub async fn overview(max_nodes: usize) -> Result<Overview, Failure> {
    call_for(Request::Overview { max_nodes }, |reply| match reply {
        Reply::Overview(overview) => Some(overview),
        _ => None,
    })
    .await
}

/// Runs an evaluation (`Request::Evaluate`).
pub async fn evaluate(request: Request) -> Result<Evaluation, Failure> {
    call_for(request, |reply| match reply {
        Reply::Evaluation(evaluation) => Some(evaluation),
        _ => None,
    })
    .await
}

#[cfg(feature = "bench")]
pub async fn benchmark(benchmark: crate::app::protocol::Benchmark) -> Result<String, Failure> {
    call_for(Request::Benchmark(benchmark), |reply| match reply {
        Reply::Benchmark(report) => Some(report),
        _ => None,
    })
    .await
}
