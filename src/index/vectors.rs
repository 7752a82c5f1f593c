//! Embeddings stored as int8 with one f32 scale per vector (4× smaller than f32), searched exactly (flat)
//! or approximately (HNSW). Scores are always computed asymmetrically, f32 query against dequantised rows,
//! so quantisation costs only the rounding of the stored side.
//!
//! Over 400 lines: the flat and the HNSW search share the int8 store and its scoring, which must not drift apart.

use instant_distance::{Builder, HnswMap, Point, Search};
use serde::{Deserialize, Serialize};

use super::hits::{Hit, top_k};
use crate::error::Inconsistent;

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct QuantizedVectors {
    dimension: usize,
    codes: Vec<i8>,
    scales: Vec<f32>,
}

/// Symmetric per-vector quantisation: `x ≈ code · scale`, `scale = max|x| / 127`.
pub fn quantize(vector: &[f32]) -> (Vec<i8>, f32) {
    let scale = symmetric_scale(vector, 127.0);
    (vector.iter().map(|x| (x / scale).round().clamp(-127.0, 127.0) as i8).collect(), scale)
}

/// The scale of symmetric quantisation to codes of magnitude at most `levels`: `max|x| / levels`, or 1 for a
/// zero vector.
pub fn symmetric_scale(vector: &[f32], levels: f32) -> f32 {
    let max = vector.iter().fold(0f32, |m, x| m.max(x.abs()));
    if max > 0.0 { max / levels } else { 1.0 }
}

/// A vector whose length is not the store's dimension (a different model's output).
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("a {actual}-dimensional vector cannot join {expected}-dimensional ones")]
pub struct DimensionMismatch {
    pub expected: usize,
    pub actual: usize,
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

    /// Stores `vector` and returns its row; a vector of another dimension is refused, not stored.
    pub fn push(&mut self, vector: &[f32]) -> Result<u32, DimensionMismatch> {
        if vector.len() != self.dimension {
            return Err(DimensionMismatch { expected: self.dimension, actual: vector.len() });
        }
        let (codes, scale) = quantize(vector);
        self.codes.extend_from_slice(&codes);
        self.scales.push(scale);
        Ok((self.scales.len() - 1) as u32)
    }

    /// Stores `row` of `other`, a store of the same dimension, as it is there: its codes, not a second rounding.
    pub fn push_codes(&mut self, other: &QuantizedVectors, row: u32) {
        debug_assert_eq!(self.dimension, other.dimension);
        self.codes.extend_from_slice(other.codes(row));
        self.scales.push(other.scales[row as usize]);
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
        lane_dot(query, self.codes(row), |c| c as f32) * self.scales[row as usize]
    }

    pub fn bytes(&self) -> usize {
        self.codes.len() + self.scales.len() * 4
    }

    /// Whether decoded data is internally consistent (one code per dimension per vector).
    pub fn check(&self) -> Result<(), Inconsistent> {
        // Checked: a crafted dimension whose product with the count wraps around would pass an unchecked test.
        if self.scales.len().checked_mul(self.dimension) != Some(self.codes.len()) {
            return Err(format!(
                "{} vector codes for {} vectors of {} dimensions",
                self.codes.len(),
                self.scales.len(),
                self.dimension
            )
            .into());
        }
        Ok(())
    }
}

/// Dot product of two f32 vectors.
pub fn dot(a: &[f32], b: &[f32]) -> f32 {
    lane_dot(a, b, |x| x)
}

/// `Σ a·b` in eight independent partial sums. One running f32 sum fixes the order of the additions, which
/// keeps the compiler from vectorising the loop; eight lanes let it use SIMD (SSE/AVX natively, simd128 in
/// wasm32), several times faster on the scans every query makes.
fn lane_dot<T: Copy>(a: &[f32], b: &[T], to_f32: impl Fn(T) -> f32) -> f32 {
    const LANES: usize = 8;
    let (a_blocks, b_blocks) = (a.chunks_exact(LANES), b.chunks_exact(LANES));
    let tail: f32 = a_blocks.remainder().iter().zip(b_blocks.remainder()).map(|(&x, &y)| x * to_f32(y)).sum();
    let mut lanes = [0f32; LANES];
    for (x, y) in a_blocks.zip(b_blocks) {
        for lane in 0..LANES {
            lanes[lane] += x[lane] * to_f32(y[lane]);
        }
    }
    lanes.iter().sum::<f32>() + tail
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

/// The HNSW point of stored row `row`; deterministic, so a decoded graph's points can be compared exactly.
fn hnsw_point(store: &QuantizedVectors, row: u32) -> QuantizedPoint {
    QuantizedPoint::new(&store.get(row))
}

impl Point for QuantizedPoint {
    fn distance(&self, other: &Self) -> f32 {
        1.0 - int8_dot(&self.codes, &other.codes) as f32 * self.scale * other.scale
    }
}

/// `Σ a·b` over int8 codes, the HNSW build's inner loop (each insertion computes hundreds of distances).
/// Natively on a CPU with AVX2, chosen at run time: x86-64's baseline (SSE2), which a release build
/// targets, has no instruction that widens int8, and the 20,000-vector build took 23.4 s with the portable
/// loop and 9.3 s with AVX2's (`cargo bench --bench vector_index --features bench -- 20000`). Elsewhere
/// (wasm32 with simd128, other CPUs) the portable loop, which the compiler vectorises.
fn int8_dot(a: &[i8], b: &[i8]) -> i32 {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2, checked just above.
        return unsafe { int8_dot_avx2(a, b) };
    }
    int8_dot_lanes(a, b)
}

/// Sixteen codes at a time: widened to i16, multiplied and summed in pairs into eight i32 lanes (`vpmaddwd`).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn int8_dot_avx2(a: &[i8], b: &[i8]) -> i32 {
    use std::arch::x86_64::*;
    const BLOCK: usize = 16;
    let (a_blocks, b_blocks) = (a.chunks_exact(BLOCK), b.chunks_exact(BLOCK));
    let tail = int8_dot_lanes(a_blocks.remainder(), b_blocks.remainder());
    let mut sums = _mm256_setzero_si256();
    for (x, y) in a_blocks.zip(b_blocks) {
        // SAFETY: each block is 16 bytes, the width of an unaligned 128-bit load.
        let (x, y) = unsafe { (_mm_loadu_si128(x.as_ptr().cast()), _mm_loadu_si128(y.as_ptr().cast())) };
        sums = _mm256_add_epi32(sums, _mm256_madd_epi16(_mm256_cvtepi8_epi16(x), _mm256_cvtepi8_epi16(y)));
    }
    let mut lanes = [0i32; 8];
    // SAFETY: `lanes` is 32 bytes, the width of an unaligned 256-bit store.
    unsafe { _mm256_storeu_si256(lanes.as_mut_ptr().cast(), sums) };
    lanes.iter().sum::<i32>() + tail
}

/// Sixteen independent i32 sums, as [`lane_dot`] does for f32, let the compiler widen and multiply a block
/// at a time: the 10,000-vector build went from 17.9 s with one running sum to 14.5 s. Summing pairs of
/// products in i16 first, the shape of `pmaddwd`, took 35.7 s as the compiler wrote it for SSE2.
fn int8_dot_lanes(a: &[i8], b: &[i8]) -> i32 {
    const LANES: usize = 16;
    let (a_blocks, b_blocks) = (a.chunks_exact(LANES), b.chunks_exact(LANES));
    let tail: i32 = a_blocks.remainder().iter().zip(b_blocks.remainder()).map(|(&x, &y)| x as i32 * y as i32).sum();
    let mut lanes = [0i32; LANES];
    for (x, y) in a_blocks.zip(b_blocks) {
        for lane in 0..LANES {
            lanes[lane] += x[lane] as i32 * y[lane] as i32;
        }
    }
    lanes.iter().sum::<i32>() + tail
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum VectorIndexKind {
    Flat,
    Hnsw,
}

#[derive(Serialize)]
enum Structure {
    Flat,
    Hnsw(HnswMap<QuantizedPoint, u32>),
}

/// Nearest-neighbour search over a subset of rows of a [`QuantizedVectors`] store. Not `Deserialize`: a
/// decoded index is an [`UncheckedVectorIndex`] until validated, so no unchecked graph can be searched.
///
/// Positions that share a stored row (chunks of the same text: a table's repeated rows, a copied passage)
/// are one point of the HNSW graph, at the first of them: a graph of thousands of identical points makes
/// every insertion compare with all of them (2,000 identical CSV rows never finished building).
#[derive(Serialize)]
pub struct VectorIndex {
    rows: Vec<u32>,
    structure: Structure,
    /// Every position of each row held at more than one position, derived from `rows`.
    #[serde(skip)]
    shared: std::collections::HashMap<u32, Vec<u32>>,
}

/// The positions of each row that `rows` holds more than once.
fn shared_rows(rows: &[u32]) -> std::collections::HashMap<u32, Vec<u32>> {
    let mut positions: std::collections::HashMap<u32, Vec<u32>> = std::collections::HashMap::new();
    for (position, &row) in rows.iter().enumerate() {
        positions.entry(row).or_default().push(position as u32);
    }
    positions.retain(|_, at| at.len() > 1);
    positions
}

/// The first position of each distinct row, in order.
fn first_positions(rows: &[u32]) -> Vec<u32> {
    let mut seen = std::collections::HashSet::new();
    (0..rows.len() as u32).filter(|&p| seen.insert(rows[p as usize])).collect()
}

/// How an HNSW graph is built and searched (`instant-distance` fixes the links per node, M = 32).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HnswParams {
    /// Candidates kept while linking each inserted point: the build's cost and the graph's quality.
    pub ef_construction: usize,
    /// Candidates examined per query; they are then rescored exactly and the best `k` kept.
    pub ef_search: usize,
}

impl Default for HnswParams {
    /// Chosen by `cargo bench --bench vector_index --features bench -- --sweep 100000` (docs/BENCHMARKS.md):
    /// the cheapest build whose recall@10 equals exact int8 search's (`ef_construction` 48 and 40 lose some,
    /// 128 builds 1.7× longer for nothing). `ef_search` stays above the fusion depth (100), because a search
    /// returns at most `ef_search` results and fusion asks for that many.
    fn default() -> Self {
        Self { ef_construction: 64, ef_search: 128 }
    }
}

impl VectorIndex {
    /// Indexes `rows` of `store`; HNSW when there are at least `hnsw_threshold` of them.
    pub fn build(store: &QuantizedVectors, rows: Vec<u32>, hnsw_threshold: usize) -> Self {
        let kind = if rows.len() >= hnsw_threshold { VectorIndexKind::Hnsw } else { VectorIndexKind::Flat };
        Self::build_kind(store, rows, kind)
    }

    pub fn build_kind(store: &QuantizedVectors, rows: Vec<u32>, kind: VectorIndexKind) -> Self {
        match kind {
            VectorIndexKind::Flat => Self { shared: shared_rows(&rows), rows, structure: Structure::Flat },
            VectorIndexKind::Hnsw => Self::build_hnsw(store, rows, HnswParams::default()),
        }
    }

    pub fn build_hnsw(store: &QuantizedVectors, rows: Vec<u32>, params: HnswParams) -> Self {
        let positions = first_positions(&rows);
        let points = positions.iter().map(|&p| hnsw_point(store, rows[p as usize])).collect();
        let map = Builder::default()
            .ef_construction(params.ef_construction)
            .ef_search(params.ef_search)
            .seed(0x0051_5549_5245)
            .build(points, positions);
        Self { shared: shared_rows(&rows), rows, structure: Structure::Hnsw(map) }
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
        let score = |position: u32| Hit { id: position, score: store.dot(query, self.rows[position as usize]) };
        match &self.structure {
            Structure::Flat => top_k((0..self.rows.len() as u32).map(score), k),
            Structure::Hnsw(map) => {
                let mut search = Search::default();
                let mut rows_seen = std::collections::HashSet::new();
                let candidates = map
                    .search(&QuantizedPoint::new(query), &mut search)
                    .map(|item| *item.value)
                    .filter(|&position| rows_seen.insert(self.rows[position as usize]))
                    .flat_map(|position| match self.shared.get(&self.rows[position as usize]) {
                        // Equal scores: the first `k` of a shared row are all a search can return of it.
                        Some(positions) => positions[..positions.len().min(k.max(1))].to_vec(),
                        None => vec![position],
                    })
                    .collect::<Vec<u32>>();
                top_k(candidates.into_iter().map(score), k)
            }
        }
    }
}

/// A vector index as a snapshot holds it. Nothing in it is trusted: [`UncheckedVectorIndex::validate`]
/// checks it against the store it indexes before it becomes a searchable [`VectorIndex`].
///
/// The HNSW graph is validated rather than rebuilt on load because building it is the expensive part of
/// indexing (80 s for 100,000 vectors natively on two cores, 135 s on the browser's one thread; see
/// docs/BENCHMARKS.md), while checking it is linear. `instant-distance` keeps the graph private, so it is
/// decoded into [`HnswParts`], a field-for-field twin of its serialized form, checked there, and handed to
/// `instant-distance` only once no search over it can index out of range.
#[derive(Deserialize)]
pub struct UncheckedVectorIndex {
    rows: Vec<u32>,
    structure: UncheckedStructure,
}

/// Variants in the order of [`Structure`], whose encoding this decodes.
#[derive(Deserialize)]
enum UncheckedStructure {
    Flat,
    Hnsw(HnswParts),
}

/// `instant-distance` 0.6's `M`: links per node on the upper layers, twice that on layer 0.
const M: usize = 32;
/// `instant-distance`'s end-of-list marker in a node's links.
const NO_LINK: u32 = u32::MAX;

/// Twin of `HnswMap<QuantizedPoint, u32>`'s serde form: `values[p]` is the position in `rows` of point `p`.
#[derive(Serialize, Deserialize)]
struct HnswParts {
    hnsw: HnswGraph,
    values: Vec<u32>,
}

/// Twin of `instant_distance::Hnsw`: `zero` holds every point's links on layer 0, `layers[i]` the links on
/// layer `i + 1` of its first `layers[i].len()` points. A search starts at point 0 on the top layer.
#[derive(Serialize, Deserialize)]
struct HnswGraph {
    ef_search: usize,
    points: Vec<QuantizedPoint>,
    zero: Vec<ZeroLinks>,
    layers: Vec<Vec<[u32; M]>>,
}

/// A layer-0 node's `2 M` links. `instant-distance` writes them as one 64-tuple; serde's derives stop at
/// 32, and in postcard two 32-tuples are the same bytes as one 64-tuple (tuples carry no length).
#[derive(Serialize, Deserialize)]
struct ZeroLinks([u32; M], [u32; M]);

impl ZeroLinks {
    fn links(&self) -> impl Iterator<Item = &u32> {
        self.0.iter().chain(&self.1)
    }
}

fn ensure(condition: bool, problem: &str) -> Result<(), Inconsistent> {
    if condition { Ok(()) } else { Err(problem.into()) }
}

/// Whether every link of every node names a node below `bound`. A search reads a node's links up to the
/// first [`NO_LINK`] and nothing after it.
fn links_below<'a, L: IntoIterator<Item = &'a u32>>(nodes: impl IntoIterator<Item = L>, bound: usize) -> bool {
    nodes.into_iter().all(|links| links.into_iter().take_while(|&&id| id != NO_LINK).all(|&id| (id as usize) < bound))
}

impl UncheckedVectorIndex {
    /// The index, if it indexes exactly `rows` of `store` and its HNSW graph (if any) is sound.
    pub fn validate(self, rows: &[u32], store: &QuantizedVectors) -> Result<VectorIndex, Inconsistent> {
        ensure(self.rows == rows, "the vector index does not index the chunks' embedding rows")?;
        ensure(rows.iter().all(|&r| (r as usize) < store.len()), "a vector index row beyond the stored vectors")?;
        let structure = match self.structure {
            UncheckedStructure::Flat => Structure::Flat,
            UncheckedStructure::Hnsw(parts) => {
                parts.check(rows, store)?;
                Structure::Hnsw(parts.into_map()?)
            }
        };
        Ok(VectorIndex { shared: shared_rows(&self.rows), rows: self.rows, structure })
    }
}

impl HnswParts {
    fn check(&self, rows: &[u32], store: &QuantizedVectors) -> Result<(), Inconsistent> {
        let graph = &self.hnsw;
        let n = rows.len();
        let m = self.values.len();
        ensure(
            graph.points.len() == m && graph.zero.len() == m && m <= n,
            "HNSW points disagree with the indexed rows",
        )?;
        // One point per distinct row (or, as indexes before pipeline revision 6 hold, one per position): distinct
        // positions that between them hold every indexed row.
        let mut seen = vec![false; n];
        let distinct = self.values.iter().all(|&p| (p as usize) < n && !std::mem::replace(&mut seen[p as usize], true));
        ensure(distinct, "HNSW values are not distinct indexed positions")?;
        let held: std::collections::HashSet<u32> = self.values.iter().map(|&p| rows[p as usize]).collect();
        ensure(rows.iter().all(|row| held.contains(row)), "an indexed row that the HNSW graph does not hold")?;
        // Points are derived data: they must be exactly what `build_kind` derived from the store.
        let points_match =
            graph.points.iter().zip(&self.values).all(|(point, &p)| *point == hnsw_point(store, rows[p as usize]));
        ensure(points_match, "HNSW points disagree with the stored vectors")?;
        ensure(graph.ef_search > 0, "an HNSW search that examines no candidates")?;
        self.check_links()
    }

    /// Each layer holds a prefix of the points, no longer than the layer below (so the entry points a search
    /// carries down exist there), at least point 0 (where a search starts), and links only within itself.
    fn check_links(&self) -> Result<(), Inconsistent> {
        let graph = &self.hnsw;
        let zero = graph.zero.iter().map(ZeroLinks::links);
        ensure(links_below(zero, graph.zero.len()), "an HNSW link beyond its layer")?;
        let mut below = graph.zero.len();
        for layer in &graph.layers {
            ensure(!layer.is_empty() && layer.len() <= below, "HNSW layers that do not narrow upwards")?;
            ensure(links_below(layer, layer.len()), "an HNSW link beyond its layer")?;
            below = layer.len();
        }
        Ok(())
    }

    /// `instant-distance` has no constructor from parts; its own decoder is the way in, over bytes that this
    /// twin writes exactly as it would.
    fn into_map(self) -> Result<HnswMap<QuantizedPoint, u32>, Inconsistent> {
        let bytes = postcard::to_allocvec(&self).map_err(|e| e.to_string())?;
        postcard::from_bytes(&bytes).map_err(|e| Inconsistent(format!("HNSW graph: {e}")))
    }
}

#[cfg(test)]
mod tests;
