//! Seed 002's query parsing by an LLM: it names the entities and relations in the question; each named
//! entity is found in the gazetteer, or else is the entity whose embedding is nearest the name's (the seed's
//! candidate entities by vector search). The node-set join then starts from these entities instead of the
//! gazetteer's matches in the question text, and the base method runs with that join.

use super::exchange::{Embed, Question, json_object, strings, system_and_user};
use crate::chat::Message;
use crate::corpus::EntityId;
use crate::embed::EmbedError;
use crate::retrieve::{FUSION_DEPTH, Query, Retrieval, Step, TraceNode, join_with_anchors, nearest};
use crate::store::IndexedCorpus;

/// Names looked up at most (the join starts from five anchors at most).
const MAX_NAMES: usize = 5;

const INSTRUCTIONS: &str = "Extract from the user's question the entities it names (people, places, \
    organisations, works, events, things with a proper name) and the relations between them that it asks \
    about. Reply with a JSON object only, in the form {\"entities\": [\"...\"], \"relations\": [\"...\"]}, \
    with names written as in the question.";

pub fn messages(question: &str) -> Vec<Message> {
    system_and_user(INSTRUCTIONS, format!("Question: {question}"))
}

pub fn resume(
    index: &IndexedCorpus,
    question: &Question,
    reply: &str,
    embed: Embed<'_>,
    steps: &mut Vec<Step>,
) -> Result<Retrieval, EmbedError> {
    let corpus = &index.corpus();
    steps.push(Step::Llm {
        asked: "the entities and relations the question names (seed 002's query parsing)".into(),
        answered: reply.to_string(),
    });
    let parsed = json_object(reply);
    let names = parsed.as_ref().map(|v| strings(&v["entities"])).unwrap_or_default();
    let relations = parsed.as_ref().map(|v| strings(&v["relations"])).unwrap_or_default();
    let mut anchors: Vec<EntityId> = Vec::new();
    for name in names.iter().take(MAX_NAMES) {
        let found = match index.gazetteer().find(name).first() {
            Some(&entity) => Some(entity),
            None => {
                let vector = embed(name)?;
                nearest(index, &index.rows().entities, Query::new(name, &vector), 1).first().map(|hit| hit.id)
            }
        };
        if let Some(entity) = found.filter(|e| !anchors.contains(e)) {
            anchors.push(entity);
        }
    }
    let note = match (anchors.is_empty(), relations.is_empty()) {
        (true, _) => {
            // Nothing usable came back: the join starts as it would without the LLM.
            anchors = index.gazetteer().find(&question.text);
            "the LLM named no entity the graph has: the join starts from the gazetteer's matches in the question"
                .to_string()
        }
        (false, true) => "entities the LLM named, found in the graph".to_string(),
        (false, false) => {
            format!("entities the LLM named, found in the graph (relations asked about: {})", relations.join(", "))
        }
    };
    steps.push(Step::seeds(note, anchors.iter().map(|&e| TraceNode::entity(corpus, e, 1.0)).collect()));
    Ok(join_with_anchors(index, question.query(), anchors, FUSION_DEPTH))
}
