//! How a question is asked: the method controls (retrievers, fusion, how many results) and the state they own
//! ([`MethodChoice`]), and the sample questions a demo offers.

use leptos::prelude::*;

use crate::retrieve::{Fusion, Retriever};
use crate::store::published::SampleQuestion;
use crate::web::protocol::MethodSpec;

const DEFAULT_TOP_K: usize = 6;
const TOP_K_RANGE: (usize, usize) = (2, 12);
/// The retrievers chosen when the user first picks a fusion of their own.
const DEFAULT_RETRIEVERS: [Retriever; 3] = [Retriever::Dense, Retriever::Bm25, Retriever::Join];

/// How the chosen retrievers' lists become one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum FusionChoice {
    /// The default method (what a first question runs); it reads its own retrievers.
    Default,
    Rrf,
    Zsum,
    /// Seed 000's network with the shipped weights; it reads its own retrievers.
    Learned,
}

impl FusionChoice {
    const ALL: [(FusionChoice, &'static str, &'static str); 4] = [
        (FusionChoice::Default, "default", "default"),
        (FusionChoice::Zsum, "zsum", "standardised sum"),
        (FusionChoice::Rrf, "rrf", "reciprocal rank"),
        (FusionChoice::Learned, "learned", "learned (experimental)"),
    ];

    /// Why a choice is what it is, shown beside it.
    fn about(self) -> String {
        match self {
            FusionChoice::Default => format!(
                "{}; the best or within 0.01 of the best on every labelled set (docs/QUALITY.md)",
                crate::retrieve::Method::Default.description()
            ),
            FusionChoice::Zsum => {
                "equal-weight sum of the chosen retrievers' scores, standardised per question".to_string()
            }
            FusionChoice::Rrf => "reciprocal-rank fusion (k = 60) of the chosen retrievers".to_string(),
            FusionChoice::Learned => LEARNED_CAVEAT.to_string(),
        }
    }

    /// How the choice is named beside its radio button.
    fn label(self) -> &'static str {
        FusionChoice::ALL.iter().find(|(choice, ..)| *choice == self).map_or("", |(_, _, label)| label)
    }

    /// Whether the choice reads a fixed set of retrievers instead of the chosen ones.
    fn reads_its_own(self) -> bool {
        matches!(self, FusionChoice::Default | FusionChoice::Learned)
    }
}

/// Why learned fusion is marked experimental (issue 28, docs/QUALITY.md): trained on SciFact alone, it is
/// below the default on every labelled set, and models trained on every set's union do no better.
const LEARNED_CAVEAT: &str = "experimental: seed 000's network, trained on SciFact only; it ranks below the \
    default on every labelled set (SciFact, HotpotQA and three real folders), and models trained on all of \
    them together fall below the plain standardised sum on the folders (docs/QUALITY.md)";

/// What the method controls are set to.
#[derive(Clone, Copy)]
pub struct MethodChoice {
    retrievers: RwSignal<Vec<Retriever>>,
    fusion: RwSignal<FusionChoice>,
    top_k: RwSignal<usize>,
}

impl MethodChoice {
    pub fn new() -> Self {
        MethodChoice {
            retrievers: RwSignal::new(DEFAULT_RETRIEVERS.to_vec()),
            fusion: RwSignal::new(FusionChoice::Default),
            top_k: RwSignal::new(DEFAULT_TOP_K),
        }
    }

    /// Sets the controls to compare `retrievers` fused by `fusion` (a lesson's step).
    pub fn compare(self, retrievers: Vec<Retriever>, fusion: Fusion) {
        self.retrievers.set(retrievers);
        self.fusion.set(match fusion {
            Fusion::Rrf => FusionChoice::Rrf,
            Fusion::Zsum => FusionChoice::Zsum,
        });
    }

    /// The engine method the controls describe: one retriever alone, or the chosen ones fused; `None` when
    /// no retriever is chosen.
    pub fn method(self) -> Option<MethodSpec> {
        let fusion = match self.fusion.get_untracked() {
            FusionChoice::Learned => return Some(MethodSpec::Learned),
            FusionChoice::Default => return Some(MethodSpec::Default),
            FusionChoice::Rrf => Fusion::Rrf,
            FusionChoice::Zsum => Fusion::Zsum,
        };
        match self.retrievers.get_untracked().as_slice() {
            [] => None,
            [one] => Some(MethodSpec::Single(*one)),
            many => Some(MethodSpec::Fused { fusion, inputs: many.iter().map(|&r| (r, 1.0)).collect() }),
        }
    }

    pub fn top_k(self) -> usize {
        self.top_k.get_untracked()
    }

    /// The method in use and the number of results, in a few words ("default, 6 results"), tracked.
    pub fn summary(self) -> String {
        let chosen: Vec<&str> = self.retrievers.get().iter().map(|r| r.name()).collect();
        let method = match (self.fusion.get(), chosen.as_slice()) {
            (FusionChoice::Default, _) => "the default".to_string(),
            (FusionChoice::Learned, _) => "learned fusion (experimental)".to_string(),
            (_, []) => "no retriever chosen".to_string(),
            (_, [one]) => format!("{one} alone"),
            (fusion, many) => format!("{} of {}", FusionChoice::label(fusion), many.join(", ")),
        };
        format!("{method}, {} results", self.top_k.get())
    }
}

#[component]
pub fn MethodControls(choice: MethodChoice) -> impl IntoView {
    let MethodChoice { retrievers, fusion, top_k } = choice;
    let fixed = move || fusion.get().reads_its_own();
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
        <fieldset id="retrievers" disabled=fixed>
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
                <label class="toggle" title=choice.about()>
                    <input type="radio" name="fusion" value=key
                        prop:checked=move || fusion.get() == choice
                        on:change=move |_| fusion.set(choice) />
                    {label}
                </label>
            }).collect_view()}
        </fieldset>
        <p class="meta" id="fusion-note">{move || fusion.get().about()}</p>
        <label for="top-k">{move || format!("Results: {}", top_k.get())}</label>
        <input id="top-k" type="range" min=TOP_K_RANGE.0.to_string() max=TOP_K_RANGE.1.to_string() step="1"
            prop:value=move || top_k.get().to_string()
            on:input=move |ev| if let Ok(k) = event_target_value(&ev).parse() { top_k.set(k) } />
    }
}

#[component]
pub fn SampleQuestions(
    samples: RwSignal<Vec<SampleQuestion>>,
    query_text: RwSignal<String>,
    run_query: impl Fn() + Copy + Send + Sync + 'static,
    /// Whether results are shown: the questions fold away beneath the question box, so the first result
    /// shows without scrolling.
    answered: Signal<bool>,
) -> impl IntoView {
    move || {
        let questions = samples.get();
        (!questions.is_empty()).then(|| {
            let summary = format!("Questions to try ({})", questions.len());
            view! {
                <details id="samples" prop:open=move || !answered.get()>
                    <summary>{summary}</summary>
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
