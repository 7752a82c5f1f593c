//! Seed 002's query parsing by an LLM: it names the entities and relations in the question; each named
//! entity is found in the gazetteer, or else is the entity whose embedding is nearest the name's (the seed's
//! candidate entities by vector search). The node-set join then starts from these entities instead of the
//! gazetteer's matches in the question text, and the base method runs with that join.

use super::{Embed, Question, json_object, strings, system_and_user};
use crate::corpus::EntityId;
use crate::generate::prompt::Message;
use crate::retrieve::{FUSION_DEPTH, Retrieval, Step, TraceNode, join_with_anchors, nearest};
use crate::store::IndexedCorpus;

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
) -> Result<Retrieval, String> {
    let corpus = &index.corpus;
    steps.push(Step::Llm {
        asked: "the entities and relations the question names (seed 002's query parsing)".into(),
        answered: reply.to_string(),
    });
    let parsed = json_object(reply);
    let names = parsed.as_ref().map(|v| strings(&v["entities"])).unwrap_or_default();
    let relations = parsed.as_ref().map(|v| strings(&v["relations"])).unwrap_or_default();
    let mut anchors: Vec<EntityId> = Vec::new();
    for name in &names {
        let found = match index.gazetteer.find(name).first() {
            Some(&entity) => Some(entity),
            None => {
                let vector = embed(name)?;
                nearest(index, &index.rows.entities, &vector, 1).first().map(|hit| hit.row)
            }
        };
        if let Some(entity) = found.filter(|e| !anchors.contains(e)) {
            anchors.push(entity);
        }
    }
    let note = match (parsed.is_some(), relations.is_empty()) {
        (false, _) => "the reply held no JSON object: the join starts from the hybrid matches alone".to_string(),
        (true, true) => "entities the LLM named, found in the graph".to_string(),
        (true, false) => {
            format!("entities the LLM named, found in the graph (relations asked about: {})", relations.join(", "))
        }
    };
    steps.push(Step::seeds(note, anchors.iter().map(|&e| TraceNode::entity(corpus, e, 1.0)).collect()));
    Ok(join_with_anchors(index, question.query(), anchors, FUSION_DEPTH))
}
