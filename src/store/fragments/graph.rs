//! The graph of an index split for a static host: what the node-set join and the community retriever read,
//! whole in one file, fetched once. The entities (names, pages) and the links between them, each link once
//! (it goes both ways); the chunks citing each entity without a page; the chunk graph's communities, their
//! chunks and `comm_similar_to` links. The community summaries' BM25 is split by term as the chunks' is
//! (`terms`), its buckets fetched as questions need them.

use std::collections::HashSet;

use serde::{Deserialize, Serialize};

use super::terms::{SplitBm25, TermBucket, from_gaps, to_gaps};
use crate::corpus::{ChunkId, DocId, EntityId, Gazetteer};
use crate::error::Inconsistent;
use crate::graph::CommunityLink;
use crate::store::IndexedCorpus;

#[derive(Serialize, Deserialize)]
pub(super) struct StoredGraph {
    /// Each entity's name, empty where it is its page's title, and its page.
    entities: Vec<(String, Option<DocId>)>,
    min_mention_chars: usize,
    /// Each entity's links to the entities after it, ascending, as gaps from the entity itself.
    links: Vec<Vec<u32>>,
    /// The chunks citing each entity, ascending, as gaps; empty for a page, whose own chunks speak for it.
    citing: Vec<Vec<u32>>,
    /// Each community's chunks, best by PageRank first, each as its difference from the chunk before.
    communities: Vec<Vec<i64>>,
    community_links: Vec<Vec<CommunityLink>>,
    summaries: SplitBm25,
}

/// The graph of `index`, and its summaries' BM25 postings in buckets of about `bucket_bytes`; an error when
/// a link between entities goes one way only (the graph links both ends of every relation and mention).
pub(super) fn split(
    index: &IndexedCorpus,
    bucket_bytes: usize,
) -> Result<(StoredGraph, Vec<TermBucket>), Inconsistent> {
    let corpus = index.corpus();
    let linked: Vec<Vec<EntityId>> = (0..corpus.entities.len() as EntityId)
        .map(|entity| index.graph().entity_links(corpus, entity).into_iter().map(|(target, _)| target).collect())
        .collect();
    let pairs: HashSet<(EntityId, EntityId)> =
        linked.iter().enumerate().flat_map(|(e, targets)| targets.iter().map(move |&t| (e as EntityId, t))).collect();
    if let Some((from, to)) = pairs.iter().find(|&&(from, to)| !pairs.contains(&(to, from))) {
        return Err(format!("the link from entity {from} to entity {to} goes one way only").into());
    }
    let links = linked
        .into_iter()
        .enumerate()
        .map(|(entity, mut targets)| {
            targets.retain(|&target| target as usize > entity);
            targets.sort_unstable();
            to_gaps(std::iter::once(entity as u32).chain(targets)).skip(1).collect()
        })
        .collect();
    let entities = corpus.entities.iter().map(|entity| {
        let title = entity.document.map(|document| corpus.documents[document as usize].title.as_str());
        let name = if title == Some(entity.name.as_str()) { String::new() } else { entity.name.clone() };
        (name, entity.document)
    });
    let citing = (0..corpus.entities.len() as EntityId).map(|entity| {
        if corpus.entities[entity as usize].document.is_some() {
            return Vec::new();
        }
        let mut chunks = index.graph().citing_chunks(entity);
        chunks.sort_unstable();
        chunks.dedup();
        to_gaps(chunks.into_iter()).collect()
    });
    let chunk_graph = index.chunk_graph();
    let mut previous = 0i64;
    let communities = chunk_graph.communities.iter().map(|community| {
        community
            .chunks
            .iter()
            .map(|&chunk| i64::from(chunk) - std::mem::replace(&mut previous, chunk.into()))
            .collect()
    });
    let (summaries, buckets) = SplitBm25::split(&chunk_graph.summaries, None, index.languages(), bucket_bytes);
    let stored = StoredGraph {
        entities: entities.collect(),
        min_mention_chars: corpus.settings.min_mention_chars,
        links,
        citing: citing.collect(),
        communities: communities.collect(),
        community_links: chunk_graph.links.clone(),
        summaries,
    };
    Ok((stored, buckets))
}

/// The graph of an index known by its fragments, checked against the lexicon.
pub struct FragmentGraph {
    names: Vec<String>,
    pages: Vec<Option<DocId>>,
    gazetteer: Gazetteer,
    links: Vec<Vec<EntityId>>,
    citing: Vec<Vec<ChunkId>>,
    communities: Vec<Vec<ChunkId>>,
    community_links: Vec<Vec<CommunityLink>>,
    pub(super) summaries: SplitBm25,
}

impl FragmentGraph {
    /// `stored` read for an index of `titles` (one per document) and `chunks` chunks; why not, where its
    /// parts point outside it.
    pub(super) fn load(stored: StoredGraph, titles: &[(String, String)], chunks: usize) -> Result<Self, Inconsistent> {
        let entities = stored.entities.len();
        let mut names = Vec::with_capacity(entities);
        let mut pages = Vec::with_capacity(entities);
        for (name, page) in stored.entities {
            let title = match page {
                Some(document) => &titles.get(document as usize).ok_or("an entity's page is not a document")?.1,
                None => "",
            };
            names.push(if name.is_empty() { title.to_string() } else { name });
            pages.push(page);
        }
        if stored.links.len() != entities || stored.citing.len() != entities {
            return Err("its entities' links disagree with its entities".into());
        }
        let mut links: Vec<Vec<EntityId>> = vec![Vec::new(); entities];
        for (entity, gaps) in stored.links.into_iter().enumerate() {
            let targets = from_gaps(std::iter::once(entity as u32).chain(gaps), entities)
                .ok_or("an entity's links are out of order or beyond the entities")?;
            for &target in &targets[1..] {
                links[entity].push(target);
                links[target as usize].push(entity as EntityId);
            }
        }
        let citing = stored
            .citing
            .into_iter()
            .map(|gaps| from_gaps(gaps.into_iter(), chunks))
            .collect::<Option<Vec<_>>>()
            .ok_or("the chunks citing an entity are out of order or beyond the chunks")?;
        let mut previous = 0i64;
        let mut community_chunks = |deltas: Vec<i64>| -> Option<Vec<ChunkId>> {
            let chunk_ids = deltas.into_iter().map(|delta| {
                previous = previous.checked_add(delta)?;
                usize::try_from(previous).ok().filter(|&chunk| chunk < chunks).map(|chunk| chunk as ChunkId)
            });
            chunk_ids.collect::<Option<Vec<_>>>().filter(|ids| !ids.is_empty())
        };
        let communities = stored
            .communities
            .into_iter()
            .map(&mut community_chunks)
            .collect::<Option<Vec<_>>>()
            .ok_or("a community is empty or holds chunks beyond the chunks")?;
        let count = communities.len();
        if stored.community_links.len() != count
            || stored.community_links.iter().flatten().any(|link| link.community as usize >= count)
            || stored.summaries.texts() != count
        {
            return Err("its communities, their links and their summaries disagree".into());
        }
        stored.summaries.check()?;
        let gazetteer = Gazetteer::from_names(names.iter().map(String::as_str), stored.min_mention_chars);
        let community_links = stored.community_links;
        Ok(Self { names, pages, gazetteer, links, citing, communities, community_links, summaries: stored.summaries })
    }

    /// The entities `text` names, as the whole index's gazetteer finds them.
    pub fn named_entities(&self, text: &str) -> Vec<EntityId> {
        self.gazetteer.find(text)
    }

    pub fn name(&self, entity: EntityId) -> &str {
        self.names.get(entity as usize).map_or("", String::as_str)
    }

    /// The document that is `entity`'s page, if it has one.
    pub fn page_of(&self, entity: EntityId) -> Option<DocId> {
        self.pages.get(entity as usize).copied().flatten()
    }

    /// The entities one relation or mention away from `entity`.
    pub fn linked_entities(&self, entity: EntityId) -> &[EntityId] {
        self.links.get(entity as usize).map_or(&[], Vec::as_slice)
    }

    /// The chunks citing `entity`, for an entity without a page.
    pub fn citing_chunks(&self, entity: EntityId) -> &[ChunkId] {
        self.citing.get(entity as usize).map_or(&[], Vec::as_slice)
    }

    /// A community's chunks, best by PageRank first.
    pub fn community_chunks(&self, community: u32) -> &[ChunkId] {
        self.communities.get(community as usize).map_or(&[], Vec::as_slice)
    }

    /// A community's `comm_similar_to` links.
    pub fn community_links(&self, community: u32) -> &[CommunityLink] {
        self.community_links.get(community as usize).map_or(&[], Vec::as_slice)
    }
}
