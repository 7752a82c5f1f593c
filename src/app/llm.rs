//! The browser's transport for `generate`: the page calls the user's LLM endpoint with `fetch` (the only
//! request Quire makes outside its own origin, and the page's Content-Security-Policy allows no other),
//! streams the answer through the engine's decoder, stops when asked (`AbortController`), and turns a
//! failed call into the engine's diagnosis. A fetch that fails says only "TypeError"; a second, `no-cors`
//! request to the same address tells a server that refused CORS (it answers, opaquely) from one that cannot
//! be reached (it fails too). Requests are built and sent with gloo-net, and the deadlines are gloo-timers'
//! timeouts; the answer is read from the response's `ReadableStream` by hand, chunk by chunk as it streams
//! (gloo-net reads a body only whole), and Stop is an `AbortController` (gloo has none).

use std::cell::Cell;
use std::rc::Rc;

use gloo_net::http::{Method, RequestBuilder, Response};
use gloo_timers::callback::Timeout;
use js_sys::Uint8Array;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use web_sys::{AbortController, ReadableStreamDefaultReader, RequestMode};

use crate::generate::{
    self, AnswerBudget, Endpoint, Failure, HttpRequest, Message, StreamDecoder, StreamError, StreamEvent, chat_request,
    endpoint_origin, failure_for_status, models_request, parse_models,
};
use crate::web::browser::{describe, describe_request};
use crate::web::error::JsError;

/// How long the no-cors probe of a failed call may take.
const PROBE_MS: u32 = 5_000;

fn window() -> web_sys::Window {
    web_sys::window().expect("the page runs in a browser window")
}

fn page_origin() -> String {
    window().location().origin().unwrap_or_default()
}

/// The origins besides its own that the page's Content-Security-Policy lets it connect to, read from the
/// policy itself (a policy cannot change while the page lives); `None` when the page has no policy.
pub fn allowed_origins() -> Option<Vec<String>> {
    let meta = window().document()?.query_selector(r#"meta[http-equiv="Content-Security-Policy"]"#).ok()??;
    let policy = meta.get_attribute("content")?;
    let connect = policy.split(';').map(str::trim).find_map(|directive| directive.strip_prefix("connect-src "))?;
    Some(connect.split_whitespace().filter(|source| !source.starts_with('\'')).map(str::to_string).collect())
}

/// A call in flight that the user can stop.
#[derive(Clone)]
pub struct Call {
    controller: AbortController,
    timed_out: Rc<Cell<bool>>,
}

impl Call {
    pub fn new() -> Result<Self, JsError> {
        let controller = AbortController::new().map_err(describe)?;
        Ok(Call { controller, timed_out: Rc::new(Cell::new(false)) })
    }

    pub fn stop(&self) {
        self.controller.abort();
    }
}

/// A timer that aborts `call` unless dropped first.
fn deadline(call: &Call, milliseconds: u32) -> Timeout {
    let (controller, timed_out) = (call.controller.clone(), call.timed_out.clone());
    Timeout::new(milliseconds, move || {
        timed_out.set(true);
        controller.abort();
    })
}

fn is_abort(error: &JsValue) -> bool {
    js_sys::Reflect::get(error, &"name".into()).ok().and_then(|n| n.as_string()).as_deref() == Some("AbortError")
}

/// Whether a request ended because its call was aborted. A fetch rejects with a TypeError or with the
/// signal's reason, an `AbortError` `DOMException` (`abort()` is never given another), both errors that
/// gloo-net keeps the name of.
fn was_aborted(error: &gloo_net::Error) -> bool {
    matches!(error, gloo_net::Error::JsError(error) if error.name == "AbortError")
}

/// Why a fetch of `url` failed before any answer: mixed content, the page's policy, CORS, or no server.
async fn diagnose(url: &str) -> Failure {
    let Ok(probe) = Call::new() else { return Failure::Unreachable { url: url.into(), reason: "no fetch".into() } };
    let request = RequestBuilder::new(url).mode(RequestMode::NoCors).abort_signal(Some(&probe.controller.signal()));
    let deadline = deadline(&probe, PROBE_MS);
    let answered = request.send().await;
    drop(deadline);
    match answered {
        Ok(_) => Failure::CorsRefused { url: url.into() },
        Err(error) => Failure::Unreachable { url: url.into(), reason: describe_request(error).to_string() },
    }
}

/// Checks what can be known without a request: mixed content, and whether the page's policy allows it.
fn allowed(url: &str) -> Result<(), Failure> {
    let page = window().location().href().unwrap_or_default();
    if generate::mixed_content(&page, url) {
        return Err(Failure::MixedContent { url: url.into() });
    }
    let origin =
        endpoint_origin(url).map_err(|reason| Failure::Unreachable { url: url.into(), reason: reason.to_string() })?;
    if origin != page_origin() && allowed_origins().is_some_and(|allowed| !allowed.contains(&origin)) {
        return Err(Failure::NotAllowedYet { origin });
    }
    Ok(())
}

/// Sends `request`; the response once its headers are in, within `timeout_s`.
async fn send(endpoint: &Endpoint, request: &HttpRequest, call: &Call, timeout_s: u32) -> Result<Response, Failure> {
    allowed(&request.url)?;
    let unreachable = |reason| Failure::Unreachable { url: request.url.clone(), reason };
    let method = Method::from_bytes(request.method.as_bytes()).map_err(|e| unreachable(e.to_string()))?;
    // Built here, not with gloo-net's `header`, which throws on a value the browser refuses (a key pasted
    // with a line break): such a header is left out, as it always was.
    let headers = web_sys::Headers::new().map_err(|e| unreachable(describe(e).to_string()))?;
    for (name, value) in &request.headers {
        let _ = headers.append(name, value);
    }
    let builder = RequestBuilder::new(&request.url)
        .method(method)
        .headers(gloo_net::http::Headers::from_raw(headers))
        .abort_signal(Some(&call.controller.signal()));
    let deadline = deadline(call, timeout_s.max(1) * 1000);
    // A request the browser will not build (a URL with credentials in it) fails as its fetch would have.
    let answered = match &request.body {
        Some(body) => builder.body(body.as_str()),
        None => builder.build(),
    };
    let answered = match answered {
        Ok(built) => built.send().await,
        Err(error) => Err(error),
    };
    drop(deadline);
    let response = match answered {
        Ok(response) => response,
        Err(_) if call.timed_out.get() => {
            return Err(Failure::Timeout { url: request.url.clone(), seconds: timeout_s.into() });
        }
        Err(error) if was_aborted(&error) => return Err(Failure::Stopped),
        Err(_) => return Err(diagnose(&request.url).await),
    };
    if !response.ok() {
        let body = body_text(&response).await;
        return Err(failure_for_status(endpoint, response.status(), &body));
    }
    Ok(response)
}

/// A response's whole body as text; empty when it cannot be read (the caller then reports what it lacks).
async fn body_text(response: &Response) -> String {
    response.text().await.unwrap_or_default()
}

/// A call the browser cannot make (no `AbortController`), as the endpoint's failure.
fn unstoppable(endpoint: &Endpoint) -> impl FnOnce(JsError) -> Failure + '_ {
    move |reason| Failure::Unreachable { url: endpoint.base_url.clone(), reason: reason.to_string() }
}

/// The endpoint's models.
pub async fn models(endpoint: &Endpoint, timeout_s: u32) -> Result<Vec<String>, Failure> {
    let call = Call::new().map_err(unstoppable(endpoint))?;
    let request = models_request(endpoint);
    let response = send(endpoint, &request, &call, timeout_s).await?;
    let body = body_text(&response).await;
    parse_models(endpoint.provider, &body)
        .map_err(|reason| Failure::Stream(StreamError::Malformed { expected: "model list", line: reason.to_string() }))
}

/// The connection test: the model list (server, CORS, key), the model in it, then a short streamed answer
/// (the stream's format, and whether the model starts answering in time). The models on success.
pub async fn test_connection(endpoint: &Endpoint, timeout_s: u32) -> Result<Vec<String>, Failure> {
    let available = models(endpoint, timeout_s).await?;
    if endpoint.model.is_empty() {
        return Ok(available);
    }
    // Ollama lists `llama3.2:latest` for what its users call `llama3.2`, and answers to both.
    let listed = |model: &String| *model == endpoint.model || *model == format!("{}:latest", endpoint.model);
    if !available.iter().any(listed) {
        return Err(Failure::UnknownModel { model: endpoint.model.clone(), available });
    }
    let mut probe = endpoint.clone();
    probe.max_tokens = 8;
    let hello = [Message { role: "user".into(), content: "Reply with the word OK.".into() }];
    let call = Call::new().map_err(unstoppable(endpoint))?;
    stream(&probe, &hello, &call, timeout_s, &mut |_| {}).await?;
    Ok(available)
}

/// Streams the answer to `messages`, each piece of text to `on_text` as it arrives; the whole answer.
pub async fn stream(
    endpoint: &Endpoint,
    messages: &[Message],
    call: &Call,
    timeout_s: u32,
    on_text: &mut dyn FnMut(&str),
) -> Result<String, Failure> {
    let request = chat_request(endpoint, messages);
    let response = send(endpoint, &request, call, timeout_s).await?;
    // The same call's abort ends a read: the idle timer's, the user's Stop, or the page leaving.
    let dropped = |error: JsValue| match (is_abort(&error), call.timed_out.get()) {
        (true, true) => Failure::Stalled { url: request.url.clone(), seconds: timeout_s.into() },
        (true, false) => Failure::Stopped,
        (false, _) => Failure::Unreachable {
            url: request.url.clone(),
            reason: format!("the connection broke: {}", describe(error)),
        },
    };
    let Some(body) = response.body() else { return Err(Failure::Stream(StreamError::Truncated)) };
    let reader: ReadableStreamDefaultReader = body.get_reader().unchecked_into();
    let mut decoder = StreamDecoder::new(endpoint.provider);
    let mut answer = String::new();
    let mut budget = AnswerBudget::default();
    let started = js_sys::Date::now();
    loop {
        // Each piece must come within the timeout of the last: a server that stalls mid-answer is let go.
        let idle = deadline(call, timeout_s.max(1) * 1000);
        let chunk = JsFuture::from(reader.read()).await.map_err(dropped)?;
        drop(idle);
        let finished = js_sys::Reflect::get(&chunk, &"done".into()).ok().and_then(|d| d.as_bool()) == Some(true);
        let events = if finished {
            decoder.finish()
        } else {
            let value: Uint8Array = js_sys::Reflect::get(&chunk, &"value".into()).map_err(dropped)?.unchecked_into();
            decoder.push(&value.to_vec())
        };
        let events = events.inspect_err(|_| {
            // The rest of a stream that cannot be read is not worth downloading.
            let _ = reader.cancel();
        })?;
        for event in events {
            match event {
                StreamEvent::Text(text) => {
                    if let Err(failure) = budget.take(&text, (js_sys::Date::now() - started) / 1000.0) {
                        let _ = reader.cancel();
                        return Err(failure);
                    }
                    answer.push_str(&text);
                    on_text(&text);
                }
                StreamEvent::Done => {
                    let _ = reader.cancel();
                    return Ok(answer);
                }
            }
        }
        if finished {
            return Ok(answer);
        }
    }
}
