//! tract inference against reference vectors from onnxruntime (scripts/reference_embeddings.py), and
//! clear errors for missing or wrong model files.

use crate::common;

use quire::embed::{EmbedError, Embedder, EmbeddingModel, TextEmbedder};

fn cosine(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum::<f32>()
        / (a.iter().map(|x| x * x).sum::<f32>().sqrt() * b.iter().map(|x| x * x).sum::<f32>().sqrt())
}

#[test]
fn tract_matches_onnxruntime() {
    let reference: serde_json::Value = serde_json::from_slice(
        &std::fs::read(common::root().join("tests/fixtures/reference_embeddings.json")).unwrap(),
    )
    .unwrap();
    let sentences: Vec<&str> = reference["sentences"].as_array().unwrap().iter().map(|s| s.as_str().unwrap()).collect();
    let expected: Vec<Vec<f32>> = reference["vectors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_array().unwrap().iter().map(|x| x.as_f64().unwrap() as f32).collect())
        .collect();
    assert!(sentences.len() >= 20);
    // Batched (padded, grouped by length) and one at a time must both match.
    let batched = common::embedder().embed(&sentences).unwrap();
    for (i, sentence) in sentences.iter().enumerate() {
        let single = common::embedder().embed(&[sentence]).unwrap().remove(0);
        assert_eq!(single.len(), 384);
        let norm: f32 = single.iter().map(|x| x * x).sum::<f32>().sqrt();
        assert!((norm - 1.0).abs() < 1e-5);
        for (mode, vector) in [("single", &single), ("batched", &batched[i])] {
            let similarity = cosine(vector, &expected[i]);
            assert!(similarity >= 0.9999, "{mode} sentence {i} ({sentence:.40}): cosine {similarity}");
        }
    }
}

#[test]
fn wrong_or_missing_model_files_are_refused_clearly() {
    let dir = common::model_dir();
    let model = std::fs::read(dir.join("model.onnx")).unwrap();
    let tokenizer = std::fs::read(dir.join("tokenizer.json")).unwrap();
    let mut corrupt = model.clone();
    let middle = corrupt.len() / 2;
    corrupt[middle] ^= 0xff;
    let error = Embedder::from_bytes(EmbeddingModel::MiniLm, &corrupt, &tokenizer).err().unwrap();
    assert!(matches!(error, EmbedError::Mismatch { file: "model.onnx", .. }), "{error}");
    assert!(error.to_string().ends_with("run `bash models/fetch.sh`"));
    let error = Embedder::from_unpinned_bytes(EmbeddingModel::MiniLm, b"not a model", &tokenizer).err().unwrap();
    assert!(error.to_string().starts_with("the model file is not a usable ONNX model"), "{error}");
    let error = Embedder::from_unpinned_bytes(EmbeddingModel::MiniLm, &model, b"{").err().unwrap();
    assert!(error.to_string().starts_with("the tokenizer file is not a valid tokenizer.json"), "{error}");
    let error = Embedder::from_dir(std::path::Path::new("/nonexistent/models"), EmbeddingModel::MiniLm).err().unwrap();
    assert!(
        error.to_string().starts_with("model file /nonexistent/models/model.onnx is missing or unreadable"),
        "{error}"
    );
}

/// The embedder looks embedding rows up before dequantising them (src/embed/lookup.rs): no inference
/// materialises the f32 word table any more, and the model's output does not change by a bit.
#[test]
fn looking_rows_up_before_dequantising_them_changes_no_bit() {
    use quire::embed::read_model;
    use tract_onnx::prelude::*;

    let bytes = std::fs::read(common::model_dir().join("model.onnx")).unwrap();
    let word_table = |model: &TypedModel| {
        model.nodes().iter().any(|node| {
            let fact = model.outlet_fact(node.id.into()).unwrap();
            fact.datum_type == f32::datum_type() && fact.shape.as_concrete() == Some(&[30522, 384][..])
        })
    };
    let output = |rewrite: bool| {
        let model = read_model(&bytes, rewrite).unwrap().into_optimized().unwrap();
        let table = word_table(&model);
        let ids = tract_ndarray::Array2::from_shape_fn((2, 12), |(row, i)| (101 + row * 977 + i * 2311) as i64 % 30522);
        let inputs = tvec!(
            Tensor::from(ids).into(),
            Tensor::from(tract_ndarray::Array2::from_elem((2, 12), 1i64)).into(),
            Tensor::from(tract_ndarray::Array2::from_elem((2, 12), 0i64)).into()
        );
        let outputs = model.into_runnable().unwrap().run(inputs).unwrap();
        let bits: Vec<u32> = outputs[0].to_plain_array_view::<f32>().unwrap().iter().map(|x| x.to_bits()).collect();
        (table, bits)
    };
    let (table_before, before) = output(false);
    let (table_after, after) = output(true);
    assert!(table_before, "the model as shipped dequantises the whole word table");
    assert!(!table_after, "the word table is still dequantised whole");
    assert_eq!(before.len(), 2 * 12 * 384);
    assert!(before == after, "outputs differ");
}
