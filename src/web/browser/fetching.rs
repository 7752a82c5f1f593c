//! Fetching bytes in the page and its workers: whole, with progress, revalidated with the server, and
//! inflated from a gzipped copy, and a JavaScript error in words. gloo-net's `fetch` is the global one, so
//! the same call serves both.

use js_sys::Uint8Array;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

use crate::web::error::{FetchError, JsError};

/// A JavaScript error (a string, an Error, anything JSON can write) in words.
pub fn describe(error: JsValue) -> JsError {
    let said = error
        .as_string()
        .or_else(|| error.dyn_ref::<js_sys::Error>().map(|e| String::from(e.message())))
        .or_else(|| js_sys::JSON::stringify(&error).ok().and_then(|s| s.as_string()))
        .unwrap_or_else(|| "unknown error".into());
    JsError(said)
}

/// Why a request failed, in `describe`'s words: gloo-net keeps a JavaScript error's name and message only.
pub fn describe_request(error: gloo_net::Error) -> JsError {
    match error {
        gloo_net::Error::JsError(error) => JsError(error.message),
        other => JsError(other.to_string()),
    }
}

/// GET `url` as bytes; a non-2xx status is an error naming the URL.
pub async fn fetch_bytes(url: &str) -> Result<Vec<u8>, FetchError> {
    fetch_bytes_with_progress(url, |_, _| {}).await
}

/// GET `url` as bytes, from the server or from a copy the browser's cache has confirmed with it: for a file
/// that says which version of the site the others must be (an index's fragments' lexicon).
pub async fn fetch_bytes_revalidated(url: &str) -> Result<Vec<u8>, FetchError> {
    read(gloo_net::http::Request::get(url).cache(web_sys::RequestCache::NoCache), url, |_, _| {}).await
}

/// `bytes` inflated where they are gzip's (a `.gz` copy a server sends as it is), by the browser's
/// DecompressionStream; as they are where the server decoded the copy itself (its Content-Encoding).
pub async fn gunzipped(bytes: Vec<u8>) -> Result<Vec<u8>, JsError> {
    if !bytes.starts_with(&[0x1f, 0x8b]) {
        return Ok(bytes);
    }
    let parts = js_sys::Array::of1(&Uint8Array::from(bytes.as_slice()));
    let blob = web_sys::Blob::new_with_u8_array_sequence(&parts).map_err(describe)?;
    // Constructed by name: web-sys has DecompressionStream only behind its unstable APIs' flag.
    let class = js_sys::Reflect::get(&js_sys::global(), &"DecompressionStream".into()).map_err(describe)?;
    let class: js_sys::Function = class.dyn_into().map_err(|_| JsError("no DecompressionStream".into()))?;
    let inflate = js_sys::Reflect::construct(&class, &js_sys::Array::of1(&"gzip".into())).map_err(describe)?;
    let stream = blob.stream().pipe_through(inflate.unchecked_ref());
    let response = web_sys::Response::new_with_opt_readable_stream(Some(&stream)).map_err(describe)?;
    let buffer = JsFuture::from(response.array_buffer().map_err(describe)?).await.map_err(describe)?;
    Ok(Uint8Array::new(&buffer).to_vec())
}

/// GET `url` as bytes, telling `progress` the bytes received so far and the total when the server said it.
pub async fn fetch_bytes_with_progress(
    url: &str,
    progress: impl FnMut(usize, Option<usize>),
) -> Result<Vec<u8>, FetchError> {
    read(gloo_net::http::Request::get(url), url, progress).await
}

async fn read(
    request: gloo_net::http::RequestBuilder,
    url: &str,
    mut progress: impl FnMut(usize, Option<usize>),
) -> Result<Vec<u8>, FetchError> {
    let failed = |reason: JsError| FetchError::Failed { url: url.to_string(), reason };
    // gloo-net panics on a rejection that is not a JavaScript error; a fetch that nothing aborts rejects with
    // a TypeError only.
    let response = request.send().await.map_err(|error| failed(describe_request(error)))?;
    if !response.ok() {
        return Err(FetchError::Status { url: url.to_string(), status: response.status() });
    }
    let failed = |error: JsValue| failed(describe(error));
    let total = response.headers().get("content-length").and_then(|length| length.parse().ok());
    // The body is read as a stream, not whole (`binary`), so that the model's download reports progress.
    let Some(body) = response.body() else { return Ok(Vec::new()) };
    let reader: web_sys::ReadableStreamDefaultReader = body.get_reader().unchecked_into();
    // Reserved up to 64 MB: a header is no promise, and a huge one would abort the module.
    let mut bytes = Vec::with_capacity(total.unwrap_or(0).min(64 << 20));
    loop {
        let chunk = JsFuture::from(reader.read()).await.map_err(failed)?;
        if js_sys::Reflect::get(&chunk, &"done".into()).map_err(failed)?.as_bool() == Some(true) {
            return Ok(bytes);
        }
        let value: Uint8Array = js_sys::Reflect::get(&chunk, &"value".into()).map_err(failed)?.unchecked_into();
        let start = bytes.len();
        bytes.resize(start + value.length() as usize, 0);
        value.copy_to(&mut bytes[start..]);
        progress(bytes.len(), total);
    }
}
