//! The whole corpus graph as one drawing: pages, sections, entities and chunks placed by ForceAtlas2 (the
//! `fa2` crate, Barnes–Hut repulsion) so that a page's sections and chunks gather around it and pages that
//! cite each other sit close. Large corpora are cut to a node budget by kind, the coarse kinds first (pages,
//! then sections, entities, chunks): what stays is the skeleton a reader can follow, and the drawing says
//! what it left out. Edges are seed 000's two families: positional (containment, `next`) and semantic
//! (citations, relations, seed 004's `similar_to`).

use std::collections::{HashMap, HashSet};

use fa2::{FA2Data, FA2Settings};
use serde::{Deserialize, Serialize};

use super::ChunkGraph;
use crate::corpus::{ChunkId, Corpus};

/// Layout epochs: enough for ForceAtlas2 to settle a few thousand nodes (measured: the mean move per node
/// falls below 1 % of the drawing's extent well before), few enough to lay out 2,000 nodes in a browser
/// worker in well under a second.
const EPOCHS: usize = 200;
/// The drawing's larger side, in its own units, per square root of its nodes: nodes and labels are drawn at a
/// fixed size in these units, so a small graph is drawn small and shows them large when fitted to the screen.
const EXTENT_PER_ROOT_NODE: f32 = 55.0;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OverviewKind {
    Page,
    Section,
    Entity,
    Chunk,
}

impl OverviewKind {
    /// Kinds in the order a budget admits them.
    const BY_PRIORITY: [OverviewKind; 4] =
        [OverviewKind::Page, OverviewKind::Section, OverviewKind::Entity, OverviewKind::Chunk];

    pub fn plural(self) -> &'static str {
        match self {
            OverviewKind::Page => "pages",
            OverviewKind::Section => "sections",
            OverviewKind::Entity => "entities",
            OverviewKind::Chunk => "chunks",
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            OverviewKind::Page => "page",
            OverviewKind::Section => "section",
            OverviewKind::Entity => "entity",
            OverviewKind::Chunk => "chunk",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OverviewNode {
    pub kind: OverviewKind,
    /// Id within its kind (a page is its entity id).
    pub id: u32,
    pub label: String,
    /// The document it belongs to (a page is its own); none for an entity without a page.
    pub document: Option<u32>,
    pub x: f32,
    pub y: f32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct OverviewEdge {
    pub from: u32,
    pub to: u32,
    /// Containment and reading order; otherwise a citation, relation or similarity.
    pub positional: bool,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Overview {
    pub nodes: Vec<OverviewNode>,
    pub edges: Vec<OverviewEdge>,
    /// Nodes of each kind in the corpus, and how many of them are drawn.
    pub counts: Vec<(OverviewKind, usize, usize)>,
    /// Each document's source, by document id.
    pub sources: Vec<String>,
    pub width: f32,
    pub height: f32,
}

impl Overview {
    /// The corpus graph, at most `budget` nodes of it, laid out.
    pub fn build(corpus: &Corpus, chunk_graph: &ChunkGraph, budget: usize) -> Self {
        let mut sketch = Sketch::new(corpus, budget);
        sketch.connect(corpus, chunk_graph);
        let sources = corpus.documents.iter().map(|d| d.source.clone()).collect();
        Overview { sources, ..sketch.lay_out() }
    }

    /// `Pages 400 of 400 · chunks 1,600 of 2,435 …`: what the drawing shows of the corpus.
    pub fn describe(&self) -> String {
        self.counts
            .iter()
            .filter(|(_, total, _)| *total > 0)
            .map(|(kind, total, shown)| match total == shown {
                true => format!("{total} {}", kind.plural()),
                false => format!("{shown} of {total} {}", kind.plural()),
            })
            .collect::<Vec<_>>()
            .join(" · ")
    }
}

/// Nodes chosen, edges between them, positions still to find.
struct Sketch {
    nodes: Vec<OverviewNode>,
    index: HashMap<(OverviewKind, u32), u32>,
    edges: Vec<OverviewEdge>,
    seen: HashSet<(u32, u32)>,
    counts: Vec<(OverviewKind, usize, usize)>,
}

impl Sketch {
    fn new(corpus: &Corpus, budget: usize) -> Self {
        let mut sketch = Sketch {
            nodes: Vec::new(),
            index: HashMap::new(),
            edges: Vec::new(),
            seen: HashSet::new(),
            counts: Vec::new(),
        };
        for kind in OverviewKind::BY_PRIORITY {
            let candidates = candidates(corpus, kind);
            let room = budget.saturating_sub(sketch.nodes.len()).min(candidates.len());
            sketch.counts.push((kind, candidates.len(), room));
            for (id, label) in candidates.into_iter().take(room) {
                sketch.index.insert((kind, id), sketch.nodes.len() as u32);
                let document = document_of(corpus, kind, id);
                sketch.nodes.push(OverviewNode { kind, id, label, document, x: 0.0, y: 0.0 });
            }
        }
        sketch
    }

    fn at(&self, kind: OverviewKind, id: u32) -> Option<u32> {
        self.index.get(&(kind, id)).copied()
    }

    /// An edge between two drawn nodes, once whichever way it is named.
    fn link(&mut self, from: Option<u32>, to: Option<u32>, positional: bool) {
        let (Some(from), Some(to)) = (from, to) else { return };
        if from != to && self.seen.insert((from.min(to), from.max(to))) {
            self.edges.push(OverviewEdge { from, to, positional });
        }
    }

    /// The nearest drawn container of a section or chunk: its section, a parent section, else its page.
    fn container(&self, corpus: &Corpus, document: u32, mut section: Option<u32>) -> Option<u32> {
        while let Some(id) = section {
            if let Some(drawn) = self.at(OverviewKind::Section, id) {
                return Some(drawn);
            }
            section = corpus.sections[id as usize].parent;
        }
        self.at(OverviewKind::Page, document)
    }

    /// A chunk where it is drawn, else its nearest drawn container, so citations of left-out chunks still
    /// join their page to what they cite.
    fn chunk_or_container(&self, corpus: &Corpus, chunk: ChunkId) -> Option<u32> {
        let record = &corpus.chunks[chunk as usize];
        self.at(OverviewKind::Chunk, chunk).or_else(|| self.container(corpus, record.document, record.section))
    }

    fn entity(&self, corpus: &Corpus, entity: u32) -> Option<u32> {
        let kind =
            if corpus.entities[entity as usize].document.is_some() { OverviewKind::Page } else { OverviewKind::Entity };
        self.at(kind, entity)
    }

    fn connect(&mut self, corpus: &Corpus, chunk_graph: &ChunkGraph) {
        for (id, section) in corpus.sections.iter().enumerate() {
            let parent = self.container(corpus, section.document, section.parent);
            self.link(parent, self.at(OverviewKind::Section, id as u32), true);
        }
        for (id, chunk) in corpus.chunks.iter().enumerate() {
            let node = self.at(OverviewKind::Chunk, id as ChunkId);
            self.link(self.container(corpus, chunk.document, chunk.section), node, true);
            let previous = id.checked_sub(1).filter(|&p| {
                let p = &corpus.chunks[p];
                p.document == chunk.document && p.section == chunk.section
            });
            if let Some(previous) = previous {
                self.link(self.at(OverviewKind::Chunk, previous as ChunkId), node, true);
            }
        }
        for mention in &corpus.mentions {
            let cited = self.entity(corpus, mention.entity);
            self.link(self.chunk_or_container(corpus, mention.chunk), cited, false);
        }
        for relation in &corpus.relations {
            self.link(self.entity(corpus, relation.subject), self.entity(corpus, relation.object), false);
        }
        for edge in &chunk_graph.similar {
            let (first, second) = (self.at(OverviewKind::Chunk, edge.first), self.at(OverviewKind::Chunk, edge.second));
            self.link(first, second, false);
        }
    }

    fn lay_out(mut self) -> Overview {
        let mut data = FA2Data::<f32>::with_capacity(self.nodes.len(), self.edges.len());
        // A golden-angle spiral: every node starts somewhere different, the same way on every run.
        for i in 0..self.nodes.len() {
            let angle = i as f32 * 2.399_963;
            let radius = (i as f32 + 1.0).sqrt();
            data.add_node_with_position(radius * angle.cos(), radius * angle.sin());
        }
        for edge in &self.edges {
            data.add_edge(edge.from as usize, edge.to as usize);
        }
        let settings = FA2Settings::from_graph_order(self.nodes.len()).with_barnes_hut().parallel(false);
        let mut layout = settings.build(data);
        layout.run(if self.nodes.len() > 1 { EPOCHS } else { 0 });
        let positions: Vec<(f32, f32)> = layout.data().positions().collect();
        let extent = ((self.nodes.len() as f32).sqrt() * EXTENT_PER_ROOT_NODE).clamp(500.0, 3000.0);
        let (width, height) = fit(&mut self.nodes, &positions, extent);
        Overview { nodes: self.nodes, edges: self.edges, counts: self.counts, sources: Vec::new(), width, height }
    }
}

fn document_of(corpus: &Corpus, kind: OverviewKind, id: u32) -> Option<u32> {
    match kind {
        OverviewKind::Page | OverviewKind::Entity => corpus.entities[id as usize].document,
        OverviewKind::Section => Some(corpus.sections[id as usize].document),
        OverviewKind::Chunk => Some(corpus.chunks[id as usize].document),
    }
}

/// Scales positions into a drawing whose larger side is `extent`, with a margin; returns its size.
fn fit(nodes: &mut [OverviewNode], positions: &[(f32, f32)], extent: f32) -> (f32, f32) {
    let finite = positions.iter().filter(|(x, y)| x.is_finite() && y.is_finite());
    let (mut min_x, mut min_y, mut max_x, mut max_y) = (f32::MAX, f32::MAX, f32::MIN, f32::MIN);
    for &(x, y) in finite {
        (min_x, min_y, max_x, max_y) = (min_x.min(x), min_y.min(y), max_x.max(x), max_y.max(y));
    }
    if min_x > max_x {
        (min_x, min_y, max_x, max_y) = (0.0, 0.0, 0.0, 0.0);
    }
    let span = (max_x - min_x).max(max_y - min_y).max(f32::EPSILON);
    let scale = extent / span;
    let margin = extent * 0.03;
    for (node, &(x, y)) in nodes.iter_mut().zip(positions) {
        let (x, y) = if x.is_finite() && y.is_finite() { (x, y) } else { (min_x, min_y) };
        node.x = margin + (x - min_x) * scale;
        node.y = margin + (y - min_y) * scale;
    }
    (2.0 * margin + (max_x - min_x) * scale, 2.0 * margin + (max_y - min_y) * scale)
}

/// Every node of one kind as (id, label), the ones most worth drawing first: pages in corpus order, sections
/// top level first, entities by how often they are cited, chunks each section's first before any second, so
/// a cut drawing still shows every part of the corpus.
fn candidates(corpus: &Corpus, kind: OverviewKind) -> Vec<(u32, String)> {
    let entities = |paged: bool| {
        (0..corpus.entities.len() as u32).filter(move |&e| corpus.entities[e as usize].document.is_some() == paged)
    };
    match kind {
        OverviewKind::Page => entities(true).map(|e| (e, corpus.entities[e as usize].name.clone())).collect(),
        OverviewKind::Section => {
            let mut ids: Vec<u32> = (0..corpus.sections.len() as u32).collect();
            ids.sort_by_key(|&s| corpus.sections[s as usize].depth);
            ids.into_iter().map(|s| (s, corpus.sections[s as usize].title.clone())).collect()
        }
        OverviewKind::Entity => {
            let mut cited: HashMap<u32, usize> = HashMap::new();
            for mention in &corpus.mentions {
                *cited.entry(mention.entity).or_default() += 1;
            }
            let mut ids: Vec<u32> = entities(false).collect();
            ids.sort_by_key(|e| std::cmp::Reverse(cited.get(e).copied().unwrap_or(0)));
            ids.into_iter().map(|e| (e, corpus.entities[e as usize].name.clone())).collect()
        }
        OverviewKind::Chunk => {
            let mut ids: Vec<u32> = (0..corpus.chunks.len() as u32).collect();
            ids.sort_by_key(|&c| corpus.chunks[c as usize].ordinal);
            ids.into_iter().map(|c| (c, corpus.chunk_label(c))).collect()
        }
    }
}
