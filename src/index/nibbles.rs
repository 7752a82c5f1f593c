//! Vectors as 4-bit codes, two to a byte, with one f32 scale per vector: how a site stores its partitions'
//! centroids, and every index its query table's rows. Every first question by meaning fetches all of them before any partition, so their bytes
//! count once per visitor and grow with the index (4,549 centroids at 100k chunks); at half the bytes of
//! int8 they cost the same ranking of partitions within the measured recall (docs/QUALITY.md,
//! "Partitioned vectors against exact search"). The partitions keep the whole index's int8 codes, so a
//! chunk found still scores as the whole index scores it.

use serde::{Deserialize, Serialize};

use super::vectors::{dot, symmetric_scale};
use crate::error::Inconsistent;

/// The largest code's magnitude: codes run from -7 to 7, stored with 8 added.
const LEVELS: f32 = 7.0;

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct NibbleVectors {
    dimension: usize,
    /// Each vector's codes, `dimension.div_ceil(2)` bytes: the even dimension in the low nibble.
    codes: Vec<u8>,
    scales: Vec<f32>,
}

impl NibbleVectors {
    pub fn new(dimension: usize) -> Self {
        Self { dimension, codes: Vec::new(), scales: Vec::new() }
    }

    pub fn dimension(&self) -> usize {
        self.dimension
    }

    pub fn len(&self) -> usize {
        self.scales.len()
    }

    pub fn is_empty(&self) -> bool {
        self.scales.is_empty()
    }

    fn row_bytes(&self) -> usize {
        self.dimension.div_ceil(2)
    }

    /// Stores `vector` (of the store's dimension) as `code · scale`, `scale = max|x| / 7`.
    pub fn push(&mut self, vector: &[f32]) {
        debug_assert_eq!(vector.len(), self.dimension);
        let scale = symmetric_scale(vector, LEVELS);
        let code = |x: f32| ((x / scale).round().clamp(-LEVELS, LEVELS) as i8 + 8) as u8;
        self.codes.extend(vector.chunks(2).map(|pair| code(pair[0]) | pair.get(1).map_or(8, |&x| code(x)) << 4));
        self.scales.push(scale);
    }

    /// Row `row`, decoded into `out` (cleared first): kept by the caller, so that scoring every row
    /// allocates once.
    fn decode_into(&self, row: u32, out: &mut Vec<f32>) {
        let start = row as usize * self.row_bytes();
        let scale = self.scales[row as usize];
        let value = |nibble: u8| (f32::from(nibble) - 8.0) * scale;
        out.clear();
        out.extend(self.codes[start..start + self.row_bytes()].iter().flat_map(|&b| [value(b & 15), value(b >> 4)]));
        out.truncate(self.dimension);
    }

    /// `weight` times row `row`, added to `sum` (of the store's dimension).
    pub fn add_scaled(&self, row: u32, weight: f32, sum: &mut [f32]) {
        let start = row as usize * self.row_bytes();
        let scale = weight * self.scales[row as usize];
        let pairs = sum.chunks_mut(2).zip(&self.codes[start..start + self.row_bytes()]);
        for (pair, &byte) in pairs {
            pair[0] += (f32::from(byte & 15) - 8.0) * scale;
            if let Some(odd) = pair.get_mut(1) {
                *odd += (f32::from(byte >> 4) - 8.0) * scale;
            }
        }
    }

    pub fn bytes(&self) -> usize {
        self.codes.len() + 4 * self.scales.len()
    }

    /// Row `row` of `other` (of the store's dimension) appended as it is stored, codes and scale unchanged:
    /// a site's term buckets carry the query table's rows bit for bit.
    pub fn push_row_of(&mut self, other: &NibbleVectors, row: u32) {
        debug_assert_eq!(other.dimension, self.dimension);
        let start = row as usize * other.row_bytes();
        self.codes.extend_from_slice(&other.codes[start..start + other.row_bytes()]);
        self.scales.push(other.scales[row as usize]);
    }

    /// The dot product of an f32 `query` with every row, in row order.
    pub fn dots<'a>(&'a self, query: &'a [f32]) -> impl Iterator<Item = f32> + 'a {
        let mut row = Vec::with_capacity(self.dimension + 1);
        (0..self.len() as u32).map(move |id| {
            self.decode_into(id, &mut row);
            dot(query, &row)
        })
    }

    /// Whether decoded data is internally consistent (one code per dimension per vector).
    pub fn check(&self) -> Result<(), Inconsistent> {
        if self.scales.len().checked_mul(self.row_bytes()) != Some(self.codes.len()) {
            return Err(format!(
                "{} bytes of 4-bit codes for {} vectors of {} dimensions",
                self.codes.len(),
                self.scales.len(),
                self.dimension
            )
            .into());
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every coordinate comes back within half a step of the vector's scale, odd dimensions included, and
    /// the dot products are the decoded rows'.
    #[test]
    fn codes_round_trip_within_half_a_step() {
        for dimension in [1, 7, 384] {
            let vectors: Vec<Vec<f32>> = (0..5u32)
                .map(|seed| (0..dimension as u32).map(|d| ((seed * 37 + d * 11) % 29) as f32 / 14.0 - 1.0).collect())
                .collect();
            let mut store = NibbleVectors::new(dimension);
            vectors.iter().for_each(|v| store.push(v));
            store.check().unwrap();
            let query: Vec<f32> = (0..dimension).map(|d| d as f32 / dimension as f32).collect();
            let dots: Vec<f32> = store.dots(&query).collect();
            for (row, vector) in vectors.iter().enumerate() {
                let mut decoded = Vec::new();
                store.decode_into(row as u32, &mut decoded);
                let step = vector.iter().fold(0f32, |m, x| m.max(x.abs())) / LEVELS;
                for (x, y) in vector.iter().zip(&decoded) {
                    assert!((x - y).abs() <= step / 2.0 + 1e-6, "{x} came back as {y} at step {step}");
                }
                assert!((dots[row] - dot(&query, &decoded)).abs() < 1e-4);
                let mut sum = vec![1.0; dimension];
                store.add_scaled(row as u32, 2.0, &mut sum);
                sum.iter().zip(&decoded).for_each(|(s, d)| assert!((s - (1.0 + 2.0 * d)).abs() < 1e-5));
            }
        }
    }

    /// A store whose codes do not match its count and dimension, as a crafted file may hold, is refused.
    #[test]
    fn codes_that_do_not_match_the_count_are_refused() {
        let mut store = NibbleVectors::new(5);
        store.push(&[0.1, -0.2, 0.3, 0.0, 0.5]);
        store.codes.pop();
        assert!(store.check().is_err());
        store.dimension = usize::MAX;
        assert!(store.check().is_err());
    }
}
