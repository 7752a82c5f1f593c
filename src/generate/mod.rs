//! Answers from the user's own LLM endpoint, the only network call Quire makes. Platform-neutral: the
//! prompt (seed 004's: the numbered context only, say when it does not answer, cite `[n]`), the requests
//! for OpenAI-compatible chat completions and Ollama's native API, the decoding of their streams
//! (server-sent events, NDJSON) and the citations in an answer. The transport is the caller's: an HTTP
//! client natively (`quire ask`), `fetch` in the browser.

pub mod citations;
mod endpoint;
mod failure;
pub mod markdown;
#[cfg(not(target_arch = "wasm32"))]
pub mod native;
pub mod prompt;
pub mod request;
pub mod stream;

pub use citations::{cited, sources_list};
pub use endpoint::{Endpoint, NotAnEndpoint, Provider, endpoint_origin, key_for, mixed_content};
pub use failure::{AnswerBudget, Failure, MAX_ANSWER_CHARS, MAX_ANSWER_SECONDS, failure_for_status};
pub use markdown::answer_html;
pub use prompt::{ContextChunk, Message, PromptStyle, build_messages};
pub use request::{HttpRequest, chat_request, models_request, parse_models};
pub use stream::{StreamDecoder, StreamError, StreamEvent};
