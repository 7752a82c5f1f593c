//! Unit tests of `chunks`, beside it so the module itself reads in one sitting.

use super::communities::offer;
use super::documents::NEIGHBOURHOOD;
use super::*;

fn graph(nodes: usize, edges: &[(usize, usize, f32)]) -> DocumentGraph {
    DocumentGraph { nodes, edges: edges.iter().map(|&(a, b, w)| ((a, b), w)).collect() }
}

/// Path a–b–c with weights 3 and 1, d = 0.85, teleport 0.05 each. b passes 3/4 of its rank to a and
/// 1/4 to c; a and c pass all theirs to b. So b = 0.05 + 0.85 (a + c) and a + c = 0.1 + 0.85 b:
/// b = 0.135 / 0.2775 = 0.486486, a = 0.05 + 0.6375 b = 0.360135, c = 0.05 + 0.2125 b = 0.153378.
#[test]
fn pagerank_follows_edge_weights() {
    let ranks = graph(3, &[(0, 1, 3.0), (1, 2, 1.0)]).pagerank(0.85);
    for (rank, expected) in ranks.iter().zip([0.360135, 0.486486, 0.153378]) {
        assert!((rank - expected).abs() < 1e-5, "{ranks:?}");
    }
    let isolated = graph(2, &[]).pagerank(0.85);
    assert_eq!(isolated, vec![0.5, 0.5]);
}

/// Two triangles joined by one weak edge: the known partition is the two triangles.
#[test]
fn leiden_finds_the_two_triangles() {
    let two_triangles =
        graph(6, &[(0, 1, 1.0), (1, 2, 1.0), (0, 2, 1.0), (3, 4, 1.0), (4, 5, 1.0), (3, 5, 1.0), (2, 3, 0.1)]);
    assert_eq!(two_triangles.communities(&ChunkGraphSettings::default()), vec![vec![0, 1, 2], vec![3, 4, 5]]);
    assert_eq!(graph(1, &[]).communities(&ChunkGraphSettings::default()), vec![vec![0]]);
    assert!(graph(0, &[]).communities(&ChunkGraphSettings::default()).is_empty());
}

#[test]
fn percentiles_and_best_links() {
    assert_eq!(percentile(vec![0.4, 0.1, 0.3, 0.2, 0.5], 0.5), 0.3);
    assert_eq!(percentile(vec![0.4, 0.1, 0.3, 0.2, 0.5], 1.0), 0.5);
    assert_eq!(percentile(Vec::new(), 0.5), f32::INFINITY);
    let mut best = Vec::new();
    for (community, similarity) in [(7, 0.2), (3, 0.9), (5, 0.5), (1, 0.5), (9, 0.1)] {
        offer(&mut best, CommunityLink { community, similarity }, 3);
    }
    let kept: Vec<u32> = best.iter().map(|l| l.community).collect();
    assert_eq!(kept, vec![3, 1, 5]);
}

/// The bound that keeps a long document's chunk graph linear: a chunk is compared only with the
/// `NEIGHBOURHOOD` chunks on each side of it. Chunk 0 has two twins, one at the window's edge and one just
/// past it; everything else is orthogonal to them.
#[test]
fn a_chunk_is_compared_only_within_its_neighbourhood() {
    let (twin, other) = ([1.0, 0.0], [0.0, 1.0]);
    let vectors: Vec<&[f32]> =
        (0..NEIGHBOURHOOD + 2).map(|c| if c == 0 || c >= NEIGHBOURHOOD { &twin[..] } else { &other[..] }).collect();
    let edges = nearest_in_document(&vectors, 0..vectors.len() as ChunkId, &ChunkGraphSettings::default());
    let joined = |a: usize, b: usize| edges.iter().any(|e| (e.first as usize, e.second as usize) == (a, b));
    assert!(joined(0, NEIGHBOURHOOD), "the twin at the window's edge");
    assert!(!joined(0, NEIGHBOURHOOD + 1), "the twin past the window is never compared");
    assert!(joined(NEIGHBOURHOOD, NEIGHBOURHOOD + 1));
}
