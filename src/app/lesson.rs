//! A lesson on the page: the steps a teacher published with the corpus (`quire site --lesson`), walked
//! through with Previous and Next (or the arrow keys and space), full screen with Present: each step sets the question and the retrievers to
//! compare, runs it, shows each retriever's first results side by side with the fused list, and opens the
//! teaching view.

use leptos::prelude::*;

use super::controls::MethodChoice;
use super::results::Search;
use crate::retrieve::lesson::{COLUMN_ROWS, Lesson, columns};
use crate::retrieve::trace::Trace;

#[component]
pub fn LessonPanel(
    lesson: RwSignal<Option<Lesson>>,
    choice: MethodChoice,
    search: Search,
    /// Whether a question can be asked now.
    ready: Signal<bool>,
    run_query: impl Fn() + Copy + Send + Sync + 'static,
) -> impl IntoView {
    // The step shown; none before the lesson is started.
    let step = RwSignal::new(None::<usize>);
    Effect::new(move |_| {
        lesson.track();
        step.set(None);
    });
    let count = move || lesson.with(|l| l.as_ref().map_or(0, |l| l.steps.len()));
    let go = move |to: usize| {
        let Some(chosen) = lesson.with_untracked(|l| l.as_ref().and_then(|l| l.steps.get(to).cloned())) else { return };
        step.set(Some(to));
        choice.compare(chosen.retrievers(), chosen.fusion());
        search.query.set(chosen.question.clone());
        search.teaching_open.set(true);
        run_query();
    };
    let next = move || go(step.get_untracked().map_or(0, |s| s + 1));
    let previous = move || {
        if let Some(shown) = step.get_untracked().filter(|&s| s > 0) {
            go(shown - 1)
        }
    };
    let keys = window_event_listener(leptos::ev::keydown, move |ev| {
        // A key another control used (the teaching view pans with the arrows), or one with a modifier, is not
        // a step.
        let taken = ev.default_prevented() || super::keys::modified(&ev) || ev.shift_key();
        if super::keys::typing(&ev) || taken || !ready.get_untracked() || lesson.with_untracked(Option::is_none) {
            return;
        }
        // Space steps on too, unless it presses a control.
        match ev.key().as_str() {
            "ArrowRight" | "PageDown" => next(),
            " " if !super::keys::presses_a_control(&ev) => {
                ev.prevent_default();
                next()
            }
            "ArrowLeft" | "PageUp" => previous(),
            _ => {}
        }
    });
    on_cleanup(move || keys.remove());

    // The lesson, its question, results and teaching view full screen, as a class sees them.
    let present = move || {
        if let Some(main) = document().get_element_by_id("main") {
            let _ = main.request_fullscreen();
        }
    };
    let shown_step = move || {
        let at = step.get()?;
        lesson.with(|l| l.as_ref().and_then(|l| l.steps.get(at).cloned())).map(|s| (at, s))
    };
    move || {
        lesson.get().map(|current| {
            view! {
                <section id="lesson" aria-labelledby="lesson-title">
                    <h3 id="lesson-title">{format!("Lesson: {}", current.title)}</h3>
                    {move || match shown_step() {
                        None => view! { <p id="lesson-step">{format!("{} steps; Start, then → and ← to move between them.", count())}</p> }.into_any(),
                        Some((at, shown)) => view! {
                            <p id="lesson-step" data-step=(at + 1).to_string()>{format!("Step {} of {}: {}", at + 1, count(), shown.question)}</p>
                            {(!shown.note.is_empty()).then(|| view! { <p class="note">{shown.note.clone()}</p> })}
                        }.into_any(),
                    }}
                    <button type="button" id="lesson-previous" on:click=move |_| previous()
                        disabled=move || !ready.get() || step.get().is_none_or(|s| s == 0)>"← Previous"</button>
                    <button type="button" id="lesson-present" on:click=move |_| present()
                        title="Full screen: → or space for the next step, ← for the previous, Esc leaves">"Present"</button>
                    <button type="button" id="lesson-next" on:click=move |_| next()
                        disabled=move || !ready.get() || step.get().is_some_and(|s| s + 1 >= count())>
                        {move || if step.get().is_none() { "Start" } else { "Next →" }}
                    </button>
                    {move || {
                        // The results shown answer this step's question, not one asked before it.
                        let asked = shown_step().map(|(_, s)| s.question)?;
                        (search.answered.get() == asked).then(|| search.answer.get()).flatten().map(|a| comparison(&a.trace))
                    }}
                </section>
            }
        })
    }
}

/// Each compared retriever's first results, and the fused list, in columns.
fn comparison(trace: &Trace) -> impl IntoView + use<> {
    let columns = columns(trace);
    view! {
        <table id="lesson-comparison">
            <thead><tr>{columns.iter().map(|(name, _)| view! { <th>{name.clone()}</th> }).collect_view()}</tr></thead>
            <tbody>
                {(0..COLUMN_ROWS).map(|row| view! {
                    <tr>{columns.iter().map(|(_, labels)| view! { <td>{labels.get(row).cloned().unwrap_or_default()}</td> }).collect_view()}</tr>
                }).collect_view()}
            </tbody>
        </table>
    }
}
