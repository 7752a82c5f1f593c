//! The indexed corpus: documents, their structure and graph, embeddings of every node text, the chunk
//! vector index and BM25, the query table, and the model identity and settings that produced them. Owns how it is assembled
//! (embedding only texts not already embedded, so adding or removing documents re-embeds only what
//! changed) and how it is saved to and loaded from one snapshot file.

mod builder;
pub mod fragments;
mod indexed;
pub mod pipeline;
pub mod published;
mod settings_check;
mod snapshot;
mod table_queries;
mod workspace;

pub use builder::{IndexBuilder, node_texts};
pub use indexed::{CorpusSummary, EmbeddingStore, IndexSettings, IndexedCorpus, ModelMismatch, NodeRows, Vectors};
pub use snapshot::{FORMAT_VERSION, MAGIC, PIECE_BYTES, SnapshotError, SnapshotSink};
pub use table_queries::{NoQueryTable, TableQueries};
pub use workspace::{
    ChunkView, DocumentOutline, OutlineChunk, OutlineSection, UpdateError, merge_documents, names_of_source,
    plan_index, plan_update,
};
