//! Answers from the user's own LLM endpoint, the only network call Quire makes. Platform-neutral: the
//! prompt (seed 004's: the numbered context only, say when it does not answer, cite `[n]`), the requests
//! for OpenAI-compatible chat completions and Ollama's native API, the decoding of their streams
//! (server-sent events, NDJSON) and the citations in an answer. The transport is the caller's: an HTTP
//! client natively (`quire ask`), `fetch` in the browser.

pub mod citations;
#[cfg(not(target_arch = "wasm32"))]
pub mod native;
pub mod prompt;
pub mod request;
pub mod stream;

use serde::{Deserialize, Serialize};

pub use citations::cited;
pub use prompt::{ContextChunk, Message, PromptStyle, build_messages};
pub use request::{HttpRequest, chat_request, models_request, parse_models};
pub use stream::{StreamDecoder, StreamError, StreamEvent};

/// Which API an endpoint speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Provider {
    /// `POST {base}/chat/completions`, streamed as server-sent events (OpenAI, Groq, OpenRouter, LM Studio,
    /// llama.cpp's server, vLLM). The base URL includes the API version, e.g. `http://127.0.0.1:1234/v1`.
    OpenAi,
    /// `POST {base}/api/chat`, streamed as NDJSON. The base URL is the server's, e.g. `http://127.0.0.1:11434`.
    Ollama,
}

impl Provider {
    pub fn parse(name: &str) -> Result<Self, String> {
        match name.to_ascii_lowercase().as_str() {
            "openai" | "openai-compatible" => Ok(Provider::OpenAi),
            "ollama" => Ok(Provider::Ollama),
            other => Err(format!("unknown provider `{other}` (openai or ollama)")),
        }
    }
}

/// Where answers come from and how they are asked for.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Endpoint {
    pub provider: Provider,
    pub base_url: String,
    pub model: String,
    /// Sent as `Authorization: Bearer …` to this endpoint only.
    pub api_key: Option<String>,
    pub temperature: f32,
    pub max_tokens: u32,
}

impl Endpoint {
    /// A local Ollama with its default port.
    pub fn ollama(model: &str) -> Self {
        Self::new(Provider::Ollama, "http://127.0.0.1:11434", model)
    }

    /// A local LM Studio server with its default port.
    pub fn lm_studio(model: &str) -> Self {
        Self::new(Provider::OpenAi, "http://127.0.0.1:1234/v1", model)
    }

    pub fn new(provider: Provider, base_url: &str, model: &str) -> Self {
        Endpoint {
            provider,
            base_url: base_url.trim_end_matches('/').to_string(),
            model: model.to_string(),
            api_key: None,
            temperature: 0.2,
            max_tokens: 512,
        }
    }
}

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
    #[error("the endpoint refused the request: {message} (HTTP 401). Check the API key")]
    Unauthorized { message: String },
    #[error("the endpoint does not know the model `{model}`{}", available_models(.available))]
    UnknownModel { model: String, available: Vec<String> },
    #[error("no answer from {url} within {seconds} s")]
    Timeout { url: String, seconds: u64 },
    #[error("the endpoint answered HTTP {status}: {message}")]
    Http { status: u16, message: String },
    #[error("{0}")]
    Stream(#[from] StreamError),
    #[error("stopped")]
    Stopped,
}

fn available_models(available: &[String]) -> String {
    match available.is_empty() {
        true => String::new(),
        false => format!("; it has: {}", available.join(", ")),
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
