//! Streamed answers, decoded as the bytes arrive: OpenAI-compatible servers send server-sent events
//! (`data: {json}` lines, `data: [DONE]` at the end), Ollama sends one JSON object per line (`"done": true`
//! at the end). Bytes may split anywhere, even inside a UTF-8 character; an error object in the stream, a
//! line that is not what the API sends, or a stream that stops before its end are errors that say so.

use serde_json::Value;

use super::endpoint::Provider;

#[derive(Clone, Debug, PartialEq)]
pub enum StreamEvent {
    /// More of the answer.
    Text(String),
    /// The answer is complete.
    Done,
}

#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum StreamError {
    #[error("the endpoint reported an error: {0}")]
    Server(String),
    #[error("the endpoint sent something that is not a {expected} stream: {line}")]
    Malformed { expected: &'static str, line: String },
    #[error("the stream ended before the answer was complete")]
    Truncated,
}

pub struct StreamDecoder {
    provider: Provider,
    pending: Vec<u8>,
    done: bool,
}

/// Longest line kept while waiting for its end: a stream that never ends a line is not an answer.
const MAX_LINE: usize = 1 << 20;

impl StreamDecoder {
    pub fn new(provider: Provider) -> Self {
        StreamDecoder { provider, pending: Vec::new(), done: false }
    }

    /// Every event in the complete lines received so far.
    pub fn push(&mut self, bytes: &[u8]) -> Result<Vec<StreamEvent>, StreamError> {
        // What is pending holds no line end: only the new bytes need looking at (a server that sends a byte
        // at a time must not cost a scan of the whole line per byte).
        let mut from = self.pending.len();
        self.pending.extend_from_slice(bytes);
        let mut events = Vec::new();
        while let Some(offset) = self.pending[from..].iter().position(|&b| b == b'\n') {
            let line: Vec<u8> = self.pending.drain(..=from + offset).collect();
            from = 0;
            let line = String::from_utf8_lossy(&line);
            events.extend(self.line(line.trim())?);
        }
        if self.pending.len() > MAX_LINE {
            return Err(self.malformed("a line of more than a megabyte"));
        }
        Ok(events)
    }

    /// The stream has ended: what was left unfinished, or `Truncated` when the end never came.
    pub fn finish(&mut self) -> Result<Vec<StreamEvent>, StreamError> {
        let rest = String::from_utf8_lossy(&std::mem::take(&mut self.pending)).into_owned();
        let events = self.line(rest.trim())?;
        if self.done { Ok(events.into_iter().collect()) } else { Err(StreamError::Truncated) }
    }

    fn malformed(&self, line: &str) -> StreamError {
        let expected = match self.provider {
            Provider::OpenAi => "server-sent events",
            Provider::Ollama => "NDJSON",
        };
        let line: String = line.chars().take(120).collect();
        StreamError::Malformed { expected, line }
    }

    fn line(&mut self, line: &str) -> Result<Option<StreamEvent>, StreamError> {
        if line.is_empty() || self.done {
            return Ok(None);
        }
        match self.provider {
            Provider::OpenAi => self.event(line),
            Provider::Ollama => self.record(line),
        }
    }

    fn event(&mut self, line: &str) -> Result<Option<StreamEvent>, StreamError> {
        // Comments (`: keep-alive`) and other SSE fields carry no text.
        if line.starts_with(':') || line.starts_with("event:") || line.starts_with("id:") || line.starts_with("retry:")
        {
            return Ok(None);
        }
        let Some(data) = line.strip_prefix("data:").map(str::trim) else {
            return Err(self.server_error(line).unwrap_or_else(|| self.malformed(line)));
        };
        if data == "[DONE]" {
            self.done = true;
            return Ok(Some(StreamEvent::Done));
        }
        let value: Value = serde_json::from_str(data).map_err(|_| self.malformed(line))?;
        if let Some(error) = error_message(&value) {
            return Err(StreamError::Server(error));
        }
        let choice = &value["choices"][0];
        if choice.is_null() {
            return Ok(None);
        }
        let text = choice["delta"]["content"].as_str().unwrap_or_default();
        Ok((!text.is_empty()).then(|| StreamEvent::Text(text.to_string())))
    }

    fn record(&mut self, line: &str) -> Result<Option<StreamEvent>, StreamError> {
        let value: Value = serde_json::from_str(line).map_err(|_| self.malformed(line))?;
        if let Some(error) = error_message(&value) {
            return Err(StreamError::Server(error));
        }
        if value["done"].as_bool() == Some(true) {
            self.done = true;
            return Ok(Some(StreamEvent::Done));
        }
        match value["message"]["content"].as_str() {
            Some(text) if !text.is_empty() => Ok(Some(StreamEvent::Text(text.to_string()))),
            Some(_) => Ok(None),
            None => Err(self.malformed(line)),
        }
    }

    /// A whole JSON error body sent instead of a stream.
    fn server_error(&self, line: &str) -> Option<StreamError> {
        serde_json::from_str::<Value>(line).ok().as_ref().and_then(error_message).map(StreamError::Server)
    }
}

/// The error a response states: `{"error": "…"}` (Ollama) or `{"error": {"message": "…"}}` (OpenAI).
pub(super) fn stated_error(value: &Value) -> Option<&str> {
    let error = value.get("error")?;
    error["message"].as_str().or(error.as_str())
}

/// An error in a stream, said as the server states it, else as the JSON it sent.
fn error_message(value: &Value) -> Option<String> {
    let error = value.get("error")?;
    Some(stated_error(value).map_or_else(|| error.to_string(), str::to_string))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode(provider: Provider, stream: &[u8], split: usize) -> Result<String, StreamError> {
        let mut decoder = StreamDecoder::new(provider);
        let mut text = String::new();
        let mut events = Vec::new();
        for piece in stream.chunks(split.max(1)) {
            events.extend(decoder.push(piece)?);
        }
        events.extend(decoder.finish()?);
        for event in events {
            if let StreamEvent::Text(t) = event {
                text.push_str(&t);
            }
        }
        Ok(text)
    }

    const SSE: &str = ": keep-alive\n\ndata: {\"choices\":[{\"delta\":{\"role\":\"assistant\"}}]}\n\n\
        data: {\"choices\":[{\"delta\":{\"content\":\"Neil Armstrong, \"}}]}\n\n\
        data: {\"choices\":[{\"delta\":{\"content\":\"in 1969 — naïvely [1].\"}}]}\n\n\
        data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n";
    const NDJSON: &str = "{\"message\":{\"role\":\"assistant\",\"content\":\"Neil Armstrong, \"},\"done\":false}\n\
        {\"message\":{\"role\":\"assistant\",\"content\":\"in 1969 — naïvely [1].\"},\"done\":false}\n\
        {\"message\":{\"role\":\"assistant\",\"content\":\"\"},\"done\":true,\"eval_count\":12}\n";

    #[test]
    fn both_streams_decode_whatever_the_byte_boundaries() {
        for split in [1, 2, 3, 7, 64, 4096] {
            assert_eq!(
                decode(Provider::OpenAi, SSE.as_bytes(), split).unwrap(),
                "Neil Armstrong, in 1969 — naïvely [1]."
            );
            assert_eq!(
                decode(Provider::Ollama, NDJSON.as_bytes(), split).unwrap(),
                "Neil Armstrong, in 1969 — naïvely [1]."
            );
        }
    }

    #[test]
    fn errors_say_what_went_wrong() {
        let cut = &SSE[..SSE.find("data: [DONE]").unwrap()];
        assert_eq!(decode(Provider::OpenAi, cut.as_bytes(), 5), Err(StreamError::Truncated));
        let error = "data: {\"error\":{\"message\":\"model `x` not found\"}}\n\n";
        assert_eq!(
            decode(Provider::OpenAi, error.as_bytes(), 9),
            Err(StreamError::Server("model `x` not found".into()))
        );
        let whole_error = "{\"error\":{\"message\":\"Invalid API key\"}}\n";
        assert_eq!(
            decode(Provider::OpenAi, whole_error.as_bytes(), 9),
            Err(StreamError::Server("Invalid API key".into()))
        );
        assert_eq!(
            decode(Provider::Ollama, b"{\"error\":\"model 'x' not found\"}\n", 4),
            Err(StreamError::Server("model 'x' not found".into()))
        );
        let html = "<html><body>Bad gateway</body></html>\n";
        assert!(matches!(
            decode(Provider::Ollama, html.as_bytes(), 4),
            Err(StreamError::Malformed { expected: "NDJSON", .. })
        ));
        assert!(matches!(
            decode(Provider::OpenAi, html.as_bytes(), 4),
            Err(StreamError::Malformed { expected: "server-sent events", .. })
        ));
    }
}
