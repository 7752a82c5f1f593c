//! The corpus graph overview (the app's "whole corpus" drawing) on the planets demo: every node kind, the
//! budget cut coarse kinds first, edges only between drawn nodes, and a layout that keeps a page's chunks
//! near their page.

use crate::common;

use quire::embed::TextEmbedder;
use quire::graph::overview::{Overview, OverviewKind};
use quire::store::{IndexBuilder, IndexedCorpus, Vectors};

fn demo_index() -> IndexedCorpus {
    let settings = quire::store::IndexSettings::default();
    let report = quire::corpus::ingest(&common::demo_files(), &settings.corpus);
    let embedder = common::embedder();
    let mut builder =
        IndexBuilder::new(report.documents, embedder, embedder.identity().clone(), settings, None, Vectors::All);
    builder.embed_all(embedder).unwrap();
    builder.finish()
}

fn distance(overview: &Overview, a: usize, b: usize) -> f32 {
    let (a, b) = (&overview.nodes[a], &overview.nodes[b]);
    ((a.x - b.x).powi(2) + (a.y - b.y).powi(2)).sqrt()
}

#[test]
fn the_whole_demo_graph_is_drawn_with_chunks_near_their_pages() {
    let index = demo_index();
    let overview = Overview::build(index.corpus(), index.chunk_graph(), 2000);
    let stats = index.graph().stats(index.corpus());
    let counted = |kind: OverviewKind| overview.nodes.iter().filter(|n| n.kind == kind).count();
    for (kind, key) in [
        (OverviewKind::Page, "page"),
        (OverviewKind::Section, "section"),
        (OverviewKind::Entity, "entity"),
        (OverviewKind::Chunk, "chunk"),
    ] {
        assert_eq!(counted(kind), stats.nodes[key], "{key}");
    }
    assert!(!overview.describe().contains(" of "), "{}", overview.describe());

    let n = overview.nodes.len();
    assert!(overview.edges.iter().all(|e| (e.from as usize) < n && (e.to as usize) < n && e.from != e.to));
    // Every chunk hangs from its container by a positional edge; citations and similarities are semantic.
    let positional = overview.edges.iter().filter(|e| e.positional).count();
    assert!(positional >= stats.nodes["chunk"] + stats.nodes["section"]);
    assert!(overview.edges.iter().any(|e| !e.positional));

    for node in &overview.nodes {
        assert!(node.x.is_finite() && node.y.is_finite());
        assert!((0.0..=overview.width).contains(&node.x) && (0.0..=overview.height).contains(&node.y));
    }
    // Chunks sit nearer their own page than the average other page.
    let page_at = |document: u32| {
        overview.nodes.iter().position(|n| n.kind == OverviewKind::Page && n.document == Some(document))
    };
    let pages: Vec<usize> = (0..n).filter(|&i| overview.nodes[i].kind == OverviewKind::Page).collect();
    let (mut own, mut other) = (0.0, 0.0);
    for (i, node) in overview.nodes.iter().enumerate().filter(|(_, n)| n.kind == OverviewKind::Chunk) {
        let document = index.corpus().chunks[node.id as usize].document;
        assert_eq!(node.document, Some(document));
        assert_eq!(overview.sources[document as usize], index.corpus().documents[document as usize].source);
        let home = page_at(document).unwrap();
        own += distance(&overview, i, home);
        let others: Vec<f32> = pages.iter().filter(|&&p| p != home).map(|&p| distance(&overview, i, p)).collect();
        other += others.iter().sum::<f32>() / others.len() as f32;
    }
    assert!(own < other * 0.6, "own page {own:.0} vs others {other:.0}");

    // The same corpus draws the same way every time.
    assert_eq!(Overview::build(index.corpus(), index.chunk_graph(), 2000), overview);
}

#[test]
fn a_small_budget_keeps_pages_and_sections_and_joins_pages_through_their_left_out_chunks() {
    let index = demo_index();
    let pages = index.corpus().documents.len();
    let budget = pages + index.corpus().sections.len();
    let overview = Overview::build(index.corpus(), index.chunk_graph(), budget);
    assert_eq!(overview.nodes.len(), budget);
    assert!(overview.nodes.iter().all(|n| matches!(n.kind, OverviewKind::Page | OverviewKind::Section)));
    assert!(
        overview.describe().contains(&format!("0 of {} chunks", index.corpus().chunks.len())),
        "{}",
        overview.describe()
    );
    // The moon page's chunks cite Earth: with the chunks left out, their section or page carries the citation.
    let earth = overview.nodes.iter().position(|n| n.kind == OverviewKind::Page && n.label == "Earth").unwrap() as u32;
    assert!(overview.edges.iter().any(|e| !e.positional && (e.from == earth || e.to == earth)));

    let tiny = Overview::build(index.corpus(), index.chunk_graph(), 2);
    assert_eq!(tiny.nodes.len(), 2);
    assert!(tiny.describe().starts_with(&format!("2 of {pages} pages")), "{}", tiny.describe());
}
