//! Ingest and structure: files in any supported format become [`Document`]s (normalised text with block
//! and link spans), and a set of documents becomes a [`Corpus`]: the section tree, token-bounded chunks,
//! entities, mentions and relations that the knowledge graph is made of.

mod build;
pub mod chunking;
pub mod containment;
pub mod copies;
pub mod document;
mod docx;
mod encoding;
mod entities;
mod epub;
mod failure;
mod html;
mod ingest;
mod jsonl;
mod markdown;
mod odt;
mod package;
pub mod path;
pub mod pdf;
mod site_titles;
mod source;
mod summary;
mod table;
mod text;
mod token_counter;
mod types;

pub use chunking::TokenCounter;
pub use document::{Document, Format, Span};
pub use entities::Gazetteer;
pub use failure::{IngestError, IngestFailure, Malformed};
pub use ingest::{IngestReport, ParsedFile, detect_format, ingest, parse_file};
pub use source::{CorpusSettings, SourceFile};
pub use summary::ReportLine;
pub use types::{
    Chunk, ChunkId, Corpus, DocId, Entity, EntityId, Mention, Relation, RelationSource, RelationType, RelationTypeId,
    Section, SectionId,
};
