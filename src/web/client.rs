//! The page's handle on the engine (`worker/`): starts it, sends calls and awaits their replies, passes its
//! progress on, and notices when it crashes (a panic aborts a wasm module), so that the page can start a
//! new one with the index as it was. Which worker answers (the engine by words, then the full engine) is
//! `engines`' state; one worker is a `connection`.

mod connection;
mod engines;
mod lifecycle;

use futures_util::future::select;

pub use connection::Listener;
use connection::Started;
use engines::{Engines, OpenedByWords, WholeToLoad, with};
pub use lifecycle::{Lifecycle, Model};

use super::calls::{Call, Open, OpenFragments, OpenSaved, Query, Reply};
pub use super::error::Failure;
use super::error::{ClientError, EngineError};
use super::protocol::{Answer, IndexState, MethodSpec};
pub use super::roles::Kind;

/// Starts an engine of `kind` (ending any running one) and waits until it takes calls: one that answers
/// by words at once, or the full one, which answers by words while its model loads. `listener` hears
/// about the model's download and every later long step, the model having loaded, and every change of the
/// lifecycle (a crash included, waiting calls or not).
pub async fn start(kind: Kind, listener: Listener) -> Result<(), Failure> {
    let started = with(|e| e.start(kind, listener))?;
    awaited_start(started).await
}

async fn awaited_start(started: Started) -> Result<(), Failure> {
    started.await.unwrap_or(Err(ClientError::StoppedWhileStarting.into()))
}

/// The kind of the engine calls go to now.
pub fn current_kind() -> Option<Kind> {
    with(|e| e.current_kind())
}

/// How many engines were started: a caller that waits before [`bring_up_full`] gives it the count from
/// before, so that a restart meanwhile is noticed.
pub fn starts() -> u32 {
    with(|e| e.starts)
}

/// Which engine a call goes to.
#[derive(Clone, Copy)]
enum To {
    Current,
    /// The full engine coming up behind the engine by words.
    Next,
    /// The full engine, coming up or taken over.
    Full,
}

/// Sends `call` to the engine `to` and waits for its reply; dropped before it, the call is cancelled.
async fn call_to<C: Call>(to: To, call: C) -> Result<C::Reply, Failure> {
    let request = call.into();
    let (mut pending, replied) = with(|e| {
        let connection = match to {
            To::Current => e.current().ok_or(ClientError::NotRunning),
            To::Next => e.next().ok_or(ClientError::FullNotComingUp),
            To::Full => e.full().ok_or(ClientError::FullNotRunning),
        }?;
        let (id, replied) = connection.send(request)?;
        Ok::<_, ClientError>((Pending { generation: connection.generation, id, answered: false }, replied))
    })?;
    let reply =
        replied.await.unwrap_or_else(|_| Err(Failure::Crashed { message: "the engine stopped".into(), parsing: None }));
    pending.answered = true;
    Ok(C::Reply::from_bytes(reply?).map_err(ClientError::from)?)
}

/// A call sent and not answered yet: its caller's future dropped before the reply (a `select` that chose
/// another branch, a view gone), it is cancelled in the engine and its reply and progress dropped.
struct Pending {
    generation: u32,
    id: u32,
    answered: bool,
}

impl Drop for Pending {
    fn drop(&mut self) {
        if !self.answered {
            with(|e| e.forget_call(self.generation, self.id));
        }
    }
}

/// Sends `call` to the engine calls go to now and waits for its reply. [`open`], [`open_fragments`] and
/// [`query`] are the calls that also keep track of which index the engines hold.
pub async fn call<C: Call>(call: C) -> Result<C::Reply, Failure> {
    call_to(To::Current, call).await
}

/// The page's Cancel: stops each waiting update, node vectors' embedding or evaluation at its next step,
/// one still waiting for the model as it begins.
pub fn cancel() {
    with(|e| e.current().map(|c| c.cancel_stoppable()));
}

/// Whether the engine by words holds an index by its fragments and has not answered a question from it yet:
/// waits until it has, or `grace_ms`. The full engine's downloads (its module, the model, the whole index)
/// wait meanwhile, so that a first question on a slow link does not share it with them.
pub async fn first_answer_by_fragments(grace_ms: u32) {
    let Some(answered) = with(Engines::first_answer_by_fragments) else { return };
    let _ = select(answered, gloo_timers::future::TimeoutFuture::new(grace_ms)).await;
}

/// Brings the full engine up behind the one answering by words, with the index that one holds: it takes
/// over once its model has loaded, which the lifecycle tells. `Ok(false)` when the engine was restarted
/// since `starts` (the new one is full already); on a failure the full engine is ended. An index the page
/// opens in the engine by words meanwhile is opened in the full engine too, the last one last. An index
/// held by its fragments is opened by them, by words and meaning, and its whole snapshot is left to
/// [`load_whole_index`]; fragments the full engine cannot open leave the whole snapshot.
pub async fn bring_up_full(starts: u32) -> Result<bool, Failure> {
    if self::starts() != starts {
        return Ok(false);
    }
    let brought_up = open_in_full_behind().await;
    if self::starts() != starts {
        with(|e| e.end_next("the engine was restarted"));
        return Ok(false);
    }
    match brought_up {
        Ok(whole_to_load) => {
            with(|e| e.next_opened(whole_to_load));
            Ok(true)
        }
        Err(failure) => {
            with(|e| e.full_not_brought_up(&failure));
            Err(failure)
        }
    }
}

/// Starts the full engine behind the engine by words and opens in it the index that one opened last (again
/// if another was opened meanwhile); the whole snapshot to load behind fragments it opened.
async fn open_in_full_behind() -> Result<Option<WholeToLoad>, Failure> {
    let mut started = false;
    loop {
        let (opened, opened_by_words) = with(|e| (e.opened, e.take_opened_by_words()));
        if !started && opened_by_words.is_some() {
            awaited_start(with(Engines::start_full_behind)?).await?;
            started = true;
        }
        let (name, bytes) = match opened_by_words {
            Some(OpenedByWords::Bytes { name, bytes }) => (name, bytes),
            Some(OpenedByWords::Saved) => {
                call_to(To::Next, OpenSaved).await?.ok_or(ClientError::SavedIndexForgotten)?;
                match with(|e| e.opened) == opened {
                    true => return Ok(None),
                    false => continue,
                }
            }
            Some(OpenedByWords::Fragments { folder, snapshot, .. }) => {
                match call_to(To::Next, OpenFragments { name: snapshot.clone(), folder }).await {
                    Ok(_) if with(|e| e.opened) == opened => {
                        return Ok(Some(WholeToLoad { snapshot, opens_sent: with(|e| e.opens_sent) }));
                    }
                    Ok(_) => continue,
                    Err(failure @ (Failure::Crashed { .. } | Failure::Unsent(_))) => return Err(failure),
                    Err(Failure::Refused(_)) => {}
                }
                let bytes = super::browser::fetch_bytes(&snapshot).await.map_err(EngineError::from)?;
                (snapshot, bytes)
            }
            None => return Err(ClientError::NothingOpenedByWords.into()),
        };
        call_to(To::Next, Open { name, bytes }).await?;
        if with(|e| e.opened) == opened {
            return Ok(None);
        }
    }
}

/// After [`bring_up_full`] opened an index by its fragments: fetches its whole snapshot and opens it in the
/// full engine, which answers by the chosen method from then on. `None` when there was none to load, no
/// full engine to load it into, its load had begun already, or the page opened another index meanwhile.
pub async fn load_whole_index() -> Option<Result<IndexState, Failure>> {
    let WholeToLoad { snapshot, opens_sent } = with(Engines::begin_loading_whole)?;
    let current = || with(|e| e.opens_sent == opens_sent && e.full().is_some());
    // Without a full engine (its model could not be loaded) the engine by words goes on from the fragments.
    if !current() {
        return None;
    }
    let bytes = match super::browser::fetch_bytes(&snapshot).await {
        Ok(bytes) => bytes,
        Err(reason) => return Some(Err(EngineError::from(reason).into())),
    };
    if !current() {
        return None;
    }
    with(|e| e.opens_sent += 1);
    let opened = call_to(To::Full, Open { name: snapshot, bytes }).await;
    if opened.is_ok() {
        with(Engines::whole_loaded);
    }
    Some(opened)
}

/// Sends `call`, which replaces the index, counted as an open sent (a whole snapshot loaded behind
/// fragments never replaces an index opened since). Once the engine has opened an index (`opened` says
/// which replies mean it has), `held` becomes the engine by words' record of it.
async fn opening<C: Call>(
    call: C,
    held: Option<OpenedByWords>,
    opened: fn(&C::Reply) -> bool,
) -> Result<C::Reply, Failure> {
    with(|e| e.opens_sent += 1);
    let reply = self::call(call).await;
    if reply.as_ref().is_ok_and(opened) {
        with(|e| e.index_opened(held));
    }
    reply
}

/// Replaces the index with a `.quire` file's; `name` says where it came from in an error.
pub async fn open(name: &str, bytes: Vec<u8>) -> Result<IndexState, Failure> {
    // The engine by words is given a copy: the full engine that replaces it opens these very bytes.
    let held = (current_kind() == Some(Kind::ByWords))
        .then(|| OpenedByWords::Bytes { name: name.to_string(), bytes: bytes.clone() });
    opening(Open { name: name.into(), bytes }, held, |_| true).await
}

/// Replaces the index with the one saved in this browser, which the engine reads; `None` when none is.
pub async fn open_saved() -> Result<Option<IndexState>, Failure> {
    opening(OpenSaved, Some(OpenedByWords::Saved), Option::is_some).await
}

/// Replaces the index, in the engine by words, with one split into fragments under `folder` on the site
/// (`store::fragments`); the full engine will open the whole `snapshot`.
pub async fn open_fragments(folder: &str, snapshot: &str) -> Result<IndexState, Failure> {
    let held = OpenedByWords::Fragments {
        folder: folder.into(),
        snapshot: snapshot.into(),
        answered: false,
        waiting_for_answer: Vec::new(),
    };
    opening(OpenFragments { name: snapshot.into(), folder: folder.into() }, Some(held), |_| true).await
}

pub async fn query(text: &str, method: MethodSpec, k: usize) -> Result<Answer, Failure> {
    let opened = with(|e| e.opened);
    let answer = call(Query { text: text.into(), method, k }).await;
    // Only an answer from the index opened last counts: one from an index replaced meanwhile does not.
    if answer.is_ok() && with(|e| e.opened) == opened {
        with(Engines::answered);
    }
    answer
}
