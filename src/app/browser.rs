//! The few browser services the app needs: fetching bytes, reading picked files, yielding to the event
//! loop, and a clock.

use js_sys::{Promise, Uint8Array};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

fn window() -> web_sys::Window {
    web_sys::window().expect("the app runs in a browser window")
}

pub fn describe(error: JsValue) -> String {
    error
        .as_string()
        .or_else(|| js_sys::JSON::stringify(&error).ok().and_then(|s| s.as_string()))
        .unwrap_or_else(|| "unknown error".into())
}

/// GET `url` as bytes; a non-2xx status is an error naming the URL.
pub async fn fetch_bytes(url: &str) -> Result<Vec<u8>, String> {
    let response = JsFuture::from(window().fetch_with_str(url)).await.map_err(|e| format!("{url}: {}", describe(e)))?;
    let response: web_sys::Response = response.dyn_into().map_err(|_| format!("{url}: not an HTTP response"))?;
    if !response.ok() {
        return Err(format!("{url}: HTTP {}", response.status()));
    }
    let buffer = response.array_buffer().map_err(|e| format!("{url}: {}", describe(e)))?;
    let buffer = JsFuture::from(buffer).await.map_err(|e| format!("{url}: {}", describe(e)))?;
    Ok(Uint8Array::new(&buffer).to_vec())
}

/// The path a picked file is known by: its path inside the folder for a folder upload (`webkitRelativePath`,
/// which web-sys does not bind), its name otherwise.
pub fn upload_path(file: &web_sys::File) -> String {
    js_sys::Reflect::get(file, &"webkitRelativePath".into())
        .ok()
        .and_then(|value| value.as_string())
        .filter(|path| !path.is_empty())
        .unwrap_or_else(|| file.name())
}

pub async fn read_file(file: &web_sys::File) -> Result<Vec<u8>, String> {
    let buffer = JsFuture::from(file.array_buffer()).await.map_err(|e| format!("{}: {}", file.name(), describe(e)))?;
    Ok(Uint8Array::new(&buffer).to_vec())
}

/// Lets the browser paint and handle input between slices of long work.
pub async fn next_tick() {
    let promise = Promise::new(&mut |resolve, _| {
        let _ = window().set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, 0);
    });
    let _ = JsFuture::from(promise).await;
}

pub fn now_ms() -> f64 {
    window().performance().map(|p| p.now()).unwrap_or_else(js_sys::Date::now)
}

/// A parameter of the page's URL; only the measuring build reads any (`?bench=embed`).
#[cfg(feature = "bench")]
pub fn query_parameter(name: &str) -> Option<String> {
    let search = window().location().search().ok()?;
    web_sys::UrlSearchParams::new_with_str(&search).ok()?.get(name)
}

/// Offers `bytes` to the user as a download named `name`.
pub fn download(name: &str, bytes: &[u8]) -> Result<(), String> {
    let parts = js_sys::Array::of1(&Uint8Array::from(bytes));
    let options = web_sys::BlobPropertyBag::new();
    options.set_type("application/octet-stream");
    let blob = web_sys::Blob::new_with_u8_array_sequence_and_options(&parts, &options).map_err(describe)?;
    let url = web_sys::Url::create_object_url_with_blob(&blob).map_err(describe)?;
    let document = window().document().ok_or("no document")?;
    let link: web_sys::HtmlAnchorElement = document.create_element("a").map_err(describe)?.unchecked_into();
    link.set_href(&url);
    link.set_download(name);
    link.click();
    web_sys::Url::revoke_object_url(&url).map_err(describe)
}
