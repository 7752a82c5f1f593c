//! LLM-assisted retrieval: retrieval steps that ask the user's LLM something between searches. Each is
//! optional (off unless asked for) and marked in the trace: its own lane, named `LLM: …`, holds what the
//! LLM was asked and what it answered.
//!
//! - [`Assist::Traverser`]: seed 000's graph traverser (Listing 3.2). The LLM sees the outlines of the top
//!   pages and the path retriever's subgraph as `A#relation:B` triples, and names the section, page or path
//!   that answers; their chunks come first.
//! - [`Assist::Parsing`]: seed 002's query parsing. The LLM names the question's entities and relations; the
//!   node-set join starts from those entities instead of the gazetteer's matches.
//! - [`Assist::Cot`]: seed 004's CoT retrieval (§5.3) with a scratchpad: at most three searches, the
//!   second and third from queries the LLM writes, stopping early when a new query repeats one of the last
//!   two (token Jaccard ≥ 0.85); the final context is the steps' lists fused.
//!
//! Platform-neutral and transport-free: an [`AssistedRetrieval`] is a state machine that says what to ask
//! ([`Turn::Ask`]) and takes the LLM's reply, so the browser (fetch) and the CLI (an HTTP client) drive the
//! same steps.

mod cot;
mod exchange;
mod parsing;
mod traverser;

use serde::{Deserialize, Serialize};

use crate::chat::Message;
use crate::embed::EmbedError;
use crate::error::UnknownName;
use crate::retrieve::{Method, Retrieval, Retriever, RetrieverTrace, ScoredChunk, Step, Trace, TracedChunk};
use crate::store::IndexedCorpus;

pub use exchange::Embed;
use exchange::Question;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Assist {
    Traverser,
    Parsing,
    Cot,
}

impl Assist {
    pub const ALL: [Assist; 3] = [Assist::Traverser, Assist::Parsing, Assist::Cot];

    /// Whether it searches entity vectors (query parsing finds a name the gazetteer lacks by its vector), so
    /// that an index of chunk vectors must gain node vectors first (`store::Vectors`).
    pub fn reads_node_vectors(self) -> bool {
        self == Assist::Parsing
    }

    pub fn name(self) -> &'static str {
        match self {
            Assist::Traverser => "traverser",
            Assist::Parsing => "parsing",
            Assist::Cot => "cot",
        }
    }

    pub fn description(self) -> &'static str {
        match self {
            Assist::Traverser => "the LLM picks a section, page or graph path from the top pages' outlines (seed 000)",
            Assist::Parsing => "the LLM names the question's entities, and the join starts from them (seed 002)",
            Assist::Cot => "up to three searches, the LLM writing the next query from a scratchpad (seed 004)",
        }
    }

    pub fn parse(name: &str) -> Result<Self, UnknownName> {
        Self::ALL.into_iter().find(|a| a.name() == name.trim().to_ascii_lowercase()).ok_or_else(|| {
            let names: Vec<&str> = Self::ALL.iter().map(|a| a.name()).collect();
            let known = format!("one of: {}", names.join(", "));
            UnknownName { kind: "LLM-assisted retrieval", name: name.to_string(), known }
        })
    }
}

/// What an assisted retrieval wants next.
#[derive(Clone, Debug, PartialEq)]
pub enum Turn {
    /// Send these messages to the LLM and [`AssistedRetrieval::resume`] with its whole reply.
    Ask(Vec<Message>),
    /// The chunks, best first, and the trace of everything done.
    Done(Vec<ScoredChunk>, Trace),
}

/// Why an assisted retrieval cannot start or go on.
#[derive(Debug, thiserror::Error)]
pub enum AssistError {
    /// Query parsing asked of a method (named) without the join, which its entities feed.
    #[error(
        "LLM query parsing gives the join retriever its entities, and `{0}` does not use the join: choose \
         retrievers with a fusion that can take it"
    )]
    NeedsTheJoin(String),
    /// A query the LLM wrote could not be embedded.
    #[error(transparent)]
    Embed(#[from] EmbedError),
}

enum State {
    Traverser(traverser::Traverser),
    Parsing,
    Cot(cot::Cot),
}

pub struct AssistedRetrieval {
    assist: Assist,
    question: Question,
    state: State,
    /// The assisted lane's steps so far.
    steps: Vec<Step>,
}

impl AssistedRetrieval {
    /// Starts `assist` for `question` (embedded as `vector`), searching with `base`, for `k` chunks. Query
    /// parsing feeds the join, so it needs a method that can take the join's list.
    pub fn start(
        assist: Assist,
        base: Method,
        index: &IndexedCorpus,
        question: &str,
        vector: Vec<f32>,
        k: usize,
    ) -> Result<(Self, Turn), AssistError> {
        if assist == Assist::Parsing && !base.can_take(Retriever::Join) {
            return Err(AssistError::NeedsTheJoin(base.name()));
        }
        let question = Question { text: question.to_string(), vector, base, k };
        let mut steps = Vec::new();
        let (state, messages) = match assist {
            Assist::Traverser => {
                let (traverser, messages) = traverser::Traverser::start(index, &question, &mut steps);
                (State::Traverser(traverser), messages)
            }
            Assist::Parsing => (State::Parsing, parsing::messages(&question.text)),
            Assist::Cot => {
                let (cot, messages) = cot::Cot::start(index, &question, &mut steps);
                (State::Cot(cot), messages)
            }
        };
        Ok((AssistedRetrieval { assist, question, state, steps }, Turn::Ask(messages)))
    }

    /// Takes the LLM's reply to the last [`Turn::Ask`]; `embed` embeds any query the LLM wrote.
    pub fn resume(&mut self, index: &IndexedCorpus, reply: &str, embed: Embed<'_>) -> Result<Turn, AssistError> {
        let question = &self.question;
        let steps = &mut self.steps;
        let outcome = match &mut self.state {
            State::Traverser(traverser) => Outcome::Chunks(traverser.resume(index, question, reply, steps)),
            State::Parsing => Outcome::Replace(Retriever::Join, parsing::resume(index, question, reply, embed, steps)?),
            State::Cot(cot) => match cot.resume(index, question, reply, embed, steps)? {
                cot::Next::Ask(messages) => return Ok(Turn::Ask(messages)),
                cot::Next::Done(chunks) => Outcome::Chunks(chunks),
            },
        };
        Ok(self.finish(index, outcome))
    }

    /// The base method's trace for the question, the assisted lane first, and the final list.
    fn finish(&self, index: &IndexedCorpus, outcome: Outcome) -> Turn {
        let Question { base, k, .. } = &self.question;
        let (lane, replacement) = match outcome {
            Outcome::Chunks(chunks) => (Some(crate::retrieve::execute::fold_copies(index.copies(), chunks)), None),
            Outcome::Replace(retriever, retrieval) => (None, Some((retriever, retrieval))),
        };
        let query = self.question.query();
        let query = match &replacement {
            Some((retriever, retrieval)) => query.giving(*retriever, retrieval),
            None => query,
        };
        let (base_chunks, mut trace) = base.rank(index, query, *k).trace(index, *k);
        let chunks: Vec<ScoredChunk> = lane.clone().unwrap_or(base_chunks).into_iter().take(*k).collect();
        let label = |chunk| index.corpus().chunk_label(chunk);
        trace.method = format!("{}, LLM-assisted: {}", base.name(), self.assist.name());
        trace.retrievers.insert(
            0,
            RetrieverTrace {
                retriever: format!("LLM: {}", self.assist.name()),
                weight: 1.0,
                steps: self.steps.clone(),
                chunks: TracedChunk::list(&label, lane.as_deref().unwrap_or(&chunks), *k),
            },
        );
        trace.results = TracedChunk::list(&label, &chunks, *k);
        Turn::Done(chunks, trace)
    }
}

/// What an assisted step produced: the final list itself, or a retriever's list to run the base method with.
enum Outcome {
    Chunks(Vec<ScoredChunk>),
    Replace(Retriever, Retrieval),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_parsed() {
        assert_eq!(Assist::parse("CoT").unwrap(), Assist::Cot);
        assert!(Assist::parse("magic").unwrap_err().to_string().contains("traverser, parsing, cot"));
    }
}
