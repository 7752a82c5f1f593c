//! The retrieval trace: what every retriever did for one query (the nodes it started from, each expansion
//! and the relation it followed, what it kept, the chunks it produced), then the fusion's inputs,
//! standardised features and output. Serialisable, so the CLI prints it as JSON and the app's teaching view
//! draws it; [`Trace::render`] is the readable form.

use std::fmt::Write;

use serde::{Deserialize, Serialize};

use super::ScoredChunk;
use crate::corpus::Corpus;

/// Which kind of graph node a trace entry names (seed 000's colour code: chunks green, sections blue,
/// entities and their relations red).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NodeKind {
    Page,
    Section,
    Entity,
    Chunk,
    /// A relation, shown as its statement `{subject} {relation} {object}`.
    Relation,
    /// A community of seed 004's chunk graph.
    Community,
}

/// A node as the trace shows it: kind, id within its kind, readable label, and the score it had.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TraceNode {
    pub kind: NodeKind,
    pub id: u32,
    pub label: String,
    pub score: f32,
}

impl TraceNode {
    pub fn new(corpus: &Corpus, kind: NodeKind, id: u32, score: f32) -> Self {
        let label = match kind {
            NodeKind::Page | NodeKind::Entity => corpus.entities[id as usize].name.clone(),
            NodeKind::Section => corpus.sections[id as usize].uri.clone(),
            NodeKind::Chunk => corpus.chunk_label(id),
            NodeKind::Relation => corpus.relation_statement(id as usize),
            // The chunk graph names its communities (by their best chunk); the corpus alone cannot.
            NodeKind::Community => format!("community {id}"),
        };
        Self { kind, id, label, score }
    }

    /// An entity, shown as a page when it has a document.
    pub fn entity(corpus: &Corpus, id: u32, score: f32) -> Self {
        let kind = if corpus.entities[id as usize].document.is_some() { NodeKind::Page } else { NodeKind::Entity };
        Self::new(corpus, kind, id, score)
    }
}

/// One thing a retriever did.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "step", rename_all = "snake_case")]
pub enum Step {
    /// Nodes the retriever started from, and why these.
    Seeds { note: String, nodes: Vec<TraceNode> },
    /// One expansion along a relation; `score` is what made the retriever take it.
    Expand { from: TraceNode, relation: String, to: TraceNode, score: f32 },
    /// Nodes the retriever kept (a subgraph, a hub's paths, surviving entities), with their joint score.
    Keep { note: String, nodes: Vec<TraceNode>, score: f32 },
    /// A step an LLM took (LLM-assisted retrieval): what it was asked for, and what it answered.
    Llm { asked: String, answered: String },
}

impl Step {
    pub fn seeds(note: impl Into<String>, nodes: Vec<TraceNode>) -> Self {
        Step::Seeds { note: note.into(), nodes }
    }

    pub fn keep(note: impl Into<String>, nodes: Vec<TraceNode>, score: f32) -> Self {
        Step::Keep { note: note.into(), nodes, score }
    }
}

/// A chunk in a ranked list.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TracedChunk {
    pub chunk: u32,
    pub label: String,
    pub score: f32,
    /// 1-based.
    pub rank: usize,
}

impl TracedChunk {
    pub fn list(corpus: &Corpus, chunks: &[ScoredChunk], k: usize) -> Vec<TracedChunk> {
        chunks
            .iter()
            .take(k)
            .enumerate()
            .map(|(i, hit)| TracedChunk {
                chunk: hit.chunk,
                label: corpus.chunk_label(hit.chunk),
                score: hit.score,
                rank: i + 1,
            })
            .collect()
    }
}

/// What one retriever did and produced.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RetrieverTrace {
    pub retriever: String,
    pub weight: f32,
    pub steps: Vec<Step>,
    /// Its best chunks (as many as the query asked for).
    pub chunks: Vec<TracedChunk>,
}

/// One fused candidate: each input's raw score and rank (none where the input missed it), the features the
/// fusion saw (standardised scores, or reciprocal ranks), and the fused score.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FusionRow {
    pub chunk: u32,
    pub label: String,
    pub scores: Vec<Option<f32>>,
    pub ranks: Vec<Option<usize>>,
    pub features: Vec<f32>,
    pub score: f32,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FusionTrace {
    pub fusion: String,
    pub inputs: Vec<String>,
    /// The fused candidates, best first, as many as the query asked for.
    pub rows: Vec<FusionRow>,
}

/// Everything one query did.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Trace {
    pub query: String,
    pub method: String,
    pub retrievers: Vec<RetrieverTrace>,
    pub fusion: Option<FusionTrace>,
    pub results: Vec<TracedChunk>,
}

impl Trace {
    /// The trace as indented text, for `quire query --trace`.
    pub fn render(&self) -> String {
        let mut out = format!("query: {}\nmethod: {}\n", self.query, self.method);
        for retriever in &self.retrievers {
            let _ = writeln!(out, "\n[{}] weight {}", retriever.retriever, retriever.weight);
            for step in &retriever.steps {
                render_step(&mut out, step);
            }
            for chunk in &retriever.chunks {
                let _ = writeln!(out, "  #{:<3} {:.4}  {}", chunk.rank, chunk.score, chunk.label);
            }
        }
        if let Some(fusion) = &self.fusion {
            let _ = writeln!(out, "\n[fusion: {}] inputs {}", fusion.fusion, fusion.inputs.join(", "));
            for row in &fusion.rows {
                let features: Vec<String> = row.features.iter().map(|f| format!("{f:+.2}")).collect();
                let ranks: Vec<String> =
                    row.ranks.iter().map(|r| r.map_or("–".to_string(), |r| format!("#{r}"))).collect();
                let _ = writeln!(
                    out,
                    "  {:.4}  {}\n         ranks {}  features {}",
                    row.score,
                    row.label,
                    ranks.join(" "),
                    features.join(" ")
                );
            }
        }
        let _ = writeln!(out, "\nresults:");
        for chunk in &self.results {
            let _ = writeln!(out, "  #{:<3} {:.4}  {}", chunk.rank, chunk.score, chunk.label);
        }
        out
    }
}

fn render_nodes(nodes: &[TraceNode]) -> String {
    nodes.iter().map(|n| format!("{} ({:.3})", n.label, n.score)).collect::<Vec<_>>().join("; ")
}

fn render_step(out: &mut String, step: &Step) {
    let _ = match step {
        Step::Seeds { note, nodes } => writeln!(out, "  seeds — {note}: {}", render_nodes(nodes)),
        Step::Expand { from, relation, to, score } => {
            writeln!(out, "  expand {} —{relation}→ {} ({score:.3})", from.label, to.label)
        }
        Step::Keep { note, nodes, score } => writeln!(out, "  keep — {note} ({score:.3}): {}", render_nodes(nodes)),
        Step::Llm { asked, answered } => writeln!(out, "  LLM — {asked}: {}", answered.trim()),
    };
}

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
pub enum EdgeKind {
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

impl EdgeKind {
    fn of_relation(relation: &str) -> EdgeKind {
        if STRUCTURAL_RELATIONS.contains(&relation) { EdgeKind::Structural } else { EdgeKind::Semantic }
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
    pub kind: EdgeKind,
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

    fn add_edge(&mut self, from: usize, to: usize, kind: EdgeKind, label: impl Into<String>, stage: Stage) {
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
                                EdgeKind::Retrieved,
                                format!("{:.3}", node.score),
                                Stage::Seeds,
                            );
                        }
                    }
                    Step::Expand { from, relation, to, .. } => {
                        let (from, to) =
                            (traced(&mut graph, from, Stage::Expansions), traced(&mut graph, to, Stage::Expansions));
                        graph.add_edge(from, to, EdgeKind::of_relation(relation), relation.clone(), Stage::Expansions);
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
                for &(kind, _, holder) in holders.iter().filter(|&&(kind, id, _)| holds(corpus, kind, id, chunk.chunk))
                {
                    let relation = if kind == NodeKind::Chunk { "is" } else { "has_chunk" };
                    graph.add_edge(holder, node, EdgeKind::Structural, relation, Stage::Results);
                    held = true;
                }
                if !held {
                    graph.add_edge(question, node, EdgeKind::Retrieved, format!("#{}", chunk.rank), Stage::Results);
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
                            EdgeKind::Fused,
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
            graph.add_edge(from, node, EdgeKind::Fused, format!("#{}", result.rank), Stage::Context);
        }
        graph
    }
}
