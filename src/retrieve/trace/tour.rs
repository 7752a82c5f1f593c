//! The teaching view's tour of a trace graph: the steps it walks, one retriever at a time (where it
//! started, what it followed and kept, what it ranked), then the fusion and the final context, each with a
//! caption in plain words. A step brings few nodes, so the view can frame them at a size a projector reads
//! instead of shrinking the whole drawing to fit.

use std::collections::BTreeSet;

use super::{GraphNode, NodeKind, Stage, Step, Trace, TraceGraph};

/// One step of the tour: the nodes of one stage of one lane (or of the question, the fusion, the final
/// context), and what happened there.
#[derive(Clone, Debug, PartialEq)]
pub struct TourStep {
    pub stage: Stage,
    pub lane: Option<usize>,
    /// A few words naming the step ("join: seeds").
    pub title: String,
    /// What happened, in plain words ("BM25 finds these 6 chunks by their words.").
    pub caption: String,
}

impl TourStep {
    /// Whether `node` appears at this step.
    pub fn brings(&self, node: &GraphNode) -> bool {
        node.stage == self.stage && node.lane == self.lane
    }
}

/// The steps of `graph` (drawn from `trace`): the question; each retriever's seeds, expansions and results,
/// the stages where it has nodes (its results always, found or not); the fusion; the final context.
pub fn tour(trace: &Trace, graph: &TraceGraph) -> Vec<TourStep> {
    let mut steps = vec![TourStep {
        stage: Stage::Query,
        lane: None,
        title: Stage::Query.name().to_string(),
        caption: question_caption(trace, graph),
    }];
    for (lane, name) in graph.lanes.iter().enumerate() {
        let nodes = |stage: Stage| graph.nodes.iter().filter(move |n| n.stage == stage && n.lane == Some(lane));
        for stage in [Stage::Seeds, Stage::Expansions, Stage::Results] {
            let brought: Vec<&GraphNode> = nodes(stage).collect();
            if brought.is_empty() && stage != Stage::Results {
                continue;
            }
            let caption = match stage {
                Stage::Seeds => seeds_caption(name, &brought, seed_note(trace, lane)),
                Stage::Expansions => expansions_caption(name, graph, lane, &brought),
                _ => results_caption(name, brought.len()),
            };
            let title = format!("{name}: {}", lane_stage_name(stage));
            steps.push(TourStep { stage, lane: Some(lane), title, caption });
        }
    }
    let shared = |stage: Stage| graph.nodes.iter().filter(|n| n.stage == stage && n.lane.is_none()).count();
    if shared(Stage::Fusion) > 0 {
        let fusion = trace.fusion.as_ref().map_or("fusion", |f| f.fusion.as_str());
        let caption = format!(
            "{} makes one list of the {} lists: {}, each placed by where the lists ranked it.",
            fusion_name(fusion),
            graph.lanes.len(),
            counted(shared(Stage::Fusion), "chunk", "chunks"),
        );
        steps.push(TourStep { stage: Stage::Fusion, lane: None, title: Stage::Fusion.name().to_string(), caption });
    }
    let context = shared(Stage::Context);
    let caption = format!(
        "The final context: the {} shown as results, and what an LLM's answer reads.",
        counted(context, "best chunk", "best chunks")
    );
    steps.push(TourStep { stage: Stage::Context, lane: None, title: Stage::Context.name().to_string(), caption });
    steps
}

/// The step at which each node of `graph` appears, and each edge (once both its ends have).
pub fn appearances(steps: &[TourStep], graph: &TraceGraph) -> (Vec<usize>, Vec<usize>) {
    let last = steps.len().saturating_sub(1);
    let nodes: Vec<usize> =
        graph.nodes.iter().map(|node| steps.iter().position(|step| step.brings(node)).unwrap_or(last)).collect();
    let edges = graph.edges.iter().map(|edge| nodes[edge.from].max(nodes[edge.to])).collect();
    (nodes, edges)
}

fn lane_stage_name(stage: Stage) -> &'static str {
    match stage {
        Stage::Seeds => "where it starts",
        Stage::Expansions => "what it follows and keeps",
        _ => "what it ranks",
    }
}

/// A retriever as a sentence names it.
fn who(retriever: &str) -> String {
    match retriever {
        "dense" => "Dense search".to_string(),
        "bm25" => "BM25".to_string(),
        "join" => "The node-set join".to_string(),
        "onehop" => "The one-hop baseline".to_string(),
        name if name.starts_with("LLM") => name.to_string(),
        name => format!("The {name} retriever"),
    }
}

fn fusion_name(fusion: &str) -> String {
    match fusion {
        "default" | "words" => format!("The {fusion} method"),
        "rrf" => "Reciprocal-rank fusion".to_string(),
        "zsum" => "The standardised sum".to_string(),
        "learned" => "Learned fusion".to_string(),
        other => format!("Fusion ({other})"),
    }
}

fn counted(count: usize, one: &str, many: &str) -> String {
    format!("{count} {}", if count == 1 { one } else { many })
}

fn question_caption(trace: &Trace, graph: &TraceGraph) -> String {
    let searchers = match graph.lanes.as_slice() {
        [one] => format!("{} looks for it.", who(one)),
        lanes => format!("{} retrievers look for it, each in its own way.", lanes.len()),
    };
    format!("The question: “{}”. {searchers}", trace.query)
}

/// Why the retriever in `lane` chose its seeds, as its trace says it.
fn seed_note(trace: &Trace, lane: usize) -> Option<&str> {
    trace.retrievers.get(lane)?.steps.iter().find_map(|step| match step {
        Step::Seeds { note, .. } => Some(note.as_str()),
        _ => None,
    })
}

/// "pages", "entities"… where every node is of one kind; "nodes" otherwise.
fn kinds(nodes: &[&GraphNode]) -> (&'static str, &'static str) {
    let mut kinds: Vec<Option<NodeKind>> = nodes.iter().map(|n| n.kind).collect();
    kinds.dedup();
    match kinds.as_slice() {
        [Some(NodeKind::Chunk)] => ("chunk", "chunks"),
        [Some(NodeKind::Section)] => ("section", "sections"),
        [Some(NodeKind::Page)] => ("page", "pages"),
        [Some(NodeKind::Entity)] => ("entity", "entities"),
        [Some(NodeKind::Relation)] => ("statement", "statements"),
        [Some(NodeKind::Community)] => ("community", "communities"),
        _ => ("node", "nodes"),
    }
}

fn seeds_caption(retriever: &str, nodes: &[&GraphNode], note: Option<&str>) -> String {
    let (one, many) = kinds(nodes);
    let why = note.map(|note| format!(": {note}")).unwrap_or_default();
    format!("{} starts from {}{why}.", who(retriever), counted(nodes.len(), one, many))
}

fn expansions_caption(retriever: &str, graph: &TraceGraph, lane: usize, nodes: &[&GraphNode]) -> String {
    let in_lane = |node: usize| graph.nodes[node].lane == Some(lane);
    let links: Vec<&str> = graph
        .edges
        .iter()
        .filter(|e| e.stage == Stage::Expansions && in_lane(e.from) && in_lane(e.to))
        .map(|e| e.label.as_str())
        .collect();
    let (one, many) = kinds(nodes);
    if links.is_empty() {
        return format!("{} keeps {}.", who(retriever), counted(nodes.len(), one, many));
    }
    let relations: BTreeSet<&str> = links.iter().copied().collect();
    let relations: Vec<&str> = relations.into_iter().take(3).collect();
    format!(
        "{} follows {} ({}) and reaches {}.",
        who(retriever),
        counted(links.len(), "link", "links"),
        relations.join(", "),
        counted(nodes.len(), one, many)
    )
}

fn results_caption(retriever: &str, found: usize) -> String {
    let chunks = counted(found, "chunk", "chunks");
    match (retriever, found) {
        (_, 0) => format!("{} finds nothing for this question.", who(retriever)),
        ("dense", _) => {
            format!("Dense search finds these {chunks} by meaning: their embeddings lie nearest the question's.")
        }
        ("bm25", _) => format!("BM25 finds these {chunks} by their words."),
        _ => format!("{} ranks these {chunks}.", who(retriever)),
    }
}
