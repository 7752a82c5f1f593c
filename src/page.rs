//! The `quire-page` binary: the browser app's page module, built for wasm32 by Trunk. It holds the page and
//! an engine that answers by words; the engine with the embedder and the parsers is the `quire` binary's
//! module, which the page starts behind it (`web::client`).

#[cfg(target_arch = "wasm32")]
fn main() {
    quire::app::start_page();
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("quire-page is the browser app's page module: build it with Trunk; the CLI is `quire`");
    std::process::exit(2);
}
