//! The ask panel: the question box, with Search (the engine's results by the chosen method) and Answer with
//! the LLM (the conversation in `chat.rs`), the method controls folded under "How to search", the sample
//! questions and the results right beneath.

use leptos::prelude::*;
use leptos::task::spawn_local;

use super::chat::{ChatView, Conversation};
use super::controls::{MethodChoice, MethodControls, SampleQuestions};
use super::lesson::LessonPanel;
use super::results::{Results, Search};
use super::session::IndexSession;
use super::settings::LlmSettings;
use crate::web::client::{self, Lifecycle, Model};

#[component]
pub fn AskPanel(
    session: IndexSession,
    search: Search,
    llm_settings: RwSignal<LlmSettings>,
    api_key: RwSignal<String>,
    open_outline: impl Fn(String, u32) + Copy + Send + Sync + 'static,
) -> impl IntoView {
    let choice = MethodChoice::new();
    let conversation = Conversation::new();
    let query_text = search.query;
    let ready = move || session.answers_questions();
    let no_retriever = move || session.notice.set(Some("Choose at least one retriever.".into()));

    let ask = move |text: String| {
        if text.trim().is_empty() {
            return;
        }
        let Some(method) = choice.method() else { return no_retriever() };
        let k = choice.top_k();
        let still_indexing = session.indexing_files.get_untracked();
        // While the model loads the engine answers by words, which needs no node vectors.
        // Not while the site's whole index loads: the fragments answer by words and meaning whatever the method.
        let node_vectors = method.reads_node_vectors()
            && session.model.with_untracked(Model::is_loaded)
            && !session.engine.with_untracked(Lifecycle::by_fragments);
        spawn_local(async move {
            if !session.vectors_for(node_vectors).await {
                return;
            }
            match client::query(&text, method, k).await {
                Ok(result) => search.show(result, text, still_indexing),
                Err(failure) => session.recover(failure).await,
            }
        });
    };

    let run_query = move || ask(query_text.get_untracked());
    // A question answered by words while the model loaded is asked again, by the chosen method, once it has
    // (also when that answer arrives after the model: the full engine never answers by words once loaded).
    Effect::new(move |_| {
        if session.model_loaded() && search.answer.with(|a| a.as_ref().is_some_and(|a| a.model_loading)) {
            ask(search.answered.get_untracked());
        }
    });
    // So is one answered from an index's fragments, once the whole index has loaded.
    Effect::new(move |_| {
        let whole = !session.held_by_fragments();
        if whole && search.answer.with(|a| a.as_ref().is_some_and(|a| a.whole_index_loading)) {
            ask(search.answered.get_untracked());
        }
    });

    let ask_llm = move || {
        let text = query_text.get_untracked();
        let chosen = llm_settings.get_untracked();
        if text.trim().is_empty() {
            return;
        }
        if !chosen.configured() {
            return session
                .notice
                .set(Some("Set up an LLM endpoint first (\"LLM endpoint\", below): its address and model.".into()));
        }
        let Some(method) = choice.method() else { return no_retriever() };
        let model_loaded = session.model.with_untracked(Model::is_loaded);
        if chosen.assist.is_some() && !model_loaded {
            return session.notice.set(Some(
                "LLM-assisted retrieval searches by meaning: ask again once the embedding model has loaded, or \
                 turn the assistance off to answer from the words found now."
                    .into(),
            ));
        }
        let endpoint = chosen.endpoint(&api_key.get_untracked());
        let asked = text.clone();
        let still_indexing = session.indexing_files.get_untracked();
        // While the model loads the context is found by words, which needs no node vectors.
        let node_vectors = model_loaded
            && !session.engine.with_untracked(Lifecycle::by_fragments)
            && (method.reads_node_vectors() || chosen.assist.is_some_and(|assist| assist.reads_node_vectors()));
        spawn_local(async move {
            if session.vectors_for(node_vectors).await {
                conversation.ask(text, method, chosen, endpoint, move |result| {
                    search.show(result, asked.clone(), still_indexing)
                });
            }
        });
    };

    // `/` puts the cursor in the question, as on most search pages, unless a field already has the key.
    let question_field = NodeRef::<leptos::html::Input>::new();
    let slash = window_event_listener(leptos::ev::keydown, move |ev| {
        if ev.key() != "/" || ev.default_prevented() || super::keys::typing(&ev) || super::keys::modified(&ev) {
            return;
        }
        if let Some(field) = question_field.get_untracked() {
            ev.prevent_default();
            let _ = field.focus();
        }
    });
    on_cleanup(move || slash.remove());

    view! {
        <section class="panel ask" aria-labelledby="ask-heading">
            <h2 id="ask-heading" class="visually-hidden">"Ask"</h2>
            <form on:submit=move |ev: leptos::ev::SubmitEvent| { ev.prevent_default(); run_query(); }>
                <label class="visually-hidden" for="query">"Question"</label>
                <input id="query" type="search" placeholder="Ask the corpus… (press / to come here)" node_ref=question_field
                    prop:value=move || query_text.get()
                    on:input=move |ev| query_text.set(event_target_value(&ev)) />
                <button id="search" type="submit" disabled=move || !ready()>"Search"</button>
                <button id="ask-llm" type="button" disabled=move || !ready() || conversation.running() on:click=move |_| ask_llm()
                    title="Find the context, then stream an answer from your LLM endpoint">"Answer with the LLM"</button>
            </form>
            <details id="how-to-search">
                <summary>"How to search: "<span id="method-in-use">{move || choice.summary()}</span></summary>
                <MethodControls choice=choice />
            </details>
            <SampleQuestions samples=search.samples query_text=query_text run_query=run_query
                answered=Signal::derive(move || search.answer.with(Option::is_some)) />
            <LessonPanel lesson=session.lesson choice=choice search=search ready=Signal::derive(move || session.ready()) run_query=run_query />
            <ChatView conversation=conversation open_outline=open_outline />
            <Results search=search open_outline=open_outline />
        </section>
    }
}
