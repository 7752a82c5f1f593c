//! An index split for a static host, as Pagefind splits a site's search: what answering by words reads, in
//! files a visitor fetches only as questions need them. The *lexicon* is whole, and a few bytes a document:
//! the corpus's summary, each document's and text run's count of chunks, the copied passages and BM25's
//! statistics. BM25's postings lie in *term buckets*, by a hash of the term (`terms`), each posting with its
//! text's length; the chunks' texts and labels lie in *text runs* of about 4 kB ([`Sizes`]), in document
//! order, with the sources and titles of the documents they lie in. The *documents* (every source and
//! title) are a file of their own, for the page that lists them. The *graph* the node-set join and the
//! community retriever read is whole too, fetched once (`graph`), its community summaries' postings in
//! buckets of their own. A question fetches the lexicon and the graph once, then the buckets its terms hash
//! to and the runs its results lie in: kilobytes, where the whole index is megabytes. The full engine also
//! answers by meaning from them: the chunks' vectors lie in partitions found by their centroids (`vectors`).
//!
//! Every file is `MAGIC` | format version (u32 LE) | the id of the index it was split from (16 bytes: the
//! blake3 of its snapshot) | blake3 of the payload (32 bytes) | payload (postcard), and names its own part:
//! a file a cache kept from an earlier site, another index's file, or a damaged one is refused, never mixed
//! in. Scores come from the whole index's own scoring ([`TextLengths::scores`]), so an answer by words over
//! the fragments is the whole index's to the bit (`tests/integration/fragments.rs` tests it).
//!
//! Over 400 lines: the fragment format's writer and reader share its layout, and are kept side by side so that they cannot drift apart.

mod graph;
mod terms;
mod vectors;

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use super::{ChunkView, CorpusSummary, IndexedCorpus};
use crate::corpus::copies::Copies;
use crate::corpus::{ChunkId, DocId};
use crate::embed::ModelIdentity;
use crate::error::Inconsistent;
use crate::index::{Hit, top_k};
use crate::language::Language;
pub use graph::FragmentGraph;
use graph::StoredGraph;
use terms::{SplitBm25, TermBucket};
pub use vectors::{CENTROIDS, PROBED_VECTORS};
use vectors::{Centroids, Group, Partition};

/// The lexicon's file name, inside the folder of the fragments.
pub const LEXICON: &str = "lexicon.bin";
/// Every document's source, title and language, for a page that lists them all.
pub const DOCUMENTS: &str = "documents.bin";
/// The graph's file name, inside the folder of the fragments.
pub const GRAPH: &str = "graph.bin";
const MAGIC: &[u8; 8] = b"QUIREFRG";
const FORMAT_VERSION: u32 = 6;
const HEADER_LEN: usize = 8 + 4 + 16 + 32;

/// How large the parts are, about, before compression.
#[derive(Clone, Copy, Debug)]
pub struct Sizes {
    pub bucket_bytes: usize,
    pub text_run_bytes: usize,
    pub partition_bytes: usize,
}

impl Default for Sizes {
    /// A question of five terms fetches five buckets of about 8 kB; ten results fetch at most ten runs of
    /// about 4 kB, and fewer when a document's chunks lie together; a question by meaning scans partitions
    /// of about 8 kB, whose centroids describe their chunks more closely than 16 kB ones do for the same
    /// bytes scanned (docs/QUALITY.md measures the recall, docs/BENCHMARKS.md the bytes).
    fn default() -> Self {
        Sizes { bucket_bytes: 8 * 1024, text_run_bytes: 4 * 1024, partition_bytes: 8 * 1024 }
    }
}

impl Sizes {
    /// A built site's search (`quire site --built`), whose every question counts its bytes: buckets of about
    /// 1 kB, so a question of ten terms fetches about 10 kB of postings and table rows (a term's row is 196
    /// bytes: a bucket holds a few terms); runs of about 1 kB, since it shows only each page's best
    /// passage; partitions of about 4 kB, scanned a few at a time.
    pub const SEARCH: Sizes = Sizes { bucket_bytes: 1024, text_run_bytes: 1024, partition_bytes: 4 * 1024 };
}

/// How many chunk vectors a built site's search scans per question by meaning: the partitions of its
/// nearest centroids, about 400 bytes a chunk, so that a question's partitions stay within about 25 kB
/// (docs/BENCHMARKS.md, "Search for a built site"; docs/QUALITY.md measures what it ranks).
pub const SEARCH_PROBED_VECTORS: usize = 64;

#[derive(Debug, thiserror::Error, PartialEq)]
pub enum FragmentError {
    #[error("not a fragment of a Quire index")]
    NotAFragment,
    #[error("fragment format version {found} is not supported by this build (it reads version {FORMAT_VERSION})")]
    UnsupportedVersion { found: u32 },
    #[error("the fragment belongs to another index (a copy kept from an earlier version of the site?)")]
    OtherIndex,
    #[error("the fragment is corrupt: its checksum does not match its contents")]
    ChecksumMismatch,
    #[error("the fragment could not be decoded: {0}")]
    Decode(String),
    #[error("the fragment is inconsistent: {0}")]
    Inconsistent(String),
    #[error("the fragments could not be encoded: {0}")]
    Encode(String),
}

impl From<Inconsistent> for FragmentError {
    fn from(problem: Inconsistent) -> Self {
        FragmentError::Inconsistent(problem.0)
    }
}

impl FragmentError {
    /// That the fragment fetched for `fragment` holds `what` instead.
    fn misplaced(fragment: Fragment, what: &str) -> Self {
        FragmentError::Inconsistent(format!("{what} where {} was expected", fragment.path()))
    }
}

/// A file of the fragments besides the lexicon.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Fragment {
    Terms(u32),
    Texts(u32),
    /// Every document's source, title and language.
    Documents,
    Centroids,
    /// A group's partitions' centroids.
    CentroidGroup(u32),
    Vectors(u32),
    Graph,
    Summaries(u32),
}

impl Fragment {
    /// The fragment whose path is `path` ([`Self::path`]); `None` for the lexicon or a path of no fragment.
    pub fn of_path(path: &str) -> Option<Fragment> {
        let number = |rest: &str, radix: u32| {
            let digits = rest.strip_suffix(".bin")?;
            u32::from_str_radix(digits, radix).ok().filter(|_| digits.bytes().all(|b| b.is_ascii_alphanumeric()))
        };
        match path {
            CENTROIDS => Some(Fragment::Centroids),
            DOCUMENTS => Some(Fragment::Documents),
            GRAPH => Some(Fragment::Graph),
            _ => {
                let (folder, rest) = path.split_once('/')?;
                match folder {
                    "terms" => number(rest, 16).map(Fragment::Terms),
                    "texts" => number(rest, 10).map(Fragment::Texts),
                    "vectors" => number(rest, 16).map(Fragment::Vectors),
                    "centroids" => number(rest, 16).map(Fragment::CentroidGroup),
                    "summaries" => number(rest, 16).map(Fragment::Summaries),
                    _ => None,
                }
            }
        }
    }

    /// Its path inside the folder of the fragments.
    pub fn path(self) -> String {
        match self {
            Fragment::Terms(bucket) => format!("terms/{bucket:03x}.bin"),
            Fragment::Texts(run) => format!("texts/{run}.bin"),
            Fragment::Centroids => CENTROIDS.to_string(),
            Fragment::Documents => DOCUMENTS.to_string(),
            Fragment::CentroidGroup(group) => format!("centroids/{group:03x}.bin"),
            Fragment::Vectors(partition) => format!("vectors/{partition:03x}.bin"),
            Fragment::Graph => GRAPH.to_string(),
            Fragment::Summaries(bucket) => format!("summaries/{bucket:03x}.bin"),
        }
    }
}

#[derive(Serialize, Deserialize)]
struct Lexicon {
    summary: CorpusSummary,
    /// Each document's count of chunks: a document's chunks are contiguous and in document order. (Not
    /// their sources and titles: those of the documents a text run holds travel with it, so that the
    /// lexicon stays a few bytes a document.)
    document_chunks: Vec<u32>,
    /// Each original passage with its copies (`corpus::copies`).
    copies: Vec<(ChunkId, Vec<ChunkId>)>,
    bm25: SplitBm25,
    /// Each text run's count of chunks.
    text_runs: Vec<u32>,
}

/// Every document as (source, title), and each one's language, in index order.
#[derive(Serialize, Deserialize)]
struct StoredDocuments {
    documents: Vec<(String, String)>,
    languages: Vec<Language>,
}

/// What a result shows of a document: its source, title and language (what its excerpts are marked by).
#[derive(Clone, Serialize, Deserialize)]
struct RunDocument {
    source: String,
    title: String,
    language: Language,
}

/// What a result shows of a chunk, less its document's source and title (the lexicon's).
#[derive(Clone, Serialize, Deserialize)]
struct StoredView {
    label: String,
    chars: (usize, usize),
    page: Option<u32>,
    text: String,
}

/// A run of chunks' views, with the documents they lie in, from the first chunk's to the last's.
#[derive(Serialize, Deserialize)]
struct TextRun {
    run: u32,
    documents: Vec<RunDocument>,
    views: Vec<StoredView>,
}

/// The lexicon, each term bucket and text run, the graph and its summaries' buckets, the centroids and each
/// partition of the vectors of `index`, by path inside their folder. `snapshot` is the index's snapshot,
/// whose hash ties every file to it.
pub fn split(index: &IndexedCorpus, snapshot: &[u8], sizes: Sizes) -> Result<Vec<(String, Vec<u8>)>, FragmentError> {
    let id = index_id(snapshot);
    let corpus = index.corpus();
    let chunks = corpus.chunks.len();
    let (bm25, by_bucket) = SplitBm25::split(index.bm25(), index.query_table(), index.languages(), sizes.bucket_bytes);
    let views: Vec<StoredView> = (0..chunks as ChunkId).map(|chunk| stored_view(index.chunk_view(chunk))).collect();
    let mut text_runs: Vec<ChunkId> = Vec::new();
    let mut run_bytes = sizes.text_run_bytes;
    for (chunk, view) in views.iter().enumerate() {
        if run_bytes >= sizes.text_run_bytes {
            text_runs.push(chunk as ChunkId);
            run_bytes = 0;
        }
        run_bytes += view.text.len() + view.label.len();
    }
    let documents = (0..corpus.documents.len() as DocId).map(|d| corpus.document_chunks(d).len() as u32).collect();
    let run_ends = text_runs.iter().skip(1).copied().chain(std::iter::once(chunks as ChunkId));
    let lexicon = Lexicon {
        summary: index.summary(),
        document_chunks: documents,
        copies: index.copies().originals().map(|(original, copies)| (original, copies.to_vec())).collect(),
        bm25,
        text_runs: text_runs.iter().zip(run_ends).map(|(first, end)| end - first).collect(),
    };
    let mut files = vec![(LEXICON.to_string(), encode(&id, &lexicon)?)];
    let listed = StoredDocuments {
        documents: corpus.documents.iter().map(|d| (d.source.clone(), d.title.clone())).collect(),
        languages: corpus.documents.iter().map(|d| d.language).collect(),
    };
    files.push((DOCUMENTS.to_string(), encode(&id, &listed)?));
    for bucket in by_bucket {
        files.push((Fragment::Terms(bucket.bucket).path(), encode(&id, &bucket)?));
    }
    for (run, &first) in text_runs.iter().enumerate() {
        let end = text_runs.get(run + 1).map_or(chunks, |&next| next as usize);
        let touched = corpus.chunks[first as usize].document..=corpus.chunks[end - 1].document;
        let documents = corpus.documents[*touched.start() as usize..=*touched.end() as usize].iter();
        let documents = documents
            .map(|d| RunDocument { source: d.source.clone(), title: d.title.clone(), language: d.language })
            .collect();
        let run_views = TextRun { run: run as u32, documents, views: views[first as usize..end].to_vec() };
        files.push((Fragment::Texts(run as u32).path(), encode(&id, &run_views)?));
    }
    let (graph, summary_buckets) =
        graph::split(index, sizes.bucket_bytes).map_err(|problem| FragmentError::Encode(problem.0))?;
    files.push((Fragment::Graph.path(), encode(&id, &graph)?));
    for bucket in summary_buckets {
        files.push((Fragment::Summaries(bucket.bucket).path(), encode(&id, &bucket)?));
    }
    let vectors = index.embeddings().vectors();
    let (centroids, groups, partitions) =
        vectors::partition(vectors, &index.rows().chunks, index.model(), sizes.partition_bytes);
    files.push((CENTROIDS.to_string(), encode(&id, &centroids)?));
    for group in groups {
        files.push((Fragment::CentroidGroup(group.group).path(), encode(&id, &group)?));
    }
    for partition in partitions {
        files.push((Fragment::Vectors(partition.partition).path(), encode(&id, &partition)?));
    }
    Ok(files)
}

fn index_id(snapshot: &[u8]) -> [u8; 16] {
    let hash = blake3::hash(snapshot);
    hash.as_bytes()[..16].try_into().expect("a blake3 hash has 32 bytes")
}

fn stored_view(view: ChunkView) -> StoredView {
    StoredView { label: view.label, chars: view.chars, page: view.page, text: view.text }
}

fn encode<T: Serialize>(id: &[u8; 16], body: &T) -> Result<Vec<u8>, FragmentError> {
    let payload = postcard::to_allocvec(body).map_err(|e| FragmentError::Encode(e.to_string()))?;
    let mut out = Vec::with_capacity(HEADER_LEN + payload.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    out.extend_from_slice(id);
    out.extend_from_slice(blake3::hash(&payload).as_bytes());
    out.extend_from_slice(&payload);
    Ok(out)
}

/// The payload of a fragment of the index `id` (any index when `None`), and the id.
fn decode<T: serde::de::DeserializeOwned>(bytes: &[u8], id: Option<&[u8; 16]>) -> Result<(T, [u8; 16]), FragmentError> {
    if bytes.len() < HEADER_LEN || &bytes[..8] != MAGIC {
        return Err(FragmentError::NotAFragment);
    }
    let version = u32::from_le_bytes(bytes[8..12].try_into().expect("four bytes"));
    if version != FORMAT_VERSION {
        return Err(FragmentError::UnsupportedVersion { found: version });
    }
    let found: [u8; 16] = bytes[12..28].try_into().expect("sixteen bytes");
    if id.is_some_and(|id| *id != found) {
        return Err(FragmentError::OtherIndex);
    }
    let payload = &bytes[HEADER_LEN..];
    if blake3::hash(payload).as_bytes() != &bytes[28..60] {
        return Err(FragmentError::ChecksumMismatch);
    }
    let body = postcard::from_bytes(payload).map_err(|e| FragmentError::Decode(e.to_string()))?;
    Ok((body, found))
}

/// An index known by its fragments: the lexicon, and the buckets, runs, graph, centroids and partitions
/// fetched so far.
pub struct FragmentedIndex {
    id: [u8; 16],
    lexicon: Lexicon,
    copies: Copies,
    graph: Option<FragmentGraph>,
    /// Each document's first chunk, and each text run's, from the lexicon's counts.
    first_chunks: Vec<ChunkId>,
    run_starts: Vec<ChunkId>,
    documents: Option<StoredDocuments>,
    views: HashMap<u32, (Vec<RunDocument>, Vec<StoredView>)>,
    centroids: Option<Centroids>,
    /// Each fetched group of centroids.
    groups: HashMap<u32, Group>,
    /// Each fetched partition, with its chunks.
    partitions: HashMap<u32, (Vec<ChunkId>, Partition)>,
    probed_vectors: usize,
}

impl FragmentedIndex {
    /// The index whose lexicon is `bytes`, every part of it checked against the others.
    pub fn open(bytes: &[u8]) -> Result<Self, FragmentError> {
        let (lexicon, id): (Lexicon, _) = decode(bytes, None)?;
        let copies = check(&lexicon)?;
        let first_chunks = starts(&lexicon.document_chunks);
        let run_starts = starts(&lexicon.text_runs);
        let (views, groups, partitions) = (HashMap::new(), HashMap::new(), HashMap::new());
        Ok(Self {
            id,
            lexicon,
            copies,
            first_chunks,
            run_starts,
            documents: None,
            graph: None,
            views,
            centroids: None,
            groups,
            partitions,
            probed_vectors: PROBED_VECTORS,
        })
    }

    pub fn summary(&self) -> &CorpusSummary {
        &self.lexicon.summary
    }

    /// Every document as (source, title), in index order, once [`Fragment::Documents`] is fetched (none
    /// before).
    pub fn documents(&self) -> &[(String, String)] {
        self.documents.as_ref().map_or(&[], |listed| &listed.documents)
    }

    pub fn copies(&self) -> &Copies {
        &self.copies
    }

    /// The buckets `query`'s terms lie in that are not fetched yet.
    pub fn missing_for_query(&self, query: &str) -> Vec<Fragment> {
        self.lexicon.bm25.missing(query).into_iter().map(Fragment::Terms).collect()
    }

    /// What answering `query` by words and through the graph needs and is not fetched yet: its buckets and
    /// the graph, then the buckets of the community summaries its terms lie in.
    pub fn missing_for_words(&self, query: &str) -> Vec<Fragment> {
        let summaries: Vec<Fragment> = match &self.graph {
            // Taken in in this order, the documents name the graph's pages.
            None if self.documents.is_none() => vec![Fragment::Documents, Fragment::Graph],
            None => vec![Fragment::Graph],
            Some(graph) => graph.summaries.missing(query).into_iter().map(Fragment::Summaries).collect(),
        };
        [self.missing_for_query(query), summaries].concat()
    }

    /// The graph, once fetched.
    pub fn graph(&self) -> Option<&FragmentGraph> {
        self.graph.as_ref()
    }

    /// The text runs `chunks` lie in that are not fetched yet.
    pub fn missing_for_chunks(&self, chunks: impl IntoIterator<Item = ChunkId>) -> Vec<Fragment> {
        let mut runs: Vec<u32> = chunks.into_iter().filter_map(|chunk| self.run_of(chunk)).collect();
        runs.sort_unstable();
        runs.dedup();
        runs.into_iter().filter(|run| !self.views.contains_key(run)).map(Fragment::Texts).collect()
    }

    /// What answering `query`'s vector by meaning needs and is not fetched yet: the groups' centroids,
    /// else the groups they point `query` to, else the partitions those groups' centroids point it to.
    pub fn missing_for_meaning(&self, query: &[f32]) -> Vec<Fragment> {
        let Some(centroids) = &self.centroids else { return vec![Fragment::Centroids] };
        let routed = centroids.routed(query, self.probed_vectors);
        let groups: Vec<Fragment> =
            routed.iter().filter(|g| !self.groups.contains_key(g)).map(|&g| Fragment::CentroidGroup(g)).collect();
        if !groups.is_empty() {
            return groups;
        }
        let probed = self.probed_among(centroids, &routed, query).unwrap_or_default();
        probed.into_iter().filter(|p| !self.partitions.contains_key(p)).map(Fragment::Vectors).collect()
    }

    /// The partitions `query` scans, once the groups it is routed to are fetched.
    fn probed(&self, query: &[f32]) -> Option<Vec<u32>> {
        let centroids = self.centroids.as_ref()?;
        self.probed_among(centroids, &centroids.routed(query, self.probed_vectors), query)
    }

    /// The partitions `query` scans among those of the `routed` groups, once they are all fetched.
    fn probed_among(&self, centroids: &Centroids, routed: &[u32], query: &[f32]) -> Option<Vec<u32>> {
        let groups: Vec<&Group> = routed.iter().map(|g| self.groups.get(g)).collect::<Option<_>>()?;
        Some(vectors::probed(centroids, &groups, query, self.probed_vectors))
    }

    /// Scans `vectors` per question by meaning instead of [`PROBED_VECTORS`]: for measuring what it buys.
    pub fn probe(&mut self, vectors: usize) {
        self.probed_vectors = vectors;
    }

    /// The model the chunks' vectors came from, once the centroids are fetched: a question's vector must be
    /// that model's.
    pub fn model(&self) -> Option<&ModelIdentity> {
        self.centroids.as_ref().map(|centroids| &centroids.model)
    }

    /// The `k` chunks nearest `query`'s vector in the partitions its nearest centroids point to, scored as
    /// the whole index scores them; `None` until [`Self::missing_for_meaning`] names nothing.
    pub fn dense_hits(&self, query: &[f32], k: usize) -> Option<Vec<Hit>> {
        let probed = self.probed(query)?;
        let partitions: Vec<&(Vec<ChunkId>, Partition)> =
            probed.iter().map(|p| self.partitions.get(p)).collect::<Option<_>>()?;
        // Each chunk once, whatever partitions (crafted ones) list it again.
        let mut seen = std::collections::HashSet::new();
        let scores = partitions.into_iter().flat_map(|(chunks, partition)| partition.scores(chunks, query));
        Some(top_k(scores.filter(|hit| seen.insert(hit.id)), k))
    }

    fn run_of(&self, chunk: ChunkId) -> Option<u32> {
        let runs = &self.run_starts;
        ((chunk as usize) < self.chunks()).then(|| runs.partition_point(|&first| first <= chunk) as u32 - 1)
    }

    fn chunks(&self) -> usize {
        self.lexicon.bm25.texts()
    }

    /// Takes in `fragment`'s file, checked to be that part of this index.
    pub fn add(&mut self, fragment: Fragment, bytes: &[u8]) -> Result<(), FragmentError> {
        let misplaced = |what: &str| FragmentError::misplaced(fragment, what);
        match fragment {
            Fragment::Graph => {
                let (graph, _): (StoredGraph, _) = decode(bytes, Some(&self.id))?;
                let documents = self.documents.as_ref().ok_or_else(|| misplaced("the graph before the documents"))?;
                let graph = FragmentGraph::load(graph, &documents.documents, self.chunks());
                self.graph = Some(graph?);
            }
            Fragment::Summaries(expected) => {
                let (bucket, _): (TermBucket, _) = decode(bytes, Some(&self.id))?;
                let graph = self.graph.as_mut().ok_or_else(|| misplaced("summaries before the graph"))?;
                graph.summaries.add(expected, bucket).map_err(|found| misplaced(&found.0))?;
            }
            _ => self.add_except_graph(fragment, bytes)?,
        }
        Ok(())
    }

    /// Takes in `fragment`'s file as [`Self::add`] does, any part but the graph and its summaries' buckets,
    /// which it refuses: all that answering by words and meaning without the graph retrievers reads
    /// ([`crate::retrieve::over_fragments::hybrid`]), for a module that links none of the graph's code.
    pub fn add_except_graph(&mut self, fragment: Fragment, bytes: &[u8]) -> Result<(), FragmentError> {
        let chunks = self.chunks();
        let misplaced = |what: &str| FragmentError::misplaced(fragment, what);
        match fragment {
            Fragment::Terms(expected) => {
                let (bucket, _): (TermBucket, _) = decode(bytes, Some(&self.id))?;
                self.lexicon.bm25.add(expected, bucket).map_err(|found| misplaced(&found.0))?;
            }
            Fragment::Graph | Fragment::Summaries(_) => return Err(misplaced("a part of the graph")),
            Fragment::Texts(expected) => {
                let (run, _): (TextRun, _) = decode(bytes, Some(&self.id))?;
                let runs = &self.run_starts;
                let &first = runs.get(expected as usize).ok_or_else(|| misplaced("a run beyond the lexicon's"))?;
                let end = runs.get(expected as usize + 1).map_or(chunks, |&next| next as usize);
                // A run holds a chunk at least (`check`).
                let documents = self.document_of(end as ChunkId - 1) - self.document_of(first) + 1;
                if run.run != expected
                    || run.views.len() != end - first as usize
                    || run.documents.len() as DocId != documents
                {
                    return Err(misplaced(&format!("run {} of {} chunks", run.run, run.views.len())));
                }
                self.views.insert(expected, (run.documents, run.views));
            }
            Fragment::Documents => {
                let (listed, _): (StoredDocuments, _) = decode(bytes, Some(&self.id))?;
                let count = self.lexicon.document_chunks.len();
                if listed.documents.len() != count || listed.languages.len() != count {
                    return Err(misplaced(&format!("{} documents of {count}", listed.documents.len())));
                }
                self.documents = Some(listed);
            }
            Fragment::Centroids => {
                let (centroids, _): (Centroids, _) = decode(bytes, Some(&self.id))?;
                centroids.check(chunks)?;
                self.centroids = Some(centroids);
            }
            Fragment::CentroidGroup(expected) => {
                let (group, _): (Group, _) = decode(bytes, Some(&self.id))?;
                let centroids = self.centroids.as_ref().ok_or_else(|| misplaced("a group before the centroids"))?;
                group.check(centroids, expected).map_err(|found| misplaced(&found.0))?;
                self.groups.insert(expected, group);
            }
            Fragment::Vectors(expected) => {
                let (partition, _): (Partition, _) = decode(bytes, Some(&self.id))?;
                let centroids = self.centroids.as_ref().ok_or_else(|| misplaced("a partition before the centroids"))?;
                let (group, place) =
                    centroids.group_of(expected).ok_or_else(|| misplaced("a partition beyond the groups'"))?;
                let group = self.groups.get(&group).ok_or_else(|| misplaced("a partition before its group"))?;
                let (size, dimension) = (group.sizes[place], group.centroids.dimension());
                let partition_chunks =
                    partition.chunks(expected, size, dimension, chunks).map_err(|found| misplaced(&found.0))?;
                self.partitions.insert(expected, (partition_chunks, partition));
            }
        }
        Ok(())
    }

    /// `query`'s vector by the index's query table, as the whole index gives it: `None` until every bucket
    /// [`Self::missing_for_query`] names is fetched, `Some(None)` where the index has no table or `query` no
    /// term the index holds.
    pub fn table_vector(&self, query: &str) -> Option<Option<Vec<f32>>> {
        self.lexicon.bm25.table_vector(query)
    }

    /// Whether questions get a vector by the query table ([`Self::table_vector`]).
    pub fn has_query_table(&self) -> bool {
        self.lexicon.bm25.has_table()
    }

    /// BM25's score of every chunk holding a term of `query`, as the whole index scores them; `None` until
    /// every bucket [`Self::missing_for_query`] names is fetched.
    pub fn bm25_scores(&self, query: &str) -> Option<HashMap<u32, f32>> {
        self.lexicon.bm25.scores(query)
    }

    /// BM25's score of every community whose summary holds a term of `query`, as the whole index scores
    /// them; `None` until the graph and every bucket [`Self::missing_for_words`] names are fetched.
    pub fn summary_scores(&self, query: &str) -> Option<HashMap<u32, f32>> {
        self.graph.as_ref()?.summaries.scores(query)
    }

    /// The chunks of `document`.
    pub fn document_chunks(&self, document: DocId) -> std::ops::Range<ChunkId> {
        let first = |document: usize| self.first_chunks.get(document).map_or(self.chunks() as ChunkId, |&c| c);
        first(document as usize)..first(document as usize + 1)
    }

    /// The document `chunk` belongs to.
    pub fn document_of(&self, chunk: ChunkId) -> DocId {
        (self.first_chunks.partition_point(|&first| first <= chunk) as DocId).saturating_sub(1)
    }

    /// The source of `document`, once [`Fragment::Documents`] is fetched (empty before).
    pub fn source(&self, document: DocId) -> String {
        self.documents().get(document as usize).map(|(source, _)| source.clone()).unwrap_or_default()
    }

    /// `chunk` as a result shows it; `None` until its text run is fetched.
    pub fn chunk_view(&self, chunk: ChunkId) -> Option<ChunkView> {
        let run = self.run_of(chunk)?;
        let first = self.run_starts[run as usize];
        let (documents, views) = self.views.get(&run)?;
        let stored = views.get((chunk - first) as usize)?;
        let document = documents.get((self.document_of(chunk) - self.document_of(first)) as usize)?;
        let RunDocument { source, title, language } = document.clone();
        let StoredView { label, chars, page, text } = stored.clone();
        Some(ChunkView { chunk, label, source, title, chars, page, text, language })
    }
}

/// Where each of the parts `counts` counts the chunks of begins.
fn starts(counts: &[u32]) -> Vec<ChunkId> {
    counts.iter().scan(0, |next, &count| Some(std::mem::replace(next, *next + count))).collect()
}

/// The copies the lexicon lists, once its parts are found to agree.
fn check(lexicon: &Lexicon) -> Result<Copies, Inconsistent> {
    let chunks = lexicon.bm25.texts();
    let summary = &lexicon.summary;
    let documents = lexicon.document_chunks.len();
    if summary.chunks != chunks || summary.documents != documents {
        return Err(Inconsistent(format!(
            "its summary counts {} documents and {} chunks where it lists {documents} and {chunks}",
            summary.documents, summary.chunks
        )));
    }
    let total = |counts: &[u32]| counts.iter().map(|&count| u64::from(count)).sum::<u64>();
    // A document may hold no chunk; a text run holds one at least.
    if total(&lexicon.document_chunks) != chunks as u64 {
        return Err("its documents do not hold its chunks".into());
    }
    if total(&lexicon.text_runs) != chunks as u64 || lexicon.text_runs.contains(&0) {
        return Err("its text runs do not hold its chunks".into());
    }
    lexicon.bm25.check()?;
    Copies::from_originals(chunks, lexicon.copies.iter().cloned()).ok_or_else(|| "its copied passages disagree".into())
}
