//! The embedding model as the engine worker holds it: one at a time, the model of the index it holds, or the
//! one an update's new documents asked for (the pipeline's `Host::use_model`). It loads behind the engine,
//! which opens an index and answers by words (BM25) at once: the model is most of a first visit's download,
//! and a question should not wait for it. The full engine starts only once the page holds the index it will
//! open (the engine by words answers meanwhile), so the two downloads never share the visitor's bandwidth.
//! What needs vectors (a question by meaning, indexing files, evaluation) waits for it here.

use std::rc::Rc;

use futures_channel::oneshot;
use wasm_bindgen_futures::spawn_local;

use crate::embed::{Embedder, EmbeddingModel, TextEmbedder};
use crate::web::browser;
use crate::web::error::{EngineError, ModelLoadError, ModelUnavailable};
use crate::web::model::load_embedder;
use crate::web::protocol::{FromEngine, Progress, Task};

use super::state::{Model, post, rate, send_progress, with_engine, with_index};

/// Starts loading `kind`, unless it is loaded, loading or failed already; the model held before is dropped
/// (two would double the worker's memory), and whoever waited for it waits for this one. Its download is
/// reported as progress, with the model's name and size first; the page is told once it is loaded.
pub(super) fn load(kind: EmbeddingModel) {
    let starts = with_engine(|engine| {
        if engine.model.kind() == Some(kind) {
            return false;
        }
        let waiting = match std::mem::replace(&mut engine.model, Model::NotRequested) {
            Model::Loading { waiting, .. } => waiting,
            _ => Vec::new(),
        };
        engine.model = Model::Loading { kind, waiting };
        true
    });
    if starts == Ok(true) {
        spawn_local(fetch(kind));
    }
}

/// The model of the index now held, loaded if another is: after an index is opened, and after an update
/// or an evaluation that embedded with another model.
pub(super) fn follow_index() {
    if let Ok(Some(kind)) = with_engine(|engine| engine.held.model()) {
        load(kind);
    }
}

/// Downloads and loads `kind`, then installs it, unless another model was asked for meanwhile.
async fn fetch(kind: EmbeddingModel) {
    let since = browser::now_ms();
    let spec = kind.spec();
    // "multilingual-e5-small (77 MB)": the page says what it downloads, and how much, before the bytes come.
    let named =
        format!("{} ({:.0} MB)", spec.name.split(" (").next().unwrap_or(spec.name), spec.download_bytes as f64 / 1e6);
    let on_download = |done, total: Option<usize>| {
        send_progress(Progress {
            task: Task::LoadModel,
            done,
            total: total.unwrap_or(done),
            rate: rate(done, since),
            current: Some(named.clone()),
            seconds_left: None,
        })
    };
    on_download(0, None);
    let loaded = load_embedder(kind, on_download).await.map(Rc::new);
    let now = match &loaded {
        Ok(embedder) => Model::Loaded(embedder.clone()),
        Err(reason) => Model::Failed { kind, reason: reason.clone() },
    };
    let replaced = with_engine(|engine| match &engine.model {
        Model::Loading { kind: asked, .. } if *asked == kind => Some(std::mem::replace(&mut engine.model, now)),
        _ => None,
    });
    let Ok(Some(Model::Loading { waiting, .. })) = replaced else { return };
    for waiter in waiting {
        let _ = waiter.send(());
    }
    post(&FromEngine::ModelLoaded(news(loaded)));
}

/// What the page is told of a model just installed: the engine's memory, or why questions stay by words.
fn news(loaded: Result<Rc<Embedder>, ModelLoadError>) -> Result<u32, ModelUnavailable> {
    let embedder = loaded.map_err(ModelUnavailable::Load)?;
    // An index of a model outside the catalogue answers by words only; one of another model of the
    // catalogue (the one an update replaces) brings its own once it answers again (`follow_index`).
    let outside = |index: &crate::store::IndexedCorpus| match EmbeddingModel::of(index.model()) {
        None => index.check_model(embedder.identity()).err(),
        Some(_) => None,
    };
    match with_index(|index| Ok(outside(index))) {
        Ok(Some(mismatch)) => Err(ModelUnavailable::OtherModel(mismatch)),
        _ => Ok(browser::wasm_memory_bytes()),
    }
}

/// The model, if it is loaded and embedded the index that answers questions now (any, with no index).
pub(super) fn loaded() -> Option<Rc<Embedder>> {
    answering().ok()
}

/// The model that embedded the index answering questions now: an error while it loads or when it failed.
pub(super) fn answering() -> Result<Rc<Embedder>, EngineError> {
    let wanted = with_engine(|engine| engine.held.model())?;
    let embedder = embedder()?;
    match wanted {
        Some(kind) if kind != embedder.model() => Err(EngineError::ModelLoading),
        _ => Ok(embedder),
    }
}

/// The model now, whichever index it embedded (work that asked for its model: indexing, evaluation, a
/// benchmark): an error while it loads or when it failed.
pub(super) fn embedder() -> Result<Rc<Embedder>, EngineError> {
    with_engine(|engine| match &engine.model {
        Model::Loaded(embedder) => Ok(embedder.clone()),
        Model::NotRequested | Model::Loading { .. } => Err(EngineError::ModelLoading),
        Model::Failed { reason, .. } => Err(EngineError::ModelFailed(reason.clone())),
    })?
}

/// The model of the index answering questions (the one loaded or loading, with no index; MiniLM, with
/// nothing at all) once it has loaded, or why it could not be.
pub(super) async fn ready() -> Result<Rc<Embedder>, EngineError> {
    let kind = with_engine(|engine| engine.held.model().or(engine.model.kind()))?.unwrap_or_default();
    ready_for(kind).await
}

/// `kind` once it has loaded, or why it could not be.
pub(super) async fn ready_for(kind: EmbeddingModel) -> Result<Rc<Embedder>, EngineError> {
    load(kind);
    let wait = with_engine(|engine| match &mut engine.model {
        Model::Loading { waiting, .. } => {
            let (told, wait) = oneshot::channel();
            waiting.push(told);
            Some(wait)
        }
        _ => None,
    })?;
    if let Some(wait) = wait {
        let _ = wait.await;
    }
    match embedder()? {
        embedder if embedder.model() == kind => Ok(embedder),
        // Another model was asked for while this one loaded (an index opened meanwhile).
        _ => Err(EngineError::ModelLoading),
    }
}
