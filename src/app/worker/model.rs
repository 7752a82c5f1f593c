//! The embedding model as the engine worker holds it. It loads behind the engine, which opens an index and
//! answers by words (BM25) at once: the model is most of a first visit's download, and a question should
//! not wait for it. The full engine starts only once the page holds the index it will open (the engine by
//! words answers meanwhile), so the two downloads never share the visitor's bandwidth. What needs vectors
//! (a question by meaning, indexing files, evaluation) waits for it here.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use futures_channel::oneshot;
use wasm_bindgen_futures::spawn_local;

use crate::app::browser;
use crate::app::model::load_embedder;
use crate::app::protocol::{FromEngine, Progress, Task};
use crate::embed::{MiniLmEmbedder, TextEmbedder};

use super::{post, rate, send_progress};

enum Model {
    /// Still downloading; whoever waits for it is told when it is loaded or has failed.
    Loading(Vec<oneshot::Sender<()>>),
    Loaded(Rc<MiniLmEmbedder>),
    Failed(String),
}

thread_local! {
    static MODEL: RefCell<Model> = const { RefCell::new(Model::Loading(Vec::new())) };
    static REQUESTED: Cell<bool> = const { Cell::new(false) };
}

/// Starts loading the model, unless it was started before (its download reported as progress); the page is
/// told when it is loaded.
pub(super) fn load() {
    if REQUESTED.replace(true) {
        return;
    }
    let since = browser::now_ms();
    spawn_local(async move {
        let on_download = |done, total: Option<usize>| {
            send_progress(Progress {
                task: Task::LoadModel,
                done,
                total: total.unwrap_or(done),
                rate: rate(done, since),
                current: None,
                seconds_left: None,
            })
        };
        let loaded = load_embedder(on_download).await;
        // An index opened before the model came, embedded by another model, answers by words only.
        let index_of_another_model = loaded.as_ref().ok().and_then(|embedder| {
            super::with_index(|_, index| Ok(index.check_model(embedder.identity()).err())).ok().flatten()
        });
        let told = match (&loaded, index_of_another_model) {
            (_, Some(mismatch)) => Err(mismatch.to_string()),
            (Ok(_), None) => Ok(browser::wasm_memory_bytes()),
            (Err(reason), None) => Err(reason.clone()),
        };
        let now = match loaded {
            Ok(embedder) => Model::Loaded(Rc::new(embedder)),
            Err(reason) => Model::Failed(format!("the embedding model could not be loaded: {reason}")),
        };
        if let Model::Loading(waiting) = MODEL.replace(now) {
            for waiter in waiting {
                let _ = waiter.send(());
            }
        }
        post(&FromEngine::ModelLoaded(told));
    });
}

/// The model, if it is loaded.
pub(super) fn loaded() -> Option<Rc<MiniLmEmbedder>> {
    MODEL.with_borrow(|model| match model {
        Model::Loaded(embedder) => Some(embedder.clone()),
        _ => None,
    })
}

/// The model now: an error while it loads or when it failed.
pub(super) fn embedder() -> Result<Rc<MiniLmEmbedder>, String> {
    MODEL.with_borrow(|model| match model {
        Model::Loaded(embedder) => Ok(embedder.clone()),
        Model::Loading(_) => Err("the embedding model is still loading".to_string()),
        Model::Failed(reason) => Err(reason.clone()),
    })
}

/// The model once it has loaded, or why it could not be.
pub(super) async fn ready() -> Result<Rc<MiniLmEmbedder>, String> {
    load();
    let wait = MODEL.with_borrow_mut(|model| match model {
        Model::Loading(waiting) => {
            let (told, wait) = oneshot::channel();
            waiting.push(told);
            Some(wait)
        }
        _ => None,
    });
    if let Some(wait) = wait {
        let _ = wait.await;
    }
    embedder()
}
