//! The embedder of any model in the catalogue (BERT-style ONNX encoders): `tokenizers` for its word pieces
//! (WordPiece for MiniLM, Unigram for e5), `tract-onnx` inference, mean pooling over the attention mask, L2
//! normalisation, and the model's query and passage prefixes.

use tokenizers::{PostProcessor, Tokenizer, TruncationDirection};
use tract_onnx::prelude::*;

use super::plans::{PER_SHAPE, Plans, padded_length};
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
use super::wasm_kernel;
use super::{EmbedError, EmbeddingModel, ModelIdentity, ModelSpec, TextEmbedder, blake3_hex, lookup, normalize, widen};
use crate::corpus::TokenCounter;

/// Sequences per inference call; texts are grouped by length first so padding stays small.
const BATCH_SIZE: usize = 16;
const INPUTS: [&str; 3] = ["input_ids", "attention_mask", "token_type_ids"];

pub struct Embedder {
    model: EmbeddingModel,
    plans: Plans,
    /// Position of each of [`INPUTS`] among the model's inputs.
    input_order: [usize; 3],
    /// One tokenizer, without truncation or padding, for counting and for embedding: e5's vocabulary of
    /// 250,000 pieces holds about 290 MB in the `tokenizers` crate, so a second copy set to truncate would
    /// cost that again; [`Embedder::encode`] cuts a sequence to the model's limit itself.
    tokenizer: Tokenizer,
    /// Special tokens the tokenizer's post-processor adds around a sequence.
    added_tokens: usize,
    identity: ModelIdentity,
    /// Word pieces of the passage prefix, which every embedded passage adds to its own.
    prefix_tokens: usize,
    /// Word pieces of every text embedded so far, special tokens included and padding not: the work the
    /// texts asked for, so that a rate in word pieces a second compares texts of any length.
    pieces_embedded: std::sync::atomic::AtomicUsize,
}

/// The ONNX model in `bytes`, typed, its 4-bit matrix products widened to f32 ([`widen`]);
/// `dequantise_rows` looks up embedding rows before dequantising them (the embedder always does:
/// [`lookup`]; the other way is there to check that it changes nothing).
pub fn read_model(bytes: &[u8], dequantise_rows: bool) -> TractResult<TypedModel> {
    let onnx = tract_onnx::onnx();
    let mut proto = onnx.proto_model_for_read(&mut std::io::Cursor::new(bytes))?;
    if let Some(graph) = proto.graph.as_mut() {
        widen::widen_4bit_matmuls(graph);
        if dequantise_rows {
            lookup::dequantise_after_lookup(graph);
        }
    }
    onnx.model_for_proto_model(&proto)?.into_typed()
}

impl Embedder {
    /// Loads `kind`'s pinned files; bytes that are not them are refused.
    pub fn from_bytes(kind: EmbeddingModel, model: &[u8], tokenizer: &[u8]) -> Result<Self, EmbedError> {
        let spec = kind.spec();
        check_pinned(spec.model_file, model, spec.model_blake3)?;
        check_pinned(spec.tokenizer_file, tokenizer, spec.tokenizer_blake3)?;
        Self::from_unpinned_bytes(kind, model, tokenizer)
    }

    /// Loads any BERT-style ONNX sentence encoder with `kind`'s dimension, prefixes and limits.
    pub fn from_unpinned_bytes(kind: EmbeddingModel, model: &[u8], tokenizer: &[u8]) -> Result<Self, EmbedError> {
        let spec = kind.spec();
        let tokenizer_hash = blake3_hex(tokenizer);
        let mut tokenizer = Tokenizer::from_bytes(tokenizer).map_err(|e| EmbedError::Tokenizer(e.to_string()))?;
        tokenizer.with_truncation(None).map_err(|e| EmbedError::Tokenizer(e.to_string()))?;
        tokenizer.with_padding(None);
        let added_tokens = tokenizer.get_post_processor().map_or(0, |processor| processor.added_tokens(false));
        let typed = read_model(model, true).map_err(|e| EmbedError::Model(format!("{e:#}")))?;
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        wasm_kernel::keep_registered();
        let input_order = input_order(&typed)?;
        let plans = Plans::new(typed)?;
        // A query's shape, built now: it checks the model, and the first question does not wait for it.
        plans.plan(1, padded_length(1))?;
        let identity = ModelIdentity {
            name: spec.name.to_string(),
            model_hash: blake3_hex(model),
            tokenizer_hash,
            dimension: spec.dimension,
            max_tokens: spec.max_tokens,
        };
        // Counted alone, e5's `passage: ` is one piece more than in front of a word (its space joins the
        // word's piece): chunks keep that piece to spare, as they did when the figures were measured.
        let prefix_tokens = count_pieces(&tokenizer, spec.passage_prefix);
        Ok(Self {
            model: kind,
            plans,
            input_order,
            tokenizer,
            added_tokens,
            identity,
            prefix_tokens,
            pieces_embedded: Default::default(),
        })
    }

    pub fn model(&self) -> EmbeddingModel {
        self.model
    }

    fn spec(&self) -> &'static ModelSpec {
        self.model.spec()
    }

    /// Word pieces of the texts embedded so far.
    pub fn pieces_embedded(&self) -> usize {
        self.pieces_embedded.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Reads `kind`'s model and tokenizer files from a directory.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn from_dir(dir: &std::path::Path, kind: EmbeddingModel) -> Result<Self, EmbedError> {
        let read = |name: &str| {
            let path = dir.join(name);
            std::fs::read(&path)
                .map_err(|e| EmbedError::MissingFile { path: path.display().to_string(), reason: e.to_string() })
        };
        Self::from_bytes(kind, &read(kind.spec().model_file)?, &read(kind.spec().tokenizer_file)?)
    }

    /// The word-piece ids the model is given for `text`: what another runtime needs to compute the same
    /// embedding (the browser benchmark feeds them to onnxruntime-web).
    #[cfg(feature = "bench")]
    pub fn token_ids(&self, text: &str) -> Result<Vec<u32>, EmbedError> {
        Ok(self.encode(self.spec().passage_prefix, text)?.get_ids().to_vec())
    }

    /// `prefix` and `text` as the model takes them: cut to its limit with room for the special tokens, then
    /// with them, as the tokenizer's own truncation does (its tests: `tests/integration/embedding_parity.rs`).
    fn encode(&self, prefix: &str, text: &str) -> Result<tokenizers::Encoding, EmbedError> {
        let failed = |e: tokenizers::Error| EmbedError::Tokenizer(e.to_string());
        let mut encoding = match prefix.is_empty() {
            true => self.tokenizer.encode(text, false),
            false => self.tokenizer.encode(format!("{prefix}{text}"), false),
        }
        .map_err(failed)?;
        let limit = self.identity.max_tokens.saturating_sub(self.added_tokens);
        if encoding.len() > limit {
            encoding.truncate(limit, 0, TruncationDirection::Right);
        }
        self.tokenizer.post_process(encoding, None, true).map_err(failed)
    }

    fn embed_with(&self, prefix: &str, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        let encodings = texts.iter().map(|t| self.encode(prefix, t)).collect::<Result<Vec<_>, _>>()?;
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

fn count_pieces(tokenizer: &Tokenizer, text: &str) -> usize {
    tokenizer.encode(text, false).map(|e| e.get_ids().len()).unwrap_or_else(|_| text.split_whitespace().count() * 2)
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

impl TextEmbedder for Embedder {
    fn identity(&self) -> &ModelIdentity {
        &self.identity
    }

    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        self.embed_with(self.spec().passage_prefix, texts)
    }

    fn embed_queries(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        self.embed_with(self.spec().query_prefix, texts)
    }
}

impl TokenCounter for Embedder {
    fn count_tokens(&self, text: &str) -> usize {
        count_pieces(&self.tokenizer, text)
    }

    fn special_tokens(&self) -> usize {
        2 + self.prefix_tokens
    }

    fn token_spans(&self, text: &str) -> Option<Vec<(usize, usize)>> {
        self.tokenizer.encode(text, false).ok().map(|encoding| encoding.get_offsets().to_vec())
    }
}
