//! Seed 000's learned fusion (§3.2.2): a feed-forward network reads, for each candidate chunk, every
//! retriever's score standardised within the query's candidate set, and gives the probability that the chunk
//! is relevant. With active sampling a second network, trained on the first one's hardest cases, re-ranks
//! the candidates the first finds most promising. This file owns the networks, their weights file and
//! inference; [`super::training`] fits them. Inference is plain candle on the CPU, so the same weights run
//! natively and in wasm32.
//!
//! Over 400 lines: the networks, their weights file and its checks read one layout of features and
//! tensors, kept in one place so that a file written by training is the file inference reads.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, OnceLock};

use candle_core::{DType, Device, Tensor};
use candle_nn::{BatchNorm, BatchNormConfig, Linear, Module, ModuleT, VarBuilder};
use rand::Rng;
use rand_chacha::ChaCha8Rng;

use super::fused::{FusedChunk, best_first, standardised_candidates};
use crate::retrieve::{Retriever, ScoredChunk};

/// Hidden layers as seed 000 built them: units and dropout rate, each layer ReLU → batch norm → dropout.
pub const HIDDEN_LAYERS: [(usize, f32); 3] = [(256, 0.2), (128, 0.3), (64, 0.4)];

/// Batch norm as Keras configures it by default (the seed's framework): running statistics move 1 % per
/// batch, ε = 0.001.
const BATCH_NORM: BatchNormConfig = BatchNormConfig { eps: 1e-3, remove_mean: true, affine: true, momentum: 0.01 };

/// What a weights file says about itself in its safetensors metadata.
const FORMAT_KEY: &str = "format";
const FORMAT: &str = "quire-learned-fusion/1";
const RETRIEVERS_KEY: &str = "retrievers";
const STAGES_KEY: &str = "stages";
const PROMISING_KEY: &str = "promising share";

/// The weights trained on SciFact's train split (`quire train-fusion`, command in docs/QUALITY.md).
const SHIPPED: &[u8] = include_bytes!("../../../models/fusion/scifact-train.safetensors");

#[derive(Debug, thiserror::Error)]
pub enum FusionModelError {
    #[error("not a Quire fusion model: {0}")]
    Format(String),
    #[error("the fusion network failed: {0}")]
    Network(#[from] candle_core::Error),
}

/// The network: hidden layers, then one logit.
pub(crate) struct FusionNetwork {
    hidden: Vec<(Linear, BatchNorm, f32)>,
    output: Linear,
}

impl FusionNetwork {
    /// Builds the layers from `weights` (named `hidden{i}.linear.*`, `hidden{i}.norm.*`, `output.*`).
    pub(crate) fn new(inputs: usize, weights: VarBuilder) -> candle_core::Result<Self> {
        let mut width = inputs;
        let mut hidden = Vec::with_capacity(HIDDEN_LAYERS.len());
        for (i, &(units, dropout)) in HIDDEN_LAYERS.iter().enumerate() {
            let layer = weights.pp(format!("hidden{i}"));
            let linear = candle_nn::linear(width, units, layer.pp("linear"))?;
            let norm = candle_nn::batch_norm(units, BATCH_NORM, layer.pp("norm"))?;
            hidden.push((linear, norm, dropout));
            width = units;
        }
        Ok(Self { hidden, output: candle_nn::linear(width, 1, weights.pp("output"))? })
    }

    /// Each linear layer's name prefix and fan-in, for initialisation.
    pub(crate) fn linear_layers(inputs: usize) -> Vec<(String, usize)> {
        let mut fan_in = inputs;
        let mut layers = Vec::new();
        for (i, &(units, _)) in HIDDEN_LAYERS.iter().enumerate() {
            layers.push((format!("hidden{i}.linear"), fan_in));
            fan_in = units;
        }
        layers.push(("output".to_string(), fan_in));
        layers
    }

    /// One logit per row of `x`. With `training` (a random source for dropout masks), batch norm uses the
    /// batch's statistics and updates its running ones; without, the running ones, and no dropout.
    pub(crate) fn logits(&self, x: &Tensor, mut training: Option<&mut ChaCha8Rng>) -> candle_core::Result<Tensor> {
        let mut x = x.clone();
        for (linear, norm, dropout) in &self.hidden {
            x = norm.forward_t(&linear.forward(&x)?.relu()?, training.is_some())?;
            if let Some(rng) = training.as_deref_mut() {
                let mask = dropout_mask(x.dims2()?, *dropout, rng, x.device())?;
                x = (x * mask)?;
            }
        }
        self.output.forward(&x)?.squeeze(1)
    }

    /// The hidden layers' kernels, which the L2 penalty applies to.
    pub(crate) fn kernels(&self) -> impl Iterator<Item = &Tensor> {
        self.hidden.iter().map(|(linear, _, _)| linear.weight())
    }
}

/// Inverted dropout drawn from a seeded generator: candle's CPU generator cannot be seeded, and training
/// must be reproducible.
fn dropout_mask(
    shape: (usize, usize),
    rate: f32,
    rng: &mut ChaCha8Rng,
    device: &Device,
) -> candle_core::Result<Tensor> {
    let keep = 1.0 / (1.0 - rate);
    let mask: Vec<f32> = (0..shape.0 * shape.1).map(|_| if rng.r#gen::<f32>() < rate { 0.0 } else { keep }).collect();
    Tensor::from_vec(mask, shape, device)
}

/// What a model file says besides its weights, key by key: the trainer's record (data, split, sizes, losses).
pub type About = BTreeMap<String, String>;

/// A trained fusion: which retrievers it reads (its input columns, in order), the weights, and the networks
/// built from them — a first one scoring every candidate, and optionally a second re-ranking the first's
/// `promising` share of them.
pub struct FusionModel {
    retrievers: Vec<Retriever>,
    weights: BTreeMap<String, Tensor>,
    about: About,
    stages: Vec<FusionNetwork>,
    promising: f64,
}

/// The weights of cascade stage `stage` are named `stage{stage}.…`.
pub(crate) fn stage_prefix(stage: usize) -> String {
    format!("stage{stage}")
}

/// How many of `candidates` the first network passes to the second: the `share` it finds most probable,
/// at least one.
pub(crate) fn promising_count(candidates: usize, share: f64) -> usize {
    ((candidates as f64 * share).ceil() as usize).clamp(1.min(candidates), candidates)
}

/// Learned fusion as a method holds it (`Method::Learned`): a trait object, so that code that only names,
/// compares or drops a method (the page's module) does not link the tensor library; only code that loads a
/// network names [`FusionModel`], its one implementation.
pub trait LearnedFusion: std::fmt::Debug + Send + Sync {
    /// The retrievers whose standardised scores are the network's inputs, in column order.
    fn retrievers(&self) -> &[Retriever];
    /// What the trainer recorded: data, split, sizes, losses.
    fn about(&self) -> &About;
    /// The `k` best candidates of `lists` (one per retriever it reads, in its order).
    fn fuse(&self, lists: &[&[ScoredChunk]], k: usize) -> Vec<FusedChunk>;
    /// The same network: the same retrievers, cascade and bit-identical weights.
    fn same_as(&self, other: &dyn LearnedFusion) -> bool;
    fn as_any(&self) -> &dyn std::any::Any;
}

impl PartialEq for dyn LearnedFusion {
    fn eq(&self, other: &Self) -> bool {
        self.same_as(other)
    }
}

impl LearnedFusion for FusionModel {
    fn retrievers(&self) -> &[Retriever] {
        &self.retrievers
    }

    fn about(&self) -> &About {
        &self.about
    }

    fn fuse(&self, lists: &[&[ScoredChunk]], k: usize) -> Vec<FusedChunk> {
        FusionModel::fuse(self, lists, k)
    }

    fn same_as(&self, other: &dyn LearnedFusion) -> bool {
        other.as_any().downcast_ref::<FusionModel>().is_some_and(|other| self == other)
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

impl std::fmt::Debug for FusionModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FusionModel")
            .field("retrievers", &self.retrievers)
            .field("stages", &self.stages.len())
            .field("promising", &self.promising)
            .field("about", &self.about)
            .finish()
    }
}

impl PartialEq for FusionModel {
    /// Two models are equal when they read the same retrievers through the same cascade with bit-identical
    /// weights.
    fn eq(&self, other: &Self) -> bool {
        self.retrievers == other.retrievers
            && self.stages.len() == other.stages.len()
            && self.promising == other.promising
            && self.weight_bits() == other.weight_bits()
    }
}

impl FusionModel {
    /// A model of `stages` networks (1 or 2) from named weights; the second re-ranks the first's `promising`
    /// share of candidates. Fails when a layer is missing or has the wrong shape.
    pub fn new(
        retrievers: Vec<Retriever>,
        weights: BTreeMap<String, Tensor>,
        stages: usize,
        promising: f64,
        about: About,
    ) -> Result<Self, FusionModelError> {
        if retrievers.is_empty() {
            return Err(FusionModelError::Format("it reads no retriever".into()));
        }
        let valid = (1..=2).contains(&stages) && promising > 0.0 && promising <= 1.0;
        if !valid {
            return Err(FusionModelError::Format(format!("{stages} stages, promising share {promising}")));
        }
        let tensors: HashMap<String, Tensor> = weights.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
        let weights_of = VarBuilder::from_tensors(tensors, DType::F32, &Device::Cpu);
        let stages = (0..stages)
            .map(|stage| FusionNetwork::new(retrievers.len(), weights_of.pp(stage_prefix(stage))))
            .collect::<candle_core::Result<Vec<_>>>()
            .map_err(|e| FusionModelError::Format(e.to_string()))?;
        if let Some((name, _)) = weights.iter().find(|(_, tensor)| !all_finite(tensor)) {
            return Err(FusionModelError::Format(format!("weight `{name}` holds a value that is not a finite number")));
        }
        if let Some((name, _)) =
            weights.iter().find(|(name, tensor)| name.ends_with("running_var") && !all_positive(tensor))
        {
            return Err(FusionModelError::Format(format!("batch-norm variance `{name}` is not positive")));
        }
        let model = Self { retrievers, weights, about, stages, promising };
        model.score(&[vec![0.0; model.retrievers.len()]])?;
        Ok(model)
    }

    /// The model trained on SciFact's train split, shipped with Quire.
    pub fn shipped() -> Arc<FusionModel> {
        static MODEL: OnceLock<Arc<FusionModel>> = OnceLock::new();
        MODEL.get_or_init(|| Arc::new(Self::from_bytes(SHIPPED).expect("the shipped fusion model loads"))).clone()
    }

    /// The shipped model's retrievers, read from its metadata alone: what the page asks of a method without
    /// loading the network (its module links no tensor library).
    pub fn shipped_retrievers() -> Vec<Retriever> {
        Self::metadata(SHIPPED).map(|(retrievers, _)| retrievers).expect("the shipped fusion model loads")
    }

    /// The retrievers whose standardised scores are the network's inputs, in column order.
    pub fn retrievers(&self) -> &[Retriever] {
        &self.retrievers
    }

    /// What the trainer recorded: data, split, sizes, losses.
    pub fn about(&self) -> &About {
        &self.about
    }

    /// A score for each candidate (a row of standardised scores) of one question: the first network's
    /// probability of relevance, plus 1 and the second's probability instead for the promising ones, so
    /// that they rank first in the second network's order.
    pub fn score(&self, features: &[Vec<f32>]) -> Result<Vec<f32>, FusionModelError> {
        let columns = self.retrievers.len();
        if let Some(row) = features.iter().find(|row| row.len() != columns) {
            return Err(FusionModelError::Format(format!("{} features given, the model reads {columns}", row.len())));
        }
        let mut scores = probabilities(&self.stages[0], features)?;
        if let Some(second) = self.stages.get(1) {
            let passed = promising(&scores, self.promising);
            let rows: Vec<Vec<f32>> = passed.iter().map(|&i| features[i].clone()).collect();
            for (&i, p) in passed.iter().zip(probabilities(second, &rows)?) {
                scores[i] = 1.0 + p;
            }
        }
        Ok(scores)
    }

    /// The `k` best candidates of `lists` (one per retriever the model reads, in its order), scored by the
    /// model from their standardised scores.
    pub(crate) fn fuse(&self, lists: &[&[ScoredChunk]], k: usize) -> Vec<FusedChunk> {
        let mut fused = standardised_candidates(lists);
        let features: Vec<Vec<f32>> = fused.iter().map(|f| f.features.clone()).collect();
        let scores = self.score(&features).expect("the model was checked at load; one list per input column");
        for (entry, score) in fused.iter_mut().zip(scores) {
            entry.score = score;
        }
        best_first(fused, k)
    }

    /// A safetensors file: the weights, and in its metadata the format, the retrievers and [`Self::about`].
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut metadata: HashMap<String, String> = self.about.clone().into_iter().collect();
        metadata.insert(FORMAT_KEY.into(), FORMAT.into());
        let names: Vec<&str> = self.retrievers.iter().map(|r| r.name()).collect();
        metadata.insert(RETRIEVERS_KEY.into(), names.join(","));
        metadata.insert(STAGES_KEY.into(), self.stages.len().to_string());
        metadata.insert(PROMISING_KEY.into(), self.promising.to_string());
        safetensors::serialize(self.weights.iter(), Some(metadata)).expect("f32 tensors always serialise")
    }

    /// A model file's retrievers and the rest of its metadata, checked to be this format's.
    fn metadata(bytes: &[u8]) -> Result<(Vec<Retriever>, About), FusionModelError> {
        let format = |e: &dyn std::fmt::Display| FusionModelError::Format(e.to_string());
        let (_, header) = safetensors::SafeTensors::read_metadata(bytes).map_err(|e| format(&e))?;
        let mut about: About = header.metadata().clone().unwrap_or_default().into_iter().collect();
        if about.remove(FORMAT_KEY).as_deref() != Some(FORMAT) {
            return Err(format(&format!("its metadata does not say `{FORMAT_KEY}: {FORMAT}`")));
        }
        let names = about.remove(RETRIEVERS_KEY).unwrap_or_default();
        let retrievers = names
            .split(',')
            .map(|name| Retriever::parse(name).ok_or_else(|| format(&format!("unknown retriever `{name}`"))))
            .collect::<Result<Vec<_>, _>>()?;
        Ok((retrievers, about))
    }

    /// A model from a file [`Self::to_bytes`] wrote; anything else is an error saying what is wrong.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, FusionModelError> {
        let format = |e: &dyn std::fmt::Display| FusionModelError::Format(e.to_string());
        let (retrievers, mut about) = Self::metadata(bytes)?;
        let mut number = |key: &str| -> Result<f64, FusionModelError> {
            let value = about.remove(key).unwrap_or_default();
            value.parse().map_err(|_| format(&format!("`{key}` is `{value}`, not a number")))
        };
        let promising = number(PROMISING_KEY)?;
        let stages = about.remove(STAGES_KEY).unwrap_or_default();
        let stages: usize =
            stages.parse().map_err(|_| format(&format!("`{STAGES_KEY}` is `{stages}`, not a whole number")))?;
        let weights = candle_core::safetensors::load_buffer(bytes, &Device::Cpu).map_err(|e| format(&e))?;
        let weights = weights
            .into_iter()
            .map(|(name, tensor)| Ok((name, tensor.to_dtype(DType::F32)?)))
            .collect::<Result<BTreeMap<_, _>, FusionModelError>>()?;
        Self::new(retrievers, weights, stages, promising, about)
    }

    /// Every weight's bits, in name order.
    fn weight_bits(&self) -> Vec<(String, Vec<u32>)> {
        self.weights
            .iter()
            .map(|(name, tensor)| (name.clone(), values(tensor).into_iter().map(f32::to_bits).collect()))
            .collect()
    }
}

fn values(tensor: &Tensor) -> Vec<f32> {
    tensor.flatten_all().and_then(|t| t.to_vec1::<f32>()).unwrap_or_default()
}

fn all_finite(tensor: &Tensor) -> bool {
    values(tensor).iter().all(|v| v.is_finite())
}

fn all_positive(tensor: &Tensor) -> bool {
    values(tensor).iter().all(|&v| v > 0.0)
}

/// `network`'s probability of relevance for each row.
pub(crate) fn probabilities(network: &FusionNetwork, features: &[Vec<f32>]) -> candle_core::Result<Vec<f32>> {
    if features.is_empty() {
        return Ok(Vec::new());
    }
    let x = Tensor::from_vec(features.concat(), (features.len(), features[0].len()), &Device::Cpu)?;
    candle_nn::ops::sigmoid(&network.logits(&x, None)?)?.to_vec1()
}

/// Indices of the [`promising_count`] highest of `scores`.
pub(crate) fn promising(scores: &[f32], share: f64) -> Vec<usize> {
    let mut order: Vec<usize> = (0..scores.len()).collect();
    order.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]).then(a.cmp(&b)));
    order.truncate(promising_count(scores.len(), share));
    order
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shipped_model_reads_what_scifact_can_teach() {
        let model = FusionModel::shipped();
        assert_eq!(model.retrievers(), &[Retriever::Dense, Retriever::Bm25, Retriever::Page, Retriever::Section]);
        assert!(model.about().get("dataset").is_some_and(|d| d.contains("scifact")), "{:?}", model.about());
        // A chunk every retriever ranks far above the rest scores above one they all rank far below.
        let scores = model.score(&[vec![2.0; 4], vec![-1.0; 4]]).unwrap();
        assert!(scores[0] > scores[1], "{scores:?}");
        assert!(scores.iter().all(|p| (0.0..=2.0).contains(p)));
    }

    /// A weights file with its metadata's stage count replaced by `stages`.
    fn with_stages(bytes: &[u8], stages: &str) -> Vec<u8> {
        let length = u64::from_le_bytes(bytes[..8].try_into().unwrap()) as usize;
        let header = std::str::from_utf8(&bytes[8..8 + length]).unwrap();
        let mut header = header.replace(r#""stages":"2""#, &format!(r#""stages":"{stages}""#));
        while header.len() % 8 != 0 {
            header.push(' ');
        }
        let mut edited = (header.len() as u64).to_le_bytes().to_vec();
        edited.extend_from_slice(header.as_bytes());
        edited.extend_from_slice(&bytes[8 + length..]);
        edited
    }

    #[test]
    fn bad_files_are_errors_not_panics() {
        assert!(FusionModel::from_bytes(b"").is_err());
        assert!(FusionModel::from_bytes(&[0xff; 64]).is_err());
        let mut truncated = FusionModel::shipped().to_bytes();
        truncated.truncate(truncated.len() / 2);
        assert!(FusionModel::from_bytes(&truncated).is_err());
        let shipped = FusionModel::shipped();
        let with = |name: &str, value: f32| {
            let mut weights = shipped.weights.clone();
            let tensor = &weights[name];
            weights.insert(name.to_string(), (tensor.ones_like().unwrap() * value as f64).unwrap());
            FusionModel::new(
                shipped.retrievers.clone(),
                weights,
                shipped.stages.len(),
                shipped.promising,
                BTreeMap::new(),
            )
        };
        let nan = with("stage1.output.weight", f32::NAN).unwrap_err().to_string();
        assert!(nan.contains("`stage1.output.weight` holds a value that is not a finite number"), "{nan}");
        let variance = with("stage0.hidden1.norm.running_var", -1.0).unwrap_err().to_string();
        assert!(variance.contains("is not positive"), "{variance}");
        let mut missing = shipped.weights.clone();
        missing.remove("stage0.hidden0.linear.weight");
        assert!(FusionModel::new(shipped.retrievers.clone(), missing, 2, 0.1, BTreeMap::new()).is_err());
        for (stages, promising) in [(0, 0.1), (3, 0.1), (2, 0.0), (2, 1.5)] {
            let weights = shipped.weights.clone();
            assert!(FusionModel::new(shipped.retrievers.clone(), weights, stages, promising, BTreeMap::new()).is_err());
        }
        let err = FusionModel::from_bytes(&with_stages(&shipped.to_bytes(), "1.5")).unwrap_err().to_string();
        assert!(err.contains("`stages` is `1.5`, not a whole number"), "{err}");
        assert!(FusionModel::from_bytes(&with_stages(&shipped.to_bytes(), "2")).is_ok());
        let err = FusionModel::shipped().score(&[vec![0.0; 3]]).unwrap_err().to_string();
        assert!(err.contains("3 features given, the model reads 4"), "{err}");
    }
}
