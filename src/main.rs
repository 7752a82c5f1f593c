//! The `quire` binary: the native CLI, or the browser app when built for wasm32 (by Trunk).

#[cfg(not(target_arch = "wasm32"))]
mod cli;

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    std::process::exit(cli::run());
}

#[cfg(target_arch = "wasm32")]
fn main() {
    quire::app::start();
}
