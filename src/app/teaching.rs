//! The teaching view: a query's trace drawn as a graph in seed 000's colours (chunks green, sections and
//! positional edges blue, entities and semantic edges red) and stepped through, stage by stage: the question,
//! each retriever's seeds, its expansions, its results, the fusion, the final context. Play, pause and step;
//! pan and zoom (`canvas.rs`), click a node to see what it is. One lane per retriever.
//!
//! Only drawing lives here: the graph and its layout are the engine's (`Trace::graph`, `TraceGraph::layout`).

use std::time::Duration;

use leptos::prelude::*;

use super::canvas::Canvas;
use crate::retrieve::trace::layout::{column, short};
use crate::retrieve::trace::{GraphNode, NodeKind, Stage, TraceGraph};

/// Characters of a node's label drawn beside it; the whole label shows when the node is selected.
const LABEL_CHARS: usize = 28;
const PLAY_STEP: Duration = Duration::from_millis(1200);

fn kind_name(node: &GraphNode) -> &'static str {
    match node.kind {
        None => "question",
        Some(NodeKind::Chunk) => "chunk",
        Some(NodeKind::Section) => "section",
        Some(NodeKind::Page) => "page",
        Some(NodeKind::Entity) => "entity",
        Some(NodeKind::Relation) => "relation",
        Some(NodeKind::Community) => "community",
    }
}

#[component]
pub fn TeachingView(graph: TraceGraph) -> impl IntoView {
    let layout = graph.layout();
    let last = Stage::ALL.len() - 1;
    // The whole answer first; Play and the step buttons walk through it from the question on.
    let stage = RwSignal::new(last);
    let playing = RwSignal::new(false);
    let selected = RwSignal::new(None::<usize>);
    let view_box = RwSignal::new((0.0, 0.0, layout.width, layout.height));
    let timer = StoredValue::new(None::<IntervalHandle>);

    let stop = move || {
        playing.set(false);
        if let Some(handle) = timer.get_value() {
            handle.clear();
        }
        timer.set_value(None);
    };
    let step = move |by: isize| stage.update(|s| *s = s.saturating_add_signed(by).min(last));
    let play = move || {
        if stage.get_untracked() == last {
            stage.set(0);
        }
        playing.set(true);
        let handle = set_interval_with_handle(
            move || {
                if stage.get_untracked() >= last {
                    stop();
                } else {
                    step(1);
                }
            },
            PLAY_STEP,
        );
        timer.set_value(handle.ok());
    };
    on_cleanup(stop);

    let stage_of = move |s: usize| Stage::ALL[s.min(last)];
    let positions = &layout.positions;
    let edges = graph
        .edges
        .iter()
        .map(|edge| {
            let ((x1, y1), (x2, y2)) = (positions[edge.from], positions[edge.to]);
            let shown = edge.stage;
            view! {
                <line class=edge.kind.css_class() class:hidden=move || stage_of(stage.get()) < shown
                    data-stage=format!("{shown:?}").to_lowercase()
                    x1=x1.to_string() y1=y1.to_string() x2=x2.to_string() y2=y2.to_string() />
            }
        })
        .collect_view();
    let nodes = graph
        .nodes
        .iter()
        .enumerate()
        .map(|(index, node)| {
            let (x, y) = positions[index];
            let shown = node.stage;
            view! {
                <g class=node.css_class() class:hidden=move || stage_of(stage.get()) < shown
                    class:selected=move || selected.get() == Some(index)
                    data-stage=format!("{shown:?}").to_lowercase()
                    transform=format!("translate({x} {y})")
                    on:click=move |_| selected.set(Some(index))>
                    <circle r="8" />
                    <text x="12" y="4">{short(&node.label, LABEL_CHARS)}</text>
                </g>
            }
        })
        .collect_view();
    let lane_labels = layout
        .lanes
        .iter()
        .map(|(name, top)| {
            view! { <text class="lane-label" x=(column(Stage::Seeds) - 20.0).to_string() y=(top - 6.0).to_string()>{name.clone()}</text> }
        })
        .collect_view();
    let details = {
        let nodes = graph.nodes.clone();
        let lanes = graph.lanes.clone();
        move || {
            selected.get().and_then(|i| nodes.get(i)).map(|node| {
                let lane = node.lane.and_then(|l| lanes.get(l)).map_or("the fusion", String::as_str);
                let score = if node.kind.is_some() { format!(" · score {:.4}", node.score) } else { String::new() };
                format!("{}: {} · {} · at {}{score}", kind_name(node), node.label, lane, node.stage.name())
            })
        }
    };

    view! {
        <div class="teaching">
            <div class="teaching-controls" role="toolbar" aria-label="Step through the retrieval">
                <button type="button" id="step-back" on:click=move |_| { stop(); step(-1); }
                    disabled=move || stage.get() == 0>"◀ Back"</button>
                <button type="button" id="play" on:click=move |_| if playing.get_untracked() { stop() } else { play() }>
                    {move || if playing.get() { "❚❚ Pause" } else { "▶ Play" }}
                </button>
                <button type="button" id="step-forward" on:click=move |_| { stop(); step(1); }
                    disabled=move || stage.get() == last>"Step ▶"</button>
                <span id="stage" aria-live="polite" data-stage=move || stage.get().to_string()>
                    {move || format!("{} / {}: {}", stage.get() + 1, last + 1, stage_of(stage.get()).name())}
                </span>
            </div>
            <Canvas id="trace-graph" view_box=view_box width=layout.width height=layout.height
                label="The retrieval drawn as a graph: drag to pan, wheel or + and − to zoom, arrow keys to move">
                <g class="lanes">{lane_labels}</g>
                <g class="edges">{edges}</g>
                <g class="nodes">{nodes}</g>
            </Canvas>
            <p id="selected-node" aria-live="polite">{move || details().unwrap_or_else(|| "Click a node to see what it is.".into())}</p>
            <p class="legend">
                <span class="key chunk">"chunk"</span>
                <span class="key section">"section"</span>
                <span class="key entity">"page or entity"</span>
                <span class="key community">"community"</span>
                <span class="key structural">"positional edge"</span>
                <span class="key semantic">"semantic edge"</span>
            </p>
        </div>
    }
}
