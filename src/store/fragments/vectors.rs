//! The chunks' vectors of an index split for a static host, partitioned as an inverted file (IVF): the
//! vectors are clustered by spherical k-means, and each cluster's chunks and their int8 codes lie in one
//! *partition* file. A question's vector is scored against the *centroids* (one file of 4-bit codes,
//! `nibbles`, fetched once), and the partitions of the nearest centroids are fetched and scanned until
//! [`PROBED_VECTORS`] vectors are scored. The partitions' codes are the whole index's own (int8, one scale
//! per vector, scored asymmetrically against the f32 question), so a chunk found scores as the whole index
//! scores it: what the partitions cost is the chunks they miss, measured as recall@10 against exact search
//! (docs/QUALITY.md).
//!
//! K-means is written here rather than taken from a crate: the clustering crates for Rust bring ndarray
//! and linfa, or need a nightly compiler, for some forty lines over the vectors' own dot product.

use serde::{Deserialize, Serialize};

use crate::corpus::ChunkId;
use crate::embed::ModelIdentity;
use crate::error::Inconsistent;
use crate::index::vectors::dot;
use crate::index::{Hit, QuantizedVectors, top_k};

use crate::index::nibbles::NibbleVectors;

/// The centroids' file name, inside the folder of the fragments.
pub const CENTROIDS: &str = "vectors/centroids.bin";
/// How many vectors a question scores, in the partitions of its nearest centroids: about 0.8 MB of
/// partitions (docs/QUALITY.md measures the recall it buys, docs/BENCHMARKS.md the bytes).
pub const PROBED_VECTORS: usize = 2048;
/// Rounds of k-means, and how many vectors per centroid it learns from; the rest are only assigned.
const ROUNDS: usize = 6;
const SAMPLE_PER_CENTROID: usize = 16;
/// How many times its share of vectors a partition may hold before it is split.
const OVERSIZE: usize = 4;

/// Every partition's centroid, and the model the vectors came from.
#[derive(Serialize, Deserialize)]
pub(super) struct Centroids {
    pub model: ModelIdentity,
    pub centroids: NibbleVectors,
    /// Each partition's count of chunks.
    pub sizes: Vec<u32>,
}

/// One partition: its chunks, ascending, as gaps, and their vectors' codes in that order.
#[derive(Serialize, Deserialize)]
pub(super) struct Partition {
    pub partition: u32,
    pub chunks: Vec<u32>,
    pub vectors: QuantizedVectors,
}

/// The centroids and partitions of the chunk vectors `rows` of `store` (`model`'s, each chunk's row),
/// partitions of about `partition_bytes` each.
pub(super) fn partition(
    store: &QuantizedVectors,
    rows: &[u32],
    model: &ModelIdentity,
    partition_bytes: usize,
) -> (Centroids, Vec<Partition>) {
    let dimension = store.dimension();
    let vector_bytes = dimension + 4 + 2;
    let wanted = (rows.len() * vector_bytes).div_ceil(partition_bytes.max(vector_bytes)).max(1);
    let points: Vec<Vec<f32>> = rows.iter().map(|&row| store.get(row)).collect();
    let centres = k_means(&points, wanted.min(points.len()).max(1));
    let mut members: Vec<Vec<ChunkId>> = vec![Vec::new(); centres.len()];
    let points: Vec<&[f32]> = points.iter().map(Vec::as_slice).collect();
    for (chunk, centre) in nearest_centres(&centres, &points).into_iter().enumerate() {
        members[centre].push(chunk as ChunkId);
    }
    let mut centroids = NibbleVectors::new(dimension);
    let mut sizes = Vec::new();
    let mut partitions = Vec::new();
    // A cluster far larger than the rest (many copies of one text) is split into partitions of the same
    // centroid, so that no file a question fetches is much larger than the others.
    let largest = (partition_bytes / vector_bytes).max(1) * OVERSIZE;
    for (centre, members) in centres.iter().zip(members) {
        for chunks in members.chunks(largest) {
            centroids.push(centre);
            sizes.push(chunks.len() as u32);
            let mut vectors = QuantizedVectors::new(dimension);
            for &chunk in chunks {
                vectors.push_codes(store, rows[chunk as usize]);
            }
            let chunks = super::terms::to_gaps(chunks.iter().copied()).collect();
            partitions.push(Partition { partition: partitions.len() as u32, chunks, vectors });
        }
    }
    (Centroids { model: model.clone(), centroids, sizes }, partitions)
}

/// Spherical k-means: `k` unit centroids, learned from an evenly spread sample of `points`.
fn k_means(points: &[Vec<f32>], k: usize) -> Vec<Vec<f32>> {
    let Some(dimension) = points.first().map(Vec::len) else { return Vec::new() };
    let stride = (points.len() / (k * SAMPLE_PER_CENTROID)).max(1);
    let sample: Vec<&[f32]> = points.iter().step_by(stride).map(Vec::as_slice).collect();
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

impl Centroids {
    /// Whether the parts agree, for an index of `chunks` chunks.
    pub fn check(&self, chunks: usize) -> Result<(), Inconsistent> {
        self.centroids.check()?;
        if self.centroids.dimension() != self.model.dimension {
            return Err(format!(
                "{}-dimensional centroids of a {}-dimensional model",
                self.centroids.dimension(),
                self.model.dimension
            )
            .into());
        }
        if self.sizes.len() != self.centroids.len() {
            return Err(format!("{} partition sizes for {} centroids", self.sizes.len(), self.centroids.len()).into());
        }
        if self.sizes.iter().map(|&size| u64::from(size)).sum::<u64>() != chunks as u64 {
            return Err(format!("its partitions do not hold the index's {chunks} chunks").into());
        }
        Ok(())
    }

    /// The partitions to scan for `query`: the nearest centroids' first, until `budget` vectors.
    pub fn probed(&self, query: &[f32], budget: usize) -> Vec<u32> {
        let scored = (0u32..).zip(self.centroids.dots(query)).map(|(id, score)| Hit { id, score });
        let mut scanned = 0;
        top_k(scored, self.centroids.len())
            .into_iter()
            .take_while(|hit| {
                let take = scanned < budget;
                scanned += self.sizes[hit.id as usize] as usize;
                take
            })
            .map(|hit| hit.id)
            .collect()
    }
}

impl Partition {
    /// The partition's chunks, back from their gaps, once found to agree with `centroids`, whose partition
    /// `expected` this is, in an index of `chunks` chunks.
    pub fn chunks(&self, centroids: &Centroids, expected: u32, chunks: usize) -> Result<Vec<ChunkId>, Inconsistent> {
        self.vectors.check()?;
        let size = centroids.sizes.get(expected as usize).ok_or("a partition beyond the centroids'")?;
        if self.partition != expected
            || self.chunks.len() != *size as usize
            || self.vectors.len() != self.chunks.len()
            || self.vectors.dimension() != centroids.centroids.dimension()
        {
            return Err(format!("partition {} of {} chunks", self.partition, self.chunks.len()).into());
        }
        super::terms::from_gaps(self.chunks.iter().copied(), chunks)
            .ok_or_else(|| "chunks out of order or beyond the index".into())
    }

    /// Each of the partition's chunks scored against `query`, as the whole index scores it.
    pub fn scores<'a>(&'a self, chunks: &'a [ChunkId], query: &'a [f32]) -> impl Iterator<Item = Hit> + 'a {
        chunks.iter().enumerate().map(|(row, &id)| Hit { id, score: self.vectors.dot(query, row as u32) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model() -> ModelIdentity {
        ModelIdentity {
            name: "test".into(),
            model_hash: "m".into(),
            tokenizer_hash: "t".into(),
            dimension: 8,
            max_tokens: 128,
        }
    }

    fn store(vectors: &[Vec<f32>]) -> QuantizedVectors {
        let mut store = QuantizedVectors::new(8);
        vectors.iter().for_each(|v| _ = store.push(v).unwrap());
        store
    }

    fn unit(seed: u32) -> Vec<f32> {
        let mut v: Vec<f32> = (0..8u32).map(|d| ((seed * 31 + d * 17) % 23) as f32 - 11.0).collect();
        crate::embed::normalize(&mut v);
        v
    }

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

    /// Three hundred copies of one text and thirty others: the copies' cluster is split, so that no
    /// partition holds more than four times its share.
    #[test]
    fn a_cluster_of_many_copies_is_split_into_partitions_of_bounded_size() {
        let vectors: Vec<Vec<f32>> = (0..330).map(|i| if i < 300 { unit(1) } else { unit(i) }).collect();
        let rows: Vec<u32> = (0..330).collect();
        let bytes = 10 * (8 + 4 + 2);
        let (centroids, partitions) = partition(&store(&vectors), &rows, &model(), bytes);
        centroids.check(330).unwrap();
        assert!(centroids.sizes.iter().all(|&size| size as usize <= 10 * OVERSIZE), "{:?}", centroids.sizes);
        let mut found: Vec<u32> = Vec::new();
        for (number, partition) in partitions.iter().enumerate() {
            found.extend(partition.chunks(&centroids, number as u32, 330).unwrap());
        }
        found.sort_unstable();
        assert_eq!(found, rows, "every chunk in exactly one partition");
    }

    /// A partition that lists a chunk twice, or out of order, or sizes that do not add up to the index, is
    /// refused; a question of another dimension scores without panicking.
    #[test]
    fn crafted_but_well_formed_partitions_are_refused() {
        let vectors: Vec<Vec<f32>> = (0..40).map(unit).collect();
        let rows: Vec<u32> = (0..40).collect();
        let (centroids, mut partitions) = partition(&store(&vectors), &rows, &model(), 10 * 14);
        assert!(centroids.check(41).is_err());
        let first = &mut partitions[0];
        let size = first.chunks.len();
        first.chunks = std::iter::once(3).chain(std::iter::repeat_n(0, size - 1)).collect();
        assert!(first.chunks(&centroids, 0, 40).is_err(), "a chunk listed twice");
        first.chunks = std::iter::repeat_n(u32::MAX, size).collect();
        assert!(first.chunks(&centroids, 0, 40).is_err(), "chunks beyond the index");
        let ids: Vec<u32> = (0..size as u32).collect();
        let _ = first.scores(&ids, &[1.0; 3]).count();
        assert!(!centroids.probed(&[1.0; 3], 10).is_empty(), "a question of another dimension scans something");
    }
}
