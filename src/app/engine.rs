//! The page's handle on the engine (`worker/`): starts it, sends requests and awaits their replies, passes
//! its progress on, and notices when it crashes (a panic aborts a wasm module), so that the page can start
//! a new one with the index as it was. Which worker answers (the engine by words, then the full engine) is
//! `connections`' business.

mod connections;

use std::cell::RefCell;
use std::rc::Rc;

use crate::graph::overview::Overview;
use crate::retrieve::assist::Assist;
use crate::store::DocumentOutline;

use super::protocol::{
    Answer, AssistTurn, Evaluation, FileBytes, IndexOutcome, IndexState, MethodSpec, Progress, Reply, Request,
};
pub use connections::{Kind, ROLE, current_kind};
use connections::{Listener, To};

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

/// Starts an engine of `kind` (ending any running one) and waits until it takes requests: one that answers
/// by words at once, or the full one, which answers by words while its model loads. `on_progress` hears
/// about the model's download and every later long step, `on_model` when the model has loaded.
pub async fn start(
    kind: Kind,
    on_progress: impl Fn(Progress) + 'static,
    on_model: impl Fn(Result<u32, String>) + 'static,
) -> Result<(), String> {
    connections::start(kind, Listener { on_progress: Rc::new(on_progress), on_model: Rc::new(on_model) }).await
}

/// The index the engine by words last opened, for the full engine to open: the snapshot's bytes as the page
/// gave them (no second download, no export, dropped once it has), or, for an index it opened by its
/// fragments, where they and the whole snapshot lie.
enum OpenedByWords {
    Bytes { name: String, bytes: Vec<u8> },
    Fragments { folder: String, snapshot: String },
}

thread_local! {
    static OPENED_BY_WORDS: RefCell<Option<OpenedByWords>> = const { RefCell::new(None) };
    /// Counts the indexes the engine by words opened: a bring-up or a first answer knows whether the index it
    /// began with is still the one shown.
    static OPENED_COUNT: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
    /// Whether the engine by words has answered a question since it opened an index by its fragments.
    static ANSWERED_BY_FRAGMENTS: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    /// Counts the indexes sent to be opened, answered or not: an open still being decoded is one the site's
    /// whole snapshot must not replace.
    static OPENS_SENT: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
    /// The whole snapshot of the index the full engine opened by its fragments, and [`OPENS_SENT`] then,
    /// for [`load_whole_index`].
    static WHOLE_TO_LOAD: RefCell<Option<(String, u32)>> = const { RefCell::new(None) };
}

/// Whether the full engine holds an index by its fragments whose whole snapshot is still to be loaded.
pub fn whole_index_to_load() -> bool {
    WHOLE_TO_LOAD.with_borrow(Option::is_some)
}

/// Whether the engine by words holds an index by its fragments and has not answered a question from it yet:
/// the full engine's downloads (its module, the model, the whole index) wait meanwhile, so that a first
/// question on a slow link does not share it with them.
pub fn awaits_first_answer_by_fragments() -> bool {
    let by_fragments = OPENED_BY_WORDS.with_borrow(|opened| matches!(opened, Some(OpenedByWords::Fragments { .. })));
    by_fragments && !ANSWERED_BY_FRAGMENTS.get()
}

/// How many engines were started: a caller that waits before [`bring_up_full`] gives it the count from
/// before, so that a restart meanwhile is noticed.
pub use connections::starts;

/// Brings the full engine up behind the one answering by words, with the index that one holds: it takes
/// over once its model has loaded, and `on_model` hears of it. `Ok(false)` when the engine was restarted
/// since `starts` (the new one is full already); on a failure the full engine is ended. An index the page
/// opens in the engine by words meanwhile is opened in the full engine too, the last one last. An index
/// held by its fragments is opened by them, by words and meaning, and its whole snapshot is left to
/// [`load_whole_index`]; fragments the full engine cannot open leave the whole snapshot.
pub async fn bring_up_full(starts: u32) -> Result<bool, Failure> {
    if connections::starts() != starts {
        return Ok(false);
    }
    let brought_up = async {
        let mut started = false;
        loop {
            let opened = OPENED_COUNT.get();
            let opened_by_words = OPENED_BY_WORDS.take();
            if !started && opened_by_words.is_some() {
                connections::start_full_behind().await?;
                started = true;
            }
            let (name, bytes) = match opened_by_words {
                Some(OpenedByWords::Bytes { name, bytes }) => (name, bytes),
                Some(OpenedByWords::Fragments { folder, snapshot }) => {
                    let request = Request::OpenFragments { name: snapshot.clone(), folder };
                    match connections::call(To::Next, request).await {
                        Ok(Reply::Opened(_)) if OPENED_COUNT.get() == opened => {
                            WHOLE_TO_LOAD.set(Some((snapshot, OPENS_SENT.get())));
                            connections::next_opened_the_index();
                            return Ok(());
                        }
                        Ok(Reply::Opened(_)) => continue,
                        Err(crash @ Failure::Crashed { .. }) => return Err(crash),
                        _ => {}
                    }
                    let bytes = crate::app::browser::fetch_bytes(&snapshot).await?;
                    (snapshot, bytes)
                }
                None => return Err(Failure::Refused("the engine by words opened no index".into())),
            };
            match connections::call(To::Next, Request::Open { name, bytes }).await? {
                Reply::Opened(_) if OPENED_COUNT.get() == opened => {
                    connections::next_opened_the_index();
                    return Ok(());
                }
                Reply::Opened(_) => continue,
                _ => return Err(Failure::Refused("the engine answered another request".into())),
            }
        }
    }
    .await;
    if connections::starts() != starts {
        WHOLE_TO_LOAD.set(None);
        connections::end_next("the engine was restarted");
        return Ok(false);
    }
    if brought_up.is_err() {
        connections::end_next("it could not open the index");
    }
    brought_up.map(|()| true)
}

/// After [`bring_up_full`] opened an index by its fragments: fetches its whole snapshot and opens it in the
/// full engine, which answers by the chosen method from then on. `None` when there was none to load, no
/// full engine to load it into, or the page opened another index meanwhile.
pub async fn load_whole_index() -> Option<Result<IndexState, Failure>> {
    let (snapshot, sent) = WHOLE_TO_LOAD.take()?;
    let current = || OPENS_SENT.get() == sent && connections::full_engine_runs();
    // Without a full engine (its model could not be loaded) the engine by words goes on from the fragments.
    if !current() {
        return None;
    }
    let bytes = match crate::app::browser::fetch_bytes(&snapshot).await {
        Ok(bytes) => bytes,
        Err(reason) => return Some(Err(Failure::Refused(reason))),
    };
    if !current() {
        return None;
    }
    OPENS_SENT.set(sent + 1);
    Some(call_to_for(To::Full, Request::Open { name: snapshot, bytes }, opened_state).await)
}

/// The reply `pick` expects of `request`.
async fn call_for<T>(request: Request, pick: impl FnOnce(Reply) -> Option<T>) -> Result<T, Failure> {
    call_to_for(To::Current, request, pick).await
}

/// As [`call_for`], of the engine `to`.
async fn call_to_for<T>(to: To, request: Request, pick: impl FnOnce(Reply) -> Option<T>) -> Result<T, Failure> {
    pick(connections::call(to, request).await?)
        .ok_or_else(|| Failure::Refused("the engine answered another request".into()))
}

/// The state of the index an `Open` or `OpenFragments` opened.
fn opened_state(reply: Reply) -> Option<IndexState> {
    match reply {
        Reply::Opened(state) => Some(state),
        _ => None,
    }
}

/// Replaces the index with a `.quire` file's; `name` says where it came from in an error.
pub async fn open(name: &str, bytes: Vec<u8>) -> Result<IndexState, Failure> {
    // The engine by words is given a copy: the full engine that replaces it opens these very bytes.
    let by_words = (current_kind() == Some(Kind::ByWords))
        .then(|| OpenedByWords::Bytes { name: name.to_string(), bytes: bytes.clone() });
    OPENS_SENT.set(OPENS_SENT.get() + 1);
    let opened = call_for(Request::Open { name: name.into(), bytes }, opened_state).await;
    if opened.is_ok() {
        OPENED_BY_WORDS.set(by_words);
        OPENED_COUNT.set(OPENED_COUNT.get() + 1);
    }
    opened
}

/// Replaces the index, in the engine by words, with one split into fragments under `folder` on the site
/// (`store::fragments`); the full engine will open the whole `snapshot`.
pub async fn open_fragments(folder: &str, snapshot: &str) -> Result<IndexState, Failure> {
    let request = Request::OpenFragments { name: snapshot.into(), folder: folder.into() };
    OPENS_SENT.set(OPENS_SENT.get() + 1);
    let opened = call_for(request, opened_state).await;
    if opened.is_ok() {
        OPENED_BY_WORDS.set(Some(OpenedByWords::Fragments { folder: folder.into(), snapshot: snapshot.into() }));
        OPENED_COUNT.set(OPENED_COUNT.get() + 1);
        ANSWERED_BY_FRAGMENTS.set(false);
    }
    opened
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

pub use connections::cancel;

pub async fn query(text: &str, method: MethodSpec, k: usize) -> Result<Answer, Failure> {
    let opened = OPENED_COUNT.get();
    let answer = call_for(Request::Query { text: text.into(), method, k }, |reply| match reply {
        Reply::Answer(answer) => Some(answer),
        _ => None,
    })
    .await;
    // Only an answer from the index opened last counts: one from an index replaced meanwhile does not.
    if answer.is_ok() && OPENED_COUNT.get() == opened {
        ANSWERED_BY_FRAGMENTS.set(true);
    }
    answer
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

/// A `?bench=` page's measurement, in a full engine of a build with the `bench` feature.
pub async fn benchmark(benchmark: crate::app::protocol::Benchmark) -> Result<String, Failure> {
    call_for(Request::Benchmark(benchmark), |reply| match reply {
        Reply::Benchmark(report) => Some(report),
        _ => None,
    })
    .await
}
