//! The teaching view: a query's trace drawn as a graph in seed 000's colours (chunks green, sections and
//! positional edges blue, entities and semantic edges red) and walked through step by step (`trace::tour`):
//! the question, each retriever's seeds, expansions and results, the fusion, the final context, each with
//! a caption in plain words. Each step frames the nodes it brings at a size a projector reads (labels at
//! least [`LEGIBLE_PX`] high), panning rather than shrinking; Present shows it full screen, stepped with the
//! arrow keys and space. Play, pause and step; pan and zoom (`canvas.rs`), click a node to see what it is.
//!
//! Only drawing lives here: the graph, its layout and its tour are the engine's (`Trace::graph`,
//! `TraceGraph::layout`, `tour::tour`).

use std::time::Duration;

use leptos::prelude::*;

use super::canvas::{Canvas, ViewBox};
use crate::retrieve::trace::layout::{COLUMN_WIDTH, Layout, ROW_HEIGHT, column, short};
use crate::retrieve::trace::tour::{appearances, tour};
use crate::retrieve::trace::{GraphNode, NodeKind, Stage, Trace, TraceGraph};

/// Characters of a node's label drawn beside it; the whole label shows when the node is selected.
const LABEL_CHARS: usize = 28;
const PLAY_STEP: Duration = Duration::from_millis(1800);
/// A label's font size in the drawing's units (style.css: `.graph-canvas .node text`).
const LABEL_UNITS: f64 = 11.0;
/// The smallest a label may be drawn at a step's framing, in CSS pixels: readable from the back of a room.
pub const LEGIBLE_PX: f64 = 14.5;
/// The largest framing, so a step of one node is not drawn huge.
const MOST_PX_PER_UNIT: f64 = 2.2;
/// Room for a label beside its node, in the drawing's units.
const LABEL_UNITS_WIDE: f64 = 220.0;

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

/// The part of the drawing a step shows on an SVG of `size` CSS pixels: its nodes and the column before
/// them (where their edges come from), as large as fits, never smaller than [`LEGIBLE_PX`] labels; a step
/// taller than that shows its top, and the view pans to the rest.
fn framing(layout: &Layout, nodes: &[usize], size: (f64, f64)) -> ViewBox {
    let points: Vec<(f64, f64)> = nodes.iter().map(|&n| layout.positions[n]).collect();
    let (left, right) = points.iter().fold((f64::MAX, f64::MIN), |(l, r), &(x, _)| (l.min(x), r.max(x)));
    let (top, bottom) = points.iter().fold((f64::MAX, f64::MIN), |(t, b), &(_, y)| (t.min(y), b.max(y)));
    let (left, top) = if points.is_empty() { (0.0, 0.0) } else { (left - COLUMN_WIDTH * 0.75, top - ROW_HEIGHT) };
    let (right, bottom) =
        if points.is_empty() { (layout.width, layout.height) } else { (right + LABEL_UNITS_WIDE, bottom + ROW_HEIGHT) };
    let (width, height) = ((right - left).max(1.0), (bottom - top).max(1.0));
    let (px_wide, px_high) = (size.0.max(1.0), size.1.max(1.0));
    let scale = (px_wide / width).min(px_high / height).clamp(LEGIBLE_PX / LABEL_UNITS, MOST_PX_PER_UNIT);
    let (shown_wide, shown_high) = (px_wide / scale, px_high / scale);
    let x = (left + right) / 2.0 - shown_wide / 2.0;
    let y = if shown_high >= height { (top + bottom) / 2.0 - shown_high / 2.0 } else { top };
    (x, y, shown_wide, shown_high)
}

#[component]
pub fn TeachingView(graph: TraceGraph, trace: Trace) -> impl IntoView {
    let layout = graph.layout();
    let steps = tour(&trace, &graph);
    let (node_steps, edge_steps) = appearances(&steps, &graph);
    let last = steps.len() - 1;
    // The whole answer first; Play and the step buttons walk through it from the question on.
    let step = RwSignal::new(last);
    let playing = RwSignal::new(false);
    let selected = RwSignal::new(None::<usize>);
    let view_box = RwSignal::new((0.0, 0.0, layout.width, layout.height));
    let size = RwSignal::new((0.0, 0.0));
    let timer = StoredValue::new(None::<IntervalHandle>);
    let steps = StoredValue::new(steps);
    let at = move |s: usize| steps.with_value(|steps| steps[s.min(last)].clone());

    let stop = move || {
        playing.set(false);
        if let Some(handle) = timer.get_value() {
            handle.clear();
        }
        timer.set_value(None);
    };
    let go = move |by: isize| step.update(|s| *s = s.saturating_add_signed(by).min(last));
    let play = move || {
        if step.get_untracked() == last {
            step.set(0);
        }
        playing.set(true);
        let handle = set_interval_with_handle(
            move || {
                if step.get_untracked() >= last {
                    stop();
                } else {
                    go(1);
                }
            },
            PLAY_STEP,
        );
        timer.set_value(handle.ok());
    };
    on_cleanup(stop);

    // Each step, and each change of the drawing's size (opened, resized, full screen), frames the step's nodes.
    let framed = {
        let (layout, node_steps) = (StoredValue::new(layout.clone()), StoredValue::new(node_steps.clone()));
        Signal::derive(move || {
            let shown = step.get();
            let nodes: Vec<usize> = node_steps.with_value(|n| (0..n.len()).filter(|&i| n[i] == shown).collect());
            layout.with_value(|layout| framing(layout, &nodes, size.get()))
        })
    };
    Effect::new(move |_| {
        if size.get().0 > 0.0 {
            view_box.set(framed.get());
        }
    });

    let positions = &layout.positions;
    let edges = graph
        .edges
        .iter()
        .zip(&edge_steps)
        .map(|(edge, &shown)| {
            let ((x1, y1), (x2, y2)) = (positions[edge.from], positions[edge.to]);
            view! {
                <line class=edge.kind.css_class() class:hidden=move || step.get() < shown
                    data-stage=format!("{:?}", edge.stage).to_lowercase()
                    x1=x1.to_string() y1=y1.to_string() x2=x2.to_string() y2=y2.to_string() />
            }
        })
        .collect_view();
    let nodes = graph
        .nodes
        .iter()
        .zip(&node_steps)
        .enumerate()
        .map(|(index, (node, &shown))| {
            let (x, y) = positions[index];
            view! {
                <g class=node.css_class() class:hidden=move || step.get() < shown
                    class:current=move || step.get() == shown
                    class:selected=move || selected.get() == Some(index)
                    data-stage=format!("{:?}", node.stage).to_lowercase()
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
    let container = NodeRef::<leptos::html::Div>::new();
    let present = move || {
        if let Some(element) = container.get_untracked() {
            let _ = element.request_fullscreen();
            let _ = element.focus();
        }
    };
    // Presenting (or with the focus in the view): → and space step on, ← steps back, Home and End jump. The
    // drawing's own arrow keys pan it; a key it took is not a step.
    let on_key = move |event: web_sys::KeyboardEvent| {
        if event.default_prevented() || super::keys::modified(&event) {
            return;
        }
        match event.key().as_str() {
            "ArrowRight" | "PageDown" => go(1),
            // Space on one of the view's buttons presses it.
            " " if !super::keys::presses_a_control(&event) => go(1),
            "ArrowLeft" | "PageUp" => go(-1),
            "Home" => step.set(0),
            "End" => step.set(last),
            _ => return,
        }
        stop();
        event.prevent_default();
        // The lesson's keys (on the window) would take it as a step of the lesson too.
        event.stop_propagation();
    };

    view! {
        <div class="teaching" node_ref=container tabindex="-1" on:keydown=on_key>
            <div class="teaching-controls" role="toolbar" aria-label="Step through the retrieval">
                <button type="button" id="step-back" on:click=move |_| { stop(); go(-1); }
                    disabled=move || step.get() == 0>"◀ Back"</button>
                <button type="button" id="play" on:click=move |_| if playing.get_untracked() { stop() } else { play() }>
                    {move || if playing.get() { "❚❚ Pause" } else { "▶ Play" }}
                </button>
                <button type="button" id="step-forward" on:click=move |_| { stop(); go(1); }
                    disabled=move || step.get() == last>"Step ▶"</button>
                <button type="button" id="present" on:click=move |_| present()
                    title="Full screen: → or space steps on, ← back, Esc leaves">"Present"</button>
                <span id="stage" data-stage=move || step.get().to_string()>
                    {move || format!("{} / {}: {}", step.get() + 1, last + 1, at(step.get()).title)}
                </span>
            </div>
            <p id="caption" class="caption" aria-live="polite">{move || at(step.get()).caption}</p>
            <Canvas id="trace-graph" view_box=view_box width=layout.width height=layout.height size=size fitted=framed
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
