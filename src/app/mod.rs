//! The browser app (wasm32 only). The page (this module's components) renders state and forwards user
//! actions; the engine runs in a Web Worker (`worker.rs`, reached through `engine.rs`) with a pool of
//! embedding workers (`pool.rs`), so the page never stalls while documents are parsed, embedded and indexed,
//! and a crash while parsing one file loses neither the other files nor the index. All retrieval happens in
//! the engine; nothing here ranks or scores.

mod browser;
mod canvas;
mod chat;
mod corpus_graph;
mod demo;
mod engine;
mod evaluation;
mod llm;
mod pool;
mod protocol;
mod settings;
mod storage;
mod teaching;
mod worker;

use leptos::mount::mount_to_body;
use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::retrieve::{Fusion, FusionModel, Method, Retriever};
use crate::store::{CorpusSummary, DocumentOutline};
use demo::{Demo, SampleQuestion};
use engine::Failure;
use protocol::{Answer, FileBytes, IndexOutcome, IndexState, Progress, Step};

/// The module's entry in every role: the page, the engine worker, or one of its embedding workers.
pub fn start() {
    match browser::worker_role().as_deref() {
        Some(pool::ROLE) => return pool::serve_embedding(),
        Some(engine::ROLE) => return worker::serve(),
        Some(unknown) => return web_sys::console::error_1(&format!("no worker role `{unknown}`").into()),
        None => {}
    }
    console_error_panic_hook::set_once();
    mount_to_body(App);
}

#[derive(Clone, Debug, PartialEq)]
enum Phase {
    /// The engine worker is starting; its model's download comes as progress.
    Starting,
    OpeningDemo,
    /// A long step in the engine, as it last reported.
    Working(Progress),
    Ready,
    Failed(String),
}

impl Phase {
    fn key(&self) -> &'static str {
        match self {
            Phase::Starting | Phase::Working(Progress { step: Step::LoadModel, .. }) => "loading-model",
            Phase::OpeningDemo => "opening-demo",
            Phase::Working(_) => "indexing",
            Phase::Ready => "ready",
            Phase::Failed(_) => "failed",
        }
    }

    fn message(&self) -> String {
        match self {
            Phase::Starting => "Starting the engine…".into(),
            Phase::OpeningDemo => "Opening the demo index…".into(),
            Phase::Working(progress) => describe_progress(progress),
            Phase::Ready => "Ready.".into(),
            Phase::Failed(reason) => format!("Error: {reason}"),
        }
    }

    /// Steps the user can stop, with the index kept as it was.
    fn cancellable(&self) -> bool {
        matches!(self, Phase::Working(Progress { step: Step::Parse | Step::Embed, .. }))
    }
}

/// `Embedding 40 / 320 texts · 12.5 texts/s · about 22 s left…`, and the like for each step.
fn describe_progress(progress: &Progress) -> String {
    let Progress { step, done, total, rate, current } = progress;
    let remaining = |unit: &str, scale: f64| {
        rate.filter(|r| *r > 0.0).map_or_else(String::new, |rate| {
            format!(" · {:.1} {unit}/s · about {:.0} s left", rate / scale, total.saturating_sub(*done) as f64 / rate)
        })
    };
    match step {
        Step::LoadModel => format!(
            "Loading the embedding model: {:.1} / {:.1} MB{}…",
            *done as f64 / 1e6,
            *total as f64 / 1e6,
            remaining("MB", 1e6)
        ),
        Step::Parse => format!(
            "Reading files: {done} / {total}{}{}…",
            remaining("files", 1.0),
            current.as_ref().map_or_else(String::new, |file| format!(" · {file}"))
        ),
        Step::Embed => format!("Embedding {done} / {total} texts{}…", remaining("texts", 1.0)),
        Step::Evaluate => format!("Evaluating {}: {done} / {total} questions…", current.as_deref().unwrap_or("")),
        Step::Build => "Building the knowledge graph, the chunk graph and the indexes…".into(),
    }
}

const DEFAULT_TOP_K: usize = 6;
/// The name an exported index is offered under.
const EXPORT_NAME: &str = "quire-index.quire";
/// What the index saved in this browser is called in messages.
const SAVED_INDEX: &str = "the index saved in this browser";
const TOP_K_RANGE: (usize, usize) = (2, 12);
/// What a first question runs: the fusion that measured best across the two benchmarks (docs/QUALITY.md).
const DEFAULT_RETRIEVERS: [Retriever; 3] = [Retriever::Dense, Retriever::Bm25, Retriever::Join];

/// How the chosen retrievers' lists become one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum FusionChoice {
    Rrf,
    Zsum,
    /// Seed 000's network with the shipped weights; it reads its own retrievers.
    Learned,
}

impl FusionChoice {
    const ALL: [(FusionChoice, &'static str, &'static str); 3] = [
        (FusionChoice::Zsum, "zsum", "standardised sum"),
        (FusionChoice::Rrf, "rrf", "reciprocal rank"),
        (FusionChoice::Learned, "learned", "learned (seed 000)"),
    ];
}

/// The engine method the controls describe: one retriever alone, or the chosen ones fused.
fn chosen_method(retrievers: &[Retriever], fusion: FusionChoice) -> Option<Method> {
    let fusion = match fusion {
        FusionChoice::Learned => return Some(Method::Learned(FusionModel::shipped())),
        FusionChoice::Rrf => Fusion::Rrf,
        FusionChoice::Zsum => Fusion::Zsum,
    };
    match retrievers {
        [] => None,
        [one] => Some(Method::Single(*one)),
        many => Some(Method::Fused { fusion, inputs: many.iter().map(|&r| (r, 1.0)).collect() }),
    }
}

/// A picker's files, each with its path inside a picked folder (or its name).
fn picked_files(list: &web_sys::FileList) -> Vec<(String, web_sys::File)> {
    (0..list.length()).filter_map(|i| list.get(i)).map(|file| (browser::upload_path(&file), file)).collect()
}

/// Turns picked or dropped files into the engine's files; a file the browser cannot read is reported in the
/// second list.
async fn read_picked(picked: Vec<(String, web_sys::File)>) -> (Vec<FileBytes>, Vec<String>) {
    let (mut paths, picked): (Vec<String>, Vec<web_sys::File>) = picked.into_iter().unzip();
    crate::corpus::path::disambiguate(&mut paths);
    let mut files = Vec::new();
    let mut unreadable = Vec::new();
    for (file, path) in picked.iter().zip(paths) {
        match browser::read_file(file).await {
            Ok(bytes) => files.push(FileBytes { path, bytes }),
            Err(reason) => unreadable.push(reason),
        }
    }
    (files, unreadable)
}

/// The measurement the address asks for: `?bench=embed&count=N&tokens=T&workers=W&here=1` or
/// `?bench=hnsw&count=N`.
#[cfg(feature = "bench")]
fn requested_benchmark() -> Option<protocol::Benchmark> {
    let number = |name: &str, default: usize| {
        browser::query_parameter(name).and_then(|value| value.parse().ok()).unwrap_or(default)
    };
    match browser::query_parameter("bench")?.as_str() {
        "embed" => {
            let (count, tokens, workers) = (number("count", 32), number("tokens", 128), number("workers", 0));
            let here = number("here", 0) == 1;
            Some(protocol::Benchmark::Embed { count, tokens, workers, here })
        }
        "hnsw" => Some(protocol::Benchmark::Hnsw { vectors: number("count", 10_000) }),
        _ => None,
    }
}

#[component]
fn App() -> impl IntoView {
    let phase = RwSignal::new(Phase::Starting);
    let summary = RwSignal::new(None::<CorpusSummary>);
    let engine_memory = RwSignal::new(0u32);
    let last_outcome = RwSignal::new(None::<IndexOutcome>);
    let answer = RwSignal::new(None::<Answer>);
    // The question the shown results answer: a page (or a test) can tell fresh results from stale ones.
    let answered = RwSignal::new(String::new());
    let query_text = RwSignal::new(String::from("Who was the first person to walk on the Moon?"));
    let demo = RwSignal::new(Demo::Planets);
    let samples = RwSignal::new(Vec::<SampleQuestion>::new());
    let retrievers = RwSignal::new(DEFAULT_RETRIEVERS.to_vec());
    let fusion = RwSignal::new(FusionChoice::Zsum);
    let top_k = RwSignal::new(DEFAULT_TOP_K);
    let bench = RwSignal::new(None::<String>);
    // Problems that leave the index as it was (a refused import, a failed save): reported, not a failed state.
    let notice = RwSignal::new(None::<String>);
    // Whether the index shown is the one saved in this browser, and what the browser stores.
    let saved = RwSignal::new(false);
    let restored = RwSignal::new(false);
    let usage = RwSignal::new(None::<storage::Usage>);
    let documents = RwSignal::new(Vec::<(String, String)>::new());
    // The document opened from a result, and the chunk it was opened at.
    let outline = RwSignal::new(None::<(DocumentOutline, u32)>);
    let show_state = move |state: IndexState| {
        summary.set(Some(state.summary));
        documents.set(state.documents);
        engine_memory.set(state.engine_memory_bytes);
    };
    let on_progress = move |progress: Progress| phase.set(Phase::Working(progress));
    let (stored_settings, remembered_key) = settings::load();
    let llm_settings = RwSignal::new(stored_settings);
    let api_key = RwSignal::new(remembered_key);
    let conversation = chat::Conversation::new();

    let persist = move || async move {
        saved.set(false);
        let stored = match engine::export().await {
            Ok(bytes) => storage::save(&bytes).await,
            Err(failure) => Err(failure.to_string()),
        };
        match stored {
            Ok(()) => saved.set(true),
            Err(reason) => notice.set(Some(reason)),
        }
        usage.set(storage::usage().await);
    };

    // A new engine with the index the page shows: the saved one if it is saved, else the demo shown.
    let restart_engine = move || async move {
        engine::start(on_progress).await?;
        let saved_bytes = if saved.get_untracked() { storage::load().await? } else { None };
        let state = match saved_bytes {
            Some(bytes) => engine::open(SAVED_INDEX, bytes).await,
            None => {
                let chosen = demo.get_untracked();
                engine::open(&chosen.snapshot_url(), chosen.fetch().await?.0).await
            }
        };
        show_state(state.map_err(|failure| failure.to_string())?);
        Ok::<(), String>(())
    };

    // What a failed request leaves: a refusal is reported; a crash restarts the engine with the index as it was.
    let recover = move |failure: Failure| async move {
        match failure {
            Failure::Refused(reason) => notice.set(Some(reason)),
            Failure::Crashed { message, .. } => {
                notice.set(Some(format!("The engine stopped ({message}); it was restarted with the index as it was.")));
                match restart_engine().await {
                    Ok(()) => phase.set(Phase::Ready),
                    Err(reason) => phase.set(Phase::Failed(reason)),
                }
            }
        }
    };

    // A file whose parser crashes the engine is skipped with an error naming it; the engine restarts with
    // the index as it was and the update goes on with the other files.
    let update_index = move |files: Vec<FileBytes>, removed: Vec<String>| async move {
        let mut files = files;
        let mut crashed_on = Vec::new();
        let result = loop {
            match engine::update(files.clone(), removed.clone()).await {
                Err(Failure::Crashed { message, parsing: Some(file) }) => {
                    crashed_on.push(format!("{file}: the parser crashed on this file ({message}); it was skipped"));
                    files.retain(|f| f.path != file);
                    if let Err(reason) = restart_engine().await {
                        break Err(Failure::Refused(reason));
                    }
                }
                other => break other,
            }
        };
        match result {
            Ok((mut outcome, state)) => {
                outcome.errors.splice(0..0, crashed_on);
                last_outcome.set(Some(outcome));
                phase.set(Phase::Ready);
                if let Some(state) = state {
                    show_state(state);
                    persist().await;
                }
            }
            Err(Failure::Refused(reason)) => phase.set(Phase::Failed(reason)),
            Err(crash) => recover(crash).await,
        }
    };
    let remove_document = move |source: String| spawn_local(update_index(Vec::new(), vec![source]));

    // A whole index replaced (a demo, the saved one, an imported file): what was shown of the old one goes.
    // `from_storage`: it is the index saved in this browser.
    let show_new_index = move |state: IndexState, questions: Vec<SampleQuestion>, from_storage: bool| {
        show_state(state);
        samples.set(questions);
        last_outcome.set(None);
        answer.set(None);
        outline.set(None);
        saved.set(from_storage);
        restored.set(from_storage);
    };

    let open_demo = move |chosen: Demo| async move {
        phase.set(Phase::OpeningDemo);
        let opened = match chosen.fetch().await {
            Ok((snapshot, questions)) => {
                engine::open(&chosen.snapshot_url(), snapshot).await.map(|state| (state, questions))
            }
            Err(reason) => Err(Failure::Refused(reason)),
        };
        match opened {
            Ok((state, questions)) => {
                demo.set(chosen);
                if let Some(first) = questions.first() {
                    query_text.set(first.text.clone());
                }
                show_new_index(state, questions, false);
                phase.set(Phase::Ready);
            }
            Err(failure) => phase.set(Phase::Failed(failure.to_string())),
        }
    };

    // The index saved in this browser if there is one, else the demo; a saved index that cannot be opened is
    // left in place (a change replaces it, Forget removes it) and the demo opens.
    let restore_or_open_demo = move || async move {
        let restored_index = match storage::load().await {
            Ok(Some(bytes)) => engine::open(SAVED_INDEX, bytes).await.map(Some).map_err(|failure| {
                format!("{failure}. Showing the demo instead; your next change replaces the saved index, or Forget removes it.")
            }),
            Ok(None) => Ok(None),
            Err(reason) => Err(format!("{reason}. Showing the demo instead.")),
        };
        match restored_index {
            Ok(Some(state)) => {
                show_new_index(state, Vec::new(), true);
                phase.set(Phase::Ready);
            }
            not_restored => {
                notice.set(not_restored.err());
                open_demo(Demo::Planets).await;
            }
        }
        usage.set(storage::usage().await);
    };

    spawn_local(async move {
        if let Err(reason) = engine::start(on_progress).await {
            return phase.set(Phase::Failed(reason));
        }
        #[cfg(feature = "bench")]
        if let Some(benchmark) = requested_benchmark() {
            match engine::benchmark(benchmark).await {
                Ok(report) => bench.set(Some(report)),
                Err(failure) => return phase.set(Phase::Failed(failure.to_string())),
            }
            return phase.set(Phase::Ready);
        }
        restore_or_open_demo().await;
        // Only now: caching the build for offline use must not slow the first start.
        browser::register_service_worker().await;
    });

    let run_query = move || {
        let text = query_text.get_untracked();
        if text.trim().is_empty() {
            return;
        }
        let Some(method) = chosen_method(&retrievers.get_untracked(), fusion.get_untracked()) else {
            return notice.set(Some("Choose at least one retriever.".into()));
        };
        let k = top_k.get_untracked();
        spawn_local(async move {
            match engine::query(&text, method.name(), k).await {
                Ok(result) => {
                    answer.set(Some(result));
                    answered.set(text);
                }
                Err(failure) => recover(failure).await,
            }
        });
    };

    let ask_llm = move || {
        let text = query_text.get_untracked();
        let chosen = llm_settings.get_untracked();
        if text.trim().is_empty() {
            return;
        }
        if !chosen.configured() {
            return notice
                .set(Some("Set up an LLM endpoint first (\"LLM endpoint\", below): its address and model.".into()));
        }
        let Some(method) = chosen_method(&retrievers.get_untracked(), fusion.get_untracked()) else {
            return notice.set(Some("Choose at least one retriever.".into()));
        };
        let endpoint = chosen.endpoint(&api_key.get_untracked());
        let asked = text.clone();
        conversation.ask(text, method, chosen, endpoint, move |result| {
            answer.set(Some(result));
            answered.set(asked.clone());
        });
    };

    let open_outline = move |source: String, chunk: u32| {
        let question = Some(answered.get_untracked()).filter(|q| !q.is_empty());
        spawn_local(async move {
            match engine::outline(&source, question).await {
                Ok(document) => outline.set(Some((document, chunk))),
                Err(failure) => recover(failure).await,
            }
        });
    };

    let add_picked = move |picked: Vec<(String, web_sys::File)>, mut unreadable: Vec<String>| {
        spawn_local(async move {
            let (files, unread) = read_picked(picked).await;
            unreadable.extend(unread);
            notice.set((!unreadable.is_empty()).then(|| unreadable.join("; ")));
            update_index(files, Vec::new()).await;
        });
    };
    let on_files = move |ev: leptos::ev::Event| {
        let input: web_sys::HtmlInputElement = event_target(&ev);
        if let Some(list) = input.files() {
            add_picked(picked_files(&list), Vec::new());
        }
    };
    let dragging = RwSignal::new(false);
    // A drop may hold folders: walked through the entries API, with a drop's plain file list where a
    // browser has none.
    let on_drop = move |ev: leptos::ev::DragEvent| {
        ev.prevent_default();
        dragging.set(false);
        let Some(transfer) = ev.data_transfer().filter(|_| matches!(phase.get_untracked(), Phase::Ready)) else {
            return;
        };
        let Some(entries) = browser::dropped_entries(&transfer) else {
            if let Some(list) = transfer.files() {
                add_picked(picked_files(&list), Vec::new());
            }
            return;
        };
        spawn_local(async move {
            let (picked, unreadable) = browser::walk_entries(entries).await;
            add_picked(picked, unreadable);
        });
    };
    let ready = move || matches!(phase.get(), Phase::Ready);
    let on_import = move |ev: leptos::ev::Event| {
        let input: web_sys::HtmlInputElement = event_target(&ev);
        let Some(file) = input.files().and_then(|list| list.get(0)) else { return };
        spawn_local(async move {
            let imported = match browser::read_file(&file).await {
                Ok(bytes) => engine::open(&file.name(), bytes).await,
                Err(reason) => Err(Failure::Refused(reason)),
            };
            match imported {
                Ok(state) => {
                    notice.set(None);
                    show_new_index(state, Vec::new(), false);
                    persist().await;
                }
                Err(failure) => recover(failure).await,
            }
        });
    };
    let on_forget = move |_| {
        spawn_local(async move {
            match storage::forget().await {
                Ok(()) => {
                    saved.set(false);
                    restored.set(false);
                    notice.set(Some("The saved index is forgotten: the next visit starts from the demo.".into()));
                }
                Err(reason) => notice.set(Some(reason)),
            }
            usage.set(storage::usage().await);
        })
    };
    let on_export = move |_| {
        spawn_local(async move {
            let exported = match engine::export().await {
                Ok(bytes) => browser::download(EXPORT_NAME, &bytes),
                Err(failure) => Err(failure.to_string()),
            };
            notice.set(exported.err());
        })
    };

    view! {
        <header>
            <h1>"Quire"</h1>
            <p class="tagline">"Private knowledge-graph retrieval. Your documents never leave this tab."</p>
        </header>
        <main>
            <p id="status" role="status" data-state=move || phase.get().key()>
                {move || phase.get().message()}
                {move || phase.get().cancellable().then(|| view! {
                    " "
                    <button id="cancel" type="button" on:click=move |_| engine::cancel()>"Cancel"</button>
                })}
            </p>
            <section class="panel" aria-labelledby="corpus-heading">
                <h2 id="corpus-heading">"Documents"</h2>
                <div class="demos" role="group" aria-label="Demo corpora">
                    {Demo::ALL.into_iter().map(|choice| view! {
                        <button type="button" class="demo" data-demo=choice.key()
                            aria-pressed=move || (demo.get() == choice).to_string()
                            disabled=move || !ready()
                            on:click=move |_| spawn_local(open_demo(choice))>{choice.title()}</button>
                    }).collect_view()}
                </div>
                <div id="drop-zone" class:dragging=move || dragging.get()
                    on:dragover=move |ev: leptos::ev::DragEvent| { ev.prevent_default(); dragging.set(true); }
                    on:dragleave=move |_| dragging.set(false)
                    on:drop=on_drop>
                    <p>"Drop documents or folders here (md, txt, html, pdf, docx, odt, epub, csv, tsv, jsonl), or add them:"</p>
                    <label for="files">"files "</label>
                    <input id="files" type="file" multiple on:change=on_files disabled=move || !ready() />
                    <label for="folder">" a folder "</label>
                    <input id="folder" type="file" multiple prop:webkitdirectory=true on:change=on_files disabled=move || !ready() />
                </div>
                <IngestProblems outcome=last_outcome />
                <DocumentList documents=documents ready=Signal::derive(ready) remove=remove_document />
                <div class="snapshot-files">
                    <button id="export" type="button" on:click=on_export disabled=move || !ready()>"Export index (.quire)"</button>
                    <label for="import">"Open an index (.quire, from here or from `quire index`): "</label>
                    <input id="import" type="file" accept=".quire" on:change=on_import disabled=move || !ready() />
                </div>
                <StorageLine saved=saved restored=restored usage=usage on_forget=on_forget />
                {move || notice.get().map(|problem| view! { <p id="notice" role="alert">{problem}</p> })}
            </section>
            <section class="panel" aria-labelledby="ask-heading">
                <h2 id="ask-heading">"Ask"</h2>
                <form on:submit=move |ev: leptos::ev::SubmitEvent| { ev.prevent_default(); run_query(); }>
                    <label class="visually-hidden" for="query">"Question"</label>
                    <input id="query" type="search" placeholder="Ask the corpus…"
                        prop:value=move || query_text.get()
                        on:input=move |ev| query_text.set(event_target_value(&ev)) />
                    <button id="search" type="submit" disabled=move || !ready()>"Search"</button>
                    <button id="ask-llm" type="button" disabled=move || !ready() || conversation.running() on:click=move |_| ask_llm()
                        title="Find the context, then stream an answer from your LLM endpoint">"Answer with the LLM"</button>
                </form>
                <chat::ChatView conversation=conversation open_outline=open_outline />
                <SampleQuestions samples=samples query_text=query_text run_query=run_query />
                <MethodControls retrievers=retrievers fusion=fusion top_k=top_k />
                <Results answer=answer answered=answered open_outline=open_outline />
            </section>
            <settings::SettingsPanel settings=llm_settings api_key=api_key />
            <OutlineView outline=outline />
            <corpus_graph::CorpusGraph summary=summary open_outline=open_outline />
            <evaluation::EvaluationView phase=phase recover=recover />
            <Stats summary=summary engine_memory=engine_memory />
            {move || bench.get().map(|report| view! { <pre id="bench-result">{report}</pre> })}
        </main>
    }
}

#[component]
fn SampleQuestions(
    samples: RwSignal<Vec<SampleQuestion>>,
    query_text: RwSignal<String>,
    run_query: impl Fn() + Copy + Send + Sync + 'static,
) -> impl IntoView {
    move || {
        let questions = samples.get();
        (!questions.is_empty()).then(|| {
            view! {
                <details id="samples" open>
                    <summary>"Questions to try"</summary>
                    <ul>
                        {questions.into_iter().map(|question| {
                            let text = question.text.clone();
                            view! {
                                <li>
                                    <button type="button" class="sample" title=question.note.clone()
                                        on:click=move |_| { query_text.set(text.clone()); run_query(); }>
                                        {question.text.clone()}
                                    </button>
                                </li>
                            }
                        }).collect_view()}
                    </ul>
                </details>
            }
        })
    }
}

#[component]
fn MethodControls(
    retrievers: RwSignal<Vec<Retriever>>,
    fusion: RwSignal<FusionChoice>,
    top_k: RwSignal<usize>,
) -> impl IntoView {
    let learned = move || fusion.get() == FusionChoice::Learned;
    let toggle = move |retriever: Retriever, on: bool| {
        retrievers.update(|chosen| {
            chosen.retain(|&r| r != retriever);
            if on {
                chosen.push(retriever);
                // Keep the catalogue's order, so the same choice always names the same method.
                chosen.sort_by_key(|&r| Retriever::all().position(|x| x == r));
            }
        })
    };
    view! {
        <fieldset id="retrievers" disabled=learned>
            <legend>"Retrievers"</legend>
            {Retriever::all().map(|retriever| view! {
                <label class="toggle" title=retriever.description()>
                    <input type="checkbox" name="retriever" value=retriever.name()
                        prop:checked=move || retrievers.get().contains(&retriever)
                        on:change=move |ev| toggle(retriever, event_target_checked(&ev)) />
                    {retriever.name()}
                </label>
            }).collect_view()}
        </fieldset>
        <fieldset id="fusion">
            <legend>"Fusion"</legend>
            {FusionChoice::ALL.into_iter().map(|(choice, key, label)| view! {
                <label class="toggle">
                    <input type="radio" name="fusion" value=key
                        prop:checked=move || fusion.get() == choice
                        on:change=move |_| fusion.set(choice) />
                    {label}
                </label>
            }).collect_view()}
        </fieldset>
        <label for="top-k">{move || format!("Results: {}", top_k.get())}</label>
        <input id="top-k" type="range" min=TOP_K_RANGE.0.to_string() max=TOP_K_RANGE.1.to_string() step="1"
            prop:value=move || top_k.get().to_string()
            on:input=move |ev| if let Ok(k) = event_target_value(&ev).parse() { top_k.set(k) } />
    }
}

#[component]
fn Results(
    answer: RwSignal<Option<Answer>>,
    answered: RwSignal<String>,
    open_outline: impl Fn(String, u32) + Copy + Send + Sync + 'static,
) -> impl IntoView {
    let rows = move || answer.get().map(|a| a.rows).unwrap_or_default();
    view! {
        <p class="timing" id="answer-timing" data-ms=move || answer.get().map(|a| format!("{:.2}", a.milliseconds))>
            {move || answer.get().map(|a| format!("{} chunks in {:.0} ms ({})", a.rows.len(), a.milliseconds, a.trace.method))}
        </p>
        <ol id="results" data-query=move || answered.get()>
            {move || rows().into_iter().map(|row| {
                let (source, chunk) = (row.source.clone(), row.chunk);
                view! {
                    <li class="result">
                        <button type="button" class="label" title="Open this document's outline at this chunk"
                            on:click=move |_| open_outline(source.clone(), chunk)>{row.label}</button>
                        <div class="meta">{format!("{} · score {:.4} · {}", row.source, row.score, row.ranks)}</div>
                        <p class="text">{row.text}</p>
                    </li>
                }
            }).collect_view()}
        </ol>
        {move || answer.get().map(|a| view! {
            <details id="teaching-view">
                <summary>"Watch how these were found, step by step (teaching view)"</summary>
                <teaching::TeachingView graph=a.graph />
            </details>
            <details id="trace">
                <summary>"How these were found (the retrieval trace)"</summary>
                <pre>{a.trace.render()}</pre>
            </details>
        })}
    }
}

/// A document's sections and chunks, opened at the chunk a result named, each chunk with a bar for its
/// relevance to the question (its cosine with it, against the document's best).
#[component]
fn OutlineView(outline: RwSignal<Option<(DocumentOutline, u32)>>) -> impl IntoView {
    // Bring the chunk the outline was opened at into view once it is drawn.
    Effect::new(move || {
        if outline.with(Option::is_some) {
            request_animation_frame(|| {
                let focused = document().query_selector("#outline .outline-chunk.focused").ok().flatten();
                if let Some(element) = focused {
                    element.scroll_into_view();
                }
            });
        }
    });
    move || {
        outline.get().map(|(document, focus)| {
            let best = document.sections.iter().flat_map(|s| &s.chunks).filter_map(|c| c.relevance).fold(0.0_f32, f32::max);
            let sections = document.sections.into_iter().map(|section| {
                let depth = section.headings.len();
                let heading = if section.headings.is_empty() { "(before the first heading)".to_string() } else { section.headings.join(" › ") };
                let chunks = section.chunks.into_iter().map(|chunk| {
                    let share = chunk.relevance.map_or(0.0, |r| if best > 0.0 { (r / best).clamp(0.0, 1.0) } else { 0.0 });
                    let relevance = chunk.relevance.map(|r| format!("{r:.3}"));
                    let relevance_value = relevance.clone().unwrap_or_default();
                    let id = chunk.chunk;
                    view! {
                        <li class="outline-chunk" class:focused=id == focus data-chunk=id.to_string()
                            data-relevance=relevance_value>
                            <div class="chunk-head">
                                <span class="relevance-bar" aria-hidden="true"><span style:width=format!("{:.0}%", share * 100.0)></span></span>
                                <span class="label">{chunk.label}</span>
                                {relevance.map(|r| view! { <span class="meta">{format!(" · relevance {r}")}</span> })}
                            </div>
                            <p class="text">{chunk.text}</p>
                        </li>
                    }
                }).collect_view();
                view! {
                    <li class="outline-section" style:margin-left=format!("{}rem", depth.saturating_sub(1))>
                        <div class="heading">{heading}</div>
                        <ol>{chunks}</ol>
                    </li>
                }
            }).collect_view();
            view! {
                <section class="panel" id="outline" aria-labelledby="outline-heading">
                    <h2 id="outline-heading">{format!("Outline of {}", document.title)}</h2>
                    <p class="meta">{document.source}" · bars: each chunk's relevance to the question, against the document's best"</p>
                    <button type="button" id="close-outline" on:click=move |_| outline.set(None)>"Close the outline"</button>
                    <ol class="outline-sections">{sections}</ol>
                </section>
            }
        })
    }
}

#[component]
fn StorageLine(
    saved: RwSignal<bool>,
    restored: RwSignal<bool>,
    usage: RwSignal<Option<storage::Usage>>,
    on_forget: impl Fn(leptos::ev::MouseEvent) + 'static,
) -> impl IntoView {
    let megabytes = |bytes: f64| format!("{:.1} MB", bytes / 1e6);
    let describe = move || {
        let state = match (restored.get(), saved.get()) {
            (true, _) => "Restored from this browser's storage; changes are saved as you make them.",
            (false, true) => "Saved in this browser's storage.",
            (false, false) => "Your changes are saved in this browser's storage as you make them.",
        };
        let space = usage.get().map_or_else(String::new, |u| {
            let kept = if u.persistent { "kept" } else { "may be cleared by the browser when space runs low" };
            format!(" {} used of {} ({kept}).", megabytes(u.bytes), megabytes(u.quota))
        });
        format!("{state}{space}")
    };
    view! {
        <p id="storage" data-saved=move || saved.get().to_string()>
            {describe}
            " "
            <button id="forget" type="button" on:click=on_forget>"Forget the saved index"</button>
        </p>
    }
}

/// Documents listed at once. Listing every one of a 100,000-document corpus put 100,000 rows in the page:
/// about 900 MB of the tab's heap (docs/BENCHMARKS.md, "Costs that grow with the corpus"); the filter
/// reaches the rest.
const LISTED_DOCUMENTS: usize = 200;

#[component]
fn DocumentList(
    documents: RwSignal<Vec<(String, String)>>,
    ready: Signal<bool>,
    remove: impl Fn(String) + Copy + Send + Sync + 'static,
) -> impl IntoView {
    let filter = RwSignal::new(String::new());
    // The first documents whose title or source contains the filter (any case), and how many match in all.
    let shown = Memo::new(move |_| {
        let needle = filter.get().to_lowercase();
        documents.with(|all| {
            let mut matching = all.iter().filter(|(source, title)| {
                needle.is_empty() || title.to_lowercase().contains(&needle) || source.to_lowercase().contains(&needle)
            });
            let listed: Vec<(String, String)> = matching.by_ref().take(LISTED_DOCUMENTS).cloned().collect();
            let count = listed.len() + matching.count();
            (listed, count)
        })
    });
    view! {
        <details id="documents">
            <summary>{move || format!("{} documents", documents.with(Vec::len))}</summary>
            <input id="document-filter" type="search" placeholder="Filter by title or file"
                prop:value=move || filter.get() on:input=move |event| filter.set(event_target_value(&event)) />
            <p id="documents-shown" class="meta">{move || {
                let (listed, count) = shown.with(|(listed, count)| (listed.len(), *count));
                if listed == count { format!("{count} shown") } else { format!("{listed} of {count} shown; filter to find the others") }
            }}</p>
            <ul>
                {move || shown.get().0.into_iter().map(|(source, title)| {
                    let label = format!("Remove {title}");
                    let removed = source.clone();
                    view! {
                        <li data-source=source.clone()>
                            <span class="title">{title}</span>" "<span class="meta">{source.clone()}</span>" "
                            <button type="button" class="remove" aria-label=label disabled=move || !ready.get()
                                on:click=move |_| remove(removed.clone())>"Remove"</button>
                        </li>
                    }
                }).collect_view()}
            </ul>
        </details>
    }
}

#[component]
fn IngestProblems(outcome: RwSignal<Option<IndexOutcome>>) -> impl IntoView {
    move || {
        outcome.get().map(|outcome| {
            let lines: Vec<String> = outcome.errors.iter().chain(&outcome.warnings).cloned().collect();
            let summary = if outcome.cancelled {
                format!("Cancelled after embedding {} texts: the index is as it was.", outcome.embedded)
            } else {
                format!(
                    "Indexed in {:.1} s: {} texts embedded, {} reused.",
                    outcome.seconds, outcome.embedded, outcome.reused
                )
            };
            view! {
                <p class="timing" id="ingest-summary">{summary}</p>
                <ul id="ingest-problems">{lines.into_iter().map(|line| view! { <li>{line}</li> }).collect_view()}</ul>
            }
        })
    }
}

#[component]
fn Stats(summary: RwSignal<Option<CorpusSummary>>, engine_memory: RwSignal<u32>) -> impl IntoView {
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
                    <p id="engine-memory" data-bytes=move || engine_memory.get().to_string()>
                        {move || format!("The engine holds {:.0} MB of memory in this tab.", f64::from(engine_memory.get()) / 1e6)}
                    </p>
                    <table>{rows.into_iter().map(|(k, v)| view! { <tr><td>{k}</td><td>{v}</td></tr> }).collect_view()}</table>
                </section>
            }
        })
    }
}
