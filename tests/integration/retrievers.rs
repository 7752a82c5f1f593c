//! Each retriever on a small hand-built corpus whose graph is known by construction: a film page links its
//! director, the director's page names her birthplace, the birthplace names its country. Questions whose
//! answer needs a hop along those links show which retrievers follow them.

use crate::common;

use std::sync::OnceLock;

use quire::embed::TextEmbedder;
use quire::eval::run::rank_documents;
use quire::retrieve::trace::{Stage, tour};
use quire::retrieve::{Method, Query, Retriever, SharedSearches, Step, Trace, dense, document_depth, hub_score};
use quire::store::{IndexSettings, IndexedCorpus};

const FILES: [(&str, &str); 6] = [
    (
        "Harbor Lights.md",
        "---\ndirected_by: \"[[Mara Quill]]\"\n---\n# Harbor Lights\n\nHarbor Lights is a 1963 drama film \
         directed by [[Mara Quill]], shot over one winter.\n",
    ),
    (
        "Mara Quill.md",
        "# Mara Quill\n\nMara Quill was born in Tallinn and studied painting before she turned to cinema.\n",
    ),
    ("Tallinn.md", "# Tallinn\n\nTallinn is the capital of Estonia and a port on the Baltic Sea.\n"),
    (
        "Estonia.md",
        "# Estonia\n\n## Economy\n\nShipping and software make up much of the national economy.\n\n\
         ## Geography\n\nForests cover half of the land, with lakes and a long coastline.\n",
    ),
    ("Lighthouse.md", "# Lighthouse\n\nA lighthouse is a tower with a lamp that guides ships at night.\n"),
    ("Orchard.md", "# Orchard\n\nAn orchard is a planting of fruit trees kept for food production.\n"),
];

fn index() -> &'static IndexedCorpus {
    static INDEX: OnceLock<IndexedCorpus> = OnceLock::new();
    INDEX.get_or_init(|| common::index_files(&FILES, IndexSettings::default()))
}

/// The method's chunks for `question` as document titles, best first, and its trace.
fn ask(method: &str, question: &str) -> (Vec<String>, Trace) {
    let index = index();
    let vector = common::embedder().embed(&[question]).unwrap().remove(0);
    let method = Method::parse(method).unwrap();
    let (chunks, trace) = method.rank(index, Query::new(question, &vector), 20).trace(index, 10);
    let documents = rank_documents(index.corpus(), &chunks, 20)
        .into_iter()
        .map(|(source, _)| source.trim_end_matches(".md").to_string())
        .collect();
    (documents, trace)
}

fn kept_nodes(trace: &Trace) -> Vec<String> {
    trace.retrievers[0]
        .steps
        .iter()
        .filter_map(|step| match step {
            Step::Keep { nodes, .. } => Some(nodes.iter().map(|n| n.label.clone())),
            _ => None,
        })
        .flatten()
        .collect()
}

const TWO_HOP: &str = "Where was the director of Harbor Lights born?";

#[test]
fn node_set_join_follows_the_link_a_named_entity_has() {
    let (documents, trace) = ask("join", TWO_HOP);
    assert_eq!(
        documents[..2].iter().collect::<std::collections::BTreeSet<_>>(),
        ["Harbor Lights", "Mara Quill"].iter().map(|s| s.to_string()).collect::<Vec<_>>().iter().collect()
    );
    let Step::Seeds { note, nodes } = &trace.retrievers[0].steps[0] else { panic!("{trace:?}") };
    assert_eq!(note, "entities named in the query");
    assert_eq!(nodes.iter().map(|n| n.label.as_str()).collect::<Vec<_>>(), ["Harbor Lights"]);
}

#[test]
fn node_set_join_intersects_the_neighbours_of_several_anchors() {
    // Mara Quill's page names Tallinn; Tallinn's names Estonia: Tallinn is the one entity next to both.
    let (documents, trace) = ask("join", "Which city connects Mara Quill and Estonia?");
    let intersected = trace.retrievers[0].steps.iter().find_map(|step| match step {
        Step::Keep { note, nodes, .. } if note == "entities related to every named anchor" => Some(nodes),
        _ => None,
    });
    let intersected: Vec<&str> = intersected.expect("an intersection step").iter().map(|n| n.label.as_str()).collect();
    assert_eq!(intersected, ["Tallinn"]);
    // Its chunks are its page's and those citing it (Mara Quill's); nothing else is joined.
    let mut top: Vec<&str> = documents[..2].iter().map(String::as_str).collect();
    top.sort();
    assert_eq!(top, ["Mara Quill", "Tallinn"]);
    let (dense, _) = ask("dense", "Which city connects Mara Quill and Estonia?");
    assert!(dense[..2].iter().any(|d| d != "Tallinn" && d != "Mara Quill"), "the join is not needed: {dense:?}");
}

#[test]
fn path_grows_from_the_seed_along_its_links() {
    let (documents, trace) = ask("path", TWO_HOP);
    let kept = kept_nodes(&trace);
    assert!(kept.len() > 2 && kept.contains(&"Mara Quill".to_string()), "{}", trace.render());
    let expansions: Vec<(String, String, String)> = trace.retrievers[0]
        .steps
        .iter()
        .filter_map(|step| match step {
            Step::Expand { from, relation, to, .. } => Some((from.label.clone(), relation.clone(), to.label.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(expansions.len(), kept.len() - 1, "{}", trace.render());
    assert!(documents.contains(&"Mara Quill".to_string()), "{documents:?}\n{}", trace.render());
}

#[test]
fn page_section_and_entity_retrievers_map_nodes_to_their_chunks() {
    let (pages, _) = ask("page", "What is a lighthouse?");
    assert_eq!(pages[0], "Lighthouse");
    // Each page gives all its chunks: Estonia's two sections come together.
    let index = index();
    let vector = common::embedder().embed(&["forests lakes and coastline of Estonia"]).unwrap().remove(0);
    let query = Query::new("forests lakes and coastline of Estonia", &vector);
    let section = Retriever::Section.run(index, query, 10);
    assert_eq!(index.corpus().chunk_label(section.chunks[0].chunk), "Estonia › Geography › #1");
    // Entity: Tallinn is the nearest entity, so the chunks citing it (its own and Mara Quill's) lead.
    let vector = common::embedder().embed(&["Tallinn"]).unwrap().remove(0);
    let entity = Retriever::Entity.run(index, Query::new("Tallinn", &vector), 10);
    let citing: Vec<String> = entity.chunks.iter().map(|c| index.corpus().chunk_label(c.chunk)).collect();
    let mut leading = citing[..2].to_vec();
    leading.sort();
    assert_eq!(leading, ["Mara Quill › #1", "Tallinn › #1"], "{citing:?}");
    assert!(entity.chunks[1].score > entity.chunks[2].score, "{:?}", entity.chunks);
}

#[test]
fn triplets_and_hubs_search_verbalised_relations() {
    let (documents, trace) = ask("triplet", "Who directed Harbor Lights?");
    let Step::Seeds { nodes, .. } = &trace.retrievers[0].steps[0] else { panic!() };
    assert_eq!(nodes[0].label, "Harbor Lights directed by Mara Quill");
    assert_eq!(documents[0], "Harbor Lights");
    let (hubs, trace) = ask("hub", "Who directed Harbor Lights?");
    assert_eq!(hubs[0], "Harbor Lights", "{}", trace.render());
}

#[test]
fn hub_score_is_the_exponentially_weighted_mean() {
    // Worked by hand with α = 5: (0.5·e^2.5 + 0.3·e^1.5) / (e^2.5 + e^1.5) = 7.4358 / 16.6642.
    assert!((hub_score(&[0.5, 0.3]) - 0.446_212).abs() < 1e-5, "{}", hub_score(&[0.5, 0.3]));
    // One strong path outweighs three weak ones (their plain mean is 0.3): 0.858.
    assert!((hub_score(&[0.9, 0.1, 0.1, 0.1]) - 0.858_332).abs() < 1e-5);
    assert!((hub_score(&[0.7]) - 0.7).abs() < 1e-6, "one path scores itself");
    assert!((hub_score(&[0.3, 0.5]) - hub_score(&[0.5, 0.3])).abs() < 1e-6, "order does not matter");
    assert_eq!(hub_score(&[]), 0.0);
}

#[test]
fn one_hop_places_linked_documents_with_their_seed() {
    let index = index();
    let question = "Harbor Lights drama film";
    let vector = common::embedder().embed(&[question]).unwrap().remove(0);
    let chunks = Retriever::OneHop.run(index, Query::new(question, &vector), 20).chunks;
    let ranking = rank_documents(index.corpus(), &chunks, 20);
    let score_of = |name: &str| ranking.iter().find(|(id, _)| *id == name).map(|(_, s)| *s);
    // The film is RRF's first document; its director's page, one link away, shares its score.
    assert_eq!(score_of("Harbor Lights.md"), Some(ranking[0].1), "{ranking:?}");
    assert_eq!(score_of("Mara Quill.md"), Some(ranking[0].1), "{ranking:?}");
    assert!(score_of("Orchard.md") < Some(ranking[0].1), "{ranking:?}");
}

#[test]
fn fused_trace_shows_every_input_and_its_features() {
    let (_, trace) = ask("zsum-all", TWO_HOP);
    let seeds = Retriever::SEEDS.len();
    assert_eq!(trace.retrievers.len(), seeds);
    let fusion = trace.fusion.as_ref().unwrap();
    assert_eq!(fusion.inputs.len(), seeds);
    for row in &fusion.rows {
        assert_eq!(row.features.len(), seeds);
        assert!((row.features.iter().sum::<f32>() - row.score).abs() < 1e-4);
    }
    let json = serde_json::to_string(&trace).unwrap();
    assert_eq!(serde_json::from_str::<Trace>(&json).unwrap(), trace);
}

/// The teaching view's graph of a fused trace: the question first, each retriever's steps in its lane, the
/// path's expansion along the `directed_by` relation as a semantic edge, every result chunk held by a node of
/// its lane or picked from the question, the fusion fed by the lanes, and the final context last.
#[test]
fn a_trace_becomes_a_graph_drawn_stage_by_stage() {
    use quire::retrieve::trace::{EdgeRole, NodeKind, Stage};
    let question = "Where was the director of Harbor Lights born?";
    let (_, trace) = ask("rrf:dense+page+path", question);
    let graph = trace.graph(index().corpus());
    assert_eq!(graph.lanes, vec!["dense", "page", "path"]);
    assert_eq!(
        (graph.nodes[0].kind, graph.nodes[0].label.as_str(), graph.nodes[0].stage),
        (None, question, Stage::Query)
    );
    // Within each lane nodes come in stage order, and no edge appears before both its ends.
    for lane in [None, Some(0), Some(1), Some(2)] {
        let stages: Vec<Stage> = graph.nodes.iter().filter(|n| n.lane == lane).map(|n| n.stage).collect();
        assert!(stages.windows(2).all(|w| w[0] <= w[1]), "{lane:?}: {stages:?}");
    }
    for edge in &graph.edges {
        assert!(edge.stage >= graph.nodes[edge.from].stage && edge.stage >= graph.nodes[edge.to].stage, "{edge:?}");
    }
    let page_lane = graph.nodes.iter().filter(|n| n.lane == Some(1));
    let page_seeds: Vec<&str> =
        page_lane.clone().filter(|n| n.stage == Stage::Seeds).map(|n| n.label.as_str()).collect();
    assert_eq!(page_seeds.len(), 3, "{page_seeds:?}");
    // Each of the page retriever's chunks hangs off its page.
    for (index, chunk) in graph.nodes.iter().enumerate().filter(|(_, n)| n.lane == Some(1) && n.stage == Stage::Results)
    {
        let holder =
            graph.edges.iter().find(|e| e.to == index && e.kind == EdgeRole::Structural).expect("held by its page");
        assert!(chunk.label.starts_with(&format!("{} › ", graph.nodes[holder.from].label)), "{chunk:?}");
    }
    // The path retriever grows its seeds along relations: semantic edges, drawn red.
    let expansions: Vec<(&str, &str, EdgeRole)> = graph
        .edges
        .iter()
        .filter(|e| e.stage == Stage::Expansions)
        .map(|e| (graph.nodes[e.to].label.as_str(), e.label.as_str(), e.kind))
        .collect();
    assert!(expansions.iter().any(|&(_, _, kind)| kind == EdgeRole::Semantic), "{expansions:?}");
    let fusion = trace.fusion.as_ref().unwrap();
    let fused: Vec<usize> = (0..graph.nodes.len()).filter(|&i| graph.nodes[i].stage == Stage::Fusion).collect();
    assert_eq!(fused.len(), fusion.rows.len());
    for &node in &fused {
        let inputs = graph.edges.iter().filter(|e| e.to == node && e.kind == EdgeRole::Fused).count();
        let ranked =
            fusion.rows.iter().find(|r| r.chunk == graph.nodes[node].id).unwrap().ranks.iter().flatten().count();
        assert_eq!(inputs, ranked, "one edge per list that ranked {:?}", graph.nodes[node].label);
    }
    let context: Vec<&str> =
        graph.nodes.iter().filter(|n| n.stage == Stage::Context).map(|n| n.label.as_str()).collect();
    let results: Vec<&str> = trace.results.iter().map(|r| r.label.as_str()).collect();
    assert_eq!(context, results);
    assert!(graph.nodes.iter().filter(|n| n.stage == Stage::Context).all(|n| n.kind == Some(NodeKind::Chunk)));
}

/// Retrievers that share one question's searches (as a fused method's do) return exactly what each returns
/// alone, whichever ran first and however deep each was asked: the shared dense, BM25 and node searches are
/// told apart by depth and by node kind. Handed a second question, the same memo searches afresh.
#[test]
fn shared_searches_change_no_retriever_result() {
    let index = index();
    let shared = SharedSearches::default();
    for question in ["Where was the director of Harbor Lights born?", "forests lakes and coastline of Estonia"] {
        let vector = common::embedder().embed(&[question]).unwrap().remove(0);
        let order: Vec<Retriever> = Retriever::all().collect();
        for depth in [3, 20] {
            for &retriever in order.iter().chain(order.iter().rev()) {
                let alone = retriever.run(index, Query::new(question, &vector), depth);
                let sharing = retriever.run(index, Query::new(question, &vector).sharing(&shared), depth);
                assert_eq!(sharing, alone, "{} at depth {depth} for {question:?}", retriever.name());
            }
        }
    }
}

#[test]
fn the_default_shows_the_hybrid_s_first_documents_then_finds_the_join_s_pair() {
    let (hybrid, _) = ask("zsum:dense+bm25+community", TWO_HOP);
    let (default, trace) = ask("default", TWO_HOP);
    assert_eq!(default[..3], hybrid[..3], "a question about one place finds it where the hybrid puts it");
    for page in ["Harbor Lights", "Mara Quill"] {
        assert!(default[..5].contains(&page.to_string()), "{page} missing from {default:?}");
    }
    let inputs: Vec<&str> = trace.retrievers.iter().map(|r| r.retriever.as_str()).collect();
    assert_eq!(inputs, ["dense", "bm25", "community", "join"]);
    assert_eq!(trace.fusion.as_ref().map(|f| f.fusion.as_str()), Some("default"));
}

/// Without the model the default reads its lists less dense: the join still follows the film the question
/// names to its director, seeding from BM25 alone; a vector given is not read, and the engine by words
/// answers exactly so.
#[test]
fn the_default_without_the_model_follows_links_from_words_alone() {
    let (words, trace) = ask("words", TWO_HOP);
    for page in ["Harbor Lights", "Mara Quill"] {
        assert!(words[..3].contains(&page.to_string()), "{page} missing from {words:?}");
    }
    let inputs: Vec<&str> = trace.retrievers.iter().map(|r| r.retriever.as_str()).collect();
    assert_eq!(inputs, ["bm25", "community", "join"]);
    let Step::Seeds { note, nodes } = &trace.retrievers[2].steps[0] else { panic!("{trace:?}") };
    assert_eq!((note.as_str(), nodes[0].label.as_str()), ("entities named in the query", "Harbor Lights"));
    let searched = trace.retrievers[2]
        .steps
        .iter()
        .any(|step| matches!(step, Step::Seeds { note, .. } if note == "pages of the best BM25 matches"));
    assert!(searched, "the join's searched anchors come from BM25: {trace:?}");
    let Step::Seeds { note, .. } = &trace.retrievers[1].steps[0] else { panic!("{trace:?}") };
    assert_eq!(note, "communities nearest the query (BM25 over community summaries)");
    let index = index();
    assert!(dense(index, Query::new(TWO_HOP, &[]), 10).is_empty(), "no vector, no nearest chunks");
    let vector = common::embedder().embed(&[TWO_HOP]).unwrap().remove(0);
    for documents in [1, 3, 10] {
        let without =
            Method::Words.rank(index, Query::new(TWO_HOP, &[]), document_depth(documents)).grouped(index, documents);
        assert_eq!(
            Method::Words
                .rank(index, Query::new(TWO_HOP, &vector), document_depth(documents))
                .grouped(index, documents),
            without
        );
    }
}

#[test]
fn grouped_results_name_each_document_once_with_its_other_chunks_behind_it() {
    let index = index();
    let question = "What does Estonia's economy rely on, and what covers its land?";
    let vector = common::embedder().embed(&[question]).unwrap().remove(0);
    let method = Method::parse("default").unwrap();
    let chunks = method.rank(index, Query::new(question, &vector), 20).into_chunks();
    let estonia = |c: &quire::retrieve::ScoredChunk| index.chunk_view(c.chunk).source == "Estonia.md";
    assert_eq!(chunks.iter().filter(|c| estonia(c)).count(), 2, "both of Estonia's sections are among the chunks");
    let (hits, _) = method.rank(index, Query::new(question, &vector), document_depth(4)).grouped(index, 4);
    assert_eq!(hits.len(), 4);
    let sources: Vec<String> = hits.iter().map(|h| index.chunk_view(h.best.chunk).source).collect();
    assert_eq!(sources[0], "Estonia.md", "{sources:?}");
    assert_eq!(sources.iter().collect::<std::collections::HashSet<_>>().len(), 4, "{sources:?}");
    assert_eq!(hits[0].more.len(), 1, "Estonia's other section is behind its best");
    assert!(hits[0].more[0].score <= hits[0].best.score);
}

#[test]
fn the_join_s_survivors_bring_their_best_chunk_not_their_whole_page() {
    let index = index();
    let question = "Which industries make up the economy of Estonia?";
    let vector = common::embedder().embed(&[question]).unwrap().remove(0);
    let chunks = Method::parse("join").unwrap().rank(index, Query::new(question, &vector), 10).into_chunks();
    let labels: Vec<String> = chunks.iter().map(|c| index.chunk_view(c.chunk).label).collect();
    assert!(labels[0].starts_with("Estonia › Economy"), "{labels:?}");
    let documents: std::collections::HashSet<String> =
        chunks[..3].iter().map(|c| index.chunk_view(c.chunk).source).collect();
    assert_eq!(documents.len(), 3, "one chunk per survivor at the top: {labels:?}");
}

/// Distinct texts an index would embed if every chunk had its own vector.
fn distinct_texts(index: &quire::store::IndexedCorpus) -> usize {
    quire::store::node_texts(index.corpus()).iter().flatten().collect::<std::collections::HashSet<_>>().len()
}

#[test]
fn a_passage_forwarded_in_a_mail_is_one_result_also_in_the_mail() {
    let passage = "Spring tides happen when the Sun, the Moon and the Earth line up, at new and full moon, twice \
                   a month; the range between high and low water is then at its largest, and harbour pilots plan \
                   the deepest ships around them.";
    let guide = format!(
        "# Tides\n\n## Spring tides\n\n{passage}\n\n## Neap tides\n\nNeap tides come at the quarter moons, when the \
         Sun and the Moon pull at right angles and the range is smallest.\n"
    );
    let mail = format!("# Fwd: tides for Thursday\n\nHi all, see below.\n\n{passage}\n");
    let files = [
        ("guide/tides.md", guide.as_str()),
        ("mail/fwd-tides.md", mail.as_str()),
        ("notes/orchard.md", "# Orchard\n\nAn orchard is a planting of fruit trees kept for food production.\n"),
    ];
    let index = common::index_files(&files, IndexSettings::default());
    let question = "When is the range between high and low water largest?";
    let vector = common::embedder().embed(&[question]).unwrap().remove(0);
    let (hits, _) = Method::parse("default")
        .unwrap()
        .rank(&index, Query::new(question, &vector), document_depth(3))
        .grouped(&index, 3);
    let source = |document: u32| index.corpus().documents[document as usize].source.clone();
    let shown: Vec<String> = hits.iter().map(|h| index.chunk_view(h.best.chunk).source).collect();
    assert_eq!(hits.len(), 2, "the copy takes no place of its own: {shown:?}");
    let copies: Vec<String> = hits[0].also_in.iter().map(|&d| source(d)).collect();
    assert_eq!(shown[0], "guide/tides.md", "the result names the source, not the mail that quotes it");
    assert_eq!(copies, ["mail/fwd-tides.md"]);
    assert!(hits[1].also_in.is_empty());
    assert_eq!(index.summary().copied_chunks, 1);
    assert_eq!(index.embeddings().len() + 1, distinct_texts(&index), "the quoted passage is embedded once");
}

/// The teaching view's tour walks each retriever in turn, then the fusion and the final context; each step
/// brings its own nodes (every node exactly once) and says in words what it found, with the counts drawn.
#[test]
fn the_tour_walks_each_retriever_then_the_fusion_with_captions_that_count_what_is_drawn() {
    let (_, trace) = ask("default", TWO_HOP);
    let graph = trace.graph(index().corpus());
    let steps = tour::tour(&trace, &graph);
    let (nodes, edges) = tour::appearances(&steps, &graph);
    assert_eq!(steps[0].stage, Stage::Query);
    assert_eq!(steps[0].caption, format!("The question: “{TWO_HOP}”. 4 retrievers look for it, each in its own way."));
    assert_eq!([steps[steps.len() - 2].stage, steps[steps.len() - 1].stage], [Stage::Fusion, Stage::Context]);
    for (lane, name) in graph.lanes.iter().enumerate() {
        let results = steps.iter().position(|s| s.lane == Some(lane) && s.stage == Stage::Results);
        let results = results.unwrap_or_else(|| panic!("{name} has no results step"));
        let drawn = nodes.iter().filter(|&&step| step == results).count();
        let count = steps[results].caption.split_whitespace().find_map(|word| word.parse::<usize>().ok());
        assert_eq!(count.unwrap_or(0), drawn, "{name}: {}", steps[results].caption);
    }
    assert!(steps[steps.len() - 2].caption.starts_with("The default method makes one list of the 4 lists: "));
    assert!(steps.iter().any(|s| s.caption.starts_with("BM25 finds these ")), "{steps:#?}");
    let join = graph.lanes.iter().position(|lane| lane == "join").unwrap();
    let seeds = steps.iter().find(|s| s.lane == Some(join) && s.stage == Stage::Seeds).unwrap();
    assert!(seeds.caption.starts_with("The node-set join starts from "), "{}", seeds.caption);
    // Nothing shows before its step, and no edge before both its ends.
    for (node, &step) in graph.nodes.iter().zip(&nodes) {
        assert!(steps[step].brings(node), "{node:?} shows at {}", steps[step].title);
    }
    for (edge, &step) in graph.edges.iter().zip(&edges) {
        assert!(step >= nodes[edge.from] && step >= nodes[edge.to], "an edge shows before its ends");
    }
}
