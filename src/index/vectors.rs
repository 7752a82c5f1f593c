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
/// Sixteen independent i32 sums, as [`lane_dot`] does for f32, let the compiler widen and multiply a block
/// at a time: the 10,000-vector build went from 17.9 s with one running sum to 14.5 s
/// (`cargo bench --bench vector_index --features bench -- 10000`). Summing pairs of products in i16 first,
/// the shape of `pmaddwd`, took 35.7 s as the compiler wrote it.
fn int8_dot(a: &[i8], b: &[i8]) -> i32 {
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
#[derive(Serialize)]
pub struct VectorIndex {
    rows: Vec<u32>,
    structure: Structure,
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
            VectorIndexKind::Flat => Self { rows, structure: Structure::Flat },
            VectorIndexKind::Hnsw => Self::build_hnsw(store, rows, HnswParams::default()),
        }
    }

    pub fn build_hnsw(store: &QuantizedVectors, rows: Vec<u32>, params: HnswParams) -> Self {
        let points = rows.iter().map(|&r| hnsw_point(store, r)).collect();
        let positions = (0..rows.len() as u32).collect();
        let map = Builder::default()
            .ef_construction(params.ef_construction)
            .ef_search(params.ef_search)
            .seed(0x0051_5549_5245)
            .build(points, positions);
        Self { rows, structure: Structure::Hnsw(map) }
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

fn ensure(condition: bool, problem: &str) -> Result<(), String> {
    if condition { Ok(()) } else { Err(problem.to_string()) }
}

/// Whether every link of every node names a node below `bound`. A search reads a node's links up to the
/// first [`NO_LINK`] and nothing after it.
fn links_below<'a, L: IntoIterator<Item = &'a u32>>(nodes: impl IntoIterator<Item = L>, bound: usize) -> bool {
    nodes.into_iter().all(|links| links.into_iter().take_while(|&&id| id != NO_LINK).all(|&id| (id as usize) < bound))
}

impl UncheckedVectorIndex {
    /// The index, if it indexes exactly `rows` of `store` and its HNSW graph (if any) is sound.
    pub fn validate(self, rows: &[u32], store: &QuantizedVectors) -> Result<VectorIndex, String> {
        ensure(self.rows == rows, "the vector index does not index the chunks' embedding rows")?;
        ensure(rows.iter().all(|&r| (r as usize) < store.len()), "a vector index row beyond the stored vectors")?;
        let structure = match self.structure {
            UncheckedStructure::Flat => Structure::Flat,
            UncheckedStructure::Hnsw(parts) => {
                parts.check(rows, store)?;
                Structure::Hnsw(parts.into_map()?)
            }
        };
        Ok(VectorIndex { rows: self.rows, structure })
    }
}

impl HnswParts {
    fn check(&self, rows: &[u32], store: &QuantizedVectors) -> Result<(), String> {
        let graph = &self.hnsw;
        let n = rows.len();
        ensure(
            graph.points.len() == n && graph.zero.len() == n && self.values.len() == n,
            "HNSW points disagree with the indexed rows",
        )?;
        let mut seen = vec![false; n];
        let permutation =
            self.values.iter().all(|&p| (p as usize) < n && !std::mem::replace(&mut seen[p as usize], true));
        ensure(permutation, "HNSW values are not the indexed positions")?;
        // Points are derived data: they must be exactly what `build_kind` derived from the store.
        let points_match =
            graph.points.iter().zip(&self.values).all(|(point, &p)| *point == hnsw_point(store, rows[p as usize]));
        ensure(points_match, "HNSW points disagree with the stored vectors")?;
        ensure(graph.ef_search > 0, "an HNSW search that examines no candidates")?;
        self.check_links()
    }

    /// Each layer holds a prefix of the points, no longer than the layer below (so the entry points a search
    /// carries down exist there), at least point 0 (where a search starts), and links only within itself.
    fn check_links(&self) -> Result<(), String> {
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
    fn into_map(self) -> Result<HnswMap<QuantizedPoint, u32>, String> {
        let bytes = postcard::to_allocvec(&self).map_err(|e| e.to_string())?;
        postcard::from_bytes(&bytes).map_err(|e| format!("HNSW graph: {e}"))
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    proptest! {
        #[test]
        fn int8_dot_equals_the_plain_sum(pairs in proptest::collection::vec((any::<i8>(), any::<i8>()), 0..200)) {
            let (a, b): (Vec<i8>, Vec<i8>) = pairs.into_iter().unzip();
            let plain: i32 = a.iter().zip(&b).map(|(&x, &y)| x as i32 * y as i32).sum();
            prop_assert_eq!(int8_dot(&a, &b), plain);
        }
    }

    #[test]
    fn int8_dot_holds_at_the_extremes() {
        let lowest = vec![i8::MIN; 384];
        assert_eq!(int8_dot(&lowest, &lowest), 384 * 128 * 128);
        assert_eq!(int8_dot(&lowest, &vec![i8::MAX; 384]), -384 * 128 * 127);
    }

    fn unit(v: &[f32]) -> Vec<f32> {
        let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        v.iter().map(|x| x / n).collect()
    }

    #[test]
    fn quantisation_preserves_dot_products() {
        let a = unit(&[0.3, -0.2, 0.9, 0.1]);
        let b = unit(&[0.1, 0.4, 0.8, -0.3]);
        let mut store = QuantizedVectors::new(4);
        store.push(&b).unwrap();
        let exact: f32 = a.iter().zip(&b).map(|(x, y)| x * y).sum();
        assert!((store.dot(&a, 0) - exact).abs() < 0.01);
    }

    #[test]
    fn vectors_of_another_dimension_are_refused() {
        let mut store = QuantizedVectors::new(3);
        assert_eq!(store.push(&[0.5; 4]), Err(DimensionMismatch { expected: 3, actual: 4 }));
        assert_eq!(store.len(), 0);
        assert_eq!(store.push(&[0.5; 3]), Ok(0));
    }

    #[test]
    fn flat_and_hnsw_agree_on_small_sets() {
        let mut store = QuantizedVectors::new(3);
        let vectors = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.7, 0.7, 0.0], [0.0, 0.0, 1.0], [-1.0, 0.0, 0.0]];
        for v in &vectors {
            store.push(&unit(v)).unwrap();
        }
        let rows: Vec<u32> = (0..5).collect();
        let query = unit(&[0.9, 0.5, 0.0]);
        for kind in [VectorIndexKind::Flat, VectorIndexKind::Hnsw] {
            let index = VectorIndex::build_kind(&store, rows.clone(), kind);
            let hits = index.search(&store, &query, 3);
            assert_eq!(hits.iter().map(|h| h.row).collect::<Vec<_>>(), vec![2, 0, 1], "{kind:?}");
        }
    }
    /// Enough points for upper HNSW layers (`instant-distance` adds one from about 111 points).
    fn hnsw_fixture() -> (QuantizedVectors, Vec<u32>, VectorIndex) {
        let mut store = QuantizedVectors::new(8);
        for i in 0..300u32 {
            let v: Vec<f32> = (0..8u32).map(|d| ((i * 7 + d * 13) % 17) as f32 - 8.0 + 0.5).collect();
            store.push(&unit(&v)).unwrap();
        }
        let rows: Vec<u32> = (0..300).rev().collect();
        let index = VectorIndex::build_kind(&store, rows.clone(), VectorIndexKind::Hnsw);
        (store, rows, index)
    }

    fn decoded(index: &VectorIndex) -> UncheckedVectorIndex {
        postcard::from_bytes(&postcard::to_allocvec(index).unwrap()).unwrap()
    }

    fn parts(index: &mut UncheckedVectorIndex) -> &mut HnswParts {
        match &mut index.structure {
            UncheckedStructure::Hnsw(parts) => parts,
            UncheckedStructure::Flat => panic!("not HNSW"),
        }
    }

    #[test]
    fn the_hnsw_twin_reads_and_writes_instant_distance_bytes() {
        let (_, _, index) = hnsw_fixture();
        let Structure::Hnsw(map) = &index.structure else { panic!("not HNSW") };
        let bytes = postcard::to_allocvec(map).unwrap();
        let twin: HnswParts = postcard::from_bytes(&bytes).unwrap();
        assert!(!twin.hnsw.layers.is_empty(), "the fixture must exercise upper layers");
        assert!(postcard::to_allocvec(&twin).unwrap() == bytes);
    }

    #[test]
    fn validated_hnsw_answers_as_built() {
        let (store, rows, index) = hnsw_fixture();
        let loaded = decoded(&index).validate(&rows, &store).unwrap();
        let query = unit(&[0.3, -0.2, 0.9, 0.1, 0.0, 0.5, -0.7, 0.2]);
        assert_eq!(loaded.search(&store, &query, 10), index.search(&store, &query, 10));
        assert!(postcard::to_allocvec(&loaded).unwrap() == postcard::to_allocvec(&index).unwrap());
    }

    #[test]
    fn crafted_hnsw_graphs_are_refused() {
        let (store, rows, index) = hnsw_fixture();
        let refused = |tamper: &dyn Fn(&mut HnswParts)| {
            let mut unchecked = decoded(&index);
            tamper(parts(&mut unchecked));
            unchecked.validate(&rows, &store).err().expect("must be refused")
        };
        assert_eq!(refused(&|p| p.hnsw.zero[5].1[3] = 300), "an HNSW link beyond its layer");
        let top_link_beyond_top = |p: &mut HnswParts| {
            let top = p.hnsw.layers.last_mut().unwrap();
            top[0][0] = top.len() as u32;
        };
        assert_eq!(refused(&top_link_beyond_top), "an HNSW link beyond its layer");
        assert_eq!(refused(&|p| p.hnsw.layers.push(vec![[NO_LINK; M]; 400])), "HNSW layers that do not narrow upwards");
        assert_eq!(refused(&|p| p.hnsw.layers.push(Vec::new())), "HNSW layers that do not narrow upwards");
        assert_eq!(refused(&|p| p.hnsw.zero.truncate(299)), "HNSW points disagree with the indexed rows");
        assert_eq!(refused(&|p| p.values.truncate(299)), "HNSW points disagree with the indexed rows");
        assert_eq!(refused(&|p| p.values[0] = p.values[1]), "HNSW values are not the indexed positions");
        assert_eq!(refused(&|p| p.hnsw.points.swap(0, 1)), "HNSW points disagree with the stored vectors");
        assert_eq!(refused(&|p| p.hnsw.ef_search = 0), "an HNSW search that examines no candidates");
    }

    /// Why the links are checked: `instant-distance` indexes with them unchecked.
    #[test]
    fn an_unchecked_link_out_of_range_panics_in_search() {
        let (store, _, index) = hnsw_fixture();
        let mut unchecked = decoded(&index);
        parts(&mut unchecked).hnsw.zero.iter_mut().for_each(|node| node.0[0] = 1_000);
        let rows = unchecked.rows.clone();
        let UncheckedStructure::Hnsw(parts) = unchecked.structure else { unreachable!() };
        let crafted = VectorIndex { rows, structure: Structure::Hnsw(parts.into_map().unwrap()) };
        let query = store.get(0);
        assert!(std::panic::catch_unwind(|| crafted.search(&store, &query, 5)).is_err());
    }

    #[test]
    fn flat_indexes_must_index_the_given_rows_of_the_store() {
        let (store, rows, _) = hnsw_fixture();
        let flat = VectorIndex::build_kind(&store, rows.clone(), VectorIndexKind::Flat);
        assert!(decoded(&flat).validate(&rows, &store).is_ok());
        assert_eq!(
            decoded(&flat).validate(&rows[1..], &store).err().unwrap(),
            "the vector index does not index the chunks' embedding rows"
        );
        let beyond = VectorIndex::build_kind(&store, vec![0, 300], VectorIndexKind::Flat);
        assert_eq!(
            decoded(&beyond).validate(&[0, 300], &store).err().unwrap(),
            "a vector index row beyond the stored vectors"
        );
    }
    /// The fixture's store, rows and encoded index, built once for the property test below.
    fn encoded_fixture() -> &'static (QuantizedVectors, Vec<u32>, Vec<u8>) {
        static FIXTURE: std::sync::OnceLock<(QuantizedVectors, Vec<u32>, Vec<u8>)> = std::sync::OnceLock::new();
        FIXTURE.get_or_init(|| {
            let (store, rows, index) = hnsw_fixture();
            (store, rows, postcard::to_allocvec(&index).unwrap())
        })
    }

    /// Rewrites link `slot` of `node` on layer `layer` (0, or an upper layer), to a target in range, just
    /// beyond the points, or the end-of-list marker.
    fn rewrite_link(parts: &mut HnswParts, (layer, node, slot, target): (usize, usize, usize, u32)) {
        let graph = &mut parts.hnsw;
        let n = graph.points.len();
        let target = if target % 8 == 0 { NO_LINK } else { target % (n as u32 + 4) };
        if layer == 0 || graph.layers.is_empty() {
            let links = &mut graph.zero[node % n];
            if slot < M { links.0[slot] = target } else { links.1[slot - M] = target }
        } else {
            let count = graph.layers.len();
            let upper = &mut graph.layers[(layer - 1) % count];
            let len = upper.len();
            upper[node % len][slot % M] = target;
        }
    }

    /// Resizes an upper layer; a grown one links every node to its last, so searches reach the new nodes.
    fn resize_layer(parts: &mut HnswParts, layer: usize, len: usize) {
        let layers = &mut parts.hnsw.layers;
        let count = layers.len();
        let layer = &mut layers[layer % count];
        let grown = len > layer.len();
        layer.resize(len, [NO_LINK; M]);
        if grown {
            layer.iter_mut().for_each(|links| links[0] = len as u32 - 1);
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

        /// Whatever its links and layer sizes, a decoded graph is refused or searchable without a panic.
        #[test]
        fn edited_hnsw_graphs_are_refused_or_searchable(
            edits in prop::collection::vec((0usize..3, 0usize..1000, 0usize..2 * M, any::<u32>()), 1..6),
            resize in prop::option::of((0usize..4, prop_oneof![Just(0usize), 0usize..310])),
        ) {
            let (store, rows, bytes) = encoded_fixture();
            let mut unchecked: UncheckedVectorIndex = postcard::from_bytes(bytes).unwrap();
            let parts = parts(&mut unchecked);
            edits.into_iter().for_each(|edit| rewrite_link(parts, edit));
            if let Some((layer, len)) = resize {
                resize_layer(parts, layer, len);
            }
            if let Ok(index) = unchecked.validate(rows, store) {
                for row in [0, 150, 299] {
                    index.search(store, &store.get(row), 10);
                }
            }
        }
    }
}
