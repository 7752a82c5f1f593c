//! Embeddings stored as int8 with one f32 scale per vector (4× smaller than f32), searched exactly (flat)
//! or approximately (HNSW). Scores are always computed asymmetrically, f32 query against dequantised rows,
//! so quantisation costs only the rounding of the stored side.

use instant_distance::{Builder, HnswMap, Point, Search};
use serde::{Deserialize, Serialize};

use super::{Hit, top_k};

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct QuantizedVectors {
    dimension: usize,
    codes: Vec<i8>,
    scales: Vec<f32>,
}

/// Symmetric per-vector quantisation: `x ≈ code · scale`, `scale = max|x| / 127`.
pub fn quantize(vector: &[f32]) -> (Vec<i8>, f32) {
    let max = vector.iter().fold(0f32, |m, x| m.max(x.abs()));
    let scale = if max > 0.0 { max / 127.0 } else { 1.0 };
    (vector.iter().map(|x| (x / scale).round().clamp(-127.0, 127.0) as i8).collect(), scale)
}

impl QuantizedVectors {
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

    pub fn push(&mut self, vector: &[f32]) -> u32 {
        assert_eq!(vector.len(), self.dimension, "vector dimension");
        let (codes, scale) = quantize(vector);
        self.codes.extend_from_slice(&codes);
        self.scales.push(scale);
        (self.scales.len() - 1) as u32
    }

    pub fn codes(&self, row: u32) -> &[i8] {
        let start = row as usize * self.dimension;
        &self.codes[start..start + self.dimension]
    }

    pub fn get(&self, row: u32) -> Vec<f32> {
        let scale = self.scales[row as usize];
        self.codes(row).iter().map(|&c| c as f32 * scale).collect()
    }

    /// Dot product of an f32 query with stored row `row`.
    pub fn dot(&self, query: &[f32], row: u32) -> f32 {
        let codes = self.codes(row);
        let sum: f32 = query.iter().zip(codes).map(|(q, &c)| q * c as f32).sum();
        sum * self.scales[row as usize]
    }

    pub fn bytes(&self) -> usize {
        self.codes.len() + self.scales.len() * 4
    }

    /// Whether decoded data is internally consistent (one code per dimension per vector).
    pub fn check(&self) -> Result<(), String> {
        if self.codes.len() != self.scales.len() * self.dimension {
            return Err(format!(
                "{} vector codes for {} vectors of {} dimensions",
                self.codes.len(),
                self.scales.len(),
                self.dimension
            ));
        }
        Ok(())
    }
}

/// An int8 point for the HNSW graph; distance is `1 - cosine` on unit vectors.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct QuantizedPoint {
    codes: Vec<i8>,
    scale: f32,
}

impl QuantizedPoint {
    fn new(vector: &[f32]) -> Self {
        let (codes, scale) = quantize(vector);
        Self { codes, scale }
    }
}

impl Point for QuantizedPoint {
    fn distance(&self, other: &Self) -> f32 {
        let dot: i32 = self.codes.iter().zip(&other.codes).map(|(&a, &b)| a as i32 * b as i32).sum();
        1.0 - dot as f32 * self.scale * other.scale
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum VectorIndexKind {
    Flat,
    Hnsw,
}

#[derive(Serialize, Deserialize)]
enum Structure {
    Flat,
    Hnsw(HnswMap<QuantizedPoint, u32>),
}

/// Nearest-neighbour search over a subset of rows of a [`QuantizedVectors`] store.
#[derive(Serialize, Deserialize)]
pub struct VectorIndex {
    rows: Vec<u32>,
    structure: Structure,
}

/// HNSW candidates examined per query; results are then rescored exactly.
const HNSW_EF_SEARCH: usize = 128;
const HNSW_EF_CONSTRUCTION: usize = 128;

impl VectorIndex {
    /// Indexes `rows` of `store`; HNSW when there are at least `hnsw_threshold` of them.
    pub fn build(store: &QuantizedVectors, rows: Vec<u32>, hnsw_threshold: usize) -> Self {
        let kind = if rows.len() >= hnsw_threshold { VectorIndexKind::Hnsw } else { VectorIndexKind::Flat };
        Self::build_kind(store, rows, kind)
    }

    pub fn build_kind(store: &QuantizedVectors, rows: Vec<u32>, kind: VectorIndexKind) -> Self {
        let structure = match kind {
            VectorIndexKind::Flat => Structure::Flat,
            VectorIndexKind::Hnsw => {
                let points = rows.iter().map(|&r| QuantizedPoint::new(&store.get(r))).collect();
                let positions = (0..rows.len() as u32).collect();
                let map = Builder::default()
                    .ef_construction(HNSW_EF_CONSTRUCTION)
                    .ef_search(HNSW_EF_SEARCH)
                    .seed(0x0051_5549_5245)
                    .build(points, positions);
                Structure::Hnsw(map)
            }
        };
        Self { rows, structure }
    }

    /// Whether decoded data refers only to rows of a store of `store_len` vectors of `dimension`. The HNSW
    /// neighbour lists are private to `instant-distance` and are not checked.
    pub fn check(&self, store_len: usize, dimension: usize) -> Result<(), String> {
        if let Some(row) = self.rows.iter().find(|&&r| r as usize >= store_len) {
            return Err(format!("vector index row {row} beyond {store_len} stored vectors"));
        }
        if let Structure::Hnsw(map) = &self.structure {
            let positions_valid =
                map.values.len() == self.rows.len() && map.values.iter().all(|&p| (p as usize) < self.rows.len());
            let points_valid = map.iter().all(|(_, point)| point.codes.len() == dimension);
            if !positions_valid || !points_valid {
                return Err("HNSW points disagree with the indexed rows".into());
            }
        }
        Ok(())
    }

    pub fn kind(&self) -> VectorIndexKind {
        match self.structure {
            Structure::Flat => VectorIndexKind::Flat,
            Structure::Hnsw(_) => VectorIndexKind::Hnsw,
        }
    }

    pub fn len(&self) -> usize {
        self.rows.len()
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// The `k` most similar indexed items; `Hit::row` is the position in the `rows` given at build time.
    pub fn search(&self, store: &QuantizedVectors, query: &[f32], k: usize) -> Vec<Hit> {
        let score = |position: u32| Hit { row: position, score: store.dot(query, self.rows[position as usize]) };
        match &self.structure {
            Structure::Flat => top_k((0..self.rows.len() as u32).map(score), k),
            Structure::Hnsw(map) => {
                let mut search = Search::default();
                let candidates = map.search(&QuantizedPoint::new(query), &mut search).map(|item| *item.value);
                top_k(candidates.map(score), k)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unit(v: &[f32]) -> Vec<f32> {
        let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        v.iter().map(|x| x / n).collect()
    }

    #[test]
    fn quantisation_preserves_dot_products() {
        let a = unit(&[0.3, -0.2, 0.9, 0.1]);
        let b = unit(&[0.1, 0.4, 0.8, -0.3]);
        let mut store = QuantizedVectors::new(4);
        store.push(&b);
        let exact: f32 = a.iter().zip(&b).map(|(x, y)| x * y).sum();
        assert!((store.dot(&a, 0) - exact).abs() < 0.01);
    }

    #[test]
    fn flat_and_hnsw_agree_on_small_sets() {
        let mut store = QuantizedVectors::new(3);
        let vectors = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.7, 0.7, 0.0], [0.0, 0.0, 1.0], [-1.0, 0.0, 0.0]];
        for v in &vectors {
            store.push(&unit(v));
        }
        let rows: Vec<u32> = (0..5).collect();
        let query = unit(&[0.9, 0.5, 0.0]);
        for kind in [VectorIndexKind::Flat, VectorIndexKind::Hnsw] {
            let index = VectorIndex::build_kind(&store, rows.clone(), kind);
            let hits = index.search(&store, &query, 3);
            assert_eq!(hits.iter().map(|h| h.row).collect::<Vec<_>>(), vec![2, 0, 1], "{kind:?}");
        }
    }
}
