//! The embedding model as the engine worker holds it. It loads behind the engine, which opens an index and
//! answers by words (BM25) at once: the model is most of a first visit's download, and a question should
//! not wait for it. The full engine starts only once the page holds the index it will open (the engine by
//! words answers meanwhile), so the two downloads never share the visitor's bandwidth. What needs vectors
//! (a question by meaning, indexing files, evaluation) waits for it here.

use std::rc::Rc;

use futures_channel::oneshot;
use wasm_bindgen_futures::spawn_local;

use crate::embed::{Embedder, EmbeddingModel, TextEmbedder};
use crate::web::browser;
use crate::web::error::{EngineError, ModelUnavailable};
use crate::web::model::load_embedder;
use crate::web::protocol::{FromEngine, Progress, Task};

use super::state::{Model, post, rate, send_progress, with_engine, with_index};

/// Starts loading the model, unless it was started before (its download reported as progress); the page is
/// told when it is loaded.
pub(super) fn load() {
    let first = with_engine(|engine| {
        let first = matches!(engine.model, Model::NotRequested);
        if first {
            engine.model = Model::Loading(Vec::new());
        }
        first
    });
    if first != Ok(true) {
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
        let loaded = load_embedder(EmbeddingModel::MiniLm, on_download).await;
        // An index opened before the model came, embedded by another model, answers by words only.
        let index_of_another_model = loaded
            .as_ref()
            .ok()
            .and_then(|embedder| with_index(|index| Ok(index.check_model(embedder.identity()).err())).ok().flatten());
        let told = match (&loaded, index_of_another_model) {
            (_, Some(mismatch)) => Err(ModelUnavailable::OtherModel(mismatch)),
            (Ok(_), None) => Ok(browser::wasm_memory_bytes()),
            (Err(reason), None) => Err(ModelUnavailable::Load(reason.clone())),
        };
        let now = match loaded {
            Ok(embedder) => Model::Loaded(Rc::new(embedder)),
            Err(reason) => Model::Failed(reason),
        };
        if let Ok(Model::Loading(waiting)) = with_engine(|engine| std::mem::replace(&mut engine.model, now)) {
            for waiter in waiting {
                let _ = waiter.send(());
            }
        }
        post(&FromEngine::ModelLoaded(told));
    });
}

/// The model, if it is loaded.
pub(super) fn loaded() -> Option<Rc<Embedder>> {
    with_engine(|engine| match &engine.model {
        Model::Loaded(embedder) => Some(embedder.clone()),
        _ => None,
    })
    .ok()
    .flatten()
}

/// The model now: an error while it loads or when it failed.
pub(super) fn embedder() -> Result<Rc<Embedder>, EngineError> {
    with_engine(|engine| match &engine.model {
        Model::Loaded(embedder) => Ok(embedder.clone()),
        Model::NotRequested | Model::Loading(_) => Err(EngineError::ModelLoading),
        Model::Failed(reason) => Err(EngineError::ModelFailed(reason.clone())),
    })?
}

/// The model once it has loaded, or why it could not be.
pub(super) async fn ready() -> Result<Rc<Embedder>, EngineError> {
    load();
    let wait = with_engine(|engine| match &mut engine.model {
        Model::Loading(waiting) => {
            let (told, wait) = oneshot::channel();
            waiting.push(told);
            Some(wait)
        }
        _ => None,
    })?;
    if let Some(wait) = wait {
        let _ = wait.await;
    }
    embedder()
}
