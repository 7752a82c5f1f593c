//! The retrieval trace: what every retriever did for one query (the nodes it started from, each expansion
//! and the relation it followed, what it kept, the chunks it produced), then the fusion's inputs,
//! standardised features and output. Serialisable, so the CLI prints it as JSON and the app's teaching view
//! draws it; [`Trace::render`] is the readable form, and [`graph`] lays it out as the graph the teaching
//! view steps through.

pub mod graph;
pub mod layout;
mod record;
pub mod tour;

pub use graph::{EdgeRole, GraphEdge, GraphNode, Stage, TraceGraph};
pub use record::{FusionRow, FusionTrace, NodeKind, RetrieverTrace, Step, Trace, TraceNode, TracedChunk};
