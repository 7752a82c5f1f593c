//! Answers in the page: the question's context found by the engine (with the chosen retrievers, or an
//! LLM-assisted retrieval whose LLM calls the page makes for the engine), then the answer streamed from the
//! user's endpoint, rendered as Markdown with its citations as buttons that open the cited chunk in the
//! outline, the sources it was given listed with the cited ones marked. The conversation is kept while the
//! page is open; each answer can be copied with its sources.

use leptos::prelude::*;
use leptos::task::spawn_local;
use wasm_bindgen::JsCast;

use super::llm::{self, Call};
use super::settings::LlmSettings;
use crate::generate::{ContextChunk, Endpoint, Failure, answer_html, build_messages, cited, sources_list};
use crate::web::calls::{AssistReply, StartAssist};
use crate::web::client;
use crate::web::protocol::{Answer, AssistTurn, MethodSpec, ResultRow};

#[derive(Clone, Debug, PartialEq)]
pub enum Progress {
    Retrieving,
    /// An LLM-assisted retrieval's call to the LLM, counted from 1.
    Assisting(usize),
    Streaming,
    Done,
    Stopped,
    Failed(String),
}

impl Progress {
    fn key(&self) -> &'static str {
        match self {
            Progress::Retrieving | Progress::Assisting(_) => "retrieving",
            Progress::Streaming => "streaming",
            Progress::Done => "done",
            Progress::Stopped => "stopped",
            Progress::Failed(_) => "failed",
        }
    }

    fn running(&self) -> bool {
        matches!(self, Progress::Retrieving | Progress::Assisting(_) | Progress::Streaming)
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Exchange {
    pub question: String,
    pub sources: Vec<ResultRow>,
    pub answer: String,
    pub progress: Progress,
}

/// The conversation (one signal per exchange, so that a streamed token redraws only its answer), and the
/// call the user may stop.
#[derive(Clone, Copy)]
pub struct Conversation {
    pub history: RwSignal<Vec<RwSignal<Exchange>>>,
    call: StoredValue<Option<Call>, LocalStorage>,
}

impl Conversation {
    pub fn new() -> Self {
        Conversation { history: RwSignal::new(Vec::new()), call: StoredValue::new_local(None) }
    }

    /// Whether an answer is being found or streamed (one at a time).
    pub fn running(self) -> bool {
        self.history.with(|history| history.last().is_some_and(|e| e.with(|e| e.progress.running())))
    }

    fn update(self, index: usize, change: impl FnOnce(&mut Exchange)) {
        if let Some(exchange) = self.history.with_untracked(|history| history.get(index).copied()) {
            exchange.update(change);
        }
    }

    fn stop(self) {
        self.call.with_value(|call| {
            if let Some(call) = call {
                call.stop();
            }
        });
    }

    /// Asks `question`: its context by `method` (assisted as the settings say), then the streamed answer.
    /// `retrieved` is told the retrieval's answer (the page shows its results and trace).
    pub fn ask(
        self,
        question: String,
        method: MethodSpec,
        settings: LlmSettings,
        endpoint: Endpoint,
        retrieved: impl Fn(Answer) + 'static,
    ) {
        let index = self.history.with_untracked(Vec::len);
        let call = Call::new();
        let progress = match &call {
            Ok(_) => Progress::Retrieving,
            Err(reason) => Progress::Failed(format!("the browser cannot make a stoppable request: {reason}")),
        };
        let exchange = Exchange { question: question.clone(), sources: Vec::new(), answer: String::new(), progress };
        self.history.update(|history| history.push(RwSignal::new(exchange)));
        let Ok(call) = call else { return };
        self.call.set_value(Some(call.clone()));
        spawn_local(async move {
            let progress = match self.run(index, &question, method, &settings, &endpoint, &call, retrieved).await {
                Ok(()) => Progress::Done,
                Err(Failure::Stopped) => Progress::Stopped,
                Err(failure) => Progress::Failed(failure.to_string()),
            };
            self.update(index, |exchange| exchange.progress = progress);
            self.call.set_value(None);
        });
    }

    #[allow(clippy::too_many_arguments)]
    async fn run(
        self,
        index: usize,
        question: &str,
        method: MethodSpec,
        settings: &LlmSettings,
        endpoint: &Endpoint,
        call: &Call,
        retrieved: impl Fn(Answer),
    ) -> Result<(), Failure> {
        let k = settings.context_chunks;
        let answer = match settings.assist {
            None => client::query(question, method, k).await.map_err(refused)?,
            Some(assist) => {
                let mut turn =
                    client::call(StartAssist { text: question.into(), method, k, assist }).await.map_err(refused)?;
                let mut calls = 0;
                loop {
                    match turn {
                        AssistTurn::Done(answer) => break answer,
                        AssistTurn::Ask(messages) => {
                            calls += 1;
                            self.update(index, |exchange| exchange.progress = Progress::Assisting(calls));
                            let reply =
                                llm::stream(endpoint, &messages, call, settings.timeout_seconds, &mut |_| {}).await?;
                            turn = client::call(AssistReply { reply }).await.map_err(refused)?;
                        }
                    }
                }
            }
        };
        let context: Vec<ContextChunk> =
            answer.rows.iter().map(|row| ContextChunk { label: row.label.clone(), text: row.text.clone() }).collect();
        self.update(index, |exchange| {
            exchange.sources = answer.rows.clone();
            exchange.progress = Progress::Streaming;
        });
        retrieved(answer);
        let messages = build_messages(question, &context, &settings.instructions);
        // The answer is rendered whole (Markdown, citations) each time it grows: pieces are shown in batches,
        // at most every RENDER_EVERY_MS, so a long answer costs a few hundred renders, not one per token.
        const RENDER_EVERY_MS: f64 = 80.0;
        let mut unshown = String::new();
        let mut shown_at = 0.0;
        let mut on_text = |text: &str| {
            unshown.push_str(text);
            let now = js_sys::Date::now();
            if now - shown_at >= RENDER_EVERY_MS {
                shown_at = now;
                let piece = std::mem::take(&mut unshown);
                self.update(index, |exchange| exchange.answer.push_str(&piece));
            }
        };
        let streamed = llm::stream(endpoint, &messages, call, settings.timeout_seconds, &mut on_text).await;
        let rest = std::mem::take(&mut unshown);
        self.update(index, |exchange| exchange.answer.push_str(&rest));
        streamed.map(|_| ())
    }
}

fn refused(failure: client::Failure) -> Failure {
    Failure::Retrieval(failure.to_string())
}

fn labelled_sources(exchange: &Exchange) -> Vec<(String, String)> {
    exchange.sources.iter().map(|row| (row.label.clone(), row.source.clone())).collect()
}

fn copy(text: String) {
    let Some(window) = web_sys::window() else { return };
    let clipboard = js_sys::Reflect::get(&window.navigator(), &"clipboard".into()).ok();
    let write = clipboard.as_ref().and_then(|c| js_sys::Reflect::get(c, &"writeText".into()).ok());
    if let (Some(clipboard), Some(write)) = (clipboard, write.and_then(|w| w.dyn_into::<js_sys::Function>().ok())) {
        let _ = write.call1(&clipboard, &text.into());
    }
}

#[component]
pub fn ChatView(
    conversation: Conversation,
    open_outline: impl Fn(String, u32) + Copy + Send + Sync + 'static,
) -> impl IntoView {
    let history = conversation.history;
    view! {
        <ol id="conversation">
            <For each=move || history.get().into_iter().enumerate() key=|(index, _)| *index
                children=move |(index, exchange)| view! { <ExchangeView index exchange conversation open_outline /> } />
        </ol>
    }
}

#[component]
fn ExchangeView(
    index: usize,
    exchange: RwSignal<Exchange>,
    conversation: Conversation,
    open_outline: impl Fn(String, u32) + Copy + Send + Sync + 'static,
) -> impl IntoView {
    // Each part redraws only when what it shows changes: the answer with every token, the rest rarely.
    let progress = Memo::new(move |_| exchange.with(|e| e.progress.clone()));
    let sources = Memo::new(move |_| exchange.with(|e| e.sources.clone()));
    let cited = Memo::new(move |_| exchange.with(|e| cited(&e.answer, e.sources.len())));
    let on_answer_click = move |ev: leptos::ev::MouseEvent| {
        let Some(target) = ev.target().and_then(|t| t.dyn_into::<web_sys::Element>().ok()) else { return };
        let Some(button) = target.closest("button.cite").ok().flatten() else { return };
        let first = button.get_attribute("data-passages").and_then(|p| p.split(' ').next()?.parse::<usize>().ok());
        if let Some(row) = first.and_then(|n| sources.with_untracked(|s| s.get(n.wrapping_sub(1)).cloned())) {
            open_outline(row.source, row.chunk);
        }
    };
    let status = move || match progress.get() {
        Progress::Retrieving => "Finding the context…".to_string(),
        Progress::Assisting(n) => format!("LLM-assisted retrieval: asking the LLM (call {n})…"),
        Progress::Streaming => "Answering…".to_string(),
        Progress::Done => String::new(),
        Progress::Stopped => "Stopped.".to_string(),
        Progress::Failed(reason) => format!("Error: {reason}"),
    };
    let copy_answer = move |_| {
        let text = exchange
            .with_untracked(|e| format!("{}\n\n{}", e.answer.trim(), sources_list(&e.answer, &labelled_sources(e))));
        copy(text);
    };
    let sources_view = move || {
        let (rows, cited) = (sources.get(), cited.get());
        (!rows.is_empty()).then(|| {
            let items = rows
                .iter()
                .enumerate()
                .map(|(i, row)| {
                    let is_cited = cited.contains(&(i + 1));
                    let (source, chunk) = (row.source.clone(), row.chunk);
                    view! {
                        <li class="source" class:cited=is_cited>
                            <button type="button" class="label" dir="auto" on:click=move |_| open_outline(source.clone(), chunk)>{row.label.clone()}</button>
                            <span class="meta">{format!(" {}{}", row.source, if is_cited { " · cited" } else { "" })}</span>
                        </li>
                    }
                })
                .collect_view();
            view! {
                <details class="sources" open>
                    <summary>{format!("Sources: {} of {} cited", cited.len(), rows.len())}</summary>
                    <ol>{items}</ol>
                </details>
            }
        })
    };
    view! {
        <li class="exchange" data-state=move || progress.get().key() data-index=index.to_string()>
            <p class="question">{exchange.with_untracked(|e| e.question.clone())}</p>
            <div class="answer" dir="auto" on:click=on_answer_click
                inner_html=move || exchange.with(|e| answer_html(&e.answer, e.sources.len()))></div>
            <p class="exchange-status" role="status">
                {status}
                {move || progress.get().running().then(|| view! {
                    " " <button type="button" class="stop" on:click=move |_| conversation.stop()>"Stop"</button>
                })}
            </p>
            {sources_view}
            {move || (!progress.get().running() && exchange.with(|e| !e.answer.is_empty())).then(|| view! {
                <button type="button" class="copy" on:click=copy_answer>"Copy the answer and its sources"</button>
            })}
        </li>
    }
}
