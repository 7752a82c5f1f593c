//! The web engine (wasm32 only): the engine worker that holds the index in the browser (`worker/`), the
//! pool of embedding workers beside it (`pool`), the calls the page makes of it and their replies (`calls`,
//! `protocol`), the page's handle on it (`client`: starting it, calling it, the engine by words handing
//! over to the full one), this browser's storage of the index (`storage`: OPFS), the browser APIs they
//! share (`browser`), the roles a worker starts in (`roles`), and why a call fails (`error`: `EngineError`,
//! which crosses to the page, and `Failure`, what the page's call meets). The page (`app`) holds views and
//! their state and reaches the engine only through `client`.

pub mod browser;
pub mod calls;
pub mod client;
pub mod error;
mod model;
mod pool;
pub mod protocol;
pub mod roles;
pub mod storage;
mod worker;

/// The engine module's entry (the `quire` binary): the full engine worker, or one of its embedding workers.
pub fn start_engine() {
    let role = browser::worker_role();
    match (role.as_deref(), role.as_deref().and_then(roles::embedder_model)) {
        (_, Some(model)) => pool::serve_embedding(model),
        (Some(roles::ENGINE), _) => worker::serve(),
        (Some(unknown), _) => web_sys::console::error_1(&format!("no worker role `{unknown}`").into()),
        (None, _) => web_sys::console::error_1(&"this is the engine's module; the page loads quire-page".into()),
    }
}

/// In the page's module (the `quire-page` binary): serves the engine that answers by words when this is its
/// worker, and says whether it was.
pub fn serve_by_words_here() -> bool {
    match browser::worker_role().as_deref() {
        Some(roles::ENGINE) => worker::serve_by_words(),
        Some(unknown) => web_sys::console::error_1(&format!("no worker role `{unknown}`").into()),
        None => return false,
    }
    true
}
