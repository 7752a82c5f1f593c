//! Passages that one document repeats from another: a forwarded mail quoting a guide, a section copied into
//! another folder's notes. (A document that only repeats others is left out whole: `containment`.) Each such
//! chunk is a *copy* of an *original*, the passage's chunk in a document that is not itself a copy (of
//! those, the one with the fewest chunks), so that the index embeds the passage once and a result names the
//! original, "also in" the documents that copy it.
//!
//! Only a document most of whose passages others hold is a copy (a forwarded mail, a page of excerpts, a file
//! copied into another folder); two chapters that share an example each keep it. A passage that more than
//! three documents hold is boilerplate rather than a copy (every command page of a manual lists the same
//! options), and each of them keeps it as its own.
//!
//! Two chunks are one passage when their word triples are the same, or 80 % of them are shared (Jaccard),
//! which a greeting around a quote or a word changed does not undo. Candidates come from MinHash signatures
//! banded for locality-sensitive hashing, and every candidate is checked on its exact triples, so the
//! sketch only saves comparing every pair. Hand-written: the crates for it are single-author 0.0/0.1
//! releases or pull in a thread pool the browser does not have, and the whole method is the few lines below.

use std::collections::{HashMap, HashSet};
use std::hash::{Hash, Hasher};

use super::{ChunkId, Corpus, DocId};

/// Share of word triples two chunks must have in common to be copies of one passage.
pub const NEAR_COPY: f64 = 0.8;
/// Words per shingle.
const SHINGLE_WORDS: usize = 3;
/// A chunk of fewer words is no passage: a heading, a "See also", a line every page ends with says nothing
/// about where a text comes from, and folding it into another document would hide what little it says.
const MIN_WORDS: usize = 12;
/// Bands of rows of the MinHash signature: two passages sharing 80 % of their triples meet in some band
/// with probability 1 − (1 − 0.8³)¹⁰ ≈ 0.999; at 30 % they meet in one band only 2.7 % of the time.
const BANDS: usize = 10;
const ROWS: usize = 3;
/// A passage more documents than this hold is boilerplate, not a copy: the options every command page of a
/// manual lists belong to each page alike, and no one of them is the source (as in `containment`).
const MAX_HOLDERS: usize = 3;
/// Share of a document's passages that others must hold, and more, for it to be a copy (a forwarded mail, a page of
/// excerpts) whose chunks give way to the originals'; two chapters that share an example stay two sources.
const COPYING_SHARE: f64 = 0.5;
/// Members of one bucket checked against a new chunk: a passage every page repeats fills one bucket with
/// copies of itself, and the first member checked matches.
const MAX_CHECKS: usize = 8;

/// For every chunk, the original it copies (itself when it copies nothing), and each original's copies.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Copies {
    original: Vec<ChunkId>,
    copies: HashMap<ChunkId, Vec<ChunkId>>,
}

impl Copies {
    /// The copies among `corpus`'s chunks, across documents.
    pub fn find(corpus: &Corpus) -> Copies {
        let shingles: Vec<Vec<u64>> =
            (0..corpus.chunks.len()).map(|c| shingles(corpus.chunk_text(c as ChunkId))).collect();
        let document = |chunk: usize| corpus.chunks[chunk].document;
        let mut sets = passages(&shingles, &document);
        let mut members: HashMap<usize, Vec<usize>> = HashMap::new();
        for chunk in 0..shingles.len() {
            members.entry(sets.root(chunk)).or_default().push(chunk);
        }
        let holders = |members: &[usize]| members.iter().map(|&c| document(c)).collect::<HashSet<DocId>>().len();
        members.retain(|_, members| (2..=MAX_HOLDERS).contains(&holders(members)));
        // A document is a copy when most of its passages are shared: its chunks give way to the others'.
        let mut shared: HashMap<DocId, usize> = HashMap::new();
        for &chunk in members.values().flatten() {
            *shared.entry(document(chunk)).or_default() += 1;
        }
        let passages_in = |d: DocId| corpus.document_chunks(d).filter(|&c| !shingles[c as usize].is_empty()).count();
        let copying: HashSet<DocId> = shared
            .into_iter()
            .filter(|&(d, n)| n as f64 > COPYING_SHARE * passages_in(d) as f64)
            .map(|(d, _)| d)
            .collect();
        let chunks_in = |chunk: usize| corpus.document_chunks(document(chunk)).len();
        let mut original: Vec<ChunkId> = (0..shingles.len() as ChunkId).collect();
        let mut copies: HashMap<ChunkId, Vec<ChunkId>> = HashMap::new();
        for members in members.values() {
            let source = *members
                .iter()
                .min_by_key(|&&c| (copying.contains(&document(c)), chunks_in(c), c))
                .expect("a passage has members");
            for &chunk in members.iter().filter(|&&c| c != source && copying.contains(&document(c))) {
                original[chunk] = source as ChunkId;
                copies.entry(source as ChunkId).or_default().push(chunk as ChunkId);
            }
        }
        Copies { original, copies }
    }

    /// The chunk that holds `chunk`'s passage in the most specific document: `chunk` itself unless it is a copy.
    pub fn original(&self, chunk: ChunkId) -> ChunkId {
        self.original.get(chunk as usize).copied().unwrap_or(chunk)
    }

    /// The copies of `chunk`'s passage in other documents, when `chunk` is their original.
    pub fn copies_of(&self, chunk: ChunkId) -> &[ChunkId] {
        self.copies.get(&chunk).map_or(&[], Vec::as_slice)
    }

    /// Every original with its copies, as [`Copies::from_originals`] takes them back.
    pub fn originals(&self) -> impl Iterator<Item = (ChunkId, &[ChunkId])> {
        self.copies.iter().map(|(&original, copies)| (original, copies.as_slice()))
    }

    /// The copies among `chunks` chunks that [`Copies::originals`] listed; `None` when a chunk lies beyond
    /// them or is the copy of two originals.
    pub fn from_originals(
        chunks: usize,
        originals: impl IntoIterator<Item = (ChunkId, Vec<ChunkId>)>,
    ) -> Option<Copies> {
        let mut original: Vec<ChunkId> = (0..chunks as ChunkId).collect();
        let mut copies = HashMap::new();
        for (source, its_copies) in originals {
            for &copy in &its_copies {
                let slot = original.get_mut(copy as usize).filter(|slot| **slot == copy && copy != source)?;
                *slot = source;
            }
            if source as usize >= chunks || copies.insert(source, its_copies).is_some() {
                return None;
            }
        }
        Some(Copies { original, copies })
    }

    /// How many chunks copy another document's.
    pub fn len(&self) -> usize {
        self.copies.values().map(Vec::len).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.copies.is_empty()
    }
}

/// Chunks joined into sets of one passage each, across documents: candidates that meet in a band of their
/// MinHash signatures, checked on their exact word triples.
fn passages(shingles: &[Vec<u64>], document: &dyn Fn(usize) -> DocId) -> UnionFind {
    let mut sets = UnionFind::new(shingles.len());
    let mut buckets: HashMap<(usize, [u64; ROWS]), Vec<usize>> = HashMap::new();
    for (chunk, own) in shingles.iter().enumerate().filter(|(_, s)| !s.is_empty()) {
        for (band, rows) in signature(own).chunks_exact(ROWS).enumerate() {
            let key = (band, <[u64; ROWS]>::try_from(rows).expect("bands are ROWS long"));
            let members = buckets.entry(key).or_default();
            let copied = members.iter().take(MAX_CHECKS).copied().find(|&other| {
                document(other) != document(chunk)
                    && sets.root(other) != sets.root(chunk)
                    && jaccard(own, &shingles[other]) >= NEAR_COPY
            });
            if let Some(other) = copied {
                sets.join(chunk, other);
            }
            members.push(chunk);
        }
    }
    sets
}

/// Sorted, distinct hashes of a text's runs of [`SHINGLE_WORDS`] lowercased words, punctuation ignored;
/// none for a text under [`MIN_WORDS`] words.
fn shingles(text: &str) -> Vec<u64> {
    let words: Vec<String> =
        text.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(str::to_lowercase).collect();
    if words.len() < MIN_WORDS {
        return Vec::new();
    }
    let mut hashes: Vec<u64> = words
        .windows(SHINGLE_WORDS)
        .map(|triple| {
            let mut hasher = std::collections::hash_map::DefaultHasher::new();
            triple.hash(&mut hasher);
            hasher.finish()
        })
        .collect();
    hashes.sort_unstable();
    hashes.dedup();
    hashes
}

/// The least value of each of `BANDS × ROWS` hash functions (a mix of the shingle with the function's own
/// seed) over a chunk's shingles.
fn signature(shingles: &[u64]) -> [u64; BANDS * ROWS] {
    let mut signature = [u64::MAX; BANDS * ROWS];
    for &shingle in shingles {
        for (function, least) in signature.iter_mut().enumerate() {
            *least = (*least).min(mix(shingle ^ (function as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)));
        }
    }
    signature
}

/// SplitMix64's finaliser: every input bit moves every output bit.
fn mix(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

/// Jaccard similarity of two sorted sets.
fn jaccard(a: &[u64], b: &[u64]) -> f64 {
    let (mut i, mut j, mut shared) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                shared += 1;
                i += 1;
                j += 1;
            }
        }
    }
    let union = a.len() + b.len() - shared;
    if union == 0 { 0.0 } else { shared as f64 / union as f64 }
}

/// Sets of chunks joined pairwise, with path halving.
struct UnionFind(Vec<usize>);

impl UnionFind {
    fn new(len: usize) -> Self {
        Self((0..len).collect())
    }

    fn root(&mut self, mut at: usize) -> usize {
        while self.0[at] != at {
            self.0[at] = self.0[self.0[at]];
            at = self.0[at];
        }
        at
    }

    fn join(&mut self, a: usize, b: usize) {
        let (a, b) = (self.root(a), self.root(b));
        self.0[a.max(b)] = a.min(b);
    }
}

#[cfg(test)]
mod tests;
