//! A question's vector without the model: the query table, one row per BM25 term of the index, trained at
//! indexing so that the idf-weighted mean of a chunk's terms' rows reproduces that chunk's vector
//! (`training`). A question's vector is then the idf-weighted mean of its terms' rows, compared with the
//! chunks' vectors as the model's would be: a static query encoder trained into the model's document space,
//! as Qdrant's Constella Zero and LightRetriever (arXiv 2505.12260) train one. It reads no model and no word
//! pieces, only the terms BM25 already analyses in every language of the index, so any engine that answers
//! by words (the page's, a site's fragments) can answer by meaning with it. What it gives up against the
//! model is measured in docs/QUALITY.md ("Meaning without the model").

use serde::{Deserialize, Serialize};

use super::bm25::Bm25Index;
use super::nibbles::NibbleVectors;
use super::vectors::QuantizedVectors;
use crate::embed::normalize;
use crate::error::Inconsistent;

mod training;

pub use training::TableTraining;

/// The rows of every term of an index's BM25, by term id, as 4-bit codes with a scale each: an index has
/// about three terms for every chunk, and int8 rows weighed three times its chunk vectors at no gain in
/// quality (docs/EXPERIMENTS.md, "The query table's training").
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct QueryTable {
    rows: NibbleVectors,
}

impl QueryTable {
    /// The table of `bm25`'s terms trained toward the chunks' vectors: chunk `c`'s vector is row
    /// `chunk_rows[c]` of `vectors`.
    pub fn train(bm25: &Bm25Index, vectors: &QuantizedVectors, chunk_rows: &[u32], training: TableTraining) -> Self {
        let trained = training::solve(bm25, vectors, chunk_rows, training);
        let mut rows = NibbleVectors::new(vectors.dimension());
        trained.chunks_exact(vectors.dimension().max(1)).for_each(|row| rows.push(row));
        QueryTable { rows }
    }

    /// A question's unit vector from its distinct terms ([`super::bm25::query_terms`]), or `None` when
    /// no term of it is in the index: such a question has no meaning the table knows.
    pub fn query_vector(&self, bm25: &Bm25Index, terms: &[String]) -> Option<Vec<f32>> {
        // Every term id has a row: `check` holds a decoded table to it, and training makes one per term.
        let rows = terms.iter().filter_map(|term| bm25.term_id(term));
        mean_of_rows(self.rows.dimension(), rows.map(|id| (&self.rows, id, bm25.idf(bm25.postings_of_id(id).len()))))
    }

    /// The rows, by term id.
    pub fn rows(&self) -> &NibbleVectors {
        &self.rows
    }

    /// How many terms have a row.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    pub fn bytes(&self) -> usize {
        self.rows.bytes()
    }

    /// Whether a decoded table has one row for each of `terms` terms, of `dimension` dimensions.
    pub fn check(&self, terms: usize, dimension: usize) -> Result<(), Inconsistent> {
        self.rows.check()?;
        if self.rows.len() != terms || self.rows.dimension() != dimension {
            return Err(format!(
                "a query table of {} rows of {} dimensions for {terms} terms of {dimension}",
                self.rows.len(),
                self.rows.dimension()
            )
            .into());
        }
        Ok(())
    }
}

/// The unit vector of the weighted sum of `rows` (each a store, a row of it and the row's weight, the
/// term's idf), added in the order they come; `None` when there is none. Whatever holds the rows (the whole
/// table, a site's term buckets), the same terms in the same order give the same vector, to the bit.
pub fn mean_of_rows<'a>(
    dimension: usize,
    rows: impl IntoIterator<Item = (&'a NibbleVectors, u32, f32)>,
) -> Option<Vec<f32>> {
    let mut vector = vec![0.0; dimension];
    let mut found = false;
    for (store, row, weight) in rows {
        store.add_scaled(row, weight, &mut vector);
        found = true;
    }
    found.then(|| {
        normalize(&mut vector);
        vector
    })
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::index::bm25::{Bm25Params, query_terms};
    use crate::language::Language;

    pub(super) const TEXTS: [&str; 4] = [
        "The Moon orbits the Earth every month.",
        "Mars has two small moons, Phobos and Deimos.",
        "The Sun is a star at the centre of the Solar System.",
        "Jupiter is the largest planet of the Solar System.",
    ];

    /// Four texts, each chunk's vector an axis of its own.
    pub(super) fn planets() -> (Bm25Index, QuantizedVectors) {
        let bm25 = Bm25Index::build(TEXTS.map(|text| (text, Language::English)), Bm25Params::default());
        let mut vectors = QuantizedVectors::new(8);
        for chunk in 0..TEXTS.len() {
            let mut axis = vec![0.0; 8];
            axis[chunk] = 1.0;
            vectors.push(&axis).unwrap();
        }
        (bm25, vectors)
    }

    /// A question in a chunk's words points at that chunk's vector, and a question of words the index does not
    /// hold has no vector.
    #[test]
    fn a_question_points_at_the_chunk_its_words_come_from() {
        let (bm25, vectors) = planets();
        let table = QueryTable::train(&bm25, &vectors, &[0, 1, 2, 3], TableTraining::default());
        assert_eq!(table.len(), bm25.term_count());
        table.check(bm25.term_count(), 8).unwrap();
        let nearest = |question: &str| {
            let vector = table.query_vector(&bm25, &query_terms(question, &[Language::English])).unwrap();
            (0..4).max_by(|&a, &b| vectors.dot(&vector, a).total_cmp(&vectors.dot(&vector, b))).unwrap()
        };
        assert_eq!(nearest("Which planet is the largest?"), 3);
        assert_eq!(nearest("What are the moons of Mars called?"), 1);
        assert_eq!(nearest("Is the Sun a star?"), 2);
        assert_eq!(nearest("How long does the Moon take around the Earth?"), 0);
        assert_eq!(table.query_vector(&bm25, &query_terms("Saturn's rings", &[Language::English])), None);
    }

    /// Decoded tables are held to the index they belong to.
    #[test]
    fn a_table_for_other_terms_is_refused() {
        let (bm25, vectors) = planets();
        let table = QueryTable::train(&bm25, &vectors, &[0, 1, 2, 3], TableTraining::default());
        assert!(table.check(bm25.term_count() + 1, 8).is_err());
        assert!(table.check(bm25.term_count(), 384).is_err());
    }
}
