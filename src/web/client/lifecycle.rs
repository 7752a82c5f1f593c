//! The engine's lifecycle as the page sees it: the one value `engines` publishes after every change, its
//! embedding model's state included.

use crate::web::error::ModelUnavailable;
use crate::web::protocol::Progress;
use crate::web::roles::Kind;

/// The engine as the page sees it: one value, published after every change (`Listener::on_lifecycle`), from
/// which the page's phase, its model's state and what it offers derive.
#[derive(Clone, Debug, PartialEq)]
pub enum Lifecycle {
    /// No engine runs: before the first start, or when one could not be started (its starter was told why).
    Stopped,
    /// An engine of this kind was started and has not said yet that it takes calls.
    Starting(Kind),
    /// The engine by words answers; `full_coming_up` while the full engine comes up behind it, and
    /// `by_fragments` once that one has opened a site's index by its fragments.
    ByWords { full_coming_up: bool, by_fragments: bool, model: Model },
    /// The full engine answers; `by_fragments` while it holds a site's index by its fragments, its whole
    /// snapshot still to load (answers by words and meaning, without the graph's retrievers).
    Full { by_fragments: bool, model: Model },
    /// The engine answering crashed and none answers now: `why` as it said, and the file it was parsing,
    /// if any. The page starts a new one with the index as it was.
    Crashed { why: String, parsing: Option<String> },
}

/// The embedding model of the engine that answers, or of the full engine coming up behind the engine by
/// words: questions are answered by words until it has loaded.
#[derive(Clone, Debug, PartialEq)]
pub enum Model {
    /// Downloading, as last reported.
    Loading(Option<Progress>),
    /// Loaded, with the engine's memory then.
    Loaded {
        engine_memory: u32,
    },
    Failed(ModelUnavailable),
}

impl Model {
    pub fn is_loaded(&self) -> bool {
        matches!(self, Model::Loaded { .. })
    }
}

impl Lifecycle {
    /// Whether the full engine holds the index by its fragments, its whole snapshot still to load: changes
    /// to the index wait for it, and so do the retrievers of the graph.
    pub fn by_fragments(&self) -> bool {
        matches!(self, Lifecycle::ByWords { by_fragments: true, .. } | Lifecycle::Full { by_fragments: true, .. })
    }

    /// Whether an engine takes calls.
    pub fn answers(&self) -> bool {
        matches!(self, Lifecycle::ByWords { .. } | Lifecycle::Full { .. })
    }

    /// The model's state; one still to come while no engine answers.
    pub fn model(&self) -> Model {
        match self {
            Lifecycle::ByWords { model, .. } | Lifecycle::Full { model, .. } => model.clone(),
            _ => Model::Loading(None),
        }
    }
}
