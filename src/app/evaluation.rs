//! The evaluation view: measure retrievers on labelled questions in the tab, with the metrics and the table
//! `quire eval` prints. The dataset is a BEIR-layout folder the user picks (corpus, questions and labels, each
//! optionally gzipped; its corpus is indexed in the engine worker), or the SciFact subset bundled with the
//! app (300 abstracts and 53 questions, indexed at build time by `scripts/build_demos.sh`).

use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::retrieve::Method;

use super::phase::{Phase, describe_progress};
use super::session::IndexSession;
use crate::web::browser::{self, picked_files, read_picked};
use crate::web::calls::Evaluate;
use crate::web::client::{self, Failure};
use crate::web::error::FetchError;
use crate::web::protocol::{Evaluation, FileBytes};

/// The bundled dataset, as `scripts/build_demos.sh` lays it out in the build.
const BUNDLED: &str = "scifact-subset";
const BUNDLED_FILES: [&str; 2] = ["queries.jsonl.gz", "qrels/test.tsv"];
/// What an evaluation runs unless the user chooses otherwise: the two base retrievers and their fusions.
const DEFAULT_METHODS: [&str; 4] = ["dense", "bm25", "rrf", "zsum"];

/// Why the cut-offs typed in are not a list of them.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
enum CutoffError {
    #[error("`{0}` is not a cut-off (whole numbers, e.g. 5,10)")]
    NotACutoff(String),
    #[error("give at least one cut-off, e.g. 10")]
    NoCutoff,
}

/// Why no table is shown: the picked folder, the cut-offs, the bundled dataset's download, or the engine.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
enum NotEvaluated {
    /// Files of the picked folder the browser could not read, each with its reason.
    #[error("{}", .0.join("; "))]
    Unreadable(Vec<String>),
    #[error(transparent)]
    Cutoffs(CutoffError),
    #[error(transparent)]
    Fetch(FetchError),
    #[error(transparent)]
    Engine(Failure),
}

/// Where the questions come from.
#[derive(Clone, Debug, PartialEq)]
enum Source {
    Bundled,
    /// A picked folder: its name and its files (paths inside it).
    Folder(String, Vec<FileBytes>),
}

impl Source {
    fn describe(&self) -> String {
        match self {
            Source::Bundled => "the bundled SciFact subset (300 abstracts, 53 questions)".into(),
            Source::Folder(name, files) => format!("{name} ({} files)", files.len()),
        }
    }

    /// The request that evaluates `methods` at `cutoffs` on this dataset's `split`.
    async fn request(self, split: String, methods: Vec<String>, cutoffs: Vec<usize>) -> Result<Evaluate, FetchError> {
        let (dataset, files, snapshot) = match self {
            Source::Folder(name, files) => (name, files, None),
            Source::Bundled => {
                let mut files = Vec::new();
                for name in BUNDLED_FILES {
                    let bytes = browser::fetch_bytes(&format!("eval/{BUNDLED}/{name}")).await?;
                    files.push(FileBytes { path: name.to_string(), bytes });
                }
                let snapshot = browser::fetch_bytes(&format!("snapshots/{BUNDLED}.quire")).await?;
                (BUNDLED.to_string(), files, Some(snapshot))
            }
        };
        Ok(Evaluate { dataset, split, files, snapshot, methods, cutoffs })
    }
}

/// Every method the evaluation can run, as the engine's catalogue names them.
fn method_names() -> Vec<&'static str> {
    Method::names()
}

fn parse_cutoffs(text: &str) -> Result<Vec<usize>, CutoffError> {
    let cutoffs: Vec<usize> = text
        .split([',', ' '])
        .filter(|part| !part.is_empty())
        .map(|part| part.parse().map_err(|_| CutoffError::NotACutoff(part.to_string())))
        .collect::<Result<_, _>>()?;
    if cutoffs.is_empty() { Err(CutoffError::NoCutoff) } else { Ok(cutoffs) }
}

/// The engine reports the evaluation's progress in the session's phase, which settles once the table is in;
/// a crash of the engine restarts it (`IndexSession::recover`).
#[component]
pub fn EvaluationView(session: IndexSession) -> impl IntoView {
    let phase = session.phase;
    let ready = move || matches!(phase.get(), Phase::Ready);
    let source = RwSignal::new(Source::Bundled);
    let split = RwSignal::new("test".to_string());
    let cutoffs = RwSignal::new("10".to_string());
    let methods = RwSignal::new(DEFAULT_METHODS.map(String::from).to_vec());
    let running = RwSignal::new(false);
    let result = RwSignal::new(None::<Result<Evaluation, NotEvaluated>>);

    let on_folder = move |ev: leptos::ev::Event| {
        let input: web_sys::HtmlInputElement = event_target(&ev);
        let Some(list) = input.files() else { return };
        spawn_local(async move {
            let (files, unreadable) = read_picked(picked_files(&list)).await;
            if !unreadable.is_empty() {
                return result.set(Some(Err(NotEvaluated::Unreadable(unreadable))));
            }
            let name = files.first().and_then(|f| f.path.split('/').next()).unwrap_or("dataset").to_string();
            source.set(Source::Folder(name, files));
        });
    };
    let run = move || {
        let chosen = methods.get_untracked();
        let request = parse_cutoffs(&cutoffs.get_untracked())
            .map(|k| source.get_untracked().request(split.get_untracked(), chosen, k));
        running.set(true);
        spawn_local(async move {
            let outcome = match request {
                Ok(request) => match request.await {
                    Ok(request) => client::call(request).await.map_err(NotEvaluated::Engine),
                    Err(fetch) => Err(NotEvaluated::Fetch(fetch)),
                },
                Err(cutoffs) => Err(NotEvaluated::Cutoffs(cutoffs)),
            };
            result.set(Some(outcome.clone()));
            match outcome {
                Err(NotEvaluated::Engine(crash @ Failure::Crashed { .. })) => session.recover(crash).await,
                _ => session.settle(),
            }
            running.set(false);
        });
    };
    let toggle = move |name: &'static str, on: bool| {
        methods.update(|chosen| {
            chosen.retain(|m| m != name);
            if on {
                chosen.push(name.to_string());
                let order = method_names();
                chosen.sort_by_key(|m| order.iter().position(|n| n == m));
            }
        })
    };

    view! {
        <section class="panel" id="evaluation" aria-labelledby="evaluation-heading">
            <h2 id="evaluation-heading">"Evaluate"</h2>
            <p class="meta">"Measure retrievers on labelled questions, with the metrics and the table "<code>"quire eval"</code>
                " prints: a BEIR-layout folder (corpus.jsonl, queries.jsonl, qrels/<split>.tsv, each optionally gzipped) or the bundled SciFact subset."</p>
            <div class="eval-source">
                <button type="button" id="eval-bundled" on:click=move |_| source.set(Source::Bundled)>"Use the bundled SciFact subset"</button>
                <label for="eval-folder">" or a BEIR folder: "</label>
                <input id="eval-folder" type="file" multiple prop:webkitdirectory=true on:change=on_folder />
            </div>
            <p id="eval-dataset">{move || format!("Dataset: {}", source.get().describe())}</p>
            {move || match phase.get() {
                Phase::Working(progress) if running.get() => Some(view! {
                    <p class="eval-progress">
                        <progress id="eval-progress" max=progress.total.max(1).to_string() value=progress.done.to_string()></progress>
                        " "{describe_progress(&progress)}
                    </p>
                }),
                _ => None,
            }}
            <fieldset id="eval-methods">
                <legend>"Retrievers and fusions, one row each"</legend>
                {method_names().into_iter().map(|name| view! {
                    <label class="toggle">
                        <input type="checkbox" name="eval-method" value=name
                            prop:checked=move || methods.get().iter().any(|m| m == name)
                            on:change=move |ev| toggle(name, event_target_checked(&ev)) />
                        {name}
                    </label>
                }).collect_view()}
            </fieldset>
            <div class="eval-settings">
                <label for="eval-split">"Split "</label>
                <input id="eval-split" type="text" size="8" prop:value=move || split.get() on:input=move |ev| split.set(event_target_value(&ev)) />
                <label for="eval-cutoffs">" Cut-offs (k) "</label>
                <input id="eval-cutoffs" type="text" size="8" prop:value=move || cutoffs.get() on:input=move |ev| cutoffs.set(event_target_value(&ev)) />
                " "
                <button type="button" id="run-eval" on:click=move |_| run() disabled=move || running.get() || !ready()>"Evaluate"</button>
            </div>
            {move || result.get().map(|outcome| match outcome {
                Ok(evaluation) => view! {
                    <div id="eval-result">
                        <p id="eval-summary" class="meta">{evaluation.summary}</p>
                        <div class="table-scroll">
                            <table id="eval-table">
                                <thead><tr>{evaluation.table.header.into_iter().map(|h| view! { <th scope="col">{h}</th> }).collect_view()}</tr></thead>
                                <tbody>{evaluation.table.rows.into_iter().map(|row| view! {
                                    <tr>{row.into_iter().enumerate().map(|(i, cell)| if i == 0 {
                                        view! { <th scope="row">{cell}</th> }.into_any()
                                    } else {
                                        view! { <td>{cell}</td> }.into_any()
                                    }).collect_view()}</tr>
                                }).collect_view()}</tbody>
                            </table>
                        </div>
                        <ul class="meta">{evaluation.warnings.into_iter().map(|w| view! { <li>{w}</li> }).collect_view()}</ul>
                    </div>
                }.into_any(),
                Err(reason) => view! { <p id="eval-error" role="alert">{reason.to_string()}</p> }.into_any(),
            })}
        </section>
    }
}
