//! Seed 004's chunk graph on a hand-built corpus whose sub-topics are known by construction: one notebook
//! whose first two paragraphs are about a lighthouse and last two about an orchard, next to a page about a
//! harbour and one about cider. The notebook must split into those two communities, each linked to the
//! page of its own topic, and the community retriever must go from the question to the right community.

use crate::common;

use std::sync::OnceLock;

use quire::corpus::CorpusSettings;
use quire::embed::TextEmbedder;
use quire::retrieve::trace::NodeKind;
use quire::retrieve::{Method, Query, Retriever, Step};
use quire::store::{IndexSettings, IndexedCorpus};

const FILES: [(&str, &str); 4] = [
    (
        "Notebook.md",
        "# Notebook\n\n\
         The lighthouse keeper climbed the tower every evening to light the lamp that warns ships off the rocks.\n\n\
         Its lens turns all night, and passing ships read the flashing beam to steer clear of the reef.\n\n\
         In the orchard we pruned the apple trees in late winter, cutting back the oldest branches.\n\n\
         By October the orchard trees were heavy with apples and pears, and the harvest filled forty crates.\n",
    ),
    (
        "Harbour.md",
        "# Harbour\n\nShips shelter in the harbour from storms at sea, guided in by beacons and a lighthouse on the pier.\n",
    ),
    (
        "Cider.md",
        "# Cider\n\nCider is pressed from ripe apples harvested in autumn from the orchard, then fermented.\n",
    ),
    ("Tax.md", "# Tax\n\nIncome tax returns are due at the end of the fiscal year, with penalties for late filing.\n"),
];

fn index() -> &'static IndexedCorpus {
    static INDEX: OnceLock<IndexedCorpus> = OnceLock::new();
    INDEX.get_or_init(|| {
        // Each paragraph its own chunk: short neighbours are otherwise merged.
        let corpus = CorpusSettings { chunk_target_tokens: 8, ..CorpusSettings::default() };
        common::index_files(&FILES, IndexSettings { corpus, ..IndexSettings::default() })
    })
}

fn source_of(index: &IndexedCorpus, community: u32) -> &str {
    let document = index.chunk_graph().communities[community as usize].document;
    &index.corpus().documents[document as usize].source
}

#[test]
fn a_document_splits_into_its_sub_topics() {
    let index = index();
    let graph = &index.chunk_graph();
    let notebook = index.corpus().document_chunks(0);
    assert_eq!(notebook.len(), 4, "one chunk per paragraph");
    let first = notebook.start;
    let of = |chunk: u32| graph.community_of[chunk as usize];
    assert_eq!(of(first), of(first + 1), "the lighthouse paragraphs share a community");
    assert_eq!(of(first + 2), of(first + 3), "the orchard paragraphs share a community");
    assert_ne!(of(first + 1), of(first + 2), "the two topics are apart");
    let ranks: f32 = notebook.clone().map(|c| graph.pagerank[c as usize]).sum();
    assert!((ranks - 1.0).abs() < 1e-4, "a document's PageRank sums to 1: {ranks}");
    // Only the notebook has more than one chunk: its pairs calibrate the similar_to threshold.
    assert!(graph.similar_threshold.is_finite());
    assert!(graph.similar.iter().all(|e| e.similarity >= graph.similar_threshold));
    assert!(graph.similar.iter().all(|e| notebook.contains(&e.first) && notebook.contains(&e.second)));
}

#[test]
fn communities_link_to_their_topic_in_other_documents() {
    let index = index();
    let graph = &index.chunk_graph();
    let best_link = |chunk: u32| {
        let community = graph.community_of[chunk as usize];
        let link = graph.links[community as usize].first().expect("a link above the threshold");
        source_of(index, link.community)
    };
    let first = index.corpus().document_chunks(0).start;
    assert_eq!(best_link(first), "Harbour.md");
    assert_eq!(best_link(first + 2), "Cider.md");
    for (community, links) in graph.links.iter().enumerate() {
        for link in links {
            assert_ne!(graph.communities[community].document, graph.communities[link.community as usize].document);
            assert!(link.similarity >= graph.link_threshold);
        }
    }
    // Summaries are the best chunks by PageRank, so they hold the community's own words.
    let orchard = graph.community_of[first as usize + 2];
    assert!(graph.summary(index.corpus(), orchard).contains("orchard"));
}

#[test]
fn the_community_retriever_goes_from_the_question_to_its_community() {
    let index = index();
    let question = "How do ships avoid the reef at night?";
    let vector = common::embedder().embed(&[question]).unwrap().remove(0);
    let (chunks, trace) =
        Method::Single(Retriever::Community).rank(index, Query::new(question, &vector), 10).trace(index, 10);
    let first = index.corpus().document_chunks(0).start;
    assert!([first, first + 1].contains(&chunks[0].chunk), "{}", trace.render());
    let Step::Seeds { nodes, .. } = &trace.retrievers[0].steps[0] else { panic!("{}", trace.render()) };
    assert!(nodes.iter().all(|n| n.kind == NodeKind::Community));
    assert!(nodes[0].label.contains("Notebook"), "{}", trace.render());
    // Every chunk the retriever returns belongs to a community it seeded or reached by a link.
    let reached: Vec<u32> = trace.retrievers[0]
        .steps
        .iter()
        .flat_map(|step| match step {
            Step::Seeds { nodes, .. } => nodes.iter().map(|n| n.id).collect(),
            Step::Expand { to, relation, .. } => {
                assert_eq!(relation, "comm_similar_to");
                vec![to.id]
            }
            Step::Keep { .. } | Step::Llm { .. } => Vec::new(),
        })
        .collect();
    assert!(chunks.iter().all(|c| reached.contains(&index.chunk_graph().community_of[c.chunk as usize])));
}

#[test]
fn approximate_community_links_match_the_exact_scan() {
    use quire::graph::{ChunkGraph, ChunkGraphSettings};
    let index = index();
    let build = |approximate_from| {
        let (vectors, rows) = (index.embeddings().vectors(), &index.rows().chunks);
        ChunkGraph::build(
            index.corpus(),
            vectors,
            rows,
            index.settings().bm25,
            ChunkGraphSettings::default(),
            approximate_from,
        )
    };
    let (exact, approximate) = (build(usize::MAX), build(0));
    let linked = |graph: &ChunkGraph| -> Vec<Vec<u32>> {
        graph.links.iter().map(|links| links.iter().map(|l| l.community).collect()).collect()
    };
    assert!(exact.links.iter().any(|links| !links.is_empty()));
    // Every community's links, in order: the HNSW index over five communities examines them all.
    assert_eq!(linked(&approximate), linked(&exact));
    // Scores differ only by the int8 rounding of the stored side.
    assert!((approximate.link_threshold - exact.link_threshold).abs() < 0.02);
}
