//! The browser app (wasm32 only): load the model, index the bundled demo corpus or the user's files, and
//! query it. All retrieval happens in the engine; this module renders state and forwards user actions.

mod browser;
mod session;

use leptos::mount::mount_to_body;
use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::corpus::SourceFile;
use crate::store::CorpusSummary;
use session::{IndexOutcome, ResultRow};

pub fn start() {
    console_error_panic_hook::set_once();
    mount_to_body(App);
}

#[derive(Clone, Debug, PartialEq)]
enum Phase {
    LoadingModel,
    Indexing { done: usize, total: usize },
    Ready,
    Failed(String),
}

impl Phase {
    fn key(&self) -> &'static str {
        match self {
            Phase::LoadingModel => "loading-model",
            Phase::Indexing { .. } => "indexing",
            Phase::Ready => "ready",
            Phase::Failed(_) => "failed",
        }
    }

    fn message(&self) -> String {
        match self {
            Phase::LoadingModel => "Loading the embedding model…".into(),
            Phase::Indexing { done, total } => format!("Embedding {done} / {total} texts…"),
            Phase::Ready => "Ready.".into(),
            Phase::Failed(reason) => format!("Error: {reason}"),
        }
    }
}

const DEFAULT_TOP_K: usize = 6;

#[component]
fn App() -> impl IntoView {
    let phase = RwSignal::new(Phase::LoadingModel);
    let summary = RwSignal::new(None::<CorpusSummary>);
    let last_outcome = RwSignal::new(None::<IndexOutcome>);
    let results = RwSignal::new(Vec::<ResultRow>::new());
    let query_ms = RwSignal::new(None::<f64>);
    // The question the shown results answer: a page (or a test) can tell fresh results from stale ones.
    let answered = RwSignal::new(String::new());
    let query_text = RwSignal::new(String::from("Who was the first person to walk on the Moon?"));
    let bench = RwSignal::new(None::<String>);

    let index_files = move |files: Vec<SourceFile>| async move {
        let outcome = session::add_files(files, move |done, total| phase.set(Phase::Indexing { done, total })).await;
        match outcome {
            Ok(outcome) => {
                summary.set(session::summary());
                last_outcome.set(Some(outcome));
                phase.set(Phase::Ready);
            }
            Err(reason) => phase.set(Phase::Failed(reason)),
        }
    };

    spawn_local(async move {
        if let Err(reason) = session::load_model().await {
            return phase.set(Phase::Failed(reason));
        }
        #[cfg(feature = "bench")]
        if browser::query_parameter("bench").as_deref() == Some("embed") {
            let count = browser::query_parameter("count").and_then(|c| c.parse().ok()).unwrap_or(32);
            match session::benchmark_embedding(count, 128) {
                Ok(report) => bench.set(Some(report.to_string())),
                Err(reason) => phase.set(Phase::Failed(reason)),
            }
            return phase.set(Phase::Ready);
        }
        match session::fetch_demo_files().await {
            Ok(files) => index_files(files).await,
            Err(reason) => phase.set(Phase::Failed(reason)),
        }
    });

    let run_query = move || {
        let text = query_text.get_untracked();
        if text.trim().is_empty() {
            return;
        }
        match session::query(&text, DEFAULT_TOP_K) {
            Ok((rows, ms)) => {
                results.set(rows);
                query_ms.set(Some(ms));
                answered.set(text);
            }
            Err(reason) => phase.set(Phase::Failed(reason)),
        }
    };

    let on_files = move |ev: leptos::ev::Event| {
        let input: web_sys::HtmlInputElement = event_target(&ev);
        let Some(list) = input.files() else { return };
        let picked: Vec<web_sys::File> = (0..list.length()).filter_map(|i| list.get(i)).collect();
        spawn_local(async move {
            let mut paths: Vec<String> = picked.iter().map(browser::upload_path).collect();
            crate::corpus::path::disambiguate(&mut paths);
            let mut files = Vec::new();
            for (file, path) in picked.iter().zip(paths) {
                match browser::read_file(file).await {
                    Ok(bytes) => files.push(SourceFile::new(path, bytes)),
                    Err(reason) => phase.set(Phase::Failed(reason)),
                }
            }
            index_files(files).await;
        });
    };

    view! {
        <header>
            <h1>"Quire"</h1>
            <p class="tagline">"Private knowledge-graph retrieval. Your documents never leave this tab."</p>
        </header>
        <main>
            <p id="status" data-state=move || phase.get().key()>{move || phase.get().message()}</p>
            <section class="panel">
                <label for="files">"Add documents (md, txt, html, pdf, csv, tsv, jsonl): "</label>
                <input id="files" type="file" multiple on:change=on_files
                    disabled=move || !matches!(phase.get(), Phase::Ready) />
                <IngestProblems outcome=last_outcome />
            </section>
            <section class="panel">
                <form on:submit=move |ev: leptos::ev::SubmitEvent| { ev.prevent_default(); run_query(); }>
                    <input id="query" type="search" placeholder="Ask the corpus…"
                        prop:value=move || query_text.get()
                        on:input=move |ev| query_text.set(event_target_value(&ev)) />
                    <button id="search" type="submit" disabled=move || !matches!(phase.get(), Phase::Ready)>"Search"</button>
                </form>
                <p class="timing">{move || query_ms.get().map(|ms| format!("{} chunks in {ms:.0} ms (dense + BM25, reciprocal rank fusion)", results.get().len()))}</p>
                <ol id="results" data-query=move || answered.get()>
                    {move || results.get().into_iter().map(|row| view! {
                        <li class="result">
                            <div class="label">{row.label}</div>
                            <div class="meta">{format!("{} · RRF {:.4} · {}", row.source, row.score, row.ranks)}</div>
                            <p class="text">{row.text}</p>
                        </li>
                    }).collect_view()}
                </ol>
            </section>
            <Stats summary=summary />
            {move || bench.get().map(|report| view! { <pre id="bench-result">{report}</pre> })}
        </main>
    }
}

#[component]
fn IngestProblems(outcome: RwSignal<Option<IndexOutcome>>) -> impl IntoView {
    move || {
        outcome.get().map(|outcome| {
            let lines: Vec<String> = outcome.errors.iter().chain(&outcome.warnings).cloned().collect();
            view! {
                <p class="timing">{format!("Indexed in {:.1} s: {} texts embedded, {} reused.", outcome.seconds, outcome.embedded, outcome.reused)}</p>
                <ul id="ingest-problems">{lines.into_iter().map(|line| view! { <li>{line}</li> }).collect_view()}</ul>
            }
        })
    }
}

#[component]
fn Stats(summary: RwSignal<Option<CorpusSummary>>) -> impl IntoView {
    move || {
        summary.get().map(|s| {
            let rows: Vec<(String, usize)> = s
                .graph
                .nodes
                .iter()
                .map(|(k, v)| (format!("{k} nodes"), *v))
                .chain(s.graph.edges.iter().map(|(k, v)| (format!("{k} edges"), *v)))
                .chain([
                    ("chunk-graph communities".to_string(), s.chunk_graph.communities),
                    ("similar_to edges".to_string(), s.chunk_graph.similar_edges),
                    ("comm_similar_to links".to_string(), s.chunk_graph.community_links),
                ])
                .collect();
            view! {
                <section class="panel" id="stats">
                    <h2>"Corpus"</h2>
                    <p id="stats-line">{format!("{} documents · {} sections · {} chunks · {} entities · {} relations", s.documents, s.sections, s.chunks, s.entities, s.relations)}</p>
                    <table>{rows.into_iter().map(|(k, v)| view! { <tr><td>{k}</td><td>{v}</td></tr> }).collect_view()}</table>
                </section>
            }
        })
    }
}
