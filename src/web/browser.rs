//! The few browser services the app needs, in the page and in its workers alike: fetching bytes (with
//! progress), reading picked and dropped files, yielding to the event loop, a clock, and the module's memory.
//! gloo carries what it covers: requests (`gloo-net`, whose `fetch` is the global one, so the same call
//! serves the page and a worker), reading a file (`gloo-file`), the yield (`gloo-timers`), and the worker's
//! start message (`serde-wasm-bindgen`). The folder walk of a drop (`webkitGetAsEntry`, a directory reader)
//! stays on web-sys: gloo has no binding for the entries API.

use js_sys::Promise;
use serde::Serialize;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

use super::error::{ClientError, JsError};
use super::protocol::FileBytes;

mod fetching;
pub use fetching::{
    describe, describe_request, fetch_bytes, fetch_bytes_revalidated, fetch_bytes_with_progress, gunzipped,
};

fn window() -> web_sys::Window {
    web_sys::window().expect("the page runs in a browser window")
}

/// Where this code runs: the page, or one of the app's workers. The two scopes share the clock, but not a Rust
/// type.
enum Scope {
    Page(web_sys::Window),
    Worker(web_sys::WorkerGlobalScope),
}

/// `navigator.storage`, in the page or a worker; `None` where the browser has none (WebKitGTK).
pub fn storage_manager() -> Option<web_sys::StorageManager> {
    let navigator: JsValue = match scope() {
        Scope::Page(window) => window.navigator().into(),
        Scope::Worker(worker) => worker.navigator().into(),
    };
    let storage = js_sys::Reflect::get(&navigator, &"storage".into()).ok()?;
    storage.is_object().then(|| storage.unchecked_into())
}

fn scope() -> Scope {
    let global = js_sys::global();
    // `instanceof Window` would throw inside a worker, where `Window` is not defined.
    let in_worker = js_sys::Reflect::has(&global, &"WorkerGlobalScope".into()).unwrap_or(false);
    if in_worker { Scope::Worker(global.unchecked_into()) } else { Scope::Page(global.unchecked_into()) }
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

/// What a drop holds, taken while the drop event runs (its items are gone once it returns): one entry per
/// dropped file or folder; `None` where some dropped file has no entry (no entries API, or a drop made by
/// a script), or where no folder was dropped, so that the drop's plain file list is read instead: WebKit
/// gives a script's drop entries whose files never arrive, and files need no walk.
pub fn dropped_entries(transfer: &web_sys::DataTransfer) -> Option<Vec<web_sys::FileSystemEntry>> {
    let items = transfer.items();
    let entries: Vec<web_sys::FileSystemEntry> = (0..items.length())
        .filter_map(|i| items.get(i))
        .filter(|item| item.kind() == "file")
        .map(|item| item.webkit_get_as_entry().ok().flatten())
        .collect::<Option<_>>()?;
    entries.iter().any(web_sys::FileSystemEntry::is_directory).then_some(entries)
}

/// A callback-style API (`success`, `error`) as a future.
async fn called_back(
    start: impl FnOnce(&js_sys::Function, &js_sys::Function) -> Result<(), JsValue>,
) -> Result<JsValue, JsError> {
    let mut start = Some(start);
    let promise = Promise::new(&mut |resolve, reject| {
        if let Some(Err(error)) = start.take().map(|start| start(&resolve, &reject)) {
            let _ = reject.call1(&JsValue::NULL, &error);
        }
    });
    JsFuture::from(promise).await.map_err(describe)
}

/// Every file under the dropped `entries`, folders walked to the bottom, each with its path from the
/// dropped item on (`notes/moon.md` for a dropped folder `notes`), as a folder picker names them; entries
/// that cannot be read are reported by path in the second list.
pub async fn walk_entries(entries: Vec<web_sys::FileSystemEntry>) -> (Vec<(String, web_sys::File)>, Vec<String>) {
    let (mut files, mut unreadable) = (Vec::new(), Vec::new());
    let mut pending = entries;
    while let Some(entry) = pending.pop() {
        let path = entry.full_path().trim_start_matches('/').to_string();
        if entry.is_directory() {
            let reader = entry.unchecked_into::<web_sys::FileSystemDirectoryEntry>().create_reader();
            // A reader hands out a folder's entries in batches until it returns an empty one.
            loop {
                let batch = called_back(|ok, error| reader.read_entries_with_callback_and_callback(ok, error)).await;
                match batch.map(|value| value.unchecked_into::<js_sys::Array>()) {
                    Ok(batch) if batch.length() > 0 => pending.extend(batch.iter().map(JsCast::unchecked_into)),
                    Ok(_) => break,
                    Err(reason) => {
                        unreadable.push(format!("{path}: {reason}"));
                        break;
                    }
                }
            }
        } else {
            let file_entry = entry.unchecked_into::<web_sys::FileSystemFileEntry>();
            match called_back(|ok, error| {
                file_entry.file_with_callback_and_callback(ok, error);
                Ok(())
            })
            .await
            {
                Ok(file) => files.push((path, file.unchecked_into())),
                Err(reason) => unreadable.push(format!("{path}: {reason}")),
            }
        }
    }
    files.sort_by(|a, b| a.0.cmp(&b.0));
    (files, unreadable)
}

/// A file's bytes, or the browser's reason it cannot read them.
pub async fn read_bytes(file: &web_sys::File) -> Result<Vec<u8>, JsError> {
    use gloo_file::FileReadError;
    gloo_file::futures::read_as_bytes(&gloo_file::Blob::from(file.clone())).await.map_err(|error| match error {
        FileReadError::NotFound(reason) | FileReadError::NotReadable(reason) | FileReadError::Security(reason) => {
            JsError(reason)
        }
        aborted @ FileReadError::AbortedEarly => JsError(aborted.to_string()),
    })
}

/// A picked or dropped file the browser could not read, by its name.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{name}: {reason}")]
pub struct Unreadable {
    pub name: String,
    pub reason: JsError,
}

pub async fn read_file(file: &web_sys::File) -> Result<Vec<u8>, Unreadable> {
    read_bytes(file).await.map_err(|reason| Unreadable { name: file.name(), reason })
}

/// A picker's files, each with its path inside a picked folder (or its name).
pub fn picked_files(list: &web_sys::FileList) -> Vec<(String, web_sys::File)> {
    (0..list.length()).filter_map(|i| list.get(i)).map(|file| (upload_path(&file), file)).collect()
}

/// Turns picked or dropped files into the engine's files; a file the browser cannot read, or one larger than
/// an index takes (known from its size, before it is read), is reported in the second list. Hidden files
/// inside folders are not read ([`crate::corpus::path::hidden_in_folder`]).
pub async fn read_picked(picked: Vec<(String, web_sys::File)>) -> (Vec<FileBytes>, Vec<String>) {
    let picked = picked.into_iter().filter(|(path, _)| !crate::corpus::path::hidden_in_folder(path));
    let (mut paths, picked): (Vec<String>, Vec<web_sys::File>) = picked.unzip();
    crate::corpus::path::disambiguate(&mut paths);
    let limit = crate::corpus::CorpusSettings::default().max_file_bytes;
    let mut files = Vec::new();
    let mut unreadable = Vec::new();
    for (file, path) in picked.iter().zip(paths) {
        if file.size() > limit as f64 {
            let too_large = crate::corpus::IngestFailure::TooLarge { bytes: file.size() as usize, limit };
            unreadable.push(format!("{path}: {too_large}"));
            continue;
        }
        match read_file(file).await {
            Ok(bytes) => files.push(FileBytes { path, bytes }),
            Err(unread) => unreadable.push(unread.to_string()),
        }
    }
    (files, unreadable)
}

/// Lets the event loop run (a worker reads a Cancel, the page paints) between slices of long work: a
/// message to itself, a task of its own, so that every message already queued is handled first (a
/// microtask would not let them in). Not a zero-delay timeout: browsers hold a chain of those to 4 ms each
/// after the fifth, and the engine worker yields after every text it embeds (about 4 % of its time lost,
/// docs/BENCHMARKS.md); a message comes back in microseconds.
pub async fn next_tick() {
    if let Ok(channel) = web_sys::MessageChannel::new() {
        let answered = Promise::new(&mut |resolve, _| channel.port1().set_onmessage(Some(&resolve)));
        let posted = channel.port2().post_message(&JsValue::NULL).is_ok();
        if posted {
            let _ = JsFuture::from(answered).await;
        }
        // A port with a listener is never collected while open: each yield would keep its channel.
        channel.port1().close();
        channel.port2().close();
        if posted {
            return;
        }
    }
    gloo_timers::future::TimeoutFuture::new(0).await;
}

pub fn now_ms() -> f64 {
    let performance = match scope() {
        Scope::Page(window) => window.performance(),
        Scope::Worker(worker) => worker.performance(),
    };
    performance.map(|p| p.now()).unwrap_or_else(js_sys::Date::now)
}

/// Bytes of this module's linear memory in the calling scope (each worker has its own). Wasm memory only
/// grows, so this is the most the scope has held at once.
pub fn wasm_memory_bytes() -> u32 {
    let memory: js_sys::WebAssembly::Memory = wasm_bindgen::memory().unchecked_into();
    memory.buffer().unchecked_into::<js_sys::ArrayBuffer>().byte_length()
}

/// Names the page's tab.
pub fn set_document_title(title: &str) {
    if let Some(document) = window().document() {
        document.set_title(title);
    }
}

/// A parameter of the page's URL (`?index=`, and the measuring build's `?bench=embed`).
pub fn query_parameter(name: &str) -> Option<String> {
    let search = window().location().search().ok()?;
    web_sys::UrlSearchParams::new_with_str(&search).ok()?.get(name)
}

/// How long a download's object URL outlives the click that started it.
const DOWNLOAD_URL_KEPT_MS: u32 = 60_000;

/// Offers `bytes` to the user as a download named `name`.
pub fn download(name: &str, bytes: js_sys::ArrayBuffer) -> Result<(), JsError> {
    let blob = gloo_file::Blob::new_with_options(bytes, Some("application/octet-stream"));
    // Revoked a minute after the click, not at once: WebKit reads the URL after the click returns, and a
    // download whose URL was revoked meanwhile fails.
    let url = gloo_file::ObjectUrl::from(blob);
    let document = window().document().ok_or_else(no_document)?;
    let link: web_sys::HtmlAnchorElement = document.create_element("a").map_err(describe)?.unchecked_into();
    link.set_href(&url);
    link.set_download(name);
    link.click();
    gloo_timers::callback::Timeout::new(DOWNLOAD_URL_KEPT_MS, move || drop(url)).forget();
    Ok(())
}

/// Registers the service worker that keeps the app usable offline (`www/sw.js`). Where the browser offers
/// none (a page not served from a secure origin) or refuses it, the app works as before, online.
pub async fn register_service_worker() {
    let navigator = window().navigator();
    if js_sys::Reflect::has(&navigator, &"serviceWorker".into()).unwrap_or(false) {
        let _ = JsFuture::from(navigator.service_worker().register("sw.js")).await;
    }
}

/// Whether a service worker controls the page: the site is kept for offline use, and its files come from
/// the browser's cache, not the network.
pub fn kept_offline() -> bool {
    let navigator = window().navigator();
    if !js_sys::Reflect::has(&navigator, &"serviceWorker".into()).unwrap_or(false) {
        return false;
    }
    js_sys::Reflect::get(&navigator.service_worker(), &"controller".into())
        .is_ok_and(|controller| !controller.is_null() && !controller.is_undefined())
}

/// What is said of a page without a document (never, in a browser window).
fn no_document() -> JsError {
    JsError("no document".into())
}

/// The full engine's module, as the build names it in the page (scripts/finish_build.py: named by its
/// content, so that a page never starts another build's engine).
pub fn engine_module() -> Result<String, ClientError> {
    let document = window().document().ok_or_else(no_document).map_err(ClientError::WorkerNotStarted)?;
    let meta = document
        .query_selector(r#"meta[name="quire-engine"]"#)
        .map_err(|e| ClientError::WorkerNotStarted(describe(e)))?;
    meta.and_then(|meta| meta.get_attribute("content")).ok_or(ClientError::NoEngineModule)
}

/// The script every worker of the app starts from (`www/engine-worker.js`).
const WORKER_SCRIPT: &str = "engine-worker.js";

#[wasm_bindgen::prelude::wasm_bindgen]
extern "C" {
    type ImportMeta;
    #[wasm_bindgen(thread_local_v2, js_namespace = import, js_name = meta)]
    static IMPORT_META: ImportMeta;
    #[wasm_bindgen(method, getter)]
    fn url(this: &ImportMeta) -> String;
}

/// The first message to a worker, read by `www/engine-worker.js` as a plain object (`{ module, role }`, and
/// `compiled`, the module itself, when it is this one), before any wasm is loaded there: so not the
/// MessagePack bytes the app's own messages are.
#[derive(Serialize)]
struct WorkerStart<'a> {
    module: &'a str,
    role: &'a str,
}

/// Starts a worker in `role` that loads this very module (its URL is the module's own, hashed by Trunk), or
/// `other`, a module beside it.
pub fn start_worker(role: &str, other: Option<&str>) -> Result<web_sys::Worker, JsError> {
    let options = web_sys::WorkerOptions::new();
    options.set_type(web_sys::WorkerType::Module);
    let worker = web_sys::Worker::new_with_options(WORKER_SCRIPT, &options).map_err(describe)?;
    let own = IMPORT_META.with(ImportMeta::url);
    let module = match other {
        Some(file) => format!("{}{file}", &own[..own.rfind('/').map_or(0, |slash| slash + 1)]),
        None => own,
    };
    let start =
        serde_wasm_bindgen::to_value(&WorkerStart { module: &module, role }).map_err(|e| JsError(e.to_string()))?;
    // A worker of this very module gets it compiled: an engine that does not share compiled code between
    // workers (WebKit) would otherwise compile its 30 MB once more in every worker of the pool.
    if other.is_none() {
        js_sys::Reflect::set(&start, &"compiled".into(), &wasm_bindgen::module()).map_err(describe)?;
    }
    worker.post_message(&start).map_err(describe)?;
    Ok(worker)
}

/// The role this worker was started in (`start_worker`), or `None` in the page.
pub fn worker_role() -> Option<String> {
    match scope() {
        Scope::Page(_) => None,
        Scope::Worker(worker) => js_sys::Reflect::get(&worker, &"quireRole".into()).ok()?.as_string(),
    }
}
