//! The whole corpus as a graph (the engine's `Overview`): pages, sections, entities and chunks in seed 000's
//! colours, positional and semantic edges, laid out by the engine; pan, zoom, and select a node to see what
//! it is or open a chunk in the outline. Drawn when opened and again after every change to the index.

use leptos::prelude::*;
use leptos::task::spawn_local;

use super::canvas::{Canvas, ViewBox, short};
use crate::graph::overview::{Overview, OverviewKind, OverviewNode};
use crate::store::CorpusSummary;
use crate::web::calls::GraphOverview;
use crate::web::client;

/// The most nodes drawn: enough for a few hundred pages with their sections and first chunks, and what the
/// Chromium check measures pan and zoom at.
pub const MAX_NODES: usize = 2000;
const LABEL_CHARS: usize = 32;
/// Section, entity and chunk labels show once the view is this share of the drawing's width or less.
const LABELS_AT: f64 = 0.35;

fn node_class(kind: OverviewKind) -> &'static str {
    match kind {
        OverviewKind::Page => "node entity page",
        OverviewKind::Section => "node section",
        OverviewKind::Entity => "node entity",
        OverviewKind::Chunk => "node chunk",
    }
}

fn radius(kind: OverviewKind) -> &'static str {
    match kind {
        OverviewKind::Page => "9",
        OverviewKind::Section | OverviewKind::Entity => "6",
        OverviewKind::Chunk => "4",
    }
}

#[component]
pub fn CorpusGraph(
    summary: RwSignal<Option<CorpusSummary>>,
    model_loaded: Signal<bool>,
    open_outline: impl Fn(String, u32) + Copy + Send + Sync + 'static,
) -> impl IntoView {
    let open = RwSignal::new(false);
    let drawn = RwSignal::new(None::<Result<Overview, client::Failure>>);
    let drawing = RwSignal::new(false);
    // Every new index (a summary) is drawn again, while the panel is open: an index held by its fragments
    // (`store::fragments`) cannot be laid out, and is drawn once its whole snapshot is shown; and once the
    // model has loaded, when the full engine takes over.
    Effect::new(move || {
        model_loaded.track();
        if summary.with(Option::is_none) || !open.get() {
            return;
        }
        drawing.set(true);
        spawn_local(async move {
            drawn.set(Some(client::call(GraphOverview { max_nodes: MAX_NODES }).await));
            drawing.set(false);
        });
    });
    let on_toggle = move |event: leptos::ev::Event| {
        let details: web_sys::HtmlDetailsElement = event_target(&event);
        open.set(details.open());
    };
    view! {
        <section class="panel" aria-labelledby="graph-heading">
            <details id="corpus-graph" on:toggle=on_toggle>
                <summary><h2 id="graph-heading">"The corpus as a graph"</h2></summary>
                <p id="corpus-graph-status" class="meta" aria-live="polite" data-drawing=move || drawing.get().to_string()>
                    {move || match (drawing.get(), drawn.get()) {
                        (true, _) => "Laying out the graph…".to_string(),
                        (false, Some(Ok(overview))) => format!("{} · {} edges{}", overview.describe(), overview.edges.len(),
                            if overview.describe().contains(" of ") {
                                format!(" (at most {MAX_NODES} nodes are drawn: pages first, then sections, entities, chunks)")
                            } else { String::new() }),
                        (false, Some(Err(failure))) => failure.to_string(),
                        (false, None) => String::new(),
                    }}
                </p>
                {move || drawn.get().and_then(Result::ok).map(|overview| view! { <Drawing overview open_outline /> })}
            </details>
        </section>
    }
}

#[component]
fn Drawing(overview: Overview, open_outline: impl Fn(String, u32) + Copy + Send + Sync + 'static) -> impl IntoView {
    let (width, height) = (overview.width as f64, overview.height as f64);
    let view_box = RwSignal::new((0.0, 0.0, width, height));
    let labelled = move || view_box.with(|&(_, _, w, _): &ViewBox| w <= width * LABELS_AT);
    let selected = RwSignal::new(None::<usize>);
    let nodes = StoredValue::new(overview.nodes);
    let sources = StoredValue::new(overview.sources);

    let edges = overview
        .edges
        .iter()
        .map(|edge| {
            let (from, to) = nodes.with_value(|n| ((n[edge.from as usize].x, n[edge.from as usize].y), (n[edge.to as usize].x, n[edge.to as usize].y)));
            let class = if edge.positional { "edge structural" } else { "edge semantic" };
            view! { <line class=class x1=from.0.to_string() y1=from.1.to_string() x2=to.0.to_string() y2=to.1.to_string() /> }
        })
        .collect_view();
    let drawn_nodes = nodes.with_value(|nodes| {
        nodes
            .iter()
            .enumerate()
            .map(|(index, node)| {
                view! {
                    <g class=node_class(node.kind) data-index=index.to_string() transform=format!("translate({} {})", node.x, node.y)>
                        <circle r=radius(node.kind) />
                        <text x="11" y="4">{short(&node.label, LABEL_CHARS)}</text>
                    </g>
                }
            })
            .collect_view()
    });
    // One listener for every node: thousands of nodes, no per-node closures.
    let on_click = move |event: leptos::ev::MouseEvent| {
        let target: web_sys::Element = event_target(&event);
        let index = target.closest(".node").ok().flatten().and_then(|node| node.get_attribute("data-index"));
        selected.set(index.and_then(|i| i.parse().ok()));
    };
    let ring = move || {
        selected.get().and_then(|i| nodes.with_value(|n| n.get(i).map(|n| (n.x, n.y)))).map(|(x, y)| {
            view! { <circle class="selection-ring" r="15" cx=x.to_string() cy=y.to_string() /> }
        })
    };
    let details = move || {
        let node: OverviewNode = selected.get().and_then(|i| nodes.with_value(|n| n.get(i).cloned()))?;
        let source = node.document.and_then(|d| sources.with_value(|s| s.get(d as usize).cloned()));
        let text = format!(
            "{}: {}{}",
            node.kind.name(),
            node.label,
            source.as_ref().map_or(String::new(), |s| format!(" · {s}"))
        );
        let open_button = (node.kind == OverviewKind::Chunk).then(|| {
            let (source, chunk) = (source.clone().unwrap_or_default(), node.id);
            view! {
                " "
                <button type="button" id="corpus-node-open" on:click=move |_| open_outline(source.clone(), chunk)>
                    "Open in the outline"
                </button>
            }
        });
        Some(view! { {text} {open_button} })
    };

    view! {
        <Canvas id="corpus-graph-drawing" view_box=view_box width=width height=height
            label="The whole corpus drawn as a graph: drag to pan, wheel or + and − to zoom, arrow keys to move">
            <g class="overview" class:labelled=labelled on:click=on_click>
                <g class="edges">{edges}</g>
                <g class="nodes">{drawn_nodes}</g>
                {ring}
            </g>
        </Canvas>
        <p id="corpus-node" aria-live="polite">
            {move || details().map_or_else(|| "Click a node to see what it is.".into_any(), IntoAny::into_any)}
        </p>
        <p class="legend">
            <span class="key entity">"page or entity"</span>
            <span class="key section">"section"</span>
            <span class="key chunk">"chunk"</span>
            <span class="key structural">"positional edge"</span>
            <span class="key semantic">"semantic edge (citation, relation, similarity)"</span>
        </p>
    }
}
