//! What every assisted retrieval shares in its exchange with the LLM: the question and the method its
//! searches run, embedding the queries the LLM writes, the messages sent, and a reply read as JSON.

use serde_json::Value;

use crate::chat::Message;
use crate::embed::EmbedError;
use crate::retrieve::{Method, Query};

/// An embedder for the queries an assisted retrieval writes (CoT's next queries, parsed entity names).
pub type Embed<'a> = &'a dyn Fn(&str) -> Result<Vec<f32>, EmbedError>;

/// The question and the method every search of an assisted retrieval runs.
pub(super) struct Question {
    pub(super) text: String,
    pub(super) vector: Vec<f32>,
    pub(super) base: Method,
    pub(super) k: usize,
}

impl Question {
    pub(super) fn query(&self) -> Query<'_> {
        Query::new(&self.text, &self.vector)
    }
}

/// The JSON object in an LLM's reply, which may wrap it in prose or a code fence.
pub(super) fn json_object(reply: &str) -> Option<Value> {
    reply.match_indices('{').find_map(|(start, _)| {
        let mut values = serde_json::Deserializer::from_str(&reply[start..]).into_iter::<Value>();
        values.next()?.ok().filter(Value::is_object)
    })
}

/// A JSON value as a list of strings: an array's strings, or one string.
pub(super) fn strings(value: &Value) -> Vec<String> {
    match value {
        Value::String(one) => vec![one.clone()],
        Value::Array(items) => items
            .iter()
            .filter_map(|item| match item {
                Value::String(s) => Some(s.clone()),
                Value::Null => None,
                other => Some(other.to_string()),
            })
            .collect(),
        _ => Vec::new(),
    }
    .into_iter()
    .map(|s| s.trim().to_string())
    .filter(|s| !s.is_empty())
    .collect()
}

pub(super) fn system_and_user(system: &str, user: String) -> Vec<Message> {
    vec![Message { role: "system".into(), content: system.into() }, Message { role: "user".into(), content: user }]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_json_object_is_found_in_prose_and_fences() {
        let reply = "Sure! ```json\n{\"entities\": [\"Apollo 11\", \" \"], \"relations\": \"launched by\"}\n```";
        let value = json_object(reply).unwrap();
        assert_eq!(strings(&value["entities"]), ["Apollo 11"]);
        assert_eq!(strings(&value["relations"]), ["launched by"]);
        assert!(json_object("no object here").is_none());
        assert!(json_object("} backwards {").is_none());
        let braces = "Using {curly} words first: {\"done\": true} and then {\"other\": 1}";
        assert_eq!(json_object(braces).unwrap()["done"], true);
    }
}
