//! The browser app's page (wasm32 only): its views and their state. It renders state and forwards user
//! actions; the engine runs in a Web Worker with a pool of embedding workers (`crate::web`, reached through
//! `web::client`), so the page never stalls while documents are parsed, embedded and indexed, and a crash
//! while parsing one file loses neither the other files nor the index. All retrieval happens in the engine;
//! nothing here ranks or scores. This is the page's module's entry (`start_page`), whose worker answers by
//! words at once; the engine's module (`web::start_engine`), with the embedder and the parsers, takes over
//! once its model has loaded.
//!
//! State is small and owned where it is used: the index and the engine calls around it in `session.rs`,
//! the question and what it found in `results.rs`, the method controls in `controls.rs`, the conversation
//! in `chat.rs`; [`App`] only puts the panels together.

mod ask;
mod canvas;
mod chat;
mod controls;
mod corpora;
mod corpus_graph;
mod documents;
mod evaluation;
mod keys;
mod lesson;
mod llm;
mod phase;
mod results;
mod session;
mod settings;
mod teaching;

use leptos::mount::mount_to_body;
use leptos::prelude::*;

use crate::web::client;

use results::Search;
use session::IndexSession;

/// The page's module entry (the `quire-page` binary): the page, or the engine that answers by words while
/// the full engine loads. It links neither the embedder nor the parsers, so a visit downloads a fraction of
/// the engine's module before its first answer.
pub fn start_page() {
    if crate::web::serve_by_words_here() {
        return;
    }
    console_error_panic_hook::set_once();
    mount_to_body(App);
}

#[component]
fn App() -> impl IntoView {
    let search = Search::new();
    let session = IndexSession::new(search);
    let (stored_settings, remembered_key) = settings::load();
    let llm_settings = RwSignal::new(stored_settings);
    let api_key = RwSignal::new(remembered_key);
    session.start();
    let recover = move |failure: client::Failure| session.recover(failure);
    let open_outline = move |source: String, chunk: u32| search.open_outline(source, chunk, recover);

    view! {
        <a class="skip-link" href="#query">"Skip to the question"</a>
        <header class="app-header">
            <div class="brand">
                <h1>{move || session.title.get().unwrap_or_else(|| "Quire".into())}</h1>
                <p class="tagline">"Private knowledge-graph retrieval. Your documents never leave this tab."</p>
            </div>
            <phase::StatusLine phase=session.phase />
        </header>
        <div class="layout">
            <main id="main">
                <ask::AskPanel session=session search=search llm_settings=llm_settings api_key=api_key open_outline=open_outline />
                <results::OutlineView outline=search.outline />
            </main>
            <aside class="corpus" aria-label="Corpus">
                <documents::DocumentsPanel session=session />
                <documents::Stats summary=session.summary engine_memory=session.engine_memory />
            </aside>
            <div class="tools">
                <settings::SettingsPanel settings=llm_settings api_key=api_key />
                <corpus_graph::CorpusGraph summary=session.summary model_loaded=Signal::derive(move || session.model_loaded()) open_outline=open_outline />
                <evaluation::EvaluationView session=session />
            </div>
        </div>
        {bench_report(session)}
    }
}

/// The `?bench=` page's report, where the measuring scripts read it.
fn bench_report(session: IndexSession) -> impl IntoView {
    move || session.bench.get().map(|report| view! { <pre id="bench-result">{report}</pre> })
}
