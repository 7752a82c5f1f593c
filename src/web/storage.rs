//! The index kept in this browser: its snapshot in the Origin Private File System, written by the engine
//! worker after every change the user makes and read back by it when the app starts (the page never holds
//! its bytes; it asks whether one is saved, forgets it, and reads the storage's usage). A write never leaves half a file behind: a writable
//! stream writes to a temporary file that replaces the saved one only when the stream closes (the File System
//! standard's `createWritable`), so a tab closed mid-write keeps the last complete index. A browser without
//! that file system (WebKitGTK has no `navigator.storage` at all) keeps nothing: [`offered`] says so, nothing is
//! saved, the page says what that costs, and Export still keeps the index. The file system's
//! handles stay on web-sys: gloo has no binding for the Origin Private File System (gloo-storage is local
//! and session storage only, where the LLM settings live). The saved file is read as any picked file is.

use js_sys::{Reflect, Uint8Array};
use serde::Deserialize;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{
    FileSystemDirectoryHandle, FileSystemFileHandle, FileSystemGetFileOptions, FileSystemWritableFileStream,
};

use super::browser::{describe, read_bytes};
use super::error::StorageError;

const SAVED_INDEX: &str = "index.quire";

/// The storage manager, where the browser has the Origin Private File System in it.
fn storage() -> Option<web_sys::StorageManager> {
    let storage = super::browser::storage_manager()?;
    let get_directory = Reflect::get(&storage, &"getDirectory".into()).ok()?;
    get_directory.is_function().then_some(storage)
}

/// Whether this browser can keep the index (in the page or a worker).
pub fn offered() -> bool {
    storage().is_some()
}

async fn resolve<T: JsCast>(promise: js_sys::Promise) -> Result<T, JsValue> {
    JsFuture::from(promise).await?.dyn_into::<T>()
}

async fn folder() -> Result<FileSystemDirectoryHandle, StorageError> {
    let storage = storage().ok_or(StorageError::NotOffered)?;
    resolve(storage.get_directory()).await.map_err(|e| StorageError::Unavailable(describe(e)))
}

fn is_not_found(error: &JsValue) -> bool {
    Reflect::get(error, &"name".into()).ok().and_then(|name| name.as_string()).as_deref() == Some("NotFoundError")
}

fn reading_failed(error: JsValue) -> StorageError {
    StorageError::Reading(describe(error))
}

/// The saved index's file, or `None` when nothing is saved (or nothing can be).
async fn saved_file() -> Result<Option<FileSystemFileHandle>, StorageError> {
    if !offered() {
        return Ok(None);
    }
    match resolve(folder().await?.get_file_handle(SAVED_INDEX)).await {
        Ok(handle) => Ok(Some(handle)),
        Err(error) if is_not_found(&error) => Ok(None),
        Err(error) => Err(reading_failed(error)),
    }
}

/// Whether an index is saved, without reading it.
pub async fn is_saved() -> bool {
    matches!(saved_file().await, Ok(Some(_)))
}

/// The saved index's bytes, or `None` when nothing is saved.
pub async fn load() -> Result<Option<Vec<u8>>, StorageError> {
    let Some(handle) = saved_file().await? else { return Ok(None) };
    let file: web_sys::File = resolve(handle.get_file()).await.map_err(reading_failed)?;
    let bytes = read_bytes(&file).await.map_err(StorageError::Reading)?;
    Ok(Some(bytes))
}

/// Replaces the saved index with `bytes`.
pub async fn save(bytes: &[u8]) -> Result<(), StorageError> {
    let failed = |e: JsValue| StorageError::Saving(describe(e));
    let options = FileSystemGetFileOptions::new();
    options.set_create(true);
    let handle: FileSystemFileHandle =
        resolve(folder().await?.get_file_handle_with_options(SAVED_INDEX, &options)).await.map_err(failed)?;
    let stream: FileSystemWritableFileStream = resolve(handle.create_writable()).await.map_err(failed)?;
    let written = stream.write_with_buffer_source(&Uint8Array::from(bytes)).map_err(failed)?;
    JsFuture::from(written).await.map_err(failed)?;
    JsFuture::from(stream.close()).await.map_err(failed)?;
    Ok(())
}

/// Deletes the saved index; nothing saved (or nothing that can be) is not an error.
pub async fn forget() -> Result<(), StorageError> {
    if !offered() {
        return Ok(());
    }
    match JsFuture::from(folder().await?.remove_entry(SAVED_INDEX)).await {
        Err(error) if !is_not_found(&error) => Err(StorageError::Forgetting(describe(error))),
        _ => Ok(()),
    }
}

/// What this origin stores and may store, and whether the browser keeps it under storage pressure.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Usage {
    pub bytes: f64,
    pub quota: f64,
    pub persistent: bool,
}

/// What `navigator.storage.estimate()` resolves to; a browser may leave either number out.
#[derive(Default, Deserialize)]
#[serde(default)]
struct Estimate {
    usage: f64,
    quota: f64,
}

/// What this origin stores and may store, and whether the browser keeps it under storage pressure
/// (`persisted()`, which never asks the user: Firefox answers `persist()` only once the user has answered its
/// prompt, and a headless or unattended Firefox never does).
pub async fn usage() -> Option<Usage> {
    let storage = storage()?;
    let persistent = JsFuture::from(storage.persisted().ok()?).await.ok()?.as_bool().unwrap_or(false);
    let estimate = JsFuture::from(storage.estimate().ok()?).await.ok()?;
    let Estimate { usage, quota } = serde_wasm_bindgen::from_value(estimate).unwrap_or_default();
    Some(Usage { bytes: usage, quota, persistent })
}

static ASKED_TO_PERSIST: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Asks the browser to keep this origin's storage under pressure (`persist()`): once the user has an index
/// of their own saved. Firefox asks the user, so its answer may never come: nothing may wait for it but the
/// caller's own refresh of the usage. Whether it will be kept.
pub async fn ask_to_persist() -> bool {
    // Once a page: a user who said no is not asked again at every change.
    if ASKED_TO_PERSIST.swap(true, std::sync::atomic::Ordering::Relaxed) {
        return false;
    }
    let Some(promise) = storage().and_then(|storage| storage.persist().ok()) else { return false };
    JsFuture::from(promise).await.ok().and_then(|kept| kept.as_bool()).unwrap_or(false)
}
