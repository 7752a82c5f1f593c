//! The trace as a graph for the teaching view: the question, every retriever's seeds, expansions and
//! results, the fusion and the final context as nodes in [`Stage`]s, and the edges between them coloured by
//! the role they play in the drawing ([`EdgeRole`]).

use serde::{Deserialize, Serialize};

use super::{NodeKind, Step, Trace, TraceNode};
use crate::corpus::Corpus;

/// When a node or an edge of the trace graph appears, in the order the teaching view steps through them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Stage {
    Query,
    Seeds,
    Expansions,
    Results,
    Fusion,
    Context,
}

impl Stage {
    pub const ALL: [Stage; 6] =
        [Stage::Query, Stage::Seeds, Stage::Expansions, Stage::Results, Stage::Fusion, Stage::Context];

    pub fn name(self) -> &'static str {
        match self {
            Stage::Query => "the question",
            Stage::Seeds => "seeds",
            Stage::Expansions => "expansions and what was kept",
            Stage::Results => "each retriever's results",
            Stage::Fusion => "fusion",
            Stage::Context => "final context",
        }
    }
}

/// What an edge of the trace graph stands for. Seed 000 draws positional and containment edges blue and
/// semantic relations red; the app adds neutral edges for what a retriever picked and what fusion took in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EdgeRole {
    /// Structure: a page or section holding a chunk, a section in a page, a chunk next to a chunk.
    Structural,
    /// Meaning: a relation between entities, a mention, a similarity link.
    Semantic,
    /// The question led a retriever to this node.
    Retrieved,
    /// A list's chunk went into the fusion, or the fusion's chunk into the final context.
    Fused,
}

/// Relations that follow the document's layout rather than its meaning.
const STRUCTURAL_RELATIONS: [&str; 7] =
    ["has_chunk", "is_chunk_of", "has_subchapter", "is_subchapter_of", "next", "previous", "contains"];

impl EdgeRole {
    fn of_relation(relation: &str) -> EdgeRole {
        if STRUCTURAL_RELATIONS.contains(&relation) { EdgeRole::Structural } else { EdgeRole::Semantic }
    }
}

/// A node of the trace graph. `kind` is `None` for the question itself; `lane` is the retriever (an index
/// into [`TraceGraph::lanes`]) whose step it belongs to, `None` for the question, fusion and final context.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GraphNode {
    pub kind: Option<NodeKind>,
    pub id: u32,
    pub label: String,
    pub score: f32,
    pub stage: Stage,
    pub lane: Option<usize>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GraphEdge {
    pub from: usize,
    pub to: usize,
    pub kind: EdgeRole,
    pub label: String,
    pub stage: Stage,
}

/// A trace as a graph to draw and step through: the question, each retriever's seeds, expansions and results
/// (one lane per retriever), the fusion and the final context. Nodes and edges come in stage order.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TraceGraph {
    pub lanes: Vec<String>,
    pub nodes: Vec<GraphNode>,
    pub edges: Vec<GraphEdge>,
}

impl TraceGraph {
    fn add_node(
        &mut self,
        kind: Option<NodeKind>,
        id: u32,
        label: &str,
        score: f32,
        stage: Stage,
        lane: Option<usize>,
    ) -> usize {
        self.nodes.push(GraphNode { kind, id, label: label.to_string(), score, stage, lane });
        self.nodes.len() - 1
    }

    fn add_edge(&mut self, from: usize, to: usize, kind: EdgeRole, label: impl Into<String>, stage: Stage) {
        self.edges.push(GraphEdge { from, to, kind, label: label.into(), stage });
    }
}

/// Does the trace node `(kind, id)` hold `chunk` (its page, one of its sections, or the chunk itself)?
fn holds(corpus: &Corpus, kind: NodeKind, id: u32, chunk: u32) -> bool {
    let record = &corpus.chunks[chunk as usize];
    match kind {
        NodeKind::Page | NodeKind::Entity => record.document == id,
        NodeKind::Section => {
            std::iter::successors(record.section, |&s| corpus.sections[s as usize].parent).any(|s| s == id)
        }
        NodeKind::Chunk => id == chunk,
        NodeKind::Relation | NodeKind::Community => false,
    }
}

impl Trace {
    /// The trace as a graph (the app's teaching view draws it). Within a retriever's lane a node appears once,
    /// at the first step that names it; a result chunk hangs off the lane's nodes that hold it (its page, its
    /// section), or off the question when none does.
    pub fn graph(&self, corpus: &Corpus) -> TraceGraph {
        self.graph_holding(&|kind, id, chunk| holds(corpus, kind, id, chunk))
    }

    /// As [`Trace::graph`], with `holds` saying whether a node of a step holds a chunk: for a trace of
    /// retrievers that record no steps (BM25 over an index's fragments), nothing is ever asked.
    pub fn graph_holding(&self, holds: &dyn Fn(NodeKind, u32, u32) -> bool) -> TraceGraph {
        let mut graph =
            TraceGraph { lanes: self.retrievers.iter().map(|r| r.retriever.clone()).collect(), ..Default::default() };
        let question = graph.add_node(None, 0, &self.query, 0.0, Stage::Query, None);
        let mut lane_chunks = Vec::new();
        for (lane, retriever) in self.retrievers.iter().enumerate() {
            let mut seen: std::collections::HashMap<(NodeKind, u32), usize> = std::collections::HashMap::new();
            let mut traced = |graph: &mut TraceGraph, node: &TraceNode, stage: Stage| {
                *seen.entry((node.kind, node.id)).or_insert_with(|| {
                    graph.add_node(Some(node.kind), node.id, &node.label, node.score, stage, Some(lane))
                })
            };
            for step in &retriever.steps {
                match step {
                    Step::Seeds { nodes, .. } => {
                        for node in nodes {
                            let seed = traced(&mut graph, node, Stage::Seeds);
                            graph.add_edge(
                                question,
                                seed,
                                EdgeRole::Retrieved,
                                format!("{:.3}", node.score),
                                Stage::Seeds,
                            );
                        }
                    }
                    Step::Expand { from, relation, to, .. } => {
                        let (from, to) =
                            (traced(&mut graph, from, Stage::Expansions), traced(&mut graph, to, Stage::Expansions));
                        graph.add_edge(from, to, EdgeRole::of_relation(relation), relation.clone(), Stage::Expansions);
                    }
                    Step::Keep { nodes, .. } => {
                        for node in nodes {
                            traced(&mut graph, node, Stage::Expansions);
                        }
                    }
                    // What the LLM chose shows as the seeds and results it led to; its words are in the text trace.
                    Step::Llm { .. } => {}
                }
            }
            let holders: Vec<(NodeKind, u32, usize)> =
                seen.iter().map(|(&(kind, id), &node)| (kind, id, node)).collect();
            let mut chunks = std::collections::HashMap::new();
            for chunk in &retriever.chunks {
                let node = graph.add_node(
                    Some(NodeKind::Chunk),
                    chunk.chunk,
                    &chunk.label,
                    chunk.score,
                    Stage::Results,
                    Some(lane),
                );
                let mut held = false;
                for &(kind, _, holder) in holders.iter().filter(|&&(kind, id, _)| holds(kind, id, chunk.chunk)) {
                    let relation = if kind == NodeKind::Chunk { "is" } else { "has_chunk" };
                    graph.add_edge(holder, node, EdgeRole::Structural, relation, Stage::Results);
                    held = true;
                }
                if !held {
                    graph.add_edge(question, node, EdgeRole::Retrieved, format!("#{}", chunk.rank), Stage::Results);
                }
                chunks.insert(chunk.chunk, node);
            }
            lane_chunks.push(chunks);
        }
        // What the final context is drawn from: the fusion's chunks, or the lone retriever's.
        let mut sources = lane_chunks.first().cloned().unwrap_or_default();
        if let Some(fusion) = &self.fusion {
            sources.clear();
            for row in &fusion.rows {
                let node = graph.add_node(Some(NodeKind::Chunk), row.chunk, &row.label, row.score, Stage::Fusion, None);
                for (lane, chunks) in lane_chunks.iter().enumerate() {
                    let column = fusion.inputs.iter().position(|input| *input == graph.lanes[lane]);
                    let rank = column.and_then(|column| row.ranks.get(column).copied().flatten());
                    if let (Some(&input), Some(rank)) = (chunks.get(&row.chunk), rank) {
                        graph.add_edge(
                            input,
                            node,
                            EdgeRole::Fused,
                            format!("{} #{rank}", graph.lanes[lane]),
                            Stage::Fusion,
                        );
                    }
                }
                sources.insert(row.chunk, node);
            }
        }
        for result in &self.results {
            let node =
                graph.add_node(Some(NodeKind::Chunk), result.chunk, &result.label, result.score, Stage::Context, None);
            let from = sources.get(&result.chunk).copied().unwrap_or(question);
            graph.add_edge(from, node, EdgeRole::Fused, format!("#{}", result.rank), Stage::Context);
        }
        graph
    }
}
