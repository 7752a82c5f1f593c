//! The HTTP requests an endpoint answers, as data (method, URL, headers, body): the caller's transport sends
//! them, so the browser and the CLI ask exactly the same thing.

use serde_json::{Value, json};

use super::endpoint::{Endpoint, Provider};
use super::prompt::Message;

#[derive(Clone, Debug, PartialEq)]
pub struct HttpRequest {
    pub method: &'static str,
    pub url: String,
    pub headers: Vec<(String, String)>,
    pub body: Option<String>,
}

fn headers(endpoint: &Endpoint, json_body: bool) -> Vec<(String, String)> {
    let mut headers = Vec::new();
    if json_body {
        headers.push(("Content-Type".into(), "application/json".into()));
    }
    if let Some(key) = endpoint.api_key.as_deref().filter(|k| !k.is_empty()) {
        headers.push(("Authorization".into(), format!("Bearer {key}")));
    }
    headers
}

/// A streamed chat completion of `messages`.
pub fn chat_request(endpoint: &Endpoint, messages: &[Message]) -> HttpRequest {
    let (url, body) = match endpoint.provider {
        Provider::OpenAi => (
            format!("{}/chat/completions", endpoint.base_url),
            json!({
                "model": endpoint.model,
                "messages": messages,
                "stream": true,
                "temperature": endpoint.temperature,
                "max_tokens": endpoint.max_tokens,
            }),
        ),
        Provider::Ollama => (
            format!("{}/api/chat", endpoint.base_url),
            json!({
                "model": endpoint.model,
                "messages": messages,
                "stream": true,
                "options": { "temperature": endpoint.temperature, "num_predict": endpoint.max_tokens },
            }),
        ),
    };
    HttpRequest { method: "POST", url, headers: headers(endpoint, true), body: Some(body.to_string()) }
}

/// The endpoint's model list (also the connection test: it needs the server, CORS and the key to be right).
pub fn models_request(endpoint: &Endpoint) -> HttpRequest {
    let url = match endpoint.provider {
        Provider::OpenAi => format!("{}/models", endpoint.base_url),
        Provider::Ollama => format!("{}/api/tags", endpoint.base_url),
    };
    HttpRequest { method: "GET", url, headers: headers(endpoint, false), body: None }
}

/// A model list response that is not one.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct MalformedModelList(String);

/// Model names from a model list response.
pub fn parse_models(provider: Provider, body: &str) -> Result<Vec<String>, MalformedModelList> {
    let not_json = |e: serde_json::Error| MalformedModelList(format!("the model list is not JSON ({e})"));
    let value: Value = serde_json::from_str(body).map_err(not_json)?;
    let (list, key) = match provider {
        Provider::OpenAi => (&value["data"], "id"),
        Provider::Ollama => (&value["models"], "name"),
    };
    let list = list.as_array().ok_or_else(|| MalformedModelList("the model list has no models array".into()))?;
    Ok(list.iter().filter_map(|model| model[key].as_str().map(str::to_string)).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_apis_are_asked_for_a_stream_with_the_key_only_when_set() {
        let messages = [Message { role: "user".into(), content: "Hi".into() }];
        let mut openai = Endpoint::lm_studio("qwen");
        openai.api_key = Some("sk-test".into());
        let request = chat_request(&openai, &messages);
        assert_eq!(request.url, "http://127.0.0.1:1234/v1/chat/completions");
        assert!(request.headers.contains(&("Authorization".into(), "Bearer sk-test".into())));
        let body: Value = serde_json::from_str(request.body.as_deref().unwrap()).unwrap();
        assert_eq!((body["model"].as_str(), body["stream"].as_bool()), (Some("qwen"), Some(true)));

        let ollama = chat_request(&Endpoint::ollama("llama3.2"), &messages);
        assert_eq!(ollama.url, "http://127.0.0.1:11434/api/chat");
        assert!(ollama.headers.iter().all(|(name, _)| name != "Authorization"));
        let body: Value = serde_json::from_str(ollama.body.as_deref().unwrap()).unwrap();
        assert_eq!(body["options"]["num_predict"], 512);
    }

    #[test]
    fn model_lists_of_both_apis_are_read() {
        let openai = r#"{"object":"list","data":[{"id":"qwen2.5-7b","object":"model"},{"id":"phi-4"}]}"#;
        assert_eq!(parse_models(Provider::OpenAi, openai).unwrap(), ["qwen2.5-7b", "phi-4"]);
        let ollama = r#"{"models":[{"name":"llama3.2:latest","size":1}]}"#;
        assert_eq!(parse_models(Provider::Ollama, ollama).unwrap(), ["llama3.2:latest"]);
        assert!(
            parse_models(Provider::Ollama, "<html>").unwrap_err().to_string().starts_with("the model list is not JSON")
        );
    }
}
