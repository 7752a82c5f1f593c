//! Spherical k-means, which splits the chunk vectors into partitions and the partitions' centroids into
//! groups. Written here rather than taken from a crate: the clustering crates for Rust bring ndarray and
//! linfa, or need a nightly compiler, for some forty lines over the vectors' own dot product.

use crate::corpus::ChunkId;
use crate::index::vectors::dot;
use crate::index::{Hit, top_k};

/// Rounds of k-means, and how many vectors per centroid it learns from; the rest are only assigned.
const ROUNDS: usize = 6;
const SAMPLE_PER_CENTROID: usize = 16;

/// A partition's chunks and its centroid, before they are numbered and grouped.
pub(super) struct Cell {
    pub centre: Vec<f32>,
    pub chunks: Vec<ChunkId>,
}

/// `points` clustered into about `k` cells by spherical k-means, each cell's points (their places in
/// `points`, ascending) at most `largest`: a larger cluster is split into cells of the same centre.
pub(super) fn clusters<P: AsRef<[f32]>>(points: &[P], k: usize, largest: usize) -> Vec<Cell> {
    let points: Vec<&[f32]> = points.iter().map(AsRef::as_ref).collect();
    let centres = k_means(&points, k.min(points.len()).max(1));
    let mut members: Vec<Vec<ChunkId>> = vec![Vec::new(); centres.len()];
    for (point, centre) in nearest_centres(&centres, &points).into_iter().enumerate() {
        members[centre].push(point as ChunkId);
    }
    let split = centres.iter().zip(&members).flat_map(|(centre, members)| {
        members.chunks(largest.max(1)).map(|chunks| Cell { centre: centre.clone(), chunks: chunks.to_vec() })
    });
    split.collect()
}

/// Spherical k-means: `k` unit centroids, learned from an evenly spread sample of `points`.
fn k_means(points: &[&[f32]], k: usize) -> Vec<Vec<f32>> {
    let Some(dimension) = points.first().map(|point| point.len()) else { return Vec::new() };
    let stride = (points.len() / (k * SAMPLE_PER_CENTROID)).max(1);
    let sample: Vec<&[f32]> = points.iter().step_by(stride).copied().collect();
    let seed_stride = sample.len() / k;
    let mut centres: Vec<Vec<f32>> = (0..k).map(|i| sample[i * seed_stride].to_vec()).collect();
    for _ in 0..ROUNDS {
        let mut sums = vec![vec![0f32; dimension]; k];
        for (point, centre) in sample.iter().zip(nearest_centres(&centres, &sample)) {
            sums[centre].iter_mut().zip(point.iter()).for_each(|(s, x)| *s += x);
        }
        for (centre, mut sum) in centres.iter_mut().zip(sums) {
            // An empty cluster keeps its centre: it may win points in a later round.
            if sum.iter().any(|&x| x != 0.0) {
                crate::embed::normalize(&mut sum);
                *centre = sum;
            }
        }
    }
    centres
}

/// Each point's nearest centre. Natively the points are shared among the machine's cores: this scan is
/// nearly all of the time `quire site` spends cutting a large index (minutes at 100k chunks on one core).
/// The answer is the same however many share it.
fn nearest_centres(centres: &[Vec<f32>], points: &[&[f32]]) -> Vec<usize> {
    #[cfg(not(target_arch = "wasm32"))]
    {
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
        let share = points.len().div_ceil(threads).max(1);
        std::thread::scope(|scope| {
            let shares: Vec<_> = points
                .chunks(share)
                .map(|share| scope.spawn(move || share.iter().map(|point| nearest(centres, point)).collect::<Vec<_>>()))
                .collect();
            shares
                .into_iter()
                .flat_map(|share| share.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)))
                .collect()
        })
    }
    #[cfg(target_arch = "wasm32")]
    points.iter().map(|point| nearest(centres, point)).collect()
}

fn nearest(centres: &[Vec<f32>], point: &[f32]) -> usize {
    let scored = centres.iter().enumerate().map(|(i, centre)| Hit { id: i as u32, score: dot(point, centre) });
    top_k(scored, 1).first().map_or(0, |hit| hit.id as usize)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::fragments::vectors::tests::unit;

    /// Shared among the cores, each point still finds the centre one scan finds, in the points' order.
    #[test]
    fn the_nearest_centres_do_not_depend_on_how_the_scan_is_shared() {
        let points: Vec<Vec<f32>> = (0..1001).map(|i| unit(i % 97)).collect();
        let centres: Vec<Vec<f32>> = (0..13).map(|i| unit(i * 7)).collect();
        let points: Vec<&[f32]> = points.iter().map(Vec::as_slice).collect();
        let one_scan: Vec<usize> = points.iter().map(|point| nearest(&centres, point)).collect();
        assert_eq!(nearest_centres(&centres, &points), one_scan);
        assert!(one_scan.iter().collect::<std::collections::HashSet<_>>().len() > 5, "the points reach many centres");
    }
}
