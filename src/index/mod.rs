//! Search indexes: exact flat and HNSW vector search over int8-quantised embeddings behind one type, and
//! Okapi BM25 over chunk text, each text analysed in its own language ([`crate::analyzer`]), vectors as 4-bit
//! codes (a site's centroids, the query table's rows), the query table
//! that turns a question's terms into a vector without the model, and the excerpts a result shows of what it
//! matched.

pub mod bm25;
pub mod excerpt;
mod hits;
pub mod nibbles;
pub mod query_table;
pub mod vectors;

pub use bm25::Bm25Index;
pub use hits::{Hit, top_k};
pub use query_table::QueryTable;
pub use vectors::{HnswParams, QuantizedVectors, VectorIndex, VectorIndexKind};
