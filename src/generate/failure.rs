//! Why an exchange with an endpoint gave no answer, or was cut short: what an HTTP status and its body
//! mean, and the budget an answer streams within.

use super::endpoint::Endpoint;
use super::stream::{self, StreamError};

/// Why an endpoint gave no answer, said so that the user knows what to change.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum Failure {
    #[error("cannot reach {url}: {reason} (is the server running, and is the address right?)")]
    Unreachable { url: String, reason: String },
    #[error(
        "the browser was not allowed to read {url}: the server does not send CORS headers for this page. \
         For Ollama start it with OLLAMA_ORIGINS set to this page's origin (or *); in LM Studio turn on \
         \"Enable CORS\" in the server settings"
    )]
    CorsRefused { url: String },
    #[error(
        "this page is served over https and the endpoint {url} is http: browsers block such requests (mixed \
         content). Use an https endpoint, or open Quire from http://127.0.0.1"
    )]
    MixedContent { url: String },
    #[error(
        "this page's Content-Security-Policy does not allow {origin} yet: save the settings, and the page reloads \
         with it allowed"
    )]
    NotAllowedYet { origin: String },
    #[error("the endpoint refused the request: {message} (HTTP 401). Check the API key")]
    Unauthorized { message: String },
    #[error("the endpoint does not know the model `{model}`{}", available_models(.available))]
    UnknownModel { model: String, available: Vec<String> },
    #[error("no answer from {url} within {seconds} s")]
    Timeout { url: String, seconds: u64 },
    #[error("{url} stopped sending its answer: nothing came for {seconds} s")]
    Stalled { url: String, seconds: u64 },
    #[error("the answer was cut off at {limit}: {}", .reason)]
    AnswerTooLong { limit: String, reason: &'static str },
    #[error("the endpoint answered HTTP {status}: {message}")]
    Http { status: u16, message: String },
    #[error("{0}")]
    Stream(#[from] StreamError),
    #[error("stopped")]
    Stopped,
    /// Finding the context failed before the endpoint was asked anything.
    #[error("the context could not be found: {0}")]
    Retrieval(String),
}

fn available_models(available: &[String]) -> String {
    match available.is_empty() {
        true => String::new(),
        false => format!("; it has: {}", available.join(", ")),
    }
}

/// Most characters of one answer Quire takes: a model caught in a loop would otherwise stream until the
/// tab or the terminal runs out of memory, where a long real answer is a few thousand characters.
pub const MAX_ANSWER_CHARS: usize = 100_000;
/// The longest an answer may stream, however steadily it comes.
pub const MAX_ANSWER_SECONDS: f64 = 600.0;

/// An answer's size and duration as it streams, against [`MAX_ANSWER_CHARS`] and [`MAX_ANSWER_SECONDS`].
#[derive(Default)]
pub struct AnswerBudget {
    chars: usize,
}

impl AnswerBudget {
    /// Counts `text`, the next piece of an answer that started `elapsed_s` seconds ago.
    pub fn take(&mut self, text: &str, elapsed_s: f64) -> Result<(), Failure> {
        self.chars += text.chars().count();
        if self.chars > MAX_ANSWER_CHARS {
            return Err(Failure::AnswerTooLong {
                limit: format!("{MAX_ANSWER_CHARS} characters"),
                reason: "no real answer is that long; the model may be repeating itself",
            });
        }
        if elapsed_s > MAX_ANSWER_SECONDS {
            return Err(Failure::AnswerTooLong {
                limit: format!("{MAX_ANSWER_SECONDS:.0} s"),
                reason: "the endpoint was still streaming it",
            });
        }
        Ok(())
    }
}

/// The failure an HTTP error status means, from its body's error message.
pub fn failure_for_status(endpoint: &Endpoint, status: u16, body: &str) -> Failure {
    let message = serde_json::from_str::<serde_json::Value>(body)
        .ok()
        .and_then(|value| stream::stated_error(&value).map(str::to_string))
        .unwrap_or_else(|| body.chars().take(200).collect::<String>().trim().to_string());
    match status {
        401 | 403 => Failure::Unauthorized { message },
        404 if message.to_lowercase().contains("model") => {
            Failure::UnknownModel { model: endpoint.model.clone(), available: Vec::new() }
        }
        _ => Failure::Http { status, message },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_answer_is_cut_at_its_budget() {
        let mut budget = AnswerBudget::default();
        let piece = "x".repeat(MAX_ANSWER_CHARS / 2);
        assert!(budget.take(&piece, 1.0).is_ok());
        assert!(budget.take(&piece, 2.0).is_ok());
        let failure = budget.take("y", 3.0).unwrap_err();
        assert!(failure.to_string().contains("cut off at 100000 characters"), "{failure}");
        let failure = AnswerBudget::default().take("short", MAX_ANSWER_SECONDS + 1.0).unwrap_err();
        assert!(failure.to_string().contains("cut off at 600 s"), "{failure}");
    }
}
