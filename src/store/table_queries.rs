//! Questions turned into vectors by an index's query table instead of the model
//! ([`crate::index::query_table`]): an embedder of questions only, so that `quire eval --query-table`,
//! `quire query --query-table` and an engine without the model ask with the table as they ask with the model.

use crate::embed::{EmbedError, ModelIdentity, TextEmbedder};

use super::IndexedCorpus;

/// The query table of one index, as an embedder of its questions.
pub struct TableQueries<'a> {
    index: &'a IndexedCorpus,
}

/// An index read from a snapshot written before indexing trained a query table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("this index has no query table (its snapshot is older than the table); index its documents again")]
pub struct NoQueryTable;

impl<'a> TableQueries<'a> {
    pub fn of(index: &'a IndexedCorpus) -> Result<Self, NoQueryTable> {
        index.query_table().map(|_| TableQueries { index }).ok_or(NoQueryTable)
    }
}

impl TextEmbedder for TableQueries<'_> {
    fn identity(&self) -> &ModelIdentity {
        self.index.model()
    }

    fn embed(&self, _: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        Err(EmbedError::Inference("the query table turns questions into vectors, not passages".into()))
    }

    /// A question none of whose terms the index holds gets no vector (an empty one): the retrievers that
    /// read vectors pass it by, as they pass by a question asked without the model.
    fn embed_queries(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        Ok(texts.iter().map(|text| self.index.table_vector(text).unwrap_or_default()).collect())
    }
}
