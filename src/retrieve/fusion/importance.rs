//! How much learned fusion leans on each retriever, as seed 000 reported it: permutation importance over
//! held-out questions' candidates.

use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;

use super::learned::{FusionModel, FusionModelError};
use crate::retrieve::Retriever;

/// One question's candidates: each chunk's standardised scores (one per retriever) and whether it is relevant.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LabelledCandidates {
    pub features: Vec<Vec<f32>>,
    pub relevant: Vec<bool>,
}

/// Each retriever's importance as seed 000 reported it, measured by permutation: the mean drop in the
/// questions' nDCG@10 over their candidates when that retriever's column is shuffled within each question,
/// as shares of the total drop. `None` when no question has a relevant candidate.
pub fn permutation_importance(
    model: &FusionModel,
    questions: &[LabelledCandidates],
    seed: u64,
) -> Result<Option<Vec<(Retriever, f64)>>, FusionModelError> {
    let labelled: Vec<&LabelledCandidates> = questions.iter().filter(|q| q.relevant.contains(&true)).collect();
    if labelled.is_empty() {
        return Ok(None);
    }
    let quality = |columns: &dyn Fn(&LabelledCandidates) -> Vec<Vec<f32>>| -> Result<f64, FusionModelError> {
        let mut total = 0.0;
        for question in &labelled {
            total += candidate_ndcg(&model.score(&columns(question))?, &question.relevant);
        }
        Ok(total / labelled.len() as f64)
    };
    let intact = quality(&|q| q.features.clone())?;
    let mut drops = Vec::with_capacity(model.retrievers().len());
    for (column, &retriever) in model.retrievers().iter().enumerate() {
        let rng = std::cell::RefCell::new(ChaCha8Rng::seed_from_u64(seed));
        let shuffled = quality(&|q| {
            let mut values: Vec<f32> = q.features.iter().map(|row| row[column]).collect();
            values.shuffle(&mut *rng.borrow_mut());
            q.features.iter().zip(values).map(|(row, v)| with_column(row, column, v)).collect()
        })?;
        drops.push((retriever, (intact - shuffled).max(0.0)));
    }
    let total: f64 = drops.iter().map(|(_, d)| d).sum();
    Ok(Some(drops.into_iter().map(|(r, d)| (r, if total > 0.0 { d / total } else { 0.0 })).collect()))
}

pub(super) fn with_column(row: &[f32], column: usize, value: f32) -> Vec<f32> {
    let mut row = row.to_vec();
    row[column] = value;
    row
}

/// nDCG@10 of candidates ranked by `scores`, binary gains.
pub(super) fn candidate_ndcg(scores: &[f32], relevant: &[bool]) -> f64 {
    let mut order: Vec<usize> = (0..scores.len()).collect();
    order.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]));
    let gain = |rank: usize| 1.0 / ((rank + 2) as f64).log2();
    let dcg: f64 = order.iter().take(10).enumerate().filter(|&(_, &c)| relevant[c]).map(|(r, _)| gain(r)).sum();
    let ideal: f64 = (0..relevant.iter().filter(|&&r| r).count().min(10)).map(gain).sum();
    if ideal > 0.0 { dcg / ideal } else { 0.0 }
}
