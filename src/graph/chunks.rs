//! Seed 004's semantic chunk graph (§5.2.3). Within each document, chunks are joined by `next` edges
//! (weight 0.1) and `similar_to` edges (each chunk's 5 most similar chunks of its document, weighted by
//! cosine, above a threshold calibrated as a percentile of the corpus's own same-document similarities).
//! Weighted PageRank (d = 0.85) ranks the chunks of each document; Leiden splits each document into
//! communities, its sub-topics. A community is summarised extractively by its best chunks by PageRank (no
//! LLM) and represented by the PageRank-weighted mean of its chunk vectors. Communities of different
//! documents are linked to their 5 most similar (`comm_similar_to`) above a threshold calibrated the same
//! way. Built at index time from the corpus and its chunk vectors, stored in the snapshot, rebuilt with the
//! rest of the index on every add or remove.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use crate::corpus::{ChunkId, Corpus, DocId};
use crate::error::Inconsistent;
use crate::index::bm25::Bm25Params;
use crate::index::{Bm25Index, QuantizedVectors};

mod communities;
mod documents;
mod parts;

use communities::{
    community_vectors, keep_links_above_percentile, nearest_communities_approximately, nearest_communities_exactly,
    summary_text,
};
use documents::{DocumentGraph, group_by_document, nearest_in_document, percentile};
pub use parts::{ChunkGraphSettings, Community, CommunityLink, SimilarEdge};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ChunkGraph {
    pub settings: ChunkGraphSettings,
    /// The calibrated `similar_to` threshold (infinite when no document has two chunks).
    pub similar_threshold: f32,
    /// The calibrated `comm_similar_to` threshold (infinite when there is one document).
    pub link_threshold: f32,
    pub similar: Vec<SimilarEdge>,
    /// Each chunk's PageRank within its document's graph (a document's ranks sum to 1).
    pub pagerank: Vec<f32>,
    /// Each chunk's community.
    pub community_of: Vec<u32>,
    pub communities: Vec<Community>,
    /// One unit vector per community.
    pub vectors: QuantizedVectors,
    /// BM25 over the communities' summaries.
    pub summaries: Bm25Index,
    /// Each community's links, most similar first.
    pub links: Vec<Vec<CommunityLink>>,
}

/// How large a chunk graph is, for `quire stats` and the app.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ChunkGraphStats {
    pub communities: usize,
    pub largest_community: usize,
    pub similar_edges: usize,
    pub community_links: usize,
    /// The calibrated thresholds; `None` where nothing could be calibrated (no pairs to compare).
    pub similar_threshold: Option<f32>,
    pub link_threshold: Option<f32>,
}

impl ChunkGraph {
    pub fn stats(&self) -> ChunkGraphStats {
        let finite = |t: f32| t.is_finite().then_some(t);
        ChunkGraphStats {
            communities: self.communities.len(),
            largest_community: self.communities.iter().map(|c| c.chunks.len()).max().unwrap_or(0),
            similar_edges: self.similar.len(),
            community_links: self.links.iter().map(Vec::len).sum(),
            similar_threshold: finite(self.similar_threshold),
            link_threshold: finite(self.link_threshold),
        }
    }

    /// The chunk graph of `corpus`, whose chunk `c` has the vector in row `chunk_rows[c]` of `vectors`.
    /// From `approximate_from` communities on, their links are found through an HNSW index instead of an
    /// exact scan over every pair (quadratic: about 4·10⁹ pairs at 100,000 chunks).
    pub fn build(
        corpus: &Corpus,
        vectors: &QuantizedVectors,
        chunk_rows: &[u32],
        bm25: Bm25Params,
        settings: ChunkGraphSettings,
        approximate_from: usize,
    ) -> Self {
        // Chunks that share a text share its row: each row is decoded once and its chunks point at it, so
        // memory follows the distinct texts (a CSV of a million rows of a few thousand words holds a few
        // thousand), not the chunks.
        let mut decoded: HashMap<u32, Vec<f32>> = HashMap::new();
        for &row in chunk_rows {
            decoded.entry(row).or_insert_with(|| vectors.get(row));
        }
        let chunk_vectors: Vec<&[f32]> = chunk_rows.iter().map(|row| decoded[row].as_slice()).collect();
        let documents: Vec<std::ops::Range<ChunkId>> =
            (0..corpus.documents.len()).map(|d| corpus.document_chunks(d as DocId)).collect();
        let candidates: Vec<Vec<SimilarEdge>> =
            documents.iter().map(|chunks| nearest_in_document(&chunk_vectors, chunks.clone(), &settings)).collect();
        let similar_threshold =
            percentile(candidates.iter().flatten().map(|e| e.similarity).collect(), settings.similar_percentile);
        let similar: Vec<SimilarEdge> =
            candidates.into_iter().flatten().filter(|e| e.similarity >= similar_threshold).collect();
        let mut pagerank = vec![0.0; corpus.chunks.len()];
        let mut community_of = vec![0; corpus.chunks.len()];
        let mut communities = Vec::new();
        let mut edges_of_document = group_by_document(corpus, &similar);
        for (document, chunks) in documents.iter().enumerate() {
            let graph = DocumentGraph::new(chunks.clone(), edges_of_document.remove(&(document as DocId)), &settings);
            let ranks = graph.pagerank(settings.damping);
            for membership in graph.communities(&settings) {
                let mut members: Vec<ChunkId> = membership.iter().map(|&i| chunks.start + i as ChunkId).collect();
                members.sort_by(|&a, &b| {
                    let rank = |c: ChunkId| ranks[(c - chunks.start) as usize];
                    rank(b).total_cmp(&rank(a)).then(a.cmp(&b))
                });
                for &chunk in &members {
                    community_of[chunk as usize] = communities.len() as u32;
                }
                communities.push(Community { document: document as DocId, chunks: members });
            }
            for (i, rank) in ranks.into_iter().enumerate() {
                pagerank[chunks.start as usize + i] = rank;
            }
        }
        let community_vectors = community_vectors(&communities, &chunk_vectors, &pagerank, vectors.dimension());
        let summary_texts: Vec<String> =
            communities.iter().map(|c| summary_text(corpus, c, settings.summary_chunks)).collect();
        let summaries = communities.iter().zip(&summary_texts);
        let summaries = summaries.map(|(c, text)| (text.as_str(), corpus.documents[c.document as usize].language));
        let summaries = Bm25Index::build(summaries, bm25);
        let mut stored = QuantizedVectors::new(vectors.dimension());
        for vector in &community_vectors {
            // Same dimension as the chunk vectors they average, so the push cannot be refused.
            let _ = stored.push(vector);
        }
        let candidates = if communities.len() >= approximate_from {
            nearest_communities_approximately(&communities, &community_vectors, &stored, &settings)
        } else {
            nearest_communities_exactly(&communities, &community_vectors, &settings)
        };
        let (links, link_threshold) = keep_links_above_percentile(candidates, &settings);
        Self {
            settings,
            similar_threshold,
            link_threshold,
            similar,
            pagerank,
            community_of,
            communities,
            vectors: stored,
            summaries,
            links,
        }
    }

    /// A community's extractive summary: its best chunks by PageRank.
    pub fn summary(&self, corpus: &Corpus, community: u32) -> String {
        summary_text(corpus, &self.communities[community as usize], self.settings.summary_chunks)
    }

    /// Whether decoded parts agree with each other and with a corpus of `documents` documents and `chunks`
    /// chunks embedded in `dimension` dimensions, so that nothing indexes out of range later.
    pub fn check(&self, documents: usize, chunks: usize, dimension: usize) -> Result<(), Inconsistent> {
        let count = self.communities.len();
        if self.pagerank.len() != chunks || self.community_of.len() != chunks {
            return Err("the chunk graph does not cover every chunk".into());
        }
        if self.vectors.len() != count || self.links.len() != count || self.summaries.len() != count {
            return Err("the chunk graph's communities, vectors, summaries and links disagree".into());
        }
        self.vectors.check()?;
        if count > 0 && self.vectors.dimension() != dimension {
            return Err("community vectors are not of the chunk vectors' dimension".into());
        }
        self.summaries.check(count)?;
        for (id, community) in self.communities.iter().enumerate() {
            if community.document as usize >= documents
                || community.chunks.is_empty()
                || community.chunks.iter().any(|&c| self.community_of.get(c as usize) != Some(&(id as u32)))
            {
                return Err(format!("community {id} does not match its chunks").into());
            }
        }
        if self.links.iter().flatten().any(|l| l.community as usize >= count) {
            return Err("a community link points past the communities".into());
        }
        if self.similar.iter().any(|e| e.first >= e.second || e.second as usize >= chunks) {
            return Err("a similar_to edge points past the chunks".into());
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
