//! Which call the engine worker is serving at this moment. Calls run as tasks of one thread, and one task's
//! poll never interleaves with another's, so the call a step belongs to (a Cancel it must heed, the call its
//! progress reports on) is the call whose task is being polled: [`in_call`] sets it around every poll.
//! Hand-written: this is tokio's `task_local!` scope, and tokio's runtime has no place in a wasm worker.

use std::cell::Cell;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

thread_local! {
    static SERVING: Cell<Option<u32>> = const { Cell::new(None) };
}

/// The call whose task is being polled, if one is (not the model's download, which no call owns).
pub(super) fn serving() -> Option<u32> {
    SERVING.get()
}

/// `call` as the task of call `id`: [`serving`] says `id` whenever it is polled.
pub(super) fn in_call<F: Future + Unpin>(id: u32, call: F) -> InCall<F> {
    InCall { id, call }
}

pub(super) struct InCall<F> {
    id: u32,
    call: F,
}

impl<F: Future + Unpin> Future for InCall<F> {
    type Output = F::Output;

    fn poll(mut self: Pin<&mut Self>, context: &mut Context<'_>) -> Poll<F::Output> {
        let outer = SERVING.replace(Some(self.id));
        let polled = Pin::new(&mut self.call).poll(context);
        SERVING.set(outer);
        polled
    }
}
