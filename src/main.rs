//! The `quire` binary: the native CLI, or the browser app's engine module when built for wasm32 by Trunk
//! (the page's module is `quire-page`, src/page.rs).

#[cfg(not(target_arch = "wasm32"))]
mod cli;

#[cfg(not(target_arch = "wasm32"))]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    end_quietly_when_the_reader_leaves();
    keep_freed_memory();
    std::process::exit(cli::run());
}

/// Rust ignores SIGPIPE, so a write to a closed pipe (`quire stats x.quire --documents | head`) is an error,
/// and `println!` panics on it. Command-line tools end quietly instead: the default action ends the process.
#[cfg(not(target_arch = "wasm32"))]
fn end_quietly_when_the_reader_leaves() {
    #[cfg(unix)]
    // SAFETY: sets a process-wide signal disposition before any thread starts.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

/// mimalloc hands pages freed for 10 ms back to the kernel; every embedding batch then faults them in
/// again, zeroed (a tenth of the indexing time). A command-line run keeps them until it exits.
#[cfg(not(target_arch = "wasm32"))]
fn keep_freed_memory() {
    // `mi_option_purge_delay` in mimalloc.h's `mi_option_e` (libmimalloc-sys names no constant for it).
    const PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;
    // SAFETY: sets a process-wide option before any thread starts; -1 means "never purge".
    unsafe { libmimalloc_sys::mi_option_set(PURGE_DELAY, -1) };
}

#[cfg(target_arch = "wasm32")]
fn main() {
    quire::web::start_engine();
}
