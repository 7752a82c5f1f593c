//! The chunks' vectors of an index split for a static host, partitioned as an inverted file (IVF): the
//! vectors are clustered by spherical k-means, and each cluster's chunks and their int8 codes lie in one
//! *partition* file. A question's vector is scored against the *centroids* (one small file, fetched once),
//! and the partitions of the nearest centroids are fetched and scanned until [`PROBED_VECTORS`] vectors are
//! scored. The codes are the whole index's own (int8, one scale per vector, scored asymmetrically against
//! the f32 question), so a chunk found scores as the whole index scores it: what the partitions cost is the
//! chunks they miss, measured as recall@10 against exact search (docs/QUALITY.md).
//!
//! K-means is written here rather than taken from a crate: the clustering crates for Rust bring ndarray
//! and linfa, or need a nightly compiler, for some forty lines over the vectors' own dot product.

use serde::{Deserialize, Serialize};

use crate::corpus::ChunkId;
use crate::embed::ModelIdentity;
use crate::index::vectors::dot;
use crate::index::{Hit, QuantizedVectors, top_k};
use crate::store::IndexedCorpus;

/// The centroids' file name, inside the folder of the fragments.
pub const CENTROIDS: &str = "vectors/centroids.bin";
/// How many vectors a question scores, in the partitions of its nearest centroids: about 0.8 MB of
/// partitions (docs/QUALITY.md measures the recall it buys, docs/BENCHMARKS.md the bytes).
pub const PROBED_VECTORS: usize = 2048;
/// Rounds of k-means, and how many vectors per centroid it learns from; the rest are only assigned.
const ROUNDS: usize = 6;
const SAMPLE_PER_CENTROID: usize = 16;

/// Every partition's centroid, and the model the vectors came from.
#[derive(Serialize, Deserialize)]
pub(super) struct Centroids {
    pub model: ModelIdentity,
    pub centroids: QuantizedVectors,
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

/// The centroids and partitions of `index`'s chunk vectors, partitions of about `partition_bytes` each.
pub(super) fn partition(index: &IndexedCorpus, partition_bytes: usize) -> (Centroids, Vec<Partition>) {
    let store = index.embeddings().vectors();
    let rows = &index.rows().chunks;
    let dimension = store.dimension();
    let vector_bytes = dimension + 4 + 2;
    let wanted = (rows.len() * vector_bytes).div_ceil(partition_bytes.max(vector_bytes)).max(1);
    let points: Vec<Vec<f32>> = rows.iter().map(|&row| store.get(row)).collect();
    let centres = k_means(&points, wanted.min(points.len()).max(1));
    let mut members: Vec<Vec<ChunkId>> = vec![Vec::new(); centres.len()];
    for (chunk, point) in points.iter().enumerate() {
        members[nearest(&centres, point)].push(chunk as ChunkId);
    }
    let mut centroids = QuantizedVectors::new(dimension);
    let mut sizes = Vec::new();
    let mut partitions = Vec::new();
    for (centre, chunks) in centres.iter().zip(members).filter(|(_, chunks)| !chunks.is_empty()) {
        centroids.push(centre).expect("a centroid has the vectors' dimension");
        sizes.push(chunks.len() as u32);
        let mut vectors = QuantizedVectors::new(dimension);
        for &chunk in &chunks {
            vectors.push_codes(store, rows[chunk as usize]);
        }
        partitions.push(Partition { partition: partitions.len() as u32, chunks: gaps(&chunks), vectors });
    }
    (Centroids { model: index.model().clone(), centroids, sizes }, partitions)
}

/// Spherical k-means: `k` unit centroids, learned from an evenly spread sample of `points`.
fn k_means(points: &[Vec<f32>], k: usize) -> Vec<Vec<f32>> {
    let Some(dimension) = points.first().map(Vec::len) else { return Vec::new() };
    let stride = (points.len() / (k * SAMPLE_PER_CENTROID)).max(1);
    let sample: Vec<&Vec<f32>> = points.iter().step_by(stride).collect();
    let seed_stride = sample.len() / k;
    let mut centres: Vec<Vec<f32>> = (0..k).map(|i| sample[i * seed_stride].clone()).collect();
    for _ in 0..ROUNDS {
        let mut sums = vec![vec![0f32; dimension]; k];
        for point in &sample {
            let sum = &mut sums[nearest(&centres, point)];
            sum.iter_mut().zip(point.iter()).for_each(|(s, x)| *s += x);
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

fn nearest(centres: &[Vec<f32>], point: &[f32]) -> usize {
    let scored = centres.iter().enumerate().map(|(i, centre)| Hit { id: i as u32, score: dot(point, centre) });
    top_k(scored, 1).first().map_or(0, |hit| hit.id as usize)
}

/// Ascending chunk ids as gaps: small numbers, which postcard writes in a byte or two.
fn gaps(chunks: &[ChunkId]) -> Vec<u32> {
    let mut previous = 0;
    chunks.iter().map(|&chunk| chunk - std::mem::replace(&mut previous, chunk)).collect()
}

impl Centroids {
    /// Whether the parts agree, for an index of `chunks` chunks.
    pub fn check(&self, chunks: usize) -> Result<(), String> {
        self.centroids.check().map_err(|e| e.to_string())?;
        if self.centroids.dimension() != self.model.dimension {
            return Err(format!(
                "{}-dimensional centroids of a {}-dimensional model",
                self.centroids.dimension(),
                self.model.dimension
            ));
        }
        if self.sizes.len() != self.centroids.len() {
            return Err(format!("{} partition sizes for {} centroids", self.sizes.len(), self.centroids.len()));
        }
        if self.sizes.iter().map(|&size| u64::from(size)).sum::<u64>() != chunks as u64 {
            return Err(format!("its partitions do not hold the index's {chunks} chunks"));
        }
        Ok(())
    }

    /// The partitions to scan for `query`: the nearest centroids' first, until `budget` vectors.
    pub fn probed(&self, query: &[f32], budget: usize) -> Vec<u32> {
        let scored = (0..self.centroids.len() as u32).map(|id| Hit { id, score: self.centroids.dot(query, id) });
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
    pub fn chunks(&self, centroids: &Centroids, expected: u32, chunks: usize) -> Result<Vec<ChunkId>, String> {
        self.vectors.check().map_err(|e| e.to_string())?;
        let size = centroids.sizes.get(expected as usize).ok_or("a partition beyond the centroids'")?;
        if self.partition != expected
            || self.chunks.len() != *size as usize
            || self.vectors.len() != self.chunks.len()
            || self.vectors.dimension() != centroids.centroids.dimension()
        {
            return Err(format!("partition {} of {} chunks", self.partition, self.chunks.len()));
        }
        let mut chunk = 0u32;
        self.chunks
            .iter()
            .map(|&gap| {
                chunk = chunk.checked_add(gap).filter(|&c| (c as usize) < chunks).ok_or("a chunk beyond the index")?;
                Ok(chunk)
            })
            .collect()
    }

    /// Each of the partition's chunks scored against `query`, as the whole index scores it.
    pub fn scores<'a>(&'a self, chunks: &'a [ChunkId], query: &'a [f32]) -> impl Iterator<Item = Hit> + 'a {
        chunks.iter().enumerate().map(|(row, &id)| Hit { id, score: self.vectors.dot(query, row as u32) })
    }
}
