//! The user's LLM endpoint: the API it speaks, its address and model, the origin a page's policy must allow
//! for it, and which key may be sent to it.

use serde::{Deserialize, Serialize};

use crate::error::UnknownName;

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
    pub fn parse(name: &str) -> Result<Self, UnknownName> {
        match name.to_ascii_lowercase().as_str() {
            "openai" | "openai-compatible" => Ok(Provider::OpenAi),
            "ollama" => Ok(Provider::Ollama),
            other => Err(UnknownName { kind: "provider", name: other.to_string(), known: "openai or ollama".into() }),
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

/// `scheme://host[:port]` of an endpoint's base URL, lower-cased: what a Content-Security-Policy names to let
/// the page reach it. Only `http` and `https` URLs of a plain host name, IPv4 or bracketed IPv6 address, with
/// no user name in them, have one, so that the origin can go into a policy as it is.
pub fn endpoint_origin(base_url: &str) -> Result<String, NotAnEndpoint> {
    let refused = |why: &'static str| NotAnEndpoint { address: base_url.to_string(), why };
    let trimmed = base_url.trim();
    let (scheme, rest) = trimmed.split_once("://").ok_or_else(|| refused("it needs http:// or https://"))?;
    let scheme = scheme.to_ascii_lowercase();
    if scheme != "http" && scheme != "https" {
        return Err(refused("it needs http:// or https://"));
    }
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default().to_ascii_lowercase();
    let (host, port) = match authority.rsplit_once(':') {
        Some((host, port)) if !port.contains(']') => (host, Some(port)),
        _ => (authority.as_str(), None),
    };
    let host_ok = match host.strip_prefix('[').and_then(|h| h.strip_suffix(']')) {
        Some(v6) => !v6.is_empty() && v6.chars().all(|c| c.is_ascii_hexdigit() || c == ':' || c == '.'),
        None => !host.is_empty() && host.chars().all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '-'),
    };
    if !host_ok {
        return Err(refused("its host name has characters a host name cannot have"));
    }
    if port.is_some_and(|p| p.is_empty() || p.len() > 5 || !p.chars().all(|c| c.is_ascii_digit())) {
        return Err(refused("its port is not a number"));
    }
    Ok(format!("{scheme}://{authority}"))
}

/// An address that cannot name an endpoint's origin, and why.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("`{address}` is not an endpoint address: {why}")]
pub struct NotAnEndpoint {
    pub address: String,
    pub why: &'static str,
}

/// Whether a page at `page_url` is blocked from calling `endpoint_url` as mixed content: an https page and
/// an http endpoint that is not on this machine (browsers let pages reach http://127.0.0.1 and localhost).
pub fn mixed_content(page_url: &str, endpoint_url: &str) -> bool {
    let Ok(origin) = endpoint_origin(endpoint_url) else { return false };
    let Some(authority) = origin.strip_prefix("http://") else { return false };
    let host = match authority.find(']') {
        Some(end) => &authority[..=end],
        None => authority.split(':').next().unwrap_or_default(),
    };
    let local = ["127.0.0.1", "localhost", "[::1]"].contains(&host) || host.ends_with(".localhost");
    page_url.to_ascii_lowercase().starts_with("https:") && !local
}

/// The key to send to `base_url`: `key` only when it was entered for that endpoint's origin (`key_origin`),
/// so that changing the address never hands a key to another server.
pub fn key_for<'a>(key: &'a str, key_origin: Option<&str>, base_url: &str) -> Option<&'a str> {
    let origin = endpoint_origin(base_url).ok()?;
    (!key.is_empty() && key_origin == Some(origin.as_str())).then_some(key)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_goes_only_to_the_origin_it_was_entered_for() {
        let groq = Some("https://api.groq.com");
        assert_eq!(key_for("k", groq, "https://api.groq.com/openai/v1"), Some("k"));
        assert_eq!(key_for("k", groq, "https://api.groq.com.evil.example/v1"), None);
        assert_eq!(key_for("k", groq, "http://api.groq.com/openai/v1"), None, "not over another scheme");
        assert_eq!(key_for("k", groq, "https://api.groq.com:8443/v1"), None, "nor to another port");
        assert_eq!(key_for("k", None, "https://api.groq.com/openai/v1"), None);
        assert_eq!(key_for("", groq, "https://api.groq.com/openai/v1"), None);
    }

    #[test]
    fn an_origin_is_given_only_for_addresses_a_policy_can_hold() {
        assert_eq!(endpoint_origin("http://127.0.0.1:11434").unwrap(), "http://127.0.0.1:11434");
        assert_eq!(endpoint_origin("HTTPS://API.Groq.com/openai/v1").unwrap(), "https://api.groq.com");
        assert_eq!(endpoint_origin("http://[::1]:1234/v1").unwrap(), "http://[::1]:1234");
        for bad in ["ftp://x", "127.0.0.1:1234", "http://a b", "http://x;script-src *", "http://u@host", "http://h:8o"]
        {
            assert!(endpoint_origin(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn only_an_https_page_calling_a_remote_http_endpoint_is_mixed_content() {
        assert!(mixed_content("https://quire.example/", "http://192.168.1.5:11434"));
        assert!(!mixed_content("https://quire.example/", "http://127.0.0.1:11434"));
        assert!(!mixed_content("https://quire.example/", "http://localhost:1234/v1"));
        assert!(!mixed_content("https://quire.example/", "https://api.openai.com/v1"));
        assert!(!mixed_content("http://127.0.0.1:8080/", "http://192.168.1.5:11434"));
    }
}
