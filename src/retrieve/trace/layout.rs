//! Where each node of a trace graph is drawn: one column per stage, one band per retriever (as tall as its
//! fullest stage), the question, the fusion and the final context centred in their columns. The teaching
//! view draws from it in the page, and `quire site --lesson` in the handout's pictures, so both show the
//! same drawing.

use std::collections::HashMap;

use super::{EdgeRole, GraphNode, NodeKind, Stage, TraceGraph};

pub const COLUMN_WIDTH: f64 = 250.0;
pub const ROW_HEIGHT: f64 = 28.0;
const LANE_GAP: f64 = 24.0;
const MARGIN: f64 = 30.0;

/// Where each node is drawn, and the drawing's size.
#[derive(Clone, Debug)]
pub struct Layout {
    /// Per node of the graph, in its order.
    pub positions: Vec<(f64, f64)>,
    /// Each lane's name and the y of its band's top.
    pub lanes: Vec<(String, f64)>,
    pub width: f64,
    pub height: f64,
}

/// The x of `stage`'s column.
pub fn column(stage: Stage) -> f64 {
    MARGIN + Stage::ALL.iter().position(|&s| s == stage).unwrap_or(0) as f64 * COLUMN_WIDTH
}

impl TraceGraph {
    /// Lanes are bands stacked top to bottom, as tall as their fullest stage; the question sits in the middle
    /// of the first column, the fusion and the final context are centred in theirs.
    pub fn layout(&self) -> Layout {
        let rows_in =
            |lane: usize, stage: Stage| self.nodes.iter().filter(|n| n.lane == Some(lane) && n.stage == stage).count();
        let mut lanes = Vec::new();
        let mut top = MARGIN;
        for (lane, name) in self.lanes.iter().enumerate() {
            lanes.push((name.clone(), top));
            let rows =
                [Stage::Seeds, Stage::Expansions, Stage::Results].iter().map(|&s| rows_in(lane, s)).max().unwrap_or(0);
            top += rows.max(1) as f64 * ROW_HEIGHT + LANE_GAP;
        }
        let shared_rows = |stage: Stage| self.nodes.iter().filter(|n| n.lane.is_none() && n.stage == stage).count();
        let height = top.max(
            MARGIN * 2.0
                + [Stage::Fusion, Stage::Context].map(shared_rows).into_iter().max().unwrap_or(1) as f64 * ROW_HEIGHT,
        );
        let mut next_row = HashMap::new();
        let positions = self
            .nodes
            .iter()
            .map(|node| {
                let row = next_row.entry((node.lane, node.stage)).or_insert(0usize);
                let y = match node.lane {
                    Some(lane) => lanes[lane].1 + ROW_HEIGHT / 2.0 + *row as f64 * ROW_HEIGHT,
                    None => {
                        let count = shared_rows(node.stage) as f64;
                        height / 2.0 + (*row as f64 - (count - 1.0) / 2.0) * ROW_HEIGHT
                    }
                };
                *row += 1;
                (column(node.stage), y)
            })
            .collect();
        Layout { positions, lanes, width: column(Stage::Context) + COLUMN_WIDTH, height }
    }
}

impl GraphNode {
    /// The drawing's class for it (the stylesheet gives each kind seed 000's colour).
    pub fn css_class(&self) -> &'static str {
        match self.kind {
            None => "node query",
            Some(NodeKind::Chunk) => "node chunk",
            Some(NodeKind::Section) => "node section",
            Some(NodeKind::Page | NodeKind::Entity | NodeKind::Relation) => "node entity",
            Some(NodeKind::Community) => "node community",
        }
    }
}

impl EdgeRole {
    pub fn css_class(self) -> &'static str {
        match self {
            EdgeRole::Structural => "edge structural",
            EdgeRole::Semantic => "edge semantic",
            EdgeRole::Retrieved => "edge retrieved",
            EdgeRole::Fused => "edge fused",
        }
    }
}

/// `label` cut to `chars` characters, an ellipsis marking the cut: what is drawn beside a node.
pub fn short(label: &str, chars: usize) -> String {
    if label.chars().count() <= chars {
        return label.to_string();
    }
    let kept: String = label.chars().take(chars.saturating_sub(1)).collect();
    format!("{kept}…")
}
