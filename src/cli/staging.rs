//! A folder a command writes whole or not at all: written beside its place (`NAME.partial`), every file
//! with its precompressed copies, then moved in, the folder it replaces moved aside first and removed only
//! once the new one is in place.

use std::path::Path;

use anyhow::Context;

use super::compressed::{Gzip, precompress, sibling};
use super::shared::{CliResult, named};

/// Whether `dir` is a folder with nothing in it.
pub(super) fn is_empty_folder(dir: &Path) -> bool {
    std::fs::read_dir(dir).map(|mut entries| entries.next().is_none()).unwrap_or(false)
}

/// Removes `dir` and all it holds, if it is there.
pub(super) fn remove_if_present(dir: &Path) -> CliResult {
    match std::fs::remove_dir_all(dir) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e).with_context(named(dir)),
        _ => Ok(()),
    }
}

/// Writes `bytes` as `name` (a `/`-separated path) inside `dir`, with its precompressed copies.
pub(super) fn write_with_copies(dir: &Path, name: &str, bytes: &[u8]) -> CliResult {
    write_squeezed(dir, name, bytes, Gzip::Best)
}

/// [`write_with_copies`], its `.gz` copy squeezed as `squeeze` says.
pub(super) fn write_squeezed(dir: &Path, name: &str, bytes: &[u8], squeeze: Gzip) -> CliResult {
    let path = dir.join(name);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).with_context(named(parent))?;
    }
    std::fs::write(&path, bytes).with_context(named(&path))?;
    precompress(&path, bytes, squeeze)
}

/// Puts `staging` where `output` was: the old folder moves aside first and goes only once the new one is
/// in place.
pub(super) fn replace(staging: &Path, output: &Path) -> CliResult {
    let old = sibling(output, "old");
    remove_if_present(&old)?;
    let had_one = output.exists();
    if had_one {
        std::fs::rename(output, &old).with_context(named(output))?;
    }
    if let Err(e) = std::fs::rename(staging, output) {
        if had_one {
            let _ = std::fs::rename(&old, output);
        }
        return Err(e).with_context(named(output));
    }
    remove_if_present(&old)
}
