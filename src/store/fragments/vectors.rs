//! The chunks' vectors of an index split for a static host, partitioned as an inverted file (IVF) under a
//! coarse one: the vectors are clustered by spherical k-means, and each cluster's chunks and their int8
//! codes lie in one *partition* file; the partitions' centroids are clustered again into *groups*, each
//! group's centroids in a file of their own. A question's vector is scored against the groups' centroids
//! (one small file, [`CENTROIDS`], fetched once), the centroids of its nearest groups are fetched, and the
//! partitions of the nearest of those centroids are fetched and scanned until [`PROBED_VECTORS`] vectors
//! are scored. A question thus reads a few groups' centroids, not all of them: at 16,000 chunks some 40 kB
//! where one file of every centroid was 300 kB. The partitions'
//! codes are the whole index's own (int8, one scale per vector, scored asymmetrically against the f32
//! question), so a chunk found scores as the whole index scores it: what the partitions cost is the chunks
//! they miss, measured as recall@10 against exact search (docs/QUALITY.md).

use serde::{Deserialize, Serialize};

use crate::corpus::ChunkId;
use crate::embed::ModelIdentity;
use crate::error::Inconsistent;
use crate::index::{Hit, QuantizedVectors, top_k};

use crate::index::nibbles::NibbleVectors;

mod k_means;
use k_means::clusters;

/// The groups' centroids' file name, inside the folder of the fragments.
pub const CENTROIDS: &str = "vectors/centroids.bin";
/// How many vectors a question scores, in the partitions of its nearest centroids: about 0.8 MB of
/// partitions (docs/QUALITY.md measures the recall it buys, docs/BENCHMARKS.md the bytes).
pub const PROBED_VECTORS: usize = 2048;
/// The nearest groups a question reads the centroids of hold this many times the vectors it scans, so
/// that the partitions it would pick among every centroid are nearly always among those it reads; there
/// are this many times the square root of the partitions' count of groups. Chosen on HotpotQA and the
/// three folders together (docs/QUALITY.md, "The search a built site adds"): four times as many groups
/// as the square root lost 0.004 Set Coverage@10 to reading every centroid, where as many lost 0.030.
const ROUTED_PER_PROBED: usize = 8;
const GROUPS_PER_ROOT: usize = 4;
/// How many times its share of vectors a partition (or of partitions a group) may hold before it is split.
const OVERSIZE: usize = 4;

/// Every group's centroid, and the model the vectors came from. Group `g` holds the partitions numbered
/// after those of the groups before it.
#[derive(Serialize, Deserialize)]
pub(super) struct Centroids {
    pub model: ModelIdentity,
    pub groups: NibbleVectors,
    /// Each group's count of partitions.
    pub partitions: Vec<u32>,
    /// Each group's count of chunks.
    pub chunks: Vec<u32>,
}

/// One group: its partitions' centroids, and each partition's count of chunks.
#[derive(Serialize, Deserialize)]
pub(super) struct Group {
    pub group: u32,
    pub centroids: NibbleVectors,
    pub sizes: Vec<u32>,
}

/// One partition: its chunks, ascending, as gaps, and their vectors' codes in that order.
#[derive(Serialize, Deserialize)]
pub(super) struct Partition {
    pub partition: u32,
    pub chunks: Vec<u32>,
    pub vectors: QuantizedVectors,
}

/// The groups' centroids, the groups and the partitions of the chunk vectors `rows` of `store` (`model`'s,
/// each chunk's row), partitions of about `partition_bytes` each.
pub(super) fn partition(
    store: &QuantizedVectors,
    rows: &[u32],
    model: &ModelIdentity,
    partition_bytes: usize,
) -> (Centroids, Vec<Group>, Vec<Partition>) {
    let dimension = store.dimension();
    let vector_bytes = dimension + 4 + 2;
    let wanted = (rows.len() * vector_bytes).div_ceil(partition_bytes.max(vector_bytes)).max(1);
    let points: Vec<Vec<f32>> = rows.iter().map(|&row| store.get(row)).collect();
    // A cluster far larger than the rest (many copies of one text) is split into partitions of the same
    // centroid, so that no file a question fetches is much larger than the others.
    let largest = (partition_bytes / vector_bytes).max(1) * OVERSIZE;
    let cells = clusters(&points, wanted, largest);
    let centres: Vec<&[f32]> = cells.iter().map(|cell| cell.centre.as_slice()).collect();
    let count = (cells.len().isqrt() * GROUPS_PER_ROOT).clamp(1, cells.len().max(1));
    let largest_group = (cells.len() / count).max(1) * OVERSIZE;
    let by_group = clusters(&centres, count, largest_group);
    let mut top = Centroids {
        model: model.clone(),
        groups: NibbleVectors::new(dimension),
        partitions: Vec::new(),
        chunks: Vec::new(),
    };
    let (mut groups, mut partitions) = (Vec::new(), Vec::new());
    for (group, members) in (0u32..).zip(by_group) {
        let mut centroids = NibbleVectors::new(dimension);
        let mut sizes = Vec::new();
        for &cell in &members.chunks {
            let cell = &cells[cell as usize];
            centroids.push(&cell.centre);
            sizes.push(cell.chunks.len() as u32);
            let mut vectors = QuantizedVectors::new(dimension);
            for &chunk in &cell.chunks {
                vectors.push_codes(store, rows[chunk as usize]);
            }
            let chunks = super::terms::to_gaps(cell.chunks.iter().copied()).collect();
            partitions.push(Partition { partition: partitions.len() as u32, chunks, vectors });
        }
        top.groups.push(&members.centre);
        top.partitions.push(sizes.len() as u32);
        top.chunks.push(sizes.iter().sum());
        groups.push(Group { group, centroids, sizes });
    }
    (top, groups, partitions)
}

impl Centroids {
    /// Whether the parts agree, for an index of `chunks` chunks.
    pub fn check(&self, chunks: usize) -> Result<(), Inconsistent> {
        self.groups.check()?;
        if self.groups.dimension() != self.model.dimension {
            return Err(format!(
                "{}-dimensional centroids of a {}-dimensional model",
                self.groups.dimension(),
                self.model.dimension
            )
            .into());
        }
        let groups = self.groups.len();
        if self.partitions.len() != groups || self.chunks.len() != groups {
            return Err(
                format!("{} and {} group sizes for {groups} groups", self.partitions.len(), self.chunks.len()).into()
            );
        }
        // Every partition holds a chunk: so the partitions' numbers stay below the chunks'.
        if self.partitions.iter().zip(&self.chunks).any(|(&partitions, &chunks)| partitions == 0 || partitions > chunks)
        {
            return Err("a group of no partition, or of more partitions than chunks".into());
        }
        if self.chunks.iter().map(|&size| u64::from(size)).sum::<u64>() != chunks as u64 {
            return Err(format!("its groups do not hold the index's {chunks} chunks").into());
        }
        Ok(())
    }

    /// The groups whose centroids `query` reads: the nearest first, until they hold `ROUTED_PER_PROBED`
    /// times the `budget` of vectors it scans.
    pub fn routed(&self, query: &[f32], budget: usize) -> Vec<u32> {
        let scored = (0u32..).zip(self.groups.dots(query)).map(|(id, score)| Hit { id, score }).collect();
        nearest_holding(scored, |group| self.chunks[group as usize] as usize, budget.saturating_mul(ROUTED_PER_PROBED))
    }

    /// The number of `group`'s first partition (a group [`Self::check`] found).
    pub fn first_partition(&self, group: u32) -> u32 {
        self.partitions[..group as usize].iter().sum()
    }

    /// The group partition `partition` lies in, and its place there.
    pub fn group_of(&self, partition: u32) -> Option<(u32, usize)> {
        let mut first = 0;
        for (group, &count) in (0u32..).zip(&self.partitions) {
            if partition < first + count {
                return Some((group, (partition - first) as usize));
            }
            first += count;
        }
        None
    }
}

impl Group {
    /// Whether the group is group `expected` of `top`.
    pub fn check(&self, top: &Centroids, expected: u32) -> Result<(), Inconsistent> {
        self.centroids.check()?;
        let (Some(&partitions), Some(&chunks)) =
            (top.partitions.get(expected as usize), top.chunks.get(expected as usize))
        else {
            return Err("a group beyond the centroids'".into());
        };
        if self.group != expected
            || self.centroids.len() != partitions as usize
            || self.sizes.len() != partitions as usize
            || self.centroids.dimension() != top.groups.dimension()
            || self.sizes.iter().map(|&size| u64::from(size)).sum::<u64>() != u64::from(chunks)
        {
            return Err(format!("group {} of {} partitions", self.group, self.sizes.len()).into());
        }
        Ok(())
    }
}

/// The partitions to scan for `query` among those of `groups` (groups of `top`): the nearest centroids'
/// first, until `budget` vectors.
pub(super) fn probed(top: &Centroids, groups: &[&Group], query: &[f32], budget: usize) -> Vec<u32> {
    let mut sizes = std::collections::HashMap::new();
    let mut scored = Vec::new();
    for group in groups {
        let first = top.first_partition(group.group);
        for ((partition, score), &size) in (first..).zip(group.centroids.dots(query)).zip(&group.sizes) {
            sizes.insert(partition, size as usize);
            scored.push(Hit { id: partition, score });
        }
    }
    nearest_holding(scored, |partition| sizes[&partition], budget)
}

/// The ids of `scored`, the highest first, until those taken hold `budget` (`size_of` an id): the last
/// taken is the one that reaches it.
fn nearest_holding(scored: Vec<Hit>, size_of: impl Fn(u32) -> usize, budget: usize) -> Vec<u32> {
    let count = scored.len();
    let mut held = 0;
    let taken = top_k(scored, count).into_iter().take_while(|hit| {
        let take = held < budget;
        held += size_of(hit.id);
        take
    });
    taken.map(|hit| hit.id).collect()
}

impl Partition {
    /// The partition's chunks, back from their gaps, once found to be partition `expected`, of `size`
    /// chunks of `dimension`, in an index of `chunks` chunks.
    pub fn chunks(
        &self,
        expected: u32,
        size: u32,
        dimension: usize,
        chunks: usize,
    ) -> Result<Vec<ChunkId>, Inconsistent> {
        self.vectors.check()?;
        if self.partition != expected
            || self.chunks.len() != size as usize
            || self.vectors.len() != self.chunks.len()
            || self.vectors.dimension() != dimension
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

    pub(super) fn unit(seed: u32) -> Vec<f32> {
        let mut v: Vec<f32> = (0..8u32).map(|d| ((seed * 31 + d * 17) % 23) as f32 - 11.0).collect();
        crate::embed::normalize(&mut v);
        v
    }

    /// Three hundred copies of one text and thirty others: the copies' cluster is split, so that no
    /// partition holds more than four times its share; every chunk lies in one partition of one group.
    #[test]
    fn a_cluster_of_many_copies_is_split_into_partitions_of_bounded_size() {
        let vectors: Vec<Vec<f32>> = (0..330).map(|i| if i < 300 { unit(1) } else { unit(i) }).collect();
        let rows: Vec<u32> = (0..330).collect();
        let bytes = 10 * (8 + 4 + 2);
        let (centroids, groups, partitions) = partition(&store(&vectors), &rows, &model(), bytes);
        centroids.check(330).unwrap();
        assert!(groups.len() > 1, "{} partitions in one group", partitions.len());
        let mut found: Vec<u32> = Vec::new();
        for (number, partition) in (0u32..).zip(&partitions) {
            let (group, place) = centroids.group_of(number).unwrap();
            let group = &groups[group as usize];
            group.check(&centroids, group.group).unwrap();
            assert!(group.sizes[place] as usize <= 10 * OVERSIZE, "{:?}", group.sizes);
            found.extend(partition.chunks(number, group.sizes[place], 8, 330).unwrap());
        }
        found.sort_unstable();
        assert_eq!(found, rows, "every chunk in exactly one partition");
    }

    /// Reading only the nearest groups' centroids, a question scans the partitions it scans reading
    /// every centroid, where its nearest partitions lie in them.
    #[test]
    fn the_nearest_groups_hold_the_partitions_a_question_is_nearest() {
        let vectors: Vec<Vec<f32>> = (0..2000).map(|i| unit(i % 211)).collect();
        let rows: Vec<u32> = (0..2000).collect();
        let (centroids, groups, _) = partition(&store(&vectors), &rows, &model(), 10 * (8 + 4 + 2));
        let every: Vec<&Group> = groups.iter().collect();
        let query = unit(5);
        let routed: Vec<&Group> = centroids.routed(&query, 30).iter().map(|&g| &groups[g as usize]).collect();
        assert!(routed.len() < groups.len(), "{} of {} groups read", routed.len(), groups.len());
        assert_eq!(probed(&centroids, &routed, &query, 30), probed(&centroids, &every, &query, 30));
    }

    /// A partition that lists a chunk twice, or out of order, groups whose sizes do not add up to the
    /// index, are refused; a question of another dimension scores without panicking.
    #[test]
    fn crafted_but_well_formed_partitions_are_refused() {
        let vectors: Vec<Vec<f32>> = (0..40).map(unit).collect();
        let rows: Vec<u32> = (0..40).collect();
        let (mut centroids, groups, mut partitions) = partition(&store(&vectors), &rows, &model(), 10 * 14);
        assert!(centroids.check(41).is_err());
        let size = groups[0].sizes[0];
        let first = &mut partitions[0];
        first.chunks = std::iter::once(3).chain(std::iter::repeat_n(0, size as usize - 1)).collect();
        assert!(first.chunks(0, size, 8, 40).is_err(), "a chunk listed twice");
        first.chunks = std::iter::repeat_n(u32::MAX, size as usize).collect();
        assert!(first.chunks(0, size, 8, 40).is_err(), "chunks beyond the index");
        assert!(first.chunks(1, size, 8, 40).is_err(), "another partition's number");
        let ids: Vec<u32> = (0..size).collect();
        let _ = first.scores(&ids, &[1.0; 3]).count();
        let routed = centroids.routed(&[1.0; 3], 10);
        assert!(!routed.is_empty(), "a question of another dimension reads a group");
        let routed: Vec<&Group> = routed.iter().map(|&g| &groups[g as usize]).collect();
        assert!(!probed(&centroids, &routed, &[1.0; 3], 10).is_empty(), "and scans something");
        assert!(groups[0].check(&centroids, 1).is_err(), "another group's number");
        centroids.partitions[0] += 1;
        assert!(groups[0].check(&centroids, 0).is_err(), "a group of another count of partitions");
        centroids.partitions[0] = 0;
        assert!(centroids.check(40).is_err(), "a group of no partition");
    }
}
