//! The embedder: `tokenizers` WordPiece, `tract-onnx` inference, mean pooling over the attention mask, L2
//! normalisation.

use tokenizers::{Tokenizer, TruncationParams};
use tract_onnx::prelude::*;

use super::plans::{PER_SHAPE, Plans, padded_length};
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
use super::wasm_kernel;
use super::{
    DIMENSION, EmbedError, MAX_TOKENS, MODEL_BLAKE3, MODEL_FILE, MODEL_NAME, ModelIdentity, TOKENIZER_BLAKE3,
    TOKENIZER_FILE, TextEmbedder, blake3_hex, lookup, normalize,
};
use crate::corpus::TokenCounter;

/// Sequences per inference call; texts are grouped by length first so padding stays small.
const BATCH_SIZE: usize = 16;
const INPUTS: [&str; 3] = ["input_ids", "attention_mask", "token_type_ids"];

pub struct MiniLmEmbedder {
    plans: Plans,
    /// Position of each of [`INPUTS`] among the model's inputs.
    input_order: [usize; 3],
    truncating: Tokenizer,
    counting: Tokenizer,
    identity: ModelIdentity,
    /// Word pieces of every text embedded so far, special tokens included and padding not: the work the
    /// texts asked for, so that a rate in word pieces a second compares texts of any length.
    pieces_embedded: std::sync::atomic::AtomicUsize,
}

/// The ONNX model in `bytes`, typed; `dequantise_rows` looks up embedding rows before dequantising them
/// (the embedder always does: [`lookup`]; the other way is there to check that it changes nothing).
pub fn read_model(bytes: &[u8], dequantise_rows: bool) -> TractResult<TypedModel> {
    let onnx = tract_onnx::onnx();
    let mut proto = onnx.proto_model_for_read(&mut std::io::Cursor::new(bytes))?;
    if let Some(graph) = proto.graph.as_mut().filter(|_| dequantise_rows) {
        lookup::dequantise_after_lookup(graph);
    }
    onnx.model_for_proto_model(&proto)?.into_typed()
}

impl MiniLmEmbedder {
    /// Loads the pinned model; bytes that are not the pinned files are refused.
    pub fn from_bytes(model: &[u8], tokenizer: &[u8]) -> Result<Self, EmbedError> {
        check_pinned(MODEL_FILE, model, MODEL_BLAKE3)?;
        check_pinned(TOKENIZER_FILE, tokenizer, TOKENIZER_BLAKE3)?;
        Self::from_unpinned_bytes(model, tokenizer)
    }

    /// Loads any BERT-style ONNX sentence encoder with 384-dimensional output.
    pub fn from_unpinned_bytes(model: &[u8], tokenizer: &[u8]) -> Result<Self, EmbedError> {
        let counting = Tokenizer::from_bytes(tokenizer).map_err(|e| EmbedError::Tokenizer(e.to_string()))?;
        let mut truncating = counting.clone();
        truncating
            .with_truncation(Some(TruncationParams { max_length: MAX_TOKENS, ..Default::default() }))
            .map_err(|e| EmbedError::Tokenizer(e.to_string()))?;
        truncating.with_padding(None);
        let mut counting = counting;
        counting.with_truncation(None).map_err(|e| EmbedError::Tokenizer(e.to_string()))?;
        counting.with_padding(None);
        let typed = read_model(model, true).map_err(|e| EmbedError::Model(format!("{e:#}")))?;
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        wasm_kernel::keep_registered();
        let input_order = input_order(&typed)?;
        let plans = Plans::new(typed)?;
        // A query's shape, built now: it checks the model, and the first question does not wait for it.
        plans.plan(1, padded_length(1))?;
        let identity = ModelIdentity {
            name: MODEL_NAME.to_string(),
            model_hash: blake3_hex(model),
            tokenizer_hash: blake3_hex(tokenizer),
            dimension: DIMENSION,
            max_tokens: MAX_TOKENS,
        };
        Ok(Self { plans, input_order, truncating, counting, identity, pieces_embedded: Default::default() })
    }

    /// Word pieces of the texts embedded so far.
    pub fn pieces_embedded(&self) -> usize {
        self.pieces_embedded.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Reads `model.onnx` and `tokenizer.json` from a directory.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn from_dir(dir: &std::path::Path) -> Result<Self, EmbedError> {
        let read = |name: &str| {
            let path = dir.join(name);
            std::fs::read(&path)
                .map_err(|e| EmbedError::MissingFile { path: path.display().to_string(), reason: e.to_string() })
        };
        Self::from_bytes(&read(MODEL_FILE)?, &read(TOKENIZER_FILE)?)
    }

    /// The word-piece ids the model is given for `text`: what another runtime needs to compute the same
    /// embedding (the browser benchmark feeds them to onnxruntime-web).
    #[cfg(feature = "bench")]
    pub fn token_ids(&self, text: &str) -> Result<Vec<u32>, EmbedError> {
        Ok(self.encode(text)?.get_ids().to_vec())
    }

    fn encode(&self, text: &str) -> Result<tokenizers::Encoding, EmbedError> {
        self.truncating.encode(text, true).map_err(|e| EmbedError::Tokenizer(e.to_string()))
    }

    fn run_batch(&self, encodings: &[tokenizers::Encoding]) -> Result<Vec<Vec<f32>>, EmbedError> {
        let batch = encodings.len();
        let length = padded_length(encodings.iter().map(|e| e.get_ids().len()).max().unwrap_or(1).max(1));
        let mut columns = [vec![0i64; batch * length], vec![0i64; batch * length], vec![0i64; batch * length]];
        for (row, encoding) in encodings.iter().enumerate() {
            let offset = row * length;
            for (i, ((&id, &mask), &kind)) in
                encoding.get_ids().iter().zip(encoding.get_attention_mask()).zip(encoding.get_type_ids()).enumerate()
            {
                columns[0][offset + i] = id as i64;
                columns[1][offset + i] = mask as i64;
                columns[2][offset + i] = kind as i64;
            }
        }
        let mut inputs: Vec<Option<TValue>> = vec![None, None, None];
        for (column, &slot) in columns.into_iter().zip(&self.input_order) {
            let tensor = tract_ndarray::Array2::from_shape_vec((batch, length), column)
                .map_err(|e| EmbedError::Inference(e.to_string()))?;
            inputs[slot] = Some(Tensor::from(tensor).into());
        }
        let inputs: TVec<TValue> = inputs.into_iter().flatten().collect();
        let outputs =
            self.plans.plan(batch, length)?.run(inputs).map_err(|e| EmbedError::Inference(format!("{e:#}")))?;
        let hidden = outputs[0].to_plain_array_view::<f32>().map_err(|e| EmbedError::Inference(e.to_string()))?;
        let hidden =
            hidden.into_dimensionality::<tract_ndarray::Ix3>().map_err(|e| EmbedError::Inference(e.to_string()))?;
        Ok(encodings
            .iter()
            .enumerate()
            .map(|(row, encoding)| {
                mean_pool_normalized(hidden.index_axis(tract_ndarray::Axis(0), row), encoding.get_attention_mask())
            })
            .collect())
    }
}

fn check_pinned(file: &'static str, bytes: &[u8], expected: &str) -> Result<(), EmbedError> {
    let actual = blake3_hex(bytes);
    if actual == expected { Ok(()) } else { Err(EmbedError::Mismatch { file, actual, expected: expected.to_string() }) }
}

fn input_order(model: &TypedModel) -> Result<[usize; 3], EmbedError> {
    let names: Vec<&str> =
        model.input_outlets().unwrap_or(&[]).iter().map(|o| model.node(o.node).name.as_str()).collect();
    let mut order = [0usize; 3];
    for (slot, wanted) in order.iter_mut().zip(INPUTS) {
        *slot = names.iter().position(|n| *n == wanted).ok_or_else(|| EmbedError::MissingInput(wanted.to_string()))?;
    }
    Ok(order)
}

/// Mean of the token vectors where the mask is 1, scaled to unit length.
fn mean_pool_normalized(hidden: tract_ndarray::ArrayView2<f32>, mask: &[u32]) -> Vec<f32> {
    let mut pooled = vec![0f32; hidden.shape()[1]];
    let mut count = 0f32;
    for (token, &m) in hidden.outer_iter().zip(mask) {
        if m == 1 {
            count += 1.0;
            pooled.iter_mut().zip(token.iter()).for_each(|(p, v)| *p += v);
        }
    }
    let count = count.max(1e-9);
    pooled.iter_mut().for_each(|p| *p /= count);
    normalize(&mut pooled);
    pooled
}

impl TextEmbedder for MiniLmEmbedder {
    fn identity(&self) -> &ModelIdentity {
        &self.identity
    }

    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        let encodings = texts.iter().map(|t| self.encode(t)).collect::<Result<Vec<_>, _>>()?;
        let pieces = encodings.iter().map(|e| e.get_ids().len()).sum();
        self.pieces_embedded.fetch_add(pieces, std::sync::atomic::Ordering::Relaxed);
        let mut order: Vec<usize> = (0..texts.len()).collect();
        order.sort_by_key(|&i| encodings[i].get_ids().len());
        let mut vectors = vec![Vec::new(); texts.len()];
        // Plans per shape exist for full batches and single sequences (plans.rs): there the rest of a list goes
        // one by one; the one symbolic plan takes any batch.
        for group in order.chunks(BATCH_SIZE) {
            let batches: Vec<&[usize]> =
                if group.len() == BATCH_SIZE || !PER_SHAPE { vec![group] } else { group.chunks(1).collect() };
            for batch in batches {
                let encoded: Vec<tokenizers::Encoding> = batch.iter().map(|&i| encodings[i].clone()).collect();
                for (&i, vector) in batch.iter().zip(self.run_batch(&encoded)?) {
                    vectors[i] = vector;
                }
            }
        }
        Ok(vectors)
    }
}

impl TokenCounter for MiniLmEmbedder {
    fn count_tokens(&self, text: &str) -> usize {
        self.counting
            .encode(text, false)
            .map(|e| e.get_ids().len())
            .unwrap_or_else(|_| text.split_whitespace().count() * 2)
    }

    fn token_spans(&self, text: &str) -> Option<Vec<(usize, usize)>> {
        self.counting.encode(text, false).ok().map(|encoding| encoding.get_offsets().to_vec())
    }
}
