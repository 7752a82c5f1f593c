//! What a question found: the state the page keeps of it ([`Search`]: the question, its results, the
//! document outline opened from one), the results with their trace and teaching view, and the outline.

use std::future::Future;

use leptos::prelude::*;
use leptos::task::spawn_local;

use super::teaching;
use crate::index::excerpt::Piece;
use crate::store::DocumentOutline;
use crate::store::published::SampleQuestion;
use crate::web::calls::Outline;
use crate::web::client::{self, Failure};
use crate::web::protocol::{Answer, ResultRow};

const FIRST_QUESTION: &str = "Who was the first person to walk on the Moon?";

#[derive(Clone, Copy)]
pub struct Search {
    /// The question in the box.
    pub query: RwSignal<String>,
    /// Questions to try on the index shown (a demo's).
    pub samples: RwSignal<Vec<SampleQuestion>>,
    pub answer: RwSignal<Option<Answer>>,
    /// The question the shown results answer: a page (or a test) can tell fresh results from stale ones.
    pub answered: RwSignal<String>,
    /// The document opened from a result, and the chunk it was opened at.
    pub outline: RwSignal<Option<(DocumentOutline, u32)>>,
    /// Files that were still being indexed when the shown results were asked for: the index as it was
    /// answered, or once they were parsed, the index being built (`Answer::documents_waiting`).
    pub still_indexing: RwSignal<usize>,
    /// Whether the teaching view is shown open (a lesson's step opens it).
    pub teaching_open: RwSignal<bool>,
}

impl Search {
    pub fn new() -> Self {
        Search {
            query: RwSignal::new(FIRST_QUESTION.to_string()),
            samples: RwSignal::new(Vec::new()),
            answer: RwSignal::new(None),
            answered: RwSignal::new(String::new()),
            outline: RwSignal::new(None),
            still_indexing: RwSignal::new(0),
            teaching_open: RwSignal::new(false),
        }
    }

    /// Shows `answer` to `question`, asked while `still_indexing` files were being indexed.
    pub fn show(self, answer: Answer, question: String, still_indexing: usize) {
        self.answer.set(Some(answer));
        self.still_indexing.set(still_indexing);
        self.answered.set(question);
    }

    /// A whole index replaced: what was shown of the old one goes, and its first sample question (a demo's)
    /// goes in the box.
    pub fn new_index(self, questions: Vec<SampleQuestion>) {
        if let Some(first) = questions.first() {
            self.query.set(first.text.clone());
        }
        self.samples.set(questions);
        self.answer.set(None);
        self.outline.set(None);
    }

    /// Opens `source`'s outline at `chunk`, scored against the question the results answer; a failure goes
    /// to `recover`.
    pub fn open_outline<F>(self, source: String, chunk: u32, recover: impl FnOnce(Failure) -> F + 'static)
    where
        F: Future<Output = ()> + 'static,
    {
        let question = Some(self.answered.get_untracked()).filter(|q| !q.is_empty());
        spawn_local(async move {
            match client::call(Outline { source, query: question }).await {
                Ok(document) => self.outline.set(Some((document, chunk))),
                Err(failure) => recover(failure).await,
            }
        });
    }
}

#[component]
pub fn Results(search: Search, open_outline: impl Fn(String, u32) + Copy + Send + Sync + 'static) -> impl IntoView {
    let Search { answer, answered, still_indexing, teaching_open, .. } = search;
    let rows = move || answer.get().map(|a| a.rows).unwrap_or_default();
    let while_indexing = move || {
        let (waiting, listed) =
            answer.with(|a| a.as_ref().map_or((None, false), |a| (a.documents_waiting, !a.found_by_words.is_empty())));
        let below = if listed { " (below)" } else { "" };
        match (still_indexing.get(), waiting) {
            (0, _) => None,
            (1, None) => {
                Some("1 file is still being indexed: these results come from the index as it was.".to_string())
            }
            (n, None) => {
                Some(format!("{n} files are still being indexed: these results come from the index as it was."))
            }
            (n, Some(0)) => Some(format!("{n} files are still being indexed: their documents are searchable already.")),
            (_, Some(1)) => {
                Some(format!("1 new document is still being embedded: until then it is found by its words{below}."))
            }
            (_, Some(w)) => Some(format!(
                "{w} new documents are still being embedded: until then they are found by their words{below}."
            )),
        }
    };
    // Without the model, the engine answers by `Method::Words` (over a whole index or a site's fragments), or
    // by the chosen method with the query table's vector.
    let by_words = move || {
        answer.with(|a| {
            let a = a.as_ref().filter(|a| a.model_loading)?;
            Some(match a.trace.method.as_str() {
                _ if a.by_table => {
                    "by their words and meaning, the question's meaning read from the index's query table"
                }
                crate::retrieve::WORDS => {
                    "by their words and through the graph (BM25, the community retriever and the node-set join)"
                }
                _ => "by their words (BM25)",
            })
        })
    };
    let from_fragments = move || {
        answer.with(|a| {
            let a = a.as_ref().filter(|a| a.whole_index_loading)?;
            Some(match (a.trace.method.as_str(), &a.trace.fusion) {
                (crate::retrieve::WORDS, _) => {
                    "by their words and through the graph: BM25, the community retriever and the node-set join"
                }
                (_, Some(_)) => "by their words and meaning: the standardised sum of BM25 and dense",
                (_, None) => "by their words: BM25",
            })
        })
    };
    view! {
        {move || while_indexing().map(|note| view! { <p id="still-indexing" class="meta">{note}</p> })}
        {move || by_words().map(|how| view! {
            <p id="by-words" class="meta">
                {format!("Found {how} while the embedding model loads; asked again by the chosen method once it has.")}
            </p>
        })}
        {move || from_fragments().map(|how| view! {
            <p id="from-fragments" class="meta">
                {format!("Found in the site's index fragments ({how}) while the whole index loads; asked again by the chosen method once it has.")}
            </p>
        })}
        <p class="timing" id="answer-timing" data-ms=move || answer.get().map(|a| format!("{:.2}", a.milliseconds))>
            {move || answer.get().map(|a| format!("{} documents in {:.0} ms ({})", a.rows.len(), a.milliseconds, a.trace.method))}
        </p>
        <ol id="results" data-query=move || answered.get()>
            {move || rows().into_iter().map(|row| result_item(row, open_outline)).collect_view()}
        </ol>
        {move || {
            let rows = answer.get().map(|a| a.found_by_words).unwrap_or_default();
            (!rows.is_empty()).then(|| view! {
                <h3 class="found-by-words">"Found by their words while they are embedded"</h3>
                <ol id="found-by-words">
                    {rows.into_iter().map(|row| result_item(row, open_outline)).collect_view()}
                </ol>
            })
        }}
        {move || answer.get().map(|a| view! {
            <details id="teaching-view" prop:open=move || teaching_open.get()>
                <summary>"Watch how these were found, step by step (teaching view)"</summary>
                <teaching::TeachingView graph=a.graph trace=a.trace.clone() />
            </details>
            <details id="trace">
                <summary>"How these were found (the retrieval trace)"</summary>
                <pre>{a.trace.render()}</pre>
            </details>
        })}
    }
}

/// One result: a document at its best chunk, as a title › section breadcrumb that opens the whole passage
/// in the document's outline, the excerpt around the question's words (marked), where each list ranked it,
/// where else its passage is and its other ranked chunks.
fn result_item(row: ResultRow, open_outline: impl Fn(String, u32) + Copy + Send + Sync + 'static) -> impl IntoView {
    let (source, chunk) = (row.source.clone(), row.chunk);
    view! {
        <li class="result">
            <button type="button" class="label" dir="auto" title="Open the whole passage in its document's outline"
                on:click=move |_| open_outline(source.clone(), chunk)>{breadcrumb(&row.label)}</button>
            <div class="meta">{format!("{} · {}", row.source, found_by(&row.ranks))}</div>
            <p class="text" dir="auto">{excerpt(row.excerpt)}</p>
            {rank_badges(row.ranks)}
            {(!row.also_in.is_empty()).then(|| view! { <p class="meta also-in">{format!("also in {}", row.also_in.join(", "))}</p> })}
            {more_from_document(row.more, open_outline)}
        </li>
    }
}

/// A chunk's label (`Title › Section › #n`) with the title set apart from the sections under it.
fn breadcrumb(label: &str) -> impl IntoView + use<> {
    let (title, sections) = label.split_once(" › ").map_or((label, None), |(title, rest)| (title, Some(rest)));
    view! {
        <span class="title" dir="auto">{title.to_string()}</span>
        {sections.map(|rest| view! { <span class="crumbs">{format!(" › {rest}")}</span> })}
    }
}

/// How many of the method's lists found a result, in words: the relevance a reader can weigh (a fused
/// score or the default's place-based score means nothing to read).
fn found_by(ranks: &[(String, Option<usize>)]) -> String {
    let found = ranks.iter().filter(|(_, rank)| rank.is_some()).count();
    match ranks {
        [] => "ranked by the assisted search".to_string(),
        [(name, Some(rank))] => format!("{name} ranked it #{rank}"),
        _ if found == ranks.len() => format!("found by all {found} lists"),
        _ => format!("found by {found} of {} lists", ranks.len()),
    }
}

/// The excerpt, each word that matched the question marked.
fn excerpt(pieces: Vec<Piece>) -> impl IntoView {
    pieces
        .into_iter()
        .map(|piece| match piece.marked {
            true => view! { <mark>{piece.text}</mark> }.into_any(),
            false => piece.text.into_any(),
        })
        .collect_view()
}

/// Where each list ranked a result, as small badges; a list that did not rank it is dimmed.
fn rank_badges(ranks: Vec<(String, Option<usize>)>) -> impl IntoView {
    (ranks.len() > 1).then(|| {
        view! {
            <ul class="ranks" aria-label="Where each list ranked it">
                {ranks.into_iter().map(|(name, rank)| {
                    let shown = rank.map_or(format!("{name} –"), |rank| format!("{name} #{rank}"));
                    view! { <li class="rank" class:missed=rank.is_none()>{shown}</li> }
                }).collect_view()}
            </ul>
        }
    })
}

/// "2 more from this document": the document's other ranked chunks, folded under its best.
fn more_from_document(
    more: Vec<ResultRow>,
    open_outline: impl Fn(String, u32) + Copy + Send + Sync + 'static,
) -> impl IntoView {
    (!more.is_empty()).then(|| {
        let summary = format!("{} more from this document", more.len());
        view! {
            <details class="more">
                <summary>{summary}</summary>
                <ol>
                    {more.into_iter().map(|row| {
                        let (source, chunk) = (row.source.clone(), row.chunk);
                        view! {
                            <li class="more-result">
                                <button type="button" class="label" dir="auto" on:click=move |_| open_outline(source.clone(), chunk)>{breadcrumb(&row.label)}</button>
                                <div class="meta">{found_by(&row.ranks)}</div>
                                <p class="text" dir="auto">{excerpt(row.excerpt)}</p>
                            </li>
                        }
                    }).collect_view()}
                </ol>
            </details>
        }
    })
}

/// A document's sections and chunks, opened at the chunk a result named, each chunk with a bar for its
/// relevance to the question (its cosine with it, against the document's best).
#[component]
pub fn OutlineView(outline: RwSignal<Option<(DocumentOutline, u32)>>) -> impl IntoView {
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
                                <span class="label" dir="auto">{chunk.label}</span>
                                {relevance.map(|r| view! { <span class="meta">{format!(" · relevance {r}")}</span> })}
                            </div>
                            <p class="text" dir="auto">{chunk.text}</p>
                        </li>
                    }
                }).collect_view();
                view! {
                    <li class="outline-section" style:margin-left=format!("{}rem", depth.saturating_sub(1))>
                        <div class="heading" dir="auto">{heading}</div>
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
