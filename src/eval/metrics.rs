//! Ranking metrics with trec_eval's and BEIR's definitions. A ranking is a list of document ids, best first;
//! gold labels are graded (grade > 0 is relevant).
//!
//! - nDCG@k: gain = grade, discount log2(rank + 1), ideal DCG from the qrels' grades (trec_eval `ndcg_cut`).
//! - Recall@k = relevant in the top k / all relevant; Precision@k = relevant in the top k / k (trec_eval divides
//!   by k even when fewer were retrieved).
//! - Hit@k: some relevant document in the top k. Set Coverage@k: every relevant document in the top k (seed
//!   000's multi-hop metric).
//! - MRR@k: 1 / rank of the first relevant document within the top k, else 0 (BEIR's `MRR@k`; equal to
//!   trec_eval `recip_rank` on a run cut at k).
//! - F_β@k from the *averaged* precision and recall (seed 000's convention), so it is a property of a whole run.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum MetricKind {
    Ndcg,
    Mrr,
    Recall,
    Precision,
    Hit,
    Coverage,
}

impl MetricKind {
    pub const ALL: [MetricKind; 6] = [Self::Ndcg, Self::Mrr, Self::Recall, Self::Precision, Self::Hit, Self::Coverage];

    pub fn label(self) -> &'static str {
        match self {
            Self::Ndcg => "nDCG",
            Self::Mrr => "MRR",
            Self::Recall => "R",
            Self::Precision => "P",
            Self::Hit => "Hit",
            Self::Coverage => "Cov",
        }
    }

    /// The name the command line takes (`parse` also takes a few short forms).
    pub fn name(self) -> &'static str {
        match self {
            Self::Ndcg => "ndcg",
            Self::Mrr => "mrr",
            Self::Recall => "recall",
            Self::Precision => "precision",
            Self::Hit => "hit",
            Self::Coverage => "coverage",
        }
    }

    /// Every name, for help texts and errors: `ndcg, mrr, …`.
    pub fn choices() -> String {
        Self::ALL.map(Self::name).join(", ")
    }

    /// Names accepted on the command line.
    pub fn parse(name: &str) -> Option<Self> {
        Some(match name.trim().to_ascii_lowercase().as_str() {
            "ndcg" => Self::Ndcg,
            "mrr" => Self::Mrr,
            "recall" | "r" => Self::Recall,
            "precision" | "p" => Self::Precision,
            "hit" | "hits" => Self::Hit,
            "coverage" | "cov" | "set-coverage" => Self::Coverage,
            _ => return None,
        })
    }
}

/// A metric at a cut-off.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Metric {
    pub kind: MetricKind,
    pub k: usize,
}

impl std::fmt::Display for Metric {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}@{}", self.kind.label(), self.k)
    }
}

impl Metric {
    pub fn score(self, ranking: &[&str], relevant: &BTreeMap<String, u32>) -> f64 {
        let k = self.k;
        match self.kind {
            MetricKind::Ndcg => ndcg(ranking, relevant, k),
            MetricKind::Mrr => reciprocal_rank(ranking, relevant, k),
            MetricKind::Recall => relevant_in_top(ranking, relevant, k) as f64 / relevant.len().max(1) as f64,
            MetricKind::Precision => relevant_in_top(ranking, relevant, k) as f64 / k.max(1) as f64,
            MetricKind::Hit => f64::from(relevant_in_top(ranking, relevant, k) > 0),
            MetricKind::Coverage => {
                f64::from(!relevant.is_empty() && relevant_in_top(ranking, relevant, k) == relevant.len())
            }
        }
    }
}

fn relevant_in_top(ranking: &[&str], relevant: &BTreeMap<String, u32>, k: usize) -> usize {
    ranking.iter().take(k).filter(|doc| relevant.contains_key(**doc)).count()
}

fn discount(position: usize) -> f64 {
    (position as f64 + 2.0).log2()
}

pub fn ndcg(ranking: &[&str], relevant: &BTreeMap<String, u32>, k: usize) -> f64 {
    let dcg: f64 = ranking
        .iter()
        .take(k)
        .enumerate()
        .map(|(position, doc)| relevant.get(*doc).map_or(0.0, |&grade| grade as f64 / discount(position)))
        .sum();
    let mut grades: Vec<u32> = relevant.values().copied().collect();
    grades.sort_unstable_by(|a, b| b.cmp(a));
    let ideal: f64 =
        grades.iter().take(k).enumerate().map(|(position, &grade)| grade as f64 / discount(position)).sum();
    if ideal > 0.0 { dcg / ideal } else { 0.0 }
}

pub fn reciprocal_rank(ranking: &[&str], relevant: &BTreeMap<String, u32>, k: usize) -> f64 {
    ranking.iter().take(k).position(|doc| relevant.contains_key(*doc)).map_or(0.0, |p| 1.0 / (p as f64 + 1.0))
}

/// F_β of averaged precision and recall.
pub fn f_beta(precision: f64, recall: f64, beta: f64) -> f64 {
    let b2 = beta * beta;
    let denominator = b2 * precision + recall;
    if denominator > 0.0 { (1.0 + b2) * precision * recall / denominator } else { 0.0 }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gold(pairs: &[(&str, u32)]) -> BTreeMap<String, u32> {
        pairs.iter().map(|(d, g)| (d.to_string(), *g)).collect()
    }

    fn at(kind: MetricKind, k: usize) -> Metric {
        Metric { kind, k }
    }

    /// Ranking a b c d e; gold b (grade 2), d (1), z (1, never retrieved).
    /// DCG@5 = 2/log2(3) + 1/log2(5) = 1.2618595 + 0.4306766 = 1.6925361
    /// IDCG@5 = 2/log2(2) + 1/log2(3) + 1/log2(4) = 2 + 0.6309298 + 0.5 = 3.1309298 → nDCG@5 = 0.5405858
    /// nDCG@2: DCG = 1.2618595, IDCG = 2.6309298 → 0.4796249
    #[test]
    fn graded_ndcg_by_hand() {
        let ranking = ["a", "b", "c", "d", "e"];
        let relevant = gold(&[("b", 2), ("d", 1), ("z", 1)]);
        assert!((ndcg(&ranking, &relevant, 5) - 0.5405858).abs() < 1e-6);
        assert!((ndcg(&ranking, &relevant, 2) - 0.4796249).abs() < 1e-6);
        assert_eq!(ndcg(&ranking, &gold(&[("q", 1)]), 5), 0.0);
        assert_eq!(ndcg(&["b", "d", "z"], &relevant, 10), 1.0);
    }

    #[test]
    fn set_metrics_by_hand() {
        let ranking = ["a", "b", "c", "d", "e"];
        let relevant = gold(&[("b", 2), ("d", 1), ("z", 1)]);
        assert!((at(MetricKind::Recall, 5).score(&ranking, &relevant) - 2.0 / 3.0).abs() < 1e-12);
        assert_eq!(at(MetricKind::Recall, 1).score(&ranking, &relevant), 0.0);
        assert_eq!(at(MetricKind::Precision, 5).score(&ranking, &relevant), 0.4);
        // Fewer retrieved than k still divides by k.
        assert_eq!(at(MetricKind::Precision, 10).score(&ranking, &relevant), 0.2);
        assert_eq!(at(MetricKind::Hit, 1).score(&ranking, &relevant), 0.0);
        assert_eq!(at(MetricKind::Hit, 2).score(&ranking, &relevant), 1.0);
        assert_eq!(at(MetricKind::Mrr, 5).score(&ranking, &relevant), 0.5);
        assert_eq!(at(MetricKind::Mrr, 1).score(&ranking, &relevant), 0.0);
        assert_eq!(at(MetricKind::Coverage, 5).score(&ranking, &relevant), 0.0);
        let two_hop = gold(&[("b", 1), ("d", 1)]);
        assert_eq!(at(MetricKind::Coverage, 3).score(&ranking, &two_hop), 0.0);
        assert_eq!(at(MetricKind::Coverage, 4).score(&ranking, &two_hop), 1.0);
    }

    #[test]
    fn f_beta_of_averages() {
        assert!((f_beta(0.5, 0.25, 1.0) - 1.0 / 3.0).abs() < 1e-12);
        // β = 2 weighs recall: 5 · 0.5 · 0.25 / (4 · 0.5 + 0.25) = 0.625 / 2.25
        assert!((f_beta(0.5, 0.25, 2.0) - 0.625 / 2.25).abs() < 1e-12);
        assert_eq!(f_beta(0.0, 0.0, 1.0), 0.0);
    }

    #[test]
    fn names_parse_and_print() {
        assert_eq!(MetricKind::parse("coverage"), Some(MetricKind::Coverage));
        assert_eq!(MetricKind::parse("nope"), None);
        for kind in MetricKind::ALL {
            assert_eq!(MetricKind::parse(kind.name()), Some(kind), "{}", kind.name());
        }
        assert_eq!(MetricKind::choices(), "ndcg, mrr, recall, precision, hit, coverage");
        assert_eq!(at(MetricKind::Ndcg, 10).to_string(), "nDCG@10");
    }
}
