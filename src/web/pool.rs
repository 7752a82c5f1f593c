//! The embedding pool: workers that each hold a model, so that embedding a large upload scales with cores
//! (wasm32 has no threads of its own here). The engine worker owns the pool, hands out jobs of texts
//! (longest first, so that each job pads little) and embeds jobs itself between handing them out: it already
//! holds a model, and it is the fastest embedder of the tab (docs/BENCHMARKS.md), so the pool has one worker
//! fewer than the device has cores. Results are put back in the order the texts came. This file holds both
//! ends: [`Pool`] in the engine worker, and [`serve_embedding`] in each pool worker.

use futures_channel::mpsc::{TryRecvError, UnboundedReceiver, UnboundedSender, unbounded};
use futures_util::StreamExt;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::spawn_local;
use web_sys::{DedicatedWorkerGlobalScope, ErrorEvent, MessageEvent, Worker};

use crate::embed::{EmbeddingModel, TextEmbedder};
use crate::store::IndexBuilder;

use super::error::{Damaged, EmbedderDown, EngineError, JsError, PoolError};
use super::model::load_embedder;
use super::protocol::{EmbedJob, FromEmbedder, Listeners, from_js, post_to_parent, to_js};
use super::roles;

/// Texts in the largest job: the embedder's own batch size, so one job is at most one inference call.
const TEXTS_PER_JOB: usize = 16;
/// Jobs a pool worker holds at once while the engine worker embeds too: one running and one waiting, so that
/// it does not wait for the engine worker to hand out the next while that embeds a job of its own.
const JOBS_PER_WORKER: usize = 2;
/// Each worker holds a model (tens of MB once planned); more than this costs memory for little gain.
const MAX_WORKERS: usize = 8;

/// What a pool worker said, or that it failed.
enum Event {
    Said(Result<FromEmbedder, Damaged>),
    Failed(String),
}

struct Member {
    worker: Worker,
    ready: bool,
    /// Jobs sent and not answered yet.
    jobs: usize,
    _listeners: Listeners,
}

/// Embeds texts where the pool is driven from (the engine worker's own model).
pub type EmbedHere<'a> = &'a dyn Fn(&[&str]) -> Result<Vec<Vec<f32>>, EngineError>;

/// A finished job: its id, and its vectors or why there are none.
type Answer = (u32, Result<Vec<Vec<f32>>, EngineError>);
/// A finished job by its place in the call's list of jobs, with its vectors.
type Finished = (usize, Vec<Vec<f32>>);

pub struct Pool {
    /// The model every worker embeds with.
    model: EmbeddingModel,
    members: Vec<Member>,
    events: UnboundedReceiver<(usize, Event)>,
    next_job: u32,
}

impl Pool {
    /// A pool of one worker per core but one (the engine worker embeds too), at least one, at most
    /// [`MAX_WORKERS`].
    pub fn for_this_device(model: EmbeddingModel) -> Pool {
        let scope: web_sys::WorkerGlobalScope = js_sys::global().unchecked_into();
        let cores = scope.navigator().hardware_concurrency() as usize;
        Pool::new(cores.saturating_sub(1).clamp(1, MAX_WORKERS), model)
    }

    /// Starts `size` workers; each loads `model` while the caller goes on.
    pub fn new(size: usize, model: EmbeddingModel) -> Pool {
        let (sender, events) = unbounded();
        let members = (0..size).filter_map(|i| Member::start(i, model, sender.clone()).ok()).collect();
        Pool { model, members, events, next_job: 0 }
    }

    /// The model its workers embed with.
    pub fn model(&self) -> EmbeddingModel {
        self.model
    }

    /// Waits until every worker has its model (the benchmark starts its clock then).
    #[cfg(feature = "bench")]
    pub async fn ready(&mut self) -> Result<(), EngineError> {
        while self.members.iter().any(|m| !m.ready) {
            self.next_event().await?;
        }
        Ok(())
    }

    /// Embeds the next `count` texts `builder` still needs (all, if fewer), here too when `here` is given;
    /// `false` when `cancelled` said so first, with nothing taken. `progress` hears the builder's count.
    pub async fn embed(
        &mut self,
        builder: &mut IndexBuilder,
        count: usize,
        here: Option<EmbedHere<'_>>,
        cancelled: &dyn Fn() -> bool,
        progress: &dyn Fn(usize),
    ) -> Result<bool, EngineError> {
        let texts: Vec<String> = builder.texts_to_embed().iter().take(count).cloned().collect();
        let already = builder.embedded();
        let Some(vectors) = self.embed_texts(&texts, here, cancelled, &|done| progress(already + done)).await? else {
            return Ok(false);
        };
        builder.accept_next(vectors)?;
        Ok(true)
    }

    /// One vector per text, in order; `None` when `cancelled` said so. `progress` hears how many are done.
    /// With `here`, the caller embeds a job itself whenever every ready worker holds its share of jobs;
    /// before the workers have their models, it embeds alone.
    pub async fn embed_texts(
        &mut self,
        texts: &[String],
        here: Option<EmbedHere<'_>>,
        cancelled: &dyn Fn() -> bool,
        progress: &dyn Fn(usize),
    ) -> Result<Option<Vec<Vec<f32>>>, EngineError> {
        if self.members.is_empty() && here.is_none() {
            return Err(PoolError::NoWorker.into());
        }
        // In wasm32 a batch embeds no faster per text than single texts (docs/BENCHMARKS.md), so jobs may
        // shrink to one text at the end, where they keep the embedders finishing together.
        let lengths: Vec<usize> = texts.iter().map(String::len).collect();
        let embedders = self.members.len() + usize::from(here.is_some());
        let jobs = crate::embed::jobs::longest_first(&lengths, embedders, 1, TEXTS_PER_JOB);
        let mut vectors = vec![Vec::new(); texts.len()];
        let mut sent = std::collections::HashMap::new();
        let (mut next, mut done) = (0, 0);
        while done < texts.len() {
            if cancelled() {
                // Jobs still running finish in their workers; their answers are recognised as stale and dropped.
                return Ok(None);
            }
            next = self.hand_out(next, &jobs, texts, here.is_some(), &mut sent)?;
            let mut finished = Vec::new();
            match (here, next < jobs.len()) {
                (Some(embed), true) => {
                    // Text by text (a batch is no faster per text in wasm32), yielding between them: a question
                    // asked meanwhile is answered after one text, not after the whole job (a second and more).
                    let mut own = Vec::with_capacity(jobs[next].len());
                    for &i in &jobs[next] {
                        own.extend(embed(&[texts[i].as_str()])?);
                        super::browser::next_tick().await;
                    }
                    finished.push((next, own));
                    next += 1;
                    // The workers' answers reach this worker only while it yields.
                    super::browser::next_tick().await;
                    while let Some(answer) = self.waiting_event()? {
                        finished.extend(answer.and_then(|a| claim(a, &mut sent)).transpose()?);
                    }
                }
                _ => finished.extend(self.next_event().await?.and_then(|a| claim(a, &mut sent)).transpose()?),
            }
            for (job, embedded) in finished {
                for (&i, vector) in jobs[job].iter().zip(embedded) {
                    vectors[i] = vector;
                }
                done += jobs[job].len();
                progress(done);
            }
        }
        Ok(Some(vectors))
    }

    /// Sends `jobs` (indices into `texts`) from `next` on to every ready worker holding fewer than its
    /// share; returns the next job not sent. A worker holds a waiting job only while the engine worker
    /// embeds too (`here`) and more jobs are left than there are embedders: at the end every embedder takes
    /// one job at a time, so that none is left with two while another has none.
    fn hand_out(
        &mut self,
        mut next: usize,
        jobs: &[Vec<usize>],
        texts: &[String],
        here: bool,
        sent: &mut std::collections::HashMap<u32, usize>,
    ) -> Result<usize, EngineError> {
        let (count, embedders) = (jobs.len(), self.members.iter().filter(|m| m.ready).count() + usize::from(here));
        for member in self.members.iter_mut().filter(|m| m.ready) {
            let share = |next: usize| if here && count - next > embedders { JOBS_PER_WORKER } else { 1 };
            while next < count && member.jobs < share(next) {
                let id = self.next_job;
                self.next_job = self.next_job.wrapping_add(1);
                member.send(&EmbedJob { id, texts: jobs[next].iter().map(|&i| texts[i].clone()).collect() })?;
                sent.insert(id, next);
                next += 1;
            }
        }
        Ok(next)
    }

    /// Waits for the next thing a worker says; a finished job comes back as its answer.
    async fn next_event(&mut self) -> Result<Option<Answer>, EngineError> {
        let Some((member, event)) = self.events.next().await else {
            return Err(PoolError::Gone.into());
        };
        self.take(member, event)
    }

    /// What a worker said that is already waiting, if anything: `Some(None)` for a message that is no answer.
    fn waiting_event(&mut self) -> Result<Option<Option<Answer>>, EngineError> {
        match self.events.try_recv() {
            Ok((member, event)) => self.take(member, event).map(Some),
            Err(TryRecvError::Closed) => Err(PoolError::Gone.into()),
            Err(TryRecvError::Empty) => Ok(None),
        }
    }

    /// Takes in what worker `member` said.
    fn take(&mut self, member: usize, event: Event) -> Result<Option<Answer>, EngineError> {
        let member = &mut self.members[member];
        match event {
            Event::Said(Ok(FromEmbedder::Ready(Ok(())))) => member.ready = true,
            Event::Said(Ok(FromEmbedder::Ready(Err(down)))) => return Err(PoolError::Down(down).into()),
            Event::Said(Ok(FromEmbedder::Done { id, vectors })) => {
                member.jobs = member.jobs.saturating_sub(1);
                return Ok(Some((id, vectors)));
            }
            Event::Said(Err(damaged)) => return Err(PoolError::WorkerStopped(damaged.to_string()).into()),
            Event::Failed(reason) => return Err(PoolError::WorkerStopped(reason).into()),
        }
        Ok(None)
    }
}

/// The job an answer finishes, with its vectors; `None` for an answer to a job of an earlier, cancelled call.
fn claim(
    (id, vectors): Answer,
    sent: &mut std::collections::HashMap<u32, usize>,
) -> Option<Result<Finished, EngineError>> {
    sent.remove(&id).map(|job| vectors.map(|v| (job, v)))
}

impl Member {
    fn start(index: usize, model: EmbeddingModel, events: UnboundedSender<(usize, Event)>) -> Result<Member, JsError> {
        let worker = super::browser::start_worker(&roles::embedder(model), None)?;
        let said = events.clone();
        let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |event: MessageEvent| {
            let _ = said.unbounded_send((index, Event::Said(from_js(&event))));
        });
        let on_error = Closure::<dyn FnMut(ErrorEvent)>::new(move |event: ErrorEvent| {
            let _ = events.unbounded_send((index, Event::Failed(event.message())));
        });
        worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
        Ok(Member { worker, ready: false, jobs: 0, _listeners: (on_message, on_error) })
    }

    fn send(&mut self, job: &EmbedJob) -> Result<(), EngineError> {
        let (bytes, transfer) = to_js(job);
        let posted = self.worker.post_message_with_transfer(&bytes, &transfer);
        posted.map_err(|e| EngineError::Unposted(super::browser::describe(e)))?;
        self.jobs += 1;
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

/// A pool worker's life: load `model`, say so, then embed each job it is sent.
pub fn serve_embedding(model: EmbeddingModel) {
    let scope: DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    let answer = |message: &FromEmbedder| post_to_parent(message);
    spawn_local(async move {
        let embedder = match load_embedder(model, |_, _| {}).await {
            Ok(embedder) => embedder,
            Err(reason) => return answer(&FromEmbedder::Ready(Err(EmbedderDown::Model(reason)))),
        };
        let on_job = Closure::<dyn FnMut(MessageEvent)>::new(move |event: MessageEvent| {
            let EmbedJob { id, texts } = match from_js::<EmbedJob>(&event) {
                Ok(job) => job,
                Err(damaged) => return answer(&FromEmbedder::Ready(Err(EmbedderDown::Damaged(damaged)))),
            };
            let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
            let vectors = embedder.embed(&texts).map_err(EngineError::from);
            answer(&FromEmbedder::Done { id, vectors });
        });
        scope.set_onmessage(Some(on_job.as_ref().unchecked_ref()));
        // The handler lives as long as the worker.
        on_job.forget();
        answer(&FromEmbedder::Ready(Ok(())));
    });
}
