//! What the engine is doing, as the page tells it: the [`Phase`], derived from the session's own [`Step`]
//! and the engine's published lifecycle, the words for each long step's progress, and the status line that
//! shows them (with Cancel while a step can be stopped).

use leptos::prelude::*;

use crate::web::client::{self, Lifecycle, Model};
use crate::web::error::ModelUnavailable;
use crate::web::protocol::{Progress, Task};

/// What the session is doing with the index, apart from what the engine's lifecycle says.
#[derive(Clone, Debug, PartialEq)]
pub enum Step {
    /// No index is shown yet, or a crashed engine is being brought back with it.
    Starting,
    OpeningPublished,
    /// A long step in the engine, as it last reported.
    Working(Progress),
    /// An index is shown: the phase is the engine's.
    Settled,
    Failed(String),
}

#[derive(Clone, Debug, PartialEq)]
pub enum Phase {
    /// The engine worker is starting; its model's download comes as progress.
    Starting,
    OpeningPublished,
    /// An index is open and questions are answered by words (`Method::Words`; BM25 over a site's fragments)
    /// while the embedding model loads, its download as last reported; or, when it could not be loaded, by
    /// words only, with the reason.
    AnsweringByWords(Result<Option<Progress>, ModelUnavailable>),
    /// A long step in the engine, as it last reported.
    Working(Progress),
    Ready,
    Failed(String),
}

impl Phase {
    /// The phase the page shows: the session's step, or once it has settled, the engine's: ready with its
    /// model loaded, else answering by words while the model loads or since it failed to.
    pub fn of(step: &Step, engine: &Lifecycle) -> Phase {
        match step {
            Step::Starting => Phase::Starting,
            Step::OpeningPublished => Phase::OpeningPublished,
            Step::Working(progress) => Phase::Working(progress.clone()),
            Step::Failed(reason) => Phase::Failed(reason.clone()),
            Step::Settled if !engine.answers() => Phase::Starting,
            Step::Settled => match engine.model() {
                Model::Loaded { .. } => Phase::Ready,
                Model::Loading(progress) => Phase::AnsweringByWords(Ok(progress)),
                Model::Failed(reason) => Phase::AnsweringByWords(Err(reason)),
            },
        }
    }

    fn key(&self) -> &'static str {
        match self {
            Phase::Starting => "starting",
            Phase::OpeningPublished => "opening-published",
            Phase::AnsweringByWords(_) => "answering-by-words",
            Phase::Working(_) => "indexing",
            Phase::Ready => "ready",
            Phase::Failed(_) => "failed",
        }
    }

    fn message(&self) -> String {
        match self {
            Phase::Starting => "Starting the engine…".into(),
            Phase::OpeningPublished => "Opening the prebuilt index…".into(),
            Phase::AnsweringByWords(Ok(Some(download))) => describe_progress(download),
            Phase::AnsweringByWords(Ok(None)) => "Answering by words while the embedding model loads…".into(),
            Phase::AnsweringByWords(Err(reason)) => format!("Answering by words only: {reason}."),
            Phase::Working(progress) => describe_progress(progress),
            Phase::Ready => "Ready.".into(),
            Phase::Failed(reason) => format!("Error: {reason}"),
        }
    }

    /// Steps the user can stop, with the index kept as it was: an update's, its wait for the model its
    /// documents asked for included (the download goes on, kept for the next update).
    fn cancellable(&self) -> bool {
        matches!(self, Phase::Working(Progress { task: Task::Parse | Task::Embed | Task::LoadModel, .. }))
    }
}

/// `Embedding 40 / 320 texts · 12.5 texts/s · about 22 s left…`, and the like for each task.
pub fn describe_progress(progress: &Progress) -> String {
    let Progress { task, done, total, rate, current, seconds_left } = progress;
    let remaining = |unit: &str, scale: f64| {
        rate.filter(|r| *r > 0.0).map_or_else(String::new, |rate| {
            let left = seconds_left.unwrap_or(total.saturating_sub(*done) as f64 / rate);
            format!(" · {:.1} {unit}/s · about {left:.0} s left", rate / scale)
        })
    };
    match task {
        Task::LoadModel => format!(
            "Answering by words while the embedding model loads{}: {:.1} / {:.1} MB{}…",
            current.as_ref().map_or_else(String::new, |model| format!(" ({model})")),
            *done as f64 / 1e6,
            *total as f64 / 1e6,
            remaining("MB", 1e6)
        ),
        Task::Parse => format!(
            "Reading files: {done} / {total}{}{}…",
            remaining("files", 1.0),
            current.as_ref().map_or_else(String::new, |file| format!(" · {file}"))
        ),
        Task::Embed => format!("Embedding {done} / {total} texts{}…", remaining("texts", 1.0)),
        Task::Evaluate => format!("Evaluating {}: {done} / {total} questions…", current.as_deref().unwrap_or("")),
        Task::Build => "Building the knowledge graph, the chunk graph and the indexes…".into(),
    }
}

/// Cancel goes straight to the engine: the update it stops answers with its outcome, which the session
/// awaiting it shows.
#[component]
pub fn StatusLine(phase: Memo<Phase>) -> impl IntoView {
    view! {
        <p id="status" role="status" data-state=move || phase.get().key()>
            {move || phase.get().message()}
            {move || phase.get().cancellable().then(|| view! {
                " "
                <button id="cancel" type="button" on:click=move |_| client::cancel()>"Cancel"</button>
            })}
        </p>
    }
}
