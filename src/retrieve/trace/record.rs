//! What the trace records of one question: the nodes each retriever started from, its steps, the chunks it
//! produced, the fusion's rows, and the readable form of it all.

use std::fmt::Write;

use serde::{Deserialize, Serialize};

use crate::corpus::Corpus;
use crate::retrieve::scored::ScoredChunk;

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

    /// The nodes it names.
    pub fn nodes(&self) -> Vec<&TraceNode> {
        match self {
            Step::Seeds { nodes, .. } | Step::Keep { nodes, .. } => nodes.iter().collect(),
            Step::Expand { from, to, .. } => vec![from, to],
            Step::Llm { .. } => Vec::new(),
        }
    }

    /// The nodes it names, to relabel.
    pub fn nodes_mut(&mut self) -> Vec<&mut TraceNode> {
        match self {
            Step::Seeds { nodes, .. } | Step::Keep { nodes, .. } => nodes.iter_mut().collect(),
            Step::Expand { from, to, .. } => vec![from, to],
            Step::Llm { .. } => Vec::new(),
        }
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
    /// The first `k` of `chunks`, each named by `label`.
    pub fn list(label: &dyn Fn(u32) -> String, chunks: &[ScoredChunk], k: usize) -> Vec<TracedChunk> {
        chunks
            .iter()
            .take(k)
            .enumerate()
            .map(|(i, hit)| TracedChunk { chunk: hit.chunk, label: label(hit.chunk), score: hit.score, rank: i + 1 })
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
