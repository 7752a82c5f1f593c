//! The document knowledge graph of seed 000 §3.1 as a `petgraph` directed graph: Page/Entity, Section and
//! Chunk nodes; structural edges (`is_subchapter_of` to every ancestor, `has_subchapter` to direct children,
//! likewise `is_chunk_of`/`has_chunk`), `next`/`previous` within a section, `cites`/`cited_in`, and
//! `semantic_rel{type}` in both directions. Built deterministically from a [`Corpus`] in linear time.
//! Seed 004's chunk graph and its communities, which need the chunk vectors, live in [`chunks`].

pub mod chunks;
pub mod overview;

use std::collections::{BTreeMap, HashSet};

use petgraph::graph::{DiGraph, NodeIndex};
use petgraph::visit::EdgeRef;
use serde::{Deserialize, Serialize};

use crate::corpus::{ChunkId, Corpus, EntityId, RelationTypeId, SectionId};

pub use chunks::{ChunkGraph, ChunkGraphSettings, ChunkGraphStats, Community, CommunityLink};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NodeRef {
    /// A Page when the entity has a document, an external Entity otherwise.
    Entity(EntityId),
    Section(SectionId),
    Chunk(ChunkId),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EdgeKind {
    IsSubchapterOf,
    HasSubchapter,
    IsChunkOf,
    HasChunk,
    Next,
    Previous,
    Cites,
    CitedIn,
    /// `inverse` marks the `is_<type>_of` direction.
    SemanticRel {
        relation_type: RelationTypeId,
        inverse: bool,
    },
}

impl EdgeKind {
    pub fn label(&self) -> &'static str {
        match self {
            EdgeKind::IsSubchapterOf => "is_subchapter_of",
            EdgeKind::HasSubchapter => "has_subchapter",
            EdgeKind::IsChunkOf => "is_chunk_of",
            EdgeKind::HasChunk => "has_chunk",
            EdgeKind::Next => "next",
            EdgeKind::Previous => "previous",
            EdgeKind::Cites => "cites",
            EdgeKind::CitedIn => "cited_in",
            EdgeKind::SemanticRel { .. } => "semantic_rel",
        }
    }
}

/// How one entity reaches another: a semantic relation (followed with or against its direction), or a
/// mention between a page's chunks and an entity.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EntityLink {
    Relation {
        relation_type: RelationTypeId,
        inverse: bool,
    },
    /// A chunk of this page cites the other entity.
    Mentions,
    /// A chunk of the other entity's page cites this one.
    MentionedIn,
}

impl EntityLink {
    pub fn label(&self, corpus: &Corpus) -> String {
        match *self {
            EntityLink::Relation { relation_type, inverse: false } => {
                corpus.relation_types[relation_type as usize].name.clone()
            }
            EntityLink::Relation { relation_type, inverse: true } => {
                corpus.relation_types[relation_type as usize].inverse_name()
            }
            EntityLink::Mentions => "mentions".into(),
            EntityLink::MentionedIn => "mentioned_in".into(),
        }
    }
}

pub struct KnowledgeGraph {
    graph: DiGraph<NodeRef, EdgeKind>,
    section_base: usize,
    chunk_base: usize,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct GraphStats {
    pub nodes: BTreeMap<String, usize>,
    pub edges: BTreeMap<String, usize>,
    pub relation_types: usize,
}

impl KnowledgeGraph {
    pub fn build(corpus: &Corpus) -> Self {
        let mut graph = DiGraph::with_capacity(corpus.entities.len() + corpus.sections.len() + corpus.chunks.len(), 0);
        (0..corpus.entities.len()).for_each(|i| {
            graph.add_node(NodeRef::Entity(i as EntityId));
        });
        (0..corpus.sections.len()).for_each(|i| {
            graph.add_node(NodeRef::Section(i as SectionId));
        });
        (0..corpus.chunks.len()).for_each(|i| {
            graph.add_node(NodeRef::Chunk(i as ChunkId));
        });
        let mut kg = KnowledgeGraph {
            graph,
            section_base: corpus.entities.len(),
            chunk_base: corpus.entities.len() + corpus.sections.len(),
        };
        kg.add_structure(corpus);
        kg.add_citations(corpus);
        for relation in &corpus.relations {
            let (subject, object) = (NodeRef::Entity(relation.subject), NodeRef::Entity(relation.object));
            kg.add_pair(
                subject,
                object,
                EdgeKind::SemanticRel { relation_type: relation.relation_type, inverse: false },
                EdgeKind::SemanticRel { relation_type: relation.relation_type, inverse: true },
            );
        }
        kg
    }

    pub fn graph(&self) -> &DiGraph<NodeRef, EdgeKind> {
        &self.graph
    }

    pub fn index(&self, node: NodeRef) -> NodeIndex {
        NodeIndex::new(match node {
            NodeRef::Entity(id) => id as usize,
            NodeRef::Section(id) => self.section_base + id as usize,
            NodeRef::Chunk(id) => self.chunk_base + id as usize,
        })
    }

    /// Targets of `node`'s outgoing edges of one kind.
    pub fn neighbors(&self, node: NodeRef, kind: EdgeKind) -> Vec<NodeRef> {
        let mut out: Vec<NodeRef> = self
            .graph
            .edges(self.index(node))
            .filter(|e| *e.weight() == kind)
            .map(|e| self.graph[e.target()])
            .collect();
        out.reverse();
        out
    }

    /// The chunks citing `entity`.
    pub fn citing_chunks(&self, entity: EntityId) -> Vec<ChunkId> {
        let citing = self.neighbors(NodeRef::Entity(entity), EdgeKind::CitedIn).into_iter();
        citing.filter_map(|node| if let NodeRef::Chunk(chunk) = node { Some(chunk) } else { None }).collect()
    }

    /// Every entity one hop from `entity`, each once: semantic relations first, then mentions out of and into
    /// its page.
    pub fn entity_links(&self, corpus: &Corpus, entity: EntityId) -> Vec<(EntityId, EntityLink)> {
        let mut seen = HashSet::from([entity]);
        let mut links = Vec::new();
        let mut push = |target: EntityId, link: EntityLink| {
            if seen.insert(target) {
                links.push((target, link));
            }
        };
        let edges: Vec<_> = self.graph.edges(self.index(NodeRef::Entity(entity))).collect();
        for edge in edges.iter().rev() {
            if let (EdgeKind::SemanticRel { relation_type, inverse }, NodeRef::Entity(target)) =
                (edge.weight(), self.graph[edge.target()])
            {
                push(target, EntityLink::Relation { relation_type: *relation_type, inverse: *inverse });
            }
        }
        if let Some(document) = corpus.entities[entity as usize].document {
            for chunk in corpus.document_chunks(document) {
                for target in self.neighbors(NodeRef::Chunk(chunk), EdgeKind::Cites) {
                    if let NodeRef::Entity(target) = target {
                        push(target, EntityLink::Mentions);
                    }
                }
            }
        }
        for edge in edges.iter().rev().filter(|e| *e.weight() == EdgeKind::CitedIn) {
            if let NodeRef::Chunk(chunk) = self.graph[edge.target()] {
                push(corpus.chunks[chunk as usize].document, EntityLink::MentionedIn);
            }
        }
        links
    }

    pub fn stats(&self, corpus: &Corpus) -> GraphStats {
        let mut stats = GraphStats { relation_types: corpus.relation_types.len(), ..GraphStats::default() };
        for node in self.graph.node_weights() {
            let kind = match node {
                NodeRef::Entity(id) if corpus.entities[*id as usize].document.is_some() => "page",
                NodeRef::Entity(_) => "entity",
                NodeRef::Section(_) => "section",
                NodeRef::Chunk(_) => "chunk",
            };
            *stats.nodes.entry(kind.to_string()).or_default() += 1;
        }
        for edge in self.graph.edge_weights() {
            *stats.edges.entry(edge.label().to_string()).or_default() += 1;
        }
        stats
    }

    fn add_pair(&mut self, a: NodeRef, b: NodeRef, forward: EdgeKind, backward: EdgeKind) {
        let (ia, ib) = (self.index(a), self.index(b));
        self.graph.add_edge(ia, ib, forward);
        self.graph.add_edge(ib, ia, backward);
    }

    fn add_edge(&mut self, a: NodeRef, b: NodeRef, kind: EdgeKind) {
        let (ia, ib) = (self.index(a), self.index(b));
        self.graph.add_edge(ia, ib, kind);
    }

    /// The direct container of a section or chunk, then every further ancestor up to the page.
    fn ancestors(corpus: &Corpus, document: u32, mut section: Option<SectionId>) -> Vec<NodeRef> {
        let mut chain = Vec::new();
        while let Some(id) = section {
            chain.push(NodeRef::Section(id));
            section = corpus.sections[id as usize].parent;
        }
        chain.push(NodeRef::Entity(document));
        chain
    }

    /// `direct` from the node's container to the node; `transitive` from the node to every ancestor.
    fn hang(
        &mut self,
        corpus: &Corpus,
        node: NodeRef,
        document: u32,
        container: Option<SectionId>,
        direct: EdgeKind,
        transitive: EdgeKind,
    ) {
        let ancestors = Self::ancestors(corpus, document, container);
        self.add_edge(ancestors[0], node, direct);
        for ancestor in ancestors {
            self.add_edge(node, ancestor, transitive);
        }
    }

    fn add_structure(&mut self, corpus: &Corpus) {
        for (id, section) in corpus.sections.iter().enumerate() {
            let node = NodeRef::Section(id as SectionId);
            self.hang(
                corpus,
                node,
                section.document,
                section.parent,
                EdgeKind::HasSubchapter,
                EdgeKind::IsSubchapterOf,
            );
        }
        for (id, chunk) in corpus.chunks.iter().enumerate() {
            let node = NodeRef::Chunk(id as ChunkId);
            self.hang(corpus, node, chunk.document, chunk.section, EdgeKind::HasChunk, EdgeKind::IsChunkOf);
            let previous = id.checked_sub(1).map(|p| &corpus.chunks[p]);
            if previous.is_some_and(|p| p.document == chunk.document && p.section == chunk.section) {
                self.add_pair(NodeRef::Chunk(id as ChunkId - 1), node, EdgeKind::Next, EdgeKind::Previous);
            }
        }
        self.add_spanned_sections(corpus);
    }

    /// A chunk joined across headings (a run of tiny sections, `corpus::chunking::join_small`) holds the
    /// text of every section whose heading it spans: each of them has it as a chunk too. Sections and
    /// chunks are both in document order, so one walk finds them.
    fn add_spanned_sections(&mut self, corpus: &Corpus) {
        let mut first = 0usize; // the first section not before the chunk
        for (id, chunk) in corpus.chunks.iter().enumerate() {
            let at = |s: &crate::corpus::Section| (s.document, s.heading.start);
            while corpus.sections.get(first).is_some_and(|s| at(s) < (chunk.document, chunk.span.start)) {
                first += 1;
            }
            let spanned = corpus.sections[first..]
                .iter()
                .take_while(|s| s.document == chunk.document && s.heading.end <= chunk.span.end);
            for (offset, _) in spanned.enumerate() {
                let section = (first + offset) as SectionId;
                if chunk.section != Some(section) {
                    self.add_pair(
                        NodeRef::Section(section),
                        NodeRef::Chunk(id as ChunkId),
                        EdgeKind::HasChunk,
                        EdgeKind::IsChunkOf,
                    );
                }
            }
        }
    }

    fn add_citations(&mut self, corpus: &Corpus) {
        let mut seen = HashSet::new();
        for mention in &corpus.mentions {
            if seen.insert((mention.chunk, mention.entity)) {
                self.add_pair(
                    NodeRef::Chunk(mention.chunk),
                    NodeRef::Entity(mention.entity),
                    EdgeKind::Cites,
                    EdgeKind::CitedIn,
                );
            }
        }
    }
}
