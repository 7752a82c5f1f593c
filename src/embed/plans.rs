//! Inference plans for concrete input shapes. tract optimises a model whose batch size and sequence length
//! are known much further than one left symbolic (it picks and packs its matrix kernels for the shape): on
//! this model a plan for 16 × 128 word-pieces runs in 0.63 of the time the symbolic plan takes, and one for
//! 1 × 128 in 0.67 (`cargo run --release --example plan_shapes`). A plan costs about half a second to build
//! and tens of megabytes to keep, so shapes come from a few buckets (sequences are padded to the next length
//! in [`LENGTHS`], and batches are full or single) and only the most recently used plans are kept.
//!
//! In wasm32 the same plans gain only 3–5 % on 128 word-pieces and nothing on a question's 16 to 32 (tract's
//! wasm kernels are not the ones the shape choice helps), and each costs about 50 MB of linear memory in every
//! embedding worker (docs/BENCHMARKS.md), so there one symbolic plan serves every shape.

use std::sync::Mutex;

use tract_onnx::prelude::*;

use super::EmbedError;

pub type Plan = std::sync::Arc<TypedSimplePlan>;

/// Sequence lengths plans are built for; a sequence is padded to the first that holds it. Padding is masked,
/// so it changes an embedding only by rounding.
pub const LENGTHS: [usize; 7] = [16, 32, 64, 96, 128, 192, 256];
/// Plans kept: enough for a query's shape and indexing's few lengths at once.
const KEPT: usize = 3;
/// Whether plans are built per shape (see the module's comment). `--cfg quire_plans_per_shape` builds them in
/// wasm32 too, to measure them there (docs/BENCHMARKS.md).
pub const PER_SHAPE: bool = cfg!(any(not(target_arch = "wasm32"), quire_plans_per_shape));

pub struct Plans {
    /// Decluttered, with the batch and sequence dimensions still symbols; `None` where one symbolic plan,
    /// built at the start, serves every shape (it would only double the weights kept).
    model: Option<TypedModel>,
    symbols: Vec<(Symbol, bool)>,
    /// Most recently used last.
    kept: Mutex<Vec<((usize, usize), Plan)>>,
}

/// The length a sequence of `length` word-pieces is padded to: the next bucket where plans are per shape;
/// itself where one plan serves every shape (padding would only add work).
pub fn padded_length(length: usize) -> usize {
    match PER_SHAPE {
        true => LENGTHS.into_iter().find(|&l| l >= length).unwrap_or(length),
        false => length,
    }
}

impl Plans {
    /// `model` as read; its first input's shape names the batch and sequence symbols.
    pub fn new(model: TypedModel) -> Result<Self, EmbedError> {
        let failed = |e: TractError| EmbedError::Model(format!("{e:#}"));
        if !PER_SHAPE {
            let plan = model.into_optimized().and_then(|m| m.into_runnable()).map_err(failed)?;
            return Ok(Plans { model: None, symbols: Vec::new(), kept: Mutex::new(vec![((0, 0), plan)]) });
        }
        let model = model.into_decluttered().map_err(failed)?;
        let shape = model.input_fact(0).map_err(failed)?.shape.to_tvec();
        // (symbol, is it the batch dimension)
        let symbols = shape
            .iter()
            .take(2)
            .enumerate()
            .filter_map(
                |(axis, dim)| if let TDim::Sym(symbol) = dim { Some((symbol.clone(), axis == 0)) } else { None },
            )
            .collect();
        Ok(Plans { model: Some(model), symbols, kept: Mutex::new(Vec::new()) })
    }

    /// The plan for `batch` sequences of `length` word-pieces, built if it is not kept.
    pub fn plan(&self, batch: usize, length: usize) -> Result<Plan, EmbedError> {
        // (0, 0): the symbolic plan, for every shape.
        let key = if PER_SHAPE { (batch, length) } else { (0, 0) };
        {
            let mut kept = self.kept.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
            if let Some(at) = kept.iter().position(|(k, _)| *k == key) {
                let entry = kept.remove(at);
                let plan = entry.1.clone();
                kept.push(entry);
                return Ok(plan);
            }
        }
        let Some(model) = &self.model else {
            return Err(EmbedError::Model("the symbolic plan was not kept".into()));
        };
        let values: std::collections::HashMap<Symbol, TDim> = self
            .symbols
            .iter()
            .map(|(symbol, is_batch)| (symbol.clone(), TDim::Val(if *is_batch { batch } else { length } as i64)))
            .collect();
        let plan = model
            .set_symbols(&values)
            .and_then(|m| m.into_optimized())
            .and_then(|m| m.into_runnable())
            .map_err(|e| EmbedError::Model(format!("{e:#}")))?;
        let mut kept = self.kept.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        kept.retain(|(k, _)| *k != key);
        kept.push((key, plan.clone()));
        if kept.len() > KEPT {
            kept.remove(0);
        }
        Ok(plan)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg(not(target_arch = "wasm32"))]
    fn sequences_pad_to_the_next_bucket() {
        assert_eq!(padded_length(1), 16);
        assert_eq!(padded_length(16), 16);
        assert_eq!(padded_length(17), 32);
        assert_eq!(padded_length(129), 192);
        assert_eq!(padded_length(256), 256);
        assert_eq!(padded_length(300), 300);
    }
}
