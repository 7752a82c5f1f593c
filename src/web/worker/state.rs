//! The engine worker's state, one per worker: the index it holds (whole, being updated with its preview, or
//! by its fragments), its model, its pool, and what its long steps share (the evaluated index, a parked
//! assisted retrieval, Cancel); with the accessors every part of the engine reaches it by, and the messages
//! it posts to the page. Below every part, so that each reads the state and none reads another's.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use futures_channel::oneshot;
use wasm_bindgen::JsCast;
use web_sys::DedicatedWorkerGlobalScope;

use crate::corpus::DocId;
use crate::embed::{Embedder, EmbeddingModel};
use crate::store::IndexedCorpus;
use crate::store::fragments::FragmentedIndex;
use crate::web::browser;
use crate::web::error::{EngineError, ModelLoadError, Replaced};
use crate::web::pool::Pool;
use crate::web::protocol::{FromEngine, Progress, post_to_parent, to_js_with};

/// The engine worker's state: the index it holds, its model, and what its long steps share.
pub(super) struct Engine {
    pub(super) held: Held,
    pub(super) model: Model,
    pub(super) pool: Option<Pool>,
    /// The last evaluated dataset's index, by the blake3 of what it was built from: a second evaluation of
    /// the same dataset (other methods, other cut-offs) embeds nothing.
    pub(super) evaluated: Option<(blake3::Hash, IndexedCorpus)>,
    /// The LLM-assisted retrieval waiting for the LLM's reply (`answers::Waiting`). Its type is erased: it
    /// holds a method, and a method may hold learned fusion's network, which the page's module (whose engine
    /// never assists) must not link, not even to drop one; only the code that parks a retrieval names it.
    pub(super) assisted: Option<Box<dyn std::any::Any>>,
    /// The calls being served, each with whether the page cancelled it: a long step reads its own call's
    /// between its slices, so a Cancel sent before the step began (while it waited for the model) holds.
    pub(super) running: HashMap<u32, bool>,
}

/// The index the engine holds, and so what answers questions (each behind a pointer: they are large).
pub(super) enum Held {
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
    Fragments(Box<Fragments>),
}

/// The index being built, as far as it is embedded (`IndexBuilder::preview`).
pub(super) struct Preview {
    pub(super) index: IndexedCorpus,
    /// Documents with a text still waiting for its vector.
    pub(super) waiting: HashSet<DocId>,
}

impl Held {
    /// The whole index, as it was before any update now running.
    pub(super) fn whole(&self) -> Option<&Rc<IndexedCorpus>> {
        match self {
            Held::Whole(index) | Held::Updating { current: Some(index), .. } => Some(index),
            _ => None,
        }
    }

    /// An update begins on the index held, which it is given; an update begun meanwhile builds on the same.
    pub(super) fn begin_update(&mut self) -> Result<Option<Rc<IndexedCorpus>>, EngineError> {
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
    pub(super) fn drop_preview(&mut self) -> bool {
        match self {
            Held::Updating { preview, .. } => preview.take().is_some(),
            _ => false,
        }
    }

    /// The model that embedded what answers questions now (the preview's, while an update embeds): `None`
    /// with no index, or one held by its fragments (a site's, always MiniLM's, the page's own model).
    pub(super) fn model(&self) -> Option<EmbeddingModel> {
        let answering = match self {
            Held::Updating { preview: Some(preview), .. } => Some(&preview.index),
            held => held.whole().map(|index| &**index),
        };
        answering.and_then(|index| EmbeddingModel::of(index.model()))
    }

    pub(super) fn show_preview(&mut self, shown: Preview) {
        if let Held::Updating { preview, .. } = self {
            *preview = Some(Box::new(shown));
        }
    }

    /// The update begun on `from` ends: with `built` in its place, unless another index was opened
    /// meanwhile (it would silently undo that one); without, the index as it was answers again.
    pub(super) fn end_update(
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

pub(super) fn scope() -> DedicatedWorkerGlobalScope {
    js_sys::global().unchecked_into()
}

pub(super) fn post(message: &FromEngine) {
    post_to_parent(message);
}

/// The reply to call `id`, its bytes moved beside the message (`protocol::to_js_with`).
pub(super) fn post_reply(id: u32, reply: Result<js_sys::Uint8Array, EngineError>) {
    let (reply, payload) = match reply {
        Ok(bytes) => (Ok(()), Some(bytes)),
        Err(refused) => (Err(refused), None),
    };
    let (data, transfer) = to_js_with(&FromEngine::Reply { id, reply }, payload.as_ref());
    // Fails only when the page is gone, and then there is no one to tell.
    let _ = scope().post_message_with_transfer(&data, &transfer);
}

/// Progress of the call being served, if any (the model's download in the background belongs to none).
pub(super) fn send_progress(progress: Progress) {
    post(&FromEngine::Progress { call: super::serving::serving(), progress });
}

/// Units per second since `started`, once there is something to tell.
pub(super) fn rate(done: usize, started: f64) -> Option<f64> {
    let seconds = (browser::now_ms() - started) / 1000.0;
    (done > 0 && seconds > 0.0).then(|| done as f64 / seconds)
}

/// The engine's model, the one the engine works with now: the model of the index it holds, or the one an
/// update's new documents asked for (`model::load`). The engine by words never asks for one.
pub(super) enum Model {
    NotRequested,
    /// Still downloading; whoever waits for it is told when it is loaded or has failed.
    Loading {
        kind: EmbeddingModel,
        waiting: Vec<oneshot::Sender<()>>,
    },
    Loaded(Rc<Embedder>),
    Failed {
        kind: EmbeddingModel,
        reason: ModelLoadError,
    },
}

impl Model {
    /// The model this is, or is to be.
    pub(super) fn kind(&self) -> Option<EmbeddingModel> {
        match self {
            Model::NotRequested => None,
            Model::Loading { kind, .. } | Model::Failed { kind, .. } => Some(*kind),
            Model::Loaded(embedder) => Some(embedder.model()),
        }
    }
}

/// An index known by its fragments, and the folder they lie in.
pub(super) struct Fragments {
    pub(super) index: FragmentedIndex,
    pub(super) folder: String,
}

/// Makes this worker's engine, holding nothing yet.
pub(super) fn install() {
    let engine = Engine {
        held: Held::Empty,
        model: Model::NotRequested,
        pool: None,
        evaluated: None,
        assisted: None,
        running: HashMap::new(),
    };
    ENGINE.with(|slot| *slot.borrow_mut() = Some(engine));
}

pub(super) fn with_engine<T>(f: impl FnOnce(&mut Engine) -> T) -> Result<T, EngineError> {
    ENGINE.with(|e| e.borrow_mut().as_mut().map(f)).ok_or(EngineError::NotStarted)
}

pub(super) fn with_index<T>(f: impl FnOnce(&IndexedCorpus) -> Result<T, EngineError>) -> Result<T, EngineError> {
    with_engine(|engine| match engine.held.whole() {
        Some(index) => f(index),
        None => Err(no_index(&engine.held)),
    })?
}

pub(super) fn no_index(held: &Held) -> EngineError {
    match held {
        Held::Fragments(_) => EngineError::AnsweredOnceWhole,
        _ => EngineError::NoIndex,
    }
}

/// Questions are answered from the index being built while an update embeds (with its documents that
/// still wait for vectors), else from the index (`None`).
pub(super) fn with_searchable_index<T>(
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

impl Engine {
    /// The page cancelled call `id`; one already answered is not remembered.
    pub(super) fn cancel(&mut self, id: u32) {
        if let Some(cancelled) = self.running.get_mut(&id) {
            *cancelled = true;
        }
    }
}

/// Whether the page cancelled the call being served (`serving`); outside a call, nothing is cancelled.
pub(super) fn cancelled() -> bool {
    let Some(call) = super::serving::serving() else { return false };
    with_engine(|engine| engine.running.get(&call).copied().unwrap_or(false)).unwrap_or(true)
}
