//! The native transport (`quire ask`): the requests of [`super::request`] sent with `ureq`, the answer
//! streamed to the caller as it arrives, every failure diagnosed as the browser's are.

use std::io::Read;
use std::time::Duration;

use super::{Endpoint, Failure, HttpRequest, StreamDecoder, StreamEvent, failure_for_status};

/// `timeout` bounds connecting and the wait for the response to start; a streamed answer may then take as
/// long as it keeps coming, each piece within `timeout` of the last (see [`ask`]).
fn agent(timeout: Duration) -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_connect(Some(timeout))
        .timeout_recv_response(Some(timeout))
        .build()
        .into()
}

fn transport_failure(request: &HttpRequest, timeout: Duration, error: ureq::Error) -> Failure {
    match error {
        ureq::Error::Timeout(_) => Failure::Timeout { url: request.url.clone(), seconds: timeout.as_secs() },
        other => Failure::Unreachable { url: request.url.clone(), reason: other.to_string() },
    }
}

fn send(request: &HttpRequest, timeout: Duration) -> Result<ureq::http::Response<ureq::Body>, Failure> {
    let agent = agent(timeout);
    let result = match request.method {
        "GET" => {
            let mut call = agent.get(&request.url);
            for (name, value) in &request.headers {
                call = call.header(name, value);
            }
            call.call()
        }
        _ => {
            let mut call = agent.post(&request.url);
            for (name, value) in &request.headers {
                call = call.header(name, value);
            }
            call.send(request.body.as_deref().unwrap_or_default())
        }
    };
    result.map_err(|error| transport_failure(request, timeout, error))
}

/// The endpoint's models (the connection test).
pub fn list_models(endpoint: &Endpoint, timeout: Duration) -> Result<Vec<String>, Failure> {
    let request = super::models_request(endpoint);
    let mut response = send(&request, timeout)?;
    let status = response.status().as_u16();
    let body = response.body_mut().read_to_string().map_err(|e| transport_failure(&request, timeout, e))?;
    if status != 200 {
        return Err(failure_for_status(endpoint, status, &body));
    }
    super::parse_models(endpoint.provider, &body).map_err(|e| Failure::Http { status, message: e.to_string() })
}

/// Asks for a streamed answer; `on_text` gets each piece as it arrives; returns the whole answer. A server
/// that sends nothing for `timeout` is given up on, and an answer longer than the [`super::AnswerBudget`]
/// is cut off.
pub fn ask(
    endpoint: &Endpoint,
    messages: &[super::Message],
    timeout: Duration,
    on_text: &mut dyn FnMut(&str),
) -> Result<String, Failure> {
    let request = super::chat_request(endpoint, messages);
    let mut response = send(&request, timeout)?;
    let status = response.status().as_u16();
    if status != 200 {
        let body = response.body_mut().read_to_string().unwrap_or_default();
        let failure = failure_for_status(endpoint, status, &body);
        return Err(match failure {
            Failure::UnknownModel { model, .. } => {
                Failure::UnknownModel { model, available: list_models(endpoint, timeout).unwrap_or_default() }
            }
            other => other,
        });
    }
    let started = std::time::Instant::now();
    let pieces = read_in_background(response.into_body().into_reader());
    let mut decoder = StreamDecoder::new(endpoint.provider);
    let mut answer = String::new();
    let mut budget = super::AnswerBudget::default();
    loop {
        let read = match pieces.recv_timeout(timeout) {
            Ok(read) => read,
            Err(_) => return Err(Failure::Stalled { url: request.url.clone(), seconds: timeout.as_secs() }),
        };
        let read = read.map_err(|e| Failure::Unreachable { url: request.url.clone(), reason: e.to_string() })?;
        let events = if read.is_empty() { decoder.finish()? } else { decoder.push(&read)? };
        for event in events {
            match event {
                StreamEvent::Text(text) => {
                    budget.take(&text, started.elapsed().as_secs_f64())?;
                    on_text(&text);
                    answer.push_str(&text);
                }
                StreamEvent::Done => return Ok(answer),
            }
        }
        if read.is_empty() {
            return Ok(answer);
        }
    }
}

/// The body's bytes as they arrive, read on a thread of their own so that the caller can give up on a
/// server that stops sending (ureq bounds a body's whole read, not the wait for its next byte); an empty
/// piece is the end. The thread ends with the connection, or at its next piece once the caller is gone.
fn read_in_background(mut reader: impl Read + Send + 'static) -> std::sync::mpsc::Receiver<std::io::Result<Vec<u8>>> {
    let (sender, receiver) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut buffer = [0u8; 4096];
        loop {
            let read = reader.read(&mut buffer).map(|n| buffer[..n].to_vec());
            let last = !matches!(&read, Ok(piece) if !piece.is_empty());
            if sender.send(read).is_err() || last {
                return;
            }
        }
    });
    receiver
}
