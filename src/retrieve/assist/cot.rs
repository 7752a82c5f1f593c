//! Seed 004's CoT retrieval (§5.3): iterative search with a scratchpad. Each step searches with the base
//! method for 20 candidates and shows the LLM the 5 best it has not seen yet; the LLM updates the
//! scratchpad (facts taken only from the passages) and writes the next query, aimed at what is still
//! missing and naming the entities the passages revealed (the seed's "entity bridging"). At most three
//! searches; the LLM may stop from the second on, and a query that repeats one of the last two (token
//! Jaccard ≥ 0.85) stops the search too. The final list fuses every step's candidates by reciprocal rank.

use std::collections::HashSet;

use serde_json::Value;

use super::exchange::{Embed, Question, json_object, strings, system_and_user};
use crate::chat::Message;
use crate::corpus::ChunkId;
use crate::embed::EmbedError;
use crate::retrieve::trace::NodeKind;
use crate::retrieve::{Query, ScoredChunk, Step, TraceNode, reciprocal_rank_fusion};
use crate::store::IndexedCorpus;

/// Searches at most.
pub const MAX_STEPS: usize = 3;
/// Searches before the LLM may stop.
pub const MIN_STEPS: usize = 2;
/// Candidates per search.
pub const CANDIDATES: usize = 20;
/// New passages shown to the LLM per step.
pub const STEP_CONTEXT: usize = 5;
/// A new query this similar to one of the last two repeats it.
pub const REPEAT_JACCARD: f32 = 0.85;

const INSTRUCTIONS: &str = "You guide a search through the user's documents to answer a question. You get the \
    question, your scratchpad of facts found so far, the searches made, and new passages from the last \
    search. Update the scratchpad with facts taken only from the passages, as short bullet points. Then \
    decide whether the scratchpad answers the question. If it does not, write the next search query for \
    what is still missing: specific, different from the searches made, and using the names of people, \
    places and things that appear in the passages. Reply with a JSON object only: {\"scratchpad\": [\"...\"], \
    \"done\": true or false, \"next_query\": \"...\"}.";

pub enum Next {
    Ask(Vec<Message>),
    Done(Vec<ScoredChunk>),
}

pub struct Cot {
    queries: Vec<String>,
    lists: Vec<Vec<ScoredChunk>>,
    shown: HashSet<ChunkId>,
    scratchpad: Vec<String>,
}

impl Cot {
    pub fn start(index: &IndexedCorpus, question: &Question, steps: &mut Vec<Step>) -> (Self, Vec<Message>) {
        let mut cot = Cot { queries: Vec::new(), lists: Vec::new(), shown: HashSet::new(), scratchpad: Vec::new() };
        let fresh = cot.search(index, question, question.text.clone(), &question.vector, steps);
        let messages = cot.messages(index, question, &fresh);
        (cot, messages)
    }

    /// Searches for `query`: the best candidates not shown to the LLM before.
    fn search(
        &mut self,
        index: &IndexedCorpus,
        question: &Question,
        query: String,
        vector: &[f32],
        steps: &mut Vec<Step>,
    ) -> Vec<ScoredChunk> {
        let found = question.base.rank(index, Query::new(&query, vector), CANDIDATES).into_chunks();
        let fresh: Vec<ScoredChunk> =
            found.iter().filter(|hit| !self.shown.contains(&hit.chunk)).take(STEP_CONTEXT).copied().collect();
        self.shown.extend(fresh.iter().map(|hit| hit.chunk));
        let corpus = &index.corpus();
        steps.push(Step::seeds(
            format!("search {}: {query} ({} best new passages)", self.queries.len() + 1, fresh.len()),
            fresh.iter().map(|hit| TraceNode::new(corpus, NodeKind::Chunk, hit.chunk, hit.score)).collect(),
        ));
        self.queries.push(query);
        self.lists.push(found);
        fresh
    }

    /// What the LLM is shown after a search: the question, the scratchpad, the searches, the new passages.
    fn messages(&self, index: &IndexedCorpus, question: &Question, fresh: &[ScoredChunk]) -> Vec<Message> {
        let passages: Vec<String> = fresh
            .iter()
            .map(|hit| {
                let view = index.chunk_view(hit.chunk);
                format!("[{}]\n{}", view.label, view.text)
            })
            .collect();
        let searches: Vec<String> = self.queries.iter().enumerate().map(|(i, q)| format!("{}. {q}", i + 1)).collect();
        let scratchpad = if self.scratchpad.is_empty() {
            "(empty)".to_string()
        } else {
            format!("- {}", self.scratchpad.join("\n- "))
        };
        let user = format!(
            "Question: {}\n\nScratchpad:\n{scratchpad}\n\nSearches made:\n{}\n\nNew passages:\n\n{}",
            question.text,
            searches.join("\n"),
            if passages.is_empty() { "(none)".to_string() } else { passages.join("\n\n") }
        );
        system_and_user(INSTRUCTIONS, user)
    }

    pub fn resume(
        &mut self,
        index: &IndexedCorpus,
        question: &Question,
        reply: &str,
        embed: Embed<'_>,
        steps: &mut Vec<Step>,
    ) -> Result<Next, EmbedError> {
        let step = self.queries.len();
        steps.push(Step::Llm {
            asked: format!("step {step}: update the scratchpad, and the next query if the question is still open"),
            answered: reply.to_string(),
        });
        let parsed = json_object(reply).unwrap_or(Value::Null);
        let notes = strings(&parsed["scratchpad"]);
        if !notes.is_empty() {
            self.scratchpad = notes;
        }
        let done = parsed["done"].as_bool().unwrap_or(false);
        let written = parsed["next_query"].as_str().map(str::trim).filter(|q| !q.is_empty()).map(str::to_string);
        // Before the second search the LLM may not stop: without a query of its own, the question goes on
        // with what the scratchpad holds.
        let next = match written {
            None if step < MIN_STEPS => {
                Some(format!("{} {}", question.text, self.scratchpad.join(" ")).trim().to_string())
            }
            other => other,
        };
        let stop = match &next {
            _ if done && step >= MIN_STEPS => {
                Some("stopped: the LLM found the scratchpad answers the question".to_string())
            }
            None => Some("stopped: the LLM wrote no next query".to_string()),
            Some(query) => self.repeats(query).map(|earlier| format!("stopped: `{query}` repeats `{earlier}`")),
        };
        if let (None, Some(query)) = (&stop, next) {
            let vector = embed(&query)?;
            let fresh = self.search(index, question, query, &vector, steps);
            if self.queries.len() < MAX_STEPS {
                return Ok(Next::Ask(self.messages(index, question, &fresh)));
            }
            return Ok(Next::Done(self.finish(index, question, format!("stopped after {MAX_STEPS} searches"), steps)));
        }
        Ok(Next::Done(self.finish(index, question, stop.unwrap_or_default(), steps)))
    }

    /// Every search's candidates fused by reciprocal rank.
    fn finish(
        &self,
        index: &IndexedCorpus,
        question: &Question,
        why: String,
        steps: &mut Vec<Step>,
    ) -> Vec<ScoredChunk> {
        let lists: Vec<&[ScoredChunk]> = self.lists.iter().map(Vec::as_slice).collect();
        let fused: Vec<ScoredChunk> =
            reciprocal_rank_fusion(&lists, question.k).iter().map(ScoredChunk::from).collect();
        let corpus = &index.corpus();
        steps.push(Step::keep(
            format!("{why}; every search's candidates fused by reciprocal rank"),
            fused.iter().map(|hit| TraceNode::new(corpus, NodeKind::Chunk, hit.chunk, hit.score)).collect(),
            0.0,
        ));
        fused
    }

    /// The query among the last two that `query` repeats.
    fn repeats(&self, query: &str) -> Option<&str> {
        self.queries.iter().rev().take(2).find(|earlier| jaccard(query, earlier) >= REPEAT_JACCARD).map(String::as_str)
    }
}

fn tokens(text: &str) -> HashSet<String> {
    text.split(|c: char| !c.is_alphanumeric()).filter(|t| !t.is_empty()).map(str::to_lowercase).collect()
}

/// Token Jaccard similarity of two queries.
pub fn jaccard(a: &str, b: &str) -> f32 {
    let (a, b) = (tokens(a), tokens(b));
    let union = a.union(&b).count();
    if union == 0 { 1.0 } else { a.intersection(&b).count() as f32 / union as f32 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jaccard_compares_word_sets() {
        assert_eq!(jaccard("Who directed Alien?", "who DIRECTED alien"), 1.0);
        assert!((jaccard("apollo 11 crew", "apollo 11 launch date") - 0.4).abs() < 1e-6);
        assert!(jaccard("first man on the moon", "first man on the moon landing") < REPEAT_JACCARD);
    }
}
