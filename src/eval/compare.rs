//! Paired comparison of two runs over the same questions: the mean per-question difference and a 95 %
//! percentile-bootstrap interval (queries resampled with replacement), so "+0.03" comes with how sure it is.

use rand::Rng;
use rand::SeedableRng;
use serde::{Deserialize, Serialize};

/// Resamples per comparison; the interval's ends move by about ±0.001 between seeds at this count.
pub const BOOTSTRAP_SAMPLES: usize = 10_000;
/// Fixed so a rerun prints the same interval.
const SEED: u64 = 0x51_75_69_72_65;

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct PairedDifference {
    pub mean: f64,
    pub low: f64,
    pub high: f64,
    pub questions: usize,
}

impl PairedDifference {
    /// Whether the interval excludes zero.
    pub fn is_significant(&self) -> bool {
        self.low > 0.0 || self.high < 0.0
    }
}

impl std::fmt::Display for PairedDifference {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:+.3} [{:+.3}, {:+.3}]", self.mean, self.low, self.high)
    }
}

/// `treatment - baseline`, question by question; both slices list the same questions in the same order.
pub fn paired_difference(treatment: &[f64], baseline: &[f64]) -> PairedDifference {
    assert_eq!(treatment.len(), baseline.len(), "paired runs must cover the same questions");
    let differences: Vec<f64> = treatment.iter().zip(baseline).map(|(t, b)| t - b).collect();
    let n = differences.len();
    if n == 0 {
        return PairedDifference { mean: 0.0, low: 0.0, high: 0.0, questions: 0 };
    }
    let mean = differences.iter().sum::<f64>() / n as f64;
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(SEED);
    let mut means: Vec<f64> = (0..BOOTSTRAP_SAMPLES)
        .map(|_| (0..n).map(|_| differences[rng.gen_range(0..n)]).sum::<f64>() / n as f64)
        .collect();
    means.sort_by(f64::total_cmp);
    let quantile = |q: f64| means[((q * (BOOTSTRAP_SAMPLES - 1) as f64).round() as usize).min(BOOTSTRAP_SAMPLES - 1)];
    PairedDifference { mean, low: quantile(0.025), high: quantile(0.975), questions: n }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constant_difference_has_a_point_interval() {
        let d = paired_difference(&[0.5, 0.7, 0.9], &[0.4, 0.6, 0.8]);
        assert!((d.mean - 0.1).abs() < 1e-12);
        assert!((d.low - 0.1).abs() < 1e-12 && (d.high - 0.1).abs() < 1e-12);
        assert!(d.is_significant());
        assert_eq!(d.to_string(), "+0.100 [+0.100, +0.100]");
    }

    #[test]
    fn noise_around_zero_is_not_significant() {
        let treatment: Vec<f64> = (0..200).map(|i| if i % 2 == 0 { 1.0 } else { 0.0 }).collect();
        let baseline: Vec<f64> = (0..200).map(|i| if i % 4 < 2 { 1.0 } else { 0.0 }).collect();
        let d = paired_difference(&treatment, &baseline);
        assert_eq!(d.mean, 0.0);
        assert!(d.low < 0.0 && d.high > 0.0, "{d}");
        // Standard error of the mean difference is sqrt(0.5 / 200) = 0.05, so the interval spans about ±0.098.
        assert!((d.high - 0.098).abs() < 0.02 && (d.low + 0.098).abs() < 0.02, "{d}");
    }

    #[test]
    fn the_interval_is_pinned_by_its_seed() {
        // The resampling is seeded, so QUALITY.md's intervals come out the same on every run and machine; a
        // change of generator, seed or resampling shows here as a different interval.
        let a: Vec<f64> = (0..50).map(|i| (i % 7) as f64 / 7.0).collect();
        let b: Vec<f64> = (0..50).map(|i| (i % 5) as f64 / 5.0).collect();
        let d = paired_difference(&a, &b);
        assert_eq!(format!("{:.6} [{:.6}, {:.6}]", d.mean, d.low, d.high), "0.020000 [-0.092571, 0.133143]");
    }
}
