//! The documents panel: the demos, adding files and folders (picked or dropped), what the last update
//! reported, the document list, exporting and opening `.quire` files, and what this browser stores; and the
//! corpus statistics. What each action does to the index is the session's ([`IndexSession`]).

use leptos::prelude::*;
use leptos::task::spawn_local;

use super::phase::Phase;
use super::session::IndexSession;
use crate::corpus::ReportLine;
use crate::store::CorpusSummary;
use crate::web::browser;
use crate::web::protocol::IndexOutcome;

/// Documents listed at once. Listing every one of a 100,000-document corpus put 100,000 rows in the page:
/// about 900 MB of the tab's heap (docs/BENCHMARKS.md, "Costs that grow with the corpus"); the filter
/// reaches the rest.
const LISTED_DOCUMENTS: usize = 200;

#[component]
pub fn DocumentsPanel(session: IndexSession) -> impl IntoView {
    let ready = move || session.ready();
    // Files added to a published corpus start a corpus of their own, unless the user keeps it beside them.
    let keep_published = RwSignal::new(false);
    let keep = move || keep_published.get_untracked();
    let on_files = move |ev: leptos::ev::Event| {
        let input: web_sys::HtmlInputElement = event_target(&ev);
        if let Some(list) = input.files() {
            session.add_picked(browser::picked_files(&list), Vec::new(), keep());
        }
    };
    let dragging = RwSignal::new(false);
    // A drop may hold folders: walked through the entries API, with a drop's plain file list where a
    // browser has none.
    let on_drop = move |ev: leptos::ev::DragEvent| {
        ev.prevent_default();
        dragging.set(false);
        let Some(transfer) = ev.data_transfer().filter(|_| matches!(session.phase.get_untracked(), Phase::Ready))
        else {
            return;
        };
        let Some(entries) = browser::dropped_entries(&transfer) else {
            if let Some(list) = transfer.files() {
                session.add_picked(browser::picked_files(&list), Vec::new(), keep());
            }
            return;
        };
        spawn_local(async move {
            let (picked, unreadable) = browser::walk_entries(entries).await;
            session.add_picked(picked, unreadable, keep());
        });
    };
    let on_import = move |ev: leptos::ev::Event| {
        let input: web_sys::HtmlInputElement = event_target(&ev);
        if let Some(file) = input.files().and_then(|list| list.get(0)) {
            session.import(file);
        }
    };
    view! {
        <section class="panel" aria-labelledby="corpus-heading">
            <h2 id="corpus-heading">"Documents"</h2>
            <div class="demos" role="group" aria-label="Prebuilt corpora">
                <For each=move || session.published.get() key=|corpus| corpus.key.clone() let:choice>
                    {
                        let key = choice.key.clone();
                        let title = choice.title.clone();
                        view! {
                            <button type="button" class="demo" data-demo=choice.key.clone()
                                aria-pressed=move || session.corpus.with(|shown| shown.as_ref().is_some_and(|c| c.key == key)).to_string()
                                disabled=move || !ready()
                                on:click=move |_| spawn_local(session.open_corpus(choice.clone()))>{title}</button>
                        }
                    }
                </For>
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
                <NewCorpusChoice session=session keep_published=keep_published />
            </div>
            <IngestProblems outcome=session.last_outcome />
            <DocumentList documents=session.documents ready=Signal::derive(ready) remove=move |source: String| session.remove(source) />
            <div class="snapshot-files">
                <button id="export" type="button" on:click=move |_| session.export() disabled=move || !ready()>"Export index (.quire)"</button>
                <label for="import">"Open an index (.quire, from here or from `quire index`): "</label>
                <input id="import" type="file" accept=".quire" on:change=on_import disabled=move || !ready() />
            </div>
            <StorageLine session=session />
            {move || session.notice.get().map(|problem| view! { <p id="notice" role="alert">{problem}</p> })}
        </section>
    }
}

/// While a published corpus is shown as published: the one line that says the user's files start a corpus
/// of their own, and offers to keep that corpus beside them instead (its button stays above, one click away).
#[component]
fn NewCorpusChoice(session: IndexSession, keep_published: RwSignal<bool>) -> impl IntoView {
    let shown = move || {
        if session.own.get() {
            return None;
        }
        session.corpus.with(|corpus| corpus.as_ref().map(|corpus| corpus.title.clone()))
    };
    move || {
        shown().map(|title| {
            view! {
                <p id="new-corpus">
                    "Your files start a corpus of your own. "
                    <input id="keep-published" type="checkbox" prop:checked=move || keep_published.get()
                        on:change=move |ev| keep_published.set(event_target_checked(&ev)) />
                    <label for="keep-published">{format!("Keep \"{title}\" beside them")}</label>
                </p>
            }
        })
    }
}

#[component]
fn StorageLine(session: IndexSession) -> impl IntoView {
    let IndexSession { saved, restored, usage, .. } = session;
    let megabytes = |bytes: f64| format!("{:.1} MB", bytes / 1e6);
    if !crate::web::storage::offered() {
        return view! {
            <p id="storage" data-saved="false" data-kept="false">
                "This browser cannot keep the index: it lasts until you close the tab; Export keeps it."
            </p>
        }
        .into_any();
    }
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
        <p id="storage" data-saved=move || saved.get().to_string() data-kept="true">
            {describe}
            " "
            <button id="forget" type="button" on:click=move |_| session.forget()>"Forget the saved index"</button>
        </p>
    }
    .into_any()
}

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
                            <span class="title" dir="auto">{title}</span>" "<span class="meta">{source.clone()}</span>" "
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
            let lines = outcome.report;
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
                <ul id="ingest-problems">{lines.into_iter().map(report_line).collect_view()}</ul>
            }
        })
    }
}

/// A problem stands out; a kind of file left out opens to the files it stands for.
fn report_line(line: ReportLine) -> impl IntoView {
    let class = if line.problem { "problem" } else { "note" };
    if line.files.is_empty() {
        return view! { <li class=class>{line.text}</li> }.into_any();
    }
    view! {
        <li class=class>
            <details><summary>{line.text}</summary><p class="files">{line.files.join(", ")}</p></details>
        </li>
    }
    .into_any()
}

/// ` (12 copy other documents' passages)`, when there are any.
fn copied(copies: usize) -> String {
    match copies {
        0 => String::new(),
        1 => " (1 copies another document's passage)".into(),
        n => format!(" ({n} copy other documents' passages)"),
    }
}

#[component]
pub fn Stats(summary: RwSignal<Option<CorpusSummary>>, engine_memory: RwSignal<u32>) -> impl IntoView {
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
                    <p id="stats-line">{format!("{} documents · {} sections · {} chunks{} · {} entities · {} relations", s.documents, s.sections, s.chunks, copied(s.copied_chunks), s.entities, s.relations)}</p>
                    <p id="stats-languages">{format!("Languages: {}", s.languages.iter().map(|(code, n)| format!("{code} {n}")).collect::<Vec<_>>().join(", "))}</p>
                    <p id="engine-memory" data-bytes=move || engine_memory.get().to_string()>
                        {move || format!("The engine holds {:.0} MB of memory in this tab.", f64::from(engine_memory.get()) / 1e6)}
                    </p>
                    <table>{rows.into_iter().map(|(k, v)| view! { <tr><td>{k}</td><td>{v}</td></tr> }).collect_view()}</table>
                </section>
            }
        })
    }
}
