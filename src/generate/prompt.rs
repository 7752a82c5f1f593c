//! The prompt of seed 004 (§5): answer only from the numbered context, say so when it does not hold the
//! answer, cite the passages used as `[n]`; a brief preset (at most three sentences) and a detailed one.

use serde::{Deserialize, Serialize};

pub use crate::chat::Message;
use crate::error::UnknownName;

/// A passage of the context as the model sees it: `[n] Page › Section › #k` then its text.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ContextChunk {
    pub label: String,
    pub text: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PromptStyle {
    Brief,
    Detailed,
}

impl PromptStyle {
    pub fn parse(name: &str) -> Result<Self, UnknownName> {
        match name {
            "brief" => Ok(PromptStyle::Brief),
            "detailed" => Ok(PromptStyle::Detailed),
            other => Err(UnknownName { kind: "answer style", name: other.into(), known: "brief or detailed".into() }),
        }
    }

    /// The system prompt; the user may edit it, and the edited text is what is sent.
    pub fn instructions(self) -> &'static str {
        match self {
            PromptStyle::Brief => {
                "Answer the question using only the numbered context passages. If they do not contain the \
                 answer, say that the documents do not say. Cite the passages you use as [n]. Answer in at \
                 most three sentences."
            }
            PromptStyle::Detailed => {
                "Answer the question using only the numbered context passages. If they do not contain the \
                 answer, say that the documents do not say, and what they do say that comes closest. Cite \
                 every passage you use as [n], after the sentence that uses it. Explain step by step where \
                 the answer needs several passages."
            }
        }
    }
}

/// The chat: the instructions as the system message, then the numbered context and the question.
pub fn build_messages(question: &str, context: &[ContextChunk], instructions: &str) -> Vec<Message> {
    let passages: Vec<String> =
        context.iter().enumerate().map(|(i, chunk)| format!("[{}] {}\n{}", i + 1, chunk.label, chunk.text)).collect();
    let user = format!("Context:\n\n{}\n\nQuestion: {question}", passages.join("\n\n"));
    vec![
        Message { role: "system".into(), content: instructions.to_string() },
        Message { role: "user".into(), content: user },
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_context_is_numbered_with_its_labels() {
        let context = [
            ContextChunk { label: "Moon › Landings › #1".into(), text: "Apollo 11 landed in 1969.".into() },
            ContextChunk { label: "Sun › #1".into(), text: "The Sun is a star.".into() },
        ];
        let messages = build_messages("When did Apollo 11 land?", &context, PromptStyle::Brief.instructions());
        assert_eq!(messages[0].role, "system");
        assert!(messages[0].content.contains("at most three sentences"));
        assert_eq!(
            messages[1].content,
            "Context:\n\n[1] Moon › Landings › #1\nApollo 11 landed in 1969.\n\n[2] Sun › #1\nThe Sun is a star.\n\n\
             Question: When did Apollo 11 land?"
        );
    }
}
