//! Seed 000's graph traverser (§3.2.1, Listing 3.2): the LLM is shown the outlines of the pages the
//! question's best results come from, and the path retriever's subgraph as `A#relation:B` triples, and names
//! the section, page or path that holds the answer ("ND" when none does). A section gives its chunks (with its
//! subsections'), a
//! page its lead (or all its chunks when it has no lead), a path the chunks the path retriever's tiers give
//! its nodes. These chunks score 1 and come first, ordered by their cosine with the question; the base
//! method's list fills the rest.

use super::exchange::{Question, system_and_user};
use crate::chat::Message;
use crate::corpus::{ChunkId, DocId, EntityId, SectionId};
use crate::retrieve::trace::NodeKind;
use crate::retrieve::{FUSION_DEPTH, ScoredChunk, Step, TraceNode, fill_below, path, rank_chunks, tier_chunks};
use crate::store::IndexedCorpus;

/// Pages whose outlines the LLM sees (seed 000: the top 3).
const PAGES: usize = 3;
/// Sections listed per page at most, so that one long document cannot crowd out the others.
const SECTIONS_PER_PAGE: usize = 40;

/// Seed 000's system prompt (Listing 3.2), for documents of any kind and with the graph's paths.
const INSTRUCTIONS: &str = "You are going to be provided with a context consisting of multiple documents, \
    along with all of their chapters and subchapters, and paths of a knowledge graph written as \
    Node#relation:Node. If existent, return the identifier of the page, chapter or subchapter in which the \
    answer to the user's question can be found, exactly as it is listed. If the question is about something \
    generic of the topic of a page, return the title of the page. If a path of the knowledge graph answers the \
    question, return that path exactly as it is listed. If the question is specific and none of the pages' \
    chapters and subchapters fits it precisely, return 'ND'. If the answer could be found in multiple pages, \
    subchapters or paths, or you are undecided between multiple options, respond with a list of ALL the \
    identifiers, separated via a semicolon. In any case, return the answer without providing any comments.";

#[derive(Clone, Debug)]
enum Choice {
    Page(DocId),
    Section(SectionId),
    Path(Vec<EntityId>),
}

pub struct Traverser {
    /// Every identifier the LLM was shown, with what it stands for.
    options: Vec<(String, Choice)>,
    /// The base method's list, to fill below what the LLM chose.
    base: Vec<ScoredChunk>,
}

impl Traverser {
    pub fn start(index: &IndexedCorpus, question: &Question, steps: &mut Vec<Step>) -> (Self, Vec<Message>) {
        let corpus = &index.corpus();
        let base = question.base.rank(index, question.query(), FUSION_DEPTH).into_chunks();
        let mut pages: Vec<DocId> = Vec::new();
        for hit in &base {
            let page = corpus.chunks[hit.chunk as usize].document;
            if !pages.contains(&page) && pages.len() < PAGES {
                pages.push(page);
            }
        }
        let mut options = Vec::new();
        for &page in &pages {
            options.push((corpus.entities[page as usize].name.clone(), Choice::Page(page)));
            let sections =
                (0..corpus.sections.len() as SectionId).filter(|&s| corpus.sections[s as usize].document == page);
            for section in sections.take(SECTIONS_PER_PAGE) {
                let mut path = vec![corpus.entities[page as usize].name.as_str()];
                path.extend(corpus.section_path(section));
                options.push((path.join(" › "), Choice::Section(section)));
            }
        }
        steps.push(Step::seeds(
            "pages of the best results: their outlines go to the LLM",
            pages.iter().map(|&p| TraceNode::entity(corpus, p, 0.0)).collect(),
        ));
        let outline_lines: Vec<String> = options.iter().map(|(id, _)| format!("- {id}")).collect();
        let mut triples = Vec::new();
        for step in path(index, question.query(), question.k).steps {
            if let Step::Expand { from, relation, to, .. } = &step {
                let triple = format!("{}#{relation}:{}", from.label, to.label);
                triples.push(format!("- {triple}"));
                options.push((triple, Choice::Path(vec![from.id, to.id])));
                steps.push(step);
            }
        }
        let mut user =
            format!("Question: {}\n\nPages and their chapters:\n{}", question.text, outline_lines.join("\n"));
        if !triples.is_empty() {
            user.push_str(&format!("\n\nKnowledge graph paths:\n{}", triples.join("\n")));
        }
        (Traverser { options, base }, system_and_user(INSTRUCTIONS, user))
    }

    pub fn resume(
        &self,
        index: &IndexedCorpus,
        question: &Question,
        reply: &str,
        steps: &mut Vec<Step>,
    ) -> Vec<ScoredChunk> {
        let corpus = &index.corpus();
        steps.push(Step::Llm {
            asked: "which section, page or graph path answers the question (seed 000, Listing 3.2)".into(),
            answered: reply.to_string(),
        });
        let chosen = self.chosen(reply);
        let mut path_nodes: Vec<EntityId> = Vec::new();
        let mut chunks: Vec<ChunkId> = Vec::new();
        let mut nodes = Vec::new();
        for choice in &chosen {
            match choice {
                Choice::Page(page) => {
                    nodes.push(TraceNode::entity(corpus, *page, 1.0));
                    let all: Vec<ChunkId> = corpus.document_chunks(*page).collect();
                    let lead: Vec<ChunkId> =
                        all.iter().copied().filter(|&c| corpus.chunks[c as usize].section.is_none()).collect();
                    chunks.extend(if lead.is_empty() { all } else { lead });
                }
                Choice::Section(section) => {
                    nodes.push(TraceNode::new(corpus, NodeKind::Section, *section, 1.0));
                    // A chapter whose text sits in its subchapters gives theirs.
                    let within = |chunk: ChunkId| {
                        std::iter::successors(corpus.chunks[chunk as usize].section, |&s| {
                            corpus.sections[s as usize].parent
                        })
                        .any(|s| s == *section)
                    };
                    chunks.extend(
                        corpus.document_chunks(corpus.sections[*section as usize].document).filter(|&c| within(c)),
                    );
                }
                Choice::Path(entities) => {
                    for &entity in entities {
                        if !path_nodes.contains(&entity) {
                            path_nodes.push(entity);
                            nodes.push(TraceNode::entity(corpus, entity, 1.0));
                        }
                    }
                }
            }
        }
        if !path_nodes.is_empty() {
            chunks.extend(tier_chunks(index, &path_nodes));
        }
        let note = if chosen.is_empty() {
            "the LLM chose nothing listed (ND): the base method's list stands"
        } else {
            "what the LLM chose: its chunks come first"
        };
        steps.push(Step::keep(note, nodes, 1.0));
        let ranked = rank_chunks(index, &question.vector, chunks.into_iter().map(|c| (c, 1.0)), FUSION_DEPTH);
        fill_below(ranked, self.base.clone(), question.k)
    }

    /// The options a reply names: identifiers separated by semicolons or lines, compared without case, list
    /// marks, quotes or a final full stop.
    fn chosen(&self, reply: &str) -> Vec<Choice> {
        let normalise = |s: &str| {
            s.trim()
                .trim_start_matches(['-', '*', '•'])
                .trim()
                .trim_matches(['"', '\'', '`'])
                .trim_end_matches('.')
                .trim()
                .to_lowercase()
        };
        let mut chosen = Vec::new();
        for wanted in reply.split([';', '\n']).map(normalise).filter(|s| !s.is_empty() && s != "nd") {
            if let Some((_, choice)) = self.options.iter().find(|(id, _)| normalise(id) == wanted) {
                chosen.push(choice.clone());
            }
        }
        chosen
    }
}
