//! Re-indexing after adding or removing documents embeds only texts that were not embedded before, and
//! gives the same index as building from scratch.

use crate::common;

use std::cell::Cell;

use quire::corpus::{self, CorpusSettings, SourceFile};
use quire::embed::{EmbedError, ModelIdentity, TextEmbedder};
use quire::store::{IndexBuilder, IndexSettings, IndexedCorpus, Vectors, merge_documents, node_texts};

/// The real embedder, counting the texts it is asked for.
struct Counting {
    texts: Cell<usize>,
}

impl TextEmbedder for Counting {
    fn identity(&self) -> &ModelIdentity {
        common::embedder().identity()
    }
    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        self.texts.set(self.texts.get() + texts.len());
        common::embedder().embed(texts)
    }
}

fn build(documents: Vec<corpus::Document>, previous: Option<&IndexedCorpus>, counter: &Counting) -> IndexedCorpus {
    let identity = counter.identity().clone();
    let mut builder =
        IndexBuilder::new(documents, common::embedder(), identity, IndexSettings::default(), previous, Vectors::All);
    builder.embed_all(counter).unwrap();
    builder.finish()
}

fn parse(files: &[SourceFile]) -> Vec<corpus::Document> {
    corpus::ingest(files, &CorpusSettings::default()).documents
}

/// Distinct node texts of `index` that `previous` did not have, by plain set difference of the texts (not
/// through the embedding store's lookup, which is what is under test).
fn new_texts(index: &IndexedCorpus, previous: &IndexedCorpus) -> std::collections::BTreeSet<String> {
    let before: std::collections::BTreeSet<String> = node_texts(previous.corpus()).into_iter().flatten().collect();
    node_texts(index.corpus()).into_iter().flatten().filter(|t| !before.contains(t)).collect()
}

#[test]
fn adding_and_removing_documents_embeds_only_new_texts() {
    let counter = Counting { texts: Cell::new(0) };
    let first = build(parse(&common::demo_files()), None, &counter);
    assert_eq!(counter.texts.get(), first.embeddings().len(), "a fresh build embeds each distinct text once");
    // Relation types are embedded in both directions (`orbits` and `is orbits of`).
    assert!(!first.corpus().relation_types.is_empty());
    for relation_type in &first.corpus().relation_types {
        assert!(first.embeddings().row_of(&relation_type.inverse_text()).is_some(), "{}", relation_type.name);
    }
    assert_eq!(first.rows().inverse_relation_types.len(), first.corpus().relation_types.len());

    let saturn = SourceFile::new(
        "saturn.md",
        "---\ntype: planet\norbits: \"[[Sun]]\"\n---\n# Saturn\n\nSaturn is the sixth planet. Its rings are mostly ice.\n\n## Moons\n\nTitan is larger than the planet Mercury.\n",
    );
    let documents = merge_documents(&first.corpus().documents, parse(&[saturn]), &[]);
    counter.texts.set(0);
    let second = build(documents.clone(), Some(&first), &counter);
    let expected = new_texts(&second, &first);
    assert_eq!(counter.texts.get(), expected.len(), "{expected:?}");
    assert!(expected.contains("Saturn (planet)") && expected.contains("Saturn#Moons"), "{expected:?}");
    assert!(expected.iter().all(|t| t.contains("Saturn") || t.contains("Titan") || !t.contains(' ')), "{expected:?}");
    assert!(expected.len() < 12, "only the new document's texts: {expected:?}");

    let scratch = build(documents, None, &Counting { texts: Cell::new(0) });
    assert_eq!(second.corpus(), scratch.corpus());
    assert_eq!(second.bm25(), scratch.bm25());
    for (a, b) in second.rows().chunks.iter().zip(&scratch.rows().chunks) {
        let (va, vb) = (second.embeddings().vectors().get(*a), scratch.embeddings().vectors().get(*b));
        assert!(va.iter().zip(&vb).all(|(x, y)| (x - y).abs() < 1e-6));
    }

    counter.texts.set(0);
    let without_moon = merge_documents(&second.corpus().documents, Vec::new(), &["moon.md".to_string()]);
    assert_eq!(without_moon.len(), second.corpus().documents.len() - 1);
    let third = build(without_moon, Some(&second), &counter);
    assert_eq!(counter.texts.get(), new_texts(&third, &second).len());
    assert!(counter.texts.get() < 10, "removal re-embeds at most texts whose context changed");
    assert!(!third.corpus().documents.iter().any(|d| d.source == "moon.md"));
}

#[test]
fn a_different_model_invalidates_reuse() {
    let counter = Counting { texts: Cell::new(0) };
    let first = build(parse(&common::demo_files()), None, &counter);
    let mut other = counter.identity().clone();
    other.model_hash = "another model".into();
    let builder = IndexBuilder::new(
        first.corpus().documents.clone(),
        common::embedder(),
        other.clone(),
        IndexSettings::default(),
        Some(&first),
        Vectors::All,
    );
    assert_eq!(builder.reused(), 0);
    assert_eq!(builder.to_embed(), first.embeddings().len());
    assert!(first.check_model(&other).unwrap_err().to_string().contains("re-index the documents"));
}

/// A model whose vectors are not the index's dimension (another encoder behind the same files).
struct WrongDimension;

impl TextEmbedder for WrongDimension {
    fn identity(&self) -> &ModelIdentity {
        common::embedder().identity()
    }
    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        Ok(texts.iter().map(|_| vec![0.1; 768]).collect())
    }
}

#[test]
fn a_model_of_another_dimension_is_a_clear_error() {
    let documents = parse(&common::demo_files());
    let identity = WrongDimension.identity().clone();
    let mut builder = IndexBuilder::new(
        documents.clone(),
        common::embedder(),
        identity.clone(),
        IndexSettings::default(),
        None,
        Vectors::All,
    );
    let error = builder.embed_all(&WrongDimension).unwrap_err();
    assert_eq!(error.to_string(), "the model produced 768-dimensional vectors where the index holds 384 dimensions");
    let mut builder =
        IndexBuilder::new(documents, common::embedder(), identity, IndexSettings::default(), None, Vectors::All);
    assert!(matches!(builder.embed_all_parallel(&WrongDimension, 2, &|_| {}), Err(EmbedError::Dimension { .. })));
}

/// Vectors that follow from the text alone, distinct for distinct texts: where each lands in the store is
/// what is under test, not what the model makes of it.
struct Hashed;

impl TextEmbedder for Hashed {
    fn identity(&self) -> &ModelIdentity {
        common::embedder().identity()
    }
    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        let vector = |text: &str| {
            let seed = blake3::hash(text.as_bytes());
            (0..384).map(|i| seed.as_bytes()[i % 32] as f32 - 127.5 + i as f32 / 384.0).collect()
        };
        Ok(texts.iter().map(|text| vector(text)).collect())
    }
}

#[test]
fn embedding_on_threads_stores_what_one_thread_stores() {
    let documents = parse(&common::demo_files());
    let build = |threads: Option<usize>| {
        let mut builder = IndexBuilder::new(
            documents.clone(),
            common::embedder(),
            Hashed.identity().clone(),
            IndexSettings::default(),
            None,
            Vectors::All,
        );
        match threads {
            Some(threads) => builder.embed_all_parallel(&Hashed, threads, &|_| {}).unwrap(),
            None => builder.embed_all(&Hashed).unwrap(),
        }
        builder.finish().to_snapshot().unwrap()
    };
    let one = build(None);
    assert_eq!(build(Some(2)), one);
    assert_eq!(build(Some(3)), one);
}
