//! Unit tests of `vectors`, beside it so the module itself reads in one sitting.

use std::sync::atomic::{AtomicUsize, Ordering};

use proptest::prelude::*;
use proptest::test_runner::TestRunner;

use super::*;

proptest! {
    #[test]
    fn int8_dot_equals_the_plain_sum(pairs in proptest::collection::vec((any::<i8>(), any::<i8>()), 0..200)) {
        let (a, b): (Vec<i8>, Vec<i8>) = pairs.into_iter().unzip();
        let plain: i32 = a.iter().zip(&b).map(|(&x, &y)| x as i32 * y as i32).sum();
        // Both paths: on a CPU with AVX2 `int8_dot` takes its own, and the portable one must still hold.
        prop_assert_eq!(int8_dot(&a, &b), plain);
        prop_assert_eq!(int8_dot_lanes(&a, &b), plain);
    }
}

#[test]
fn int8_dot_holds_at_the_extremes() {
    let (lowest, highest) = (vec![i8::MIN; 384], vec![i8::MAX; 384]);
    for dot in [int8_dot, int8_dot_lanes] {
        assert_eq!(dot(&lowest, &lowest), 384 * 128 * 128);
        assert_eq!(dot(&lowest, &highest), -384 * 128 * 127);
    }
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
        assert_eq!(hits.iter().map(|h| h.id).collect::<Vec<_>>(), vec![2, 0, 1], "{kind:?}");
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
        unchecked.validate(&rows, &store).err().expect("must be refused").0
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
    assert_eq!(refused(&|p| p.values[0] = p.values[1]), "HNSW values are not distinct indexed positions");
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
    let crafted =
        VectorIndex { rows, structure: Structure::Hnsw(parts.into_map().unwrap()), shared: Default::default() };
    let query = store.get(0);
    assert!(std::panic::catch_unwind(|| crafted.search(&store, &query, 5)).is_err());
}

#[test]
fn flat_indexes_must_index_the_given_rows_of_the_store() {
    let (store, rows, _) = hnsw_fixture();
    let flat = VectorIndex::build_kind(&store, rows.clone(), VectorIndexKind::Flat);
    assert!(decoded(&flat).validate(&rows, &store).is_ok());
    assert_eq!(
        decoded(&flat).validate(&rows[1..], &store).err().unwrap().0,
        "the vector index does not index the chunks' embedding rows"
    );
    let beyond = VectorIndex::build_kind(&store, vec![0, 300], VectorIndexKind::Flat);
    assert_eq!(
        decoded(&beyond).validate(&[0, 300], &store).err().unwrap().0,
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

/// What searching a validated index for a stored row finds. Always: at most `k` distinct positions of the
/// index, best first, each scored as the store scores it. Then its recall: how many of them score as well
/// as exact search's `k`-th, where exact search finds the row's own vector first (the fixture holds each of
/// its 17 vectors at about 18 rows, so the first `k` are all copies of it).
fn recall(
    index: &VectorIndex,
    store: &QuantizedVectors,
    rows: &[u32],
    row: u32,
    k: usize,
) -> Result<usize, TestCaseError> {
    let query = store.get(row);
    let hits = index.search(store, &query, k);
    prop_assert!(hits.len() <= k, "{} hits", hits.len());
    let mut positions = std::collections::HashSet::new();
    for hit in &hits {
        prop_assert!((hit.id as usize) < rows.len() && positions.insert(hit.id), "{:?}", hits);
        prop_assert_eq!(hit.score, store.dot(&query, rows[hit.id as usize]));
    }
    prop_assert!(hits.windows(2).all(|pair| pair[0].score >= pair[1].score), "{:?}", hits);
    let exact = VectorIndex::build_kind(store, rows.to_vec(), VectorIndexKind::Flat).search(store, &query, k);
    prop_assert_eq!(store.codes(rows[exact[0].id as usize]), store.codes(row), "its own vector is nearest");
    let bar = exact[k - 1].score;
    Ok(hits.iter().filter(|hit| hit.score >= bar).count())
}

/// Whatever its links and layer sizes, a decoded graph is refused as unsound, or searchable and finds
/// what exact search finds: a crafted graph may slow a search or cut it short, never misname a hit.
#[test]
fn edited_hnsw_graphs_are_refused_or_searchable() {
    const K: usize = 10;
    let edits = prop::collection::vec((0usize..3, 0usize..1000, 0usize..2 * M, any::<u32>()), 1..6);
    let resize = prop::option::of((0usize..4, prop_oneof![Just(0usize), 0usize..310]));
    let [validated, refused, searches, found] = std::array::from_fn(|_| AtomicUsize::new(0));
    let config = ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() };
    let result = TestRunner::new(config).run(&(edits, resize), |(edits, resize)| {
        let (store, rows, bytes) = encoded_fixture();
        let mut unchecked: UncheckedVectorIndex = postcard::from_bytes(bytes).unwrap();
        let parts = parts(&mut unchecked);
        edits.into_iter().for_each(|edit| rewrite_link(parts, edit));
        if let Some((layer, len)) = resize {
            resize_layer(parts, layer, len);
        }
        match unchecked.validate(rows, store) {
            Ok(index) => {
                for row in [0, 150, 299] {
                    found.fetch_add(recall(&index, store, rows, row, K)?, Ordering::Relaxed);
                    searches.fetch_add(1, Ordering::Relaxed);
                }
                validated.fetch_add(1, Ordering::Relaxed);
            }
            // Links and layer sizes are all these edits touch.
            Err(problem) => {
                let reasons = ["an HNSW link beyond its layer", "HNSW layers that do not narrow upwards"];
                prop_assert!(reasons.contains(&problem.0.as_str()), "{}", problem.0);
                refused.fetch_add(1, Ordering::Relaxed);
            }
        }
        Ok(())
    });
    if let Err(failure) = result {
        panic!("{failure}");
    }
    let [validated, refused, searches, found] = [validated, refused, searches, found].map(AtomicUsize::into_inner);
    eprintln!("{validated} edited graphs searched, {refused} refused; recall@{K} {found} of {}", searches * K);
    // Both outcomes happen, and a few edited links do not stop searches from finding the nearest vectors.
    assert!(validated > 0 && refused > 0, "{validated} searched, {refused} refused");
    assert!(found * 100 >= searches * K * 95, "recall@{K}: {found} of {}", searches * K);
}

#[test]
fn a_dimension_that_wraps_the_size_around_is_inconsistent() {
    // 2 × (384 + 2⁶³) wraps to 768 codes in 64 bits (2³¹ in 32): a crafted snapshot passed, then panicked on a read.
    let crafted = QuantizedVectors { dimension: 384 + (usize::MAX / 2 + 1), codes: vec![0; 768], scales: vec![1.0; 2] };
    assert!(crafted.check().is_err());
    assert!(QuantizedVectors { dimension: 384, codes: vec![0; 768], scales: vec![1.0; 2] }.check().is_ok());
}

/// 20,000 positions of three stored rows (a table's repeated rows): the graph holds three points, builds at
/// once (a point per position never finished), survives a snapshot, and a search returns the best row's
/// positions, as many as asked, in position order, like flat search.
#[test]
fn positions_sharing_a_row_are_one_point_of_the_graph() {
    let mut store = QuantizedVectors::new(3);
    for v in [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]] {
        store.push(&unit(&v)).unwrap();
    }
    let rows: Vec<u32> = (0..20_000u32).map(|p| p % 3).collect();
    let started = std::time::Instant::now();
    let index = VectorIndex::build_kind(&store, rows.clone(), VectorIndexKind::Hnsw);
    assert!(started.elapsed().as_secs() < 5, "built in {:?}", started.elapsed());
    let index = decoded(&index).validate(&rows, &store).unwrap();
    let flat = VectorIndex::build_kind(&store, rows.clone(), VectorIndexKind::Flat);
    let query = unit(&[0.1, 0.9, 0.2]);
    let ids = |index: &VectorIndex| index.search(&store, &query, 5).iter().map(|h| h.id).collect::<Vec<_>>();
    assert_eq!(ids(&index), vec![1, 4, 7, 10, 13]);
    assert_eq!(ids(&index), ids(&flat));
}
