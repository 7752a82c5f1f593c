//! The embedding pool: as many workers as the device has cores, each with its own model, so that embedding
//! a large upload scales with cores (wasm32 has no threads of its own here). The engine worker owns the
//! pool and hands out batches of texts, longest first so that each batch pads little; results are put back
//! in the order the texts came. This file holds both ends: [`Pool`] in the engine worker, and
//! [`serve_embedding`] in each pool worker.

use futures_channel::mpsc::{UnboundedReceiver, UnboundedSender, unbounded};
use futures_util::StreamExt;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::spawn_local;
use web_sys::{DedicatedWorkerGlobalScope, ErrorEvent, MessageEvent, Worker};

use crate::embed::TextEmbedder;
use crate::store::IndexBuilder;

use super::protocol::{EmbedJob, FromEmbedder, Listeners, from_js, post_to_parent, to_js};
use super::worker::load_embedder;

/// Texts per job: the embedder's own batch size, so one job is one inference call.
const TEXTS_PER_JOB: usize = 16;
/// Each worker holds a model (tens of MB once planned); more than this costs memory for little gain.
const MAX_WORKERS: usize = 8;
/// The role `main` takes in a worker of the pool.
pub const ROLE: &str = "embed";

/// What a pool worker said, or that it failed.
enum Event {
    Said(Result<FromEmbedder, String>),
    Failed(String),
}

struct Member {
    worker: Worker,
    ready: bool,
    busy: bool,
    _listeners: Listeners,
}

pub struct Pool {
    members: Vec<Member>,
    events: UnboundedReceiver<(usize, Event)>,
    next_job: u32,
}

impl Pool {
    /// A pool of one worker per core (at most [`MAX_WORKERS`]).
    pub fn for_this_device() -> Pool {
        let scope: web_sys::WorkerGlobalScope = js_sys::global().unchecked_into();
        let cores = scope.navigator().hardware_concurrency() as usize;
        Pool::new(cores.clamp(1, MAX_WORKERS))
    }

    /// Starts `size` workers; each loads its model while the caller goes on.
    pub fn new(size: usize) -> Pool {
        let (sender, events) = unbounded();
        let members = (0..size).filter_map(|i| Member::start(i, sender.clone()).ok()).collect();
        Pool { members, events, next_job: 0 }
    }

    /// Waits until every worker has its model (the benchmark starts its clock then).
    #[cfg(feature = "bench")]
    pub async fn ready(&mut self) -> Result<(), String> {
        while self.members.iter().any(|m| !m.ready) {
            self.next_event().await?;
        }
        Ok(())
    }

    /// Embeds every text `builder` still needs; `false` when `cancelled` said so first, with nothing taken.
    pub async fn embed(
        &mut self,
        builder: &mut IndexBuilder,
        cancelled: &dyn Fn() -> bool,
        progress: &dyn Fn(usize),
    ) -> Result<bool, String> {
        let texts = builder.texts_to_embed().to_vec();
        let already = builder.embedded();
        let Some(vectors) = self.embed_texts(&texts, cancelled, &|done| progress(already + done)).await? else {
            return Ok(false);
        };
        builder.accept_next(vectors).map_err(|e| e.to_string())?;
        Ok(true)
    }

    /// One vector per text, in order; `None` when `cancelled` said so. `progress` hears how many are done.
    pub async fn embed_texts(
        &mut self,
        texts: &[String],
        cancelled: &dyn Fn() -> bool,
        progress: &dyn Fn(usize),
    ) -> Result<Option<Vec<Vec<f32>>>, String> {
        if self.members.is_empty() {
            return Err("no embedding worker could be started".into());
        }
        let mut order: Vec<usize> = (0..texts.len()).collect();
        order.sort_by_key(|&i| std::cmp::Reverse(texts[i].len()));
        let jobs: Vec<&[usize]> = order.chunks(TEXTS_PER_JOB).collect();
        let mut vectors = vec![Vec::new(); texts.len()];
        let mut in_flight = std::collections::HashMap::new();
        let (mut next, mut done) = (0, 0);
        while done < texts.len() {
            if cancelled() {
                // Jobs still running finish in their workers; their answers are recognised as stale and dropped.
                return Ok(None);
            }
            for member in self.members.iter_mut().filter(|m| m.ready && !m.busy) {
                let Some(job) = jobs.get(next) else { break };
                let id = self.next_job;
                self.next_job = self.next_job.wrapping_add(1);
                member.send(&EmbedJob { id, texts: job.iter().map(|&i| texts[i].clone()).collect() })?;
                in_flight.insert(id, next);
                next += 1;
            }
            if let Some((id, embedded)) = self.next_event().await? {
                let Some(job) = in_flight.remove(&id) else { continue };
                let embedded = embedded?;
                for (&i, vector) in jobs[job].iter().zip(embedded) {
                    vectors[i] = vector;
                }
                done += jobs[job].len();
                progress(done);
            }
        }
        Ok(Some(vectors))
    }

    /// Takes in the next thing a worker said; a finished job comes back as (job id, its vectors).
    async fn next_event(&mut self) -> Result<Option<(u32, Result<Vec<Vec<f32>>, String>)>, String> {
        let Some((member, event)) = self.events.next().await else {
            return Err("the embedding workers are gone".into());
        };
        let member = &mut self.members[member];
        match event {
            Event::Said(Ok(FromEmbedder::Ready(Ok(())))) => member.ready = true,
            Event::Said(Ok(FromEmbedder::Ready(Err(reason)))) => return Err(reason),
            Event::Said(Ok(FromEmbedder::Done { id, vectors })) => {
                member.busy = false;
                return Ok(Some((id, vectors)));
            }
            Event::Said(Err(reason)) | Event::Failed(reason) => {
                return Err(format!("an embedding worker stopped: {reason}"));
            }
        }
        Ok(None)
    }
}

impl Member {
    fn start(index: usize, events: UnboundedSender<(usize, Event)>) -> Result<Member, String> {
        let worker = super::browser::start_worker(ROLE)?;
        let said = events.clone();
        let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |event: MessageEvent| {
            let _ = said.unbounded_send((index, Event::Said(from_js(&event))));
        });
        let on_error = Closure::<dyn FnMut(ErrorEvent)>::new(move |event: ErrorEvent| {
            let _ = events.unbounded_send((index, Event::Failed(event.message())));
        });
        worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
        Ok(Member { worker, ready: false, busy: false, _listeners: (on_message, on_error) })
    }

    fn send(&mut self, job: &EmbedJob) -> Result<(), String> {
        let (bytes, transfer) = to_js(job);
        self.worker.post_message_with_transfer(&bytes, &transfer).map_err(super::browser::describe)?;
        self.busy = true;
        Ok(())
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        for member in &self.members {
            member.worker.terminate();
        }
    }
}

/// A pool worker's life: load the model, say so, then embed each job it is sent.
pub fn serve_embedding() {
    let scope: DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    let answer = |message: &FromEmbedder| post_to_parent(message);
    spawn_local(async move {
        let embedder = match load_embedder(false).await {
            Ok(embedder) => embedder,
            Err(reason) => return answer(&FromEmbedder::Ready(Err(reason))),
        };
        let on_job = Closure::<dyn FnMut(MessageEvent)>::new(move |event: MessageEvent| {
            let EmbedJob { id, texts } = match from_js::<EmbedJob>(&event) {
                Ok(job) => job,
                Err(reason) => return answer(&FromEmbedder::Ready(Err(reason))),
            };
            let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
            let vectors = embedder.embed(&texts).map_err(|e| e.to_string());
            answer(&FromEmbedder::Done { id, vectors });
        });
        scope.set_onmessage(Some(on_job.as_ref().unchecked_ref()));
        // The handler lives as long as the worker.
        on_job.forget();
        answer(&FromEmbedder::Ready(Ok(())));
    });
}
