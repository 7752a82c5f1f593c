//! The files a command names, read from disk: named files and the supported files under named folders
//! (hidden ones skipped, link loops reported once), each read within its size limit under its source name,
//! and each one that cannot be read as its own error.

use std::path::{Path, PathBuf};

use quire::corpus::{self, IngestError, IngestFailure, SourceFile};
use quire::store::IndexSettings;
use quire::store::pipeline::InputFile;

/// Every supported file under `root` (hidden ones skipped), read, each named by its path inside `root`:
/// a labelled folder's documents are known by those paths.
pub fn read_folder(root: &Path) -> Vec<InputFile> {
    collect_files(&[root.to_path_buf()])
        .into_iter()
        .map(|file| file.and_then(|path| read_file(&path, Some(root), IndexSettings::default().corpus.max_file_bytes)))
        .collect()
}

/// A file read from disk under its source name, or why it could not be read. Its size is checked before
/// it is read, and no more than `limit` bytes and one are read whatever the file claims (a file can grow
/// while it is read).
pub(super) fn read_file(path: &Path, working_folder: Option<&Path>, limit: usize) -> InputFile {
    use std::io::Read;
    let name = source_name(path, working_folder);
    let too_large = |bytes: u64| IngestError {
        file: corpus::path::normalize(&name),
        failure: IngestFailure::TooLarge { bytes: usize::try_from(bytes).unwrap_or(usize::MAX), limit },
    };
    let file = std::fs::File::open(path).map_err(|e| unreadable(&name, &e))?;
    let claimed = file.metadata().map_err(|e| unreadable(&name, &e))?.len();
    if claimed > limit as u64 {
        return Err(too_large(claimed));
    }
    let mut bytes = Vec::with_capacity(claimed as usize);
    file.take(limit as u64 + 1).read_to_end(&mut bytes).map_err(|e| unreadable(&name, &e))?;
    if bytes.len() > limit {
        return Err(too_large(bytes.len() as u64));
    }
    Ok(SourceFile::new(&name, bytes))
}

fn unreadable(name: &str, error: &std::io::Error) -> IngestError {
    let reason = match error.kind() {
        std::io::ErrorKind::NotFound => "no such file or folder".to_string(),
        _ => error.to_string(),
    };
    unreadable_because(name, reason)
}

/// The file `name` could not be read, for `reason`.
fn unreadable_because(name: &str, reason: String) -> IngestError {
    IngestError { file: corpus::path::normalize(name), failure: IngestFailure::Unreadable(reason) }
}

/// Files named explicitly (missing ones too, so they are reported), plus files with a supported extension
/// found under named folders; a folder that cannot be listed, as its error. Only regular files are read: a
/// FIFO would block the run and a device (`/dev/zero`) never ends.
pub(super) fn collect_files(paths: &[PathBuf]) -> Vec<Result<PathBuf, IngestError>> {
    let mut files = Vec::new();
    for path in paths {
        match std::fs::metadata(path) {
            Ok(metadata) if metadata.is_dir() => walk(path, &mut files),
            Ok(metadata) if !metadata.is_file() => files.push(Err(not_a_file(path))),
            _ => files.push(Ok(path.clone())),
        }
    }
    files
}

/// Supported regular files under `dir`, in name order; hidden files and folders are skipped. Symbolic links
/// are followed (a linked folder is part of the tree), and a link back into its own ancestors is reported
/// once instead of walked forever (walkdir keeps the ancestors' identities).
fn walk(dir: &Path, files: &mut Vec<Result<PathBuf, IngestError>>) {
    let hidden = |entry: &walkdir::DirEntry| {
        entry.depth() > 0 && corpus::path::hidden_name(&entry.file_name().to_string_lossy())
    };
    let root = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
    let escapes = std::cell::RefCell::new(Vec::new());
    let inside = |entry: &walkdir::DirEntry| {
        let outside =
            entry.path_is_symlink() && entry.path().canonicalize().is_ok_and(|target| !target.starts_with(&root));
        if outside {
            escapes.borrow_mut().push(Err(unreadable_because(
                &entry.path().display().to_string(),
                "a link out of the folder, not followed".into(),
            )));
        }
        !outside
    };
    let entries = walkdir::WalkDir::new(dir).follow_links(true).sort_by_file_name().into_iter();
    for entry in entries.filter_entry(|entry| !hidden(entry) && inside(entry)) {
        match entry {
            Ok(entry) if !entry.file_type().is_dir() => {
                if corpus::detect_format(&entry.path().to_string_lossy(), &[]).is_ok() {
                    let is_file = entry.file_type().is_file();
                    files.push(if is_file { Ok(entry.into_path()) } else { Err(not_a_file(entry.path())) });
                }
            }
            Ok(_) => {}
            Err(error) => {
                let place = error.path().unwrap_or(dir).display().to_string();
                let reason = match error.loop_ancestor() {
                    Some(ancestor) => format!("a link back to {}, not followed", ancestor.display()),
                    None => error.to_string(),
                };
                files.push(Err(unreadable_because(&place, reason)));
            }
        }
    }
    files.extend(escapes.into_inner());
}

fn not_a_file(path: &Path) -> IngestError {
    unreadable_because(&path.display().to_string(), "not a regular file (a pipe, a device or a socket)".into())
}

/// A document's identity is its path relative to the working folder where it lies inside it, so
/// `/home/me/notes/a.md` and `notes/a.md` (run from `/home/me`) name one document.
fn source_name(path: &Path, working_folder: Option<&Path>) -> String {
    let relative = working_folder.and_then(|folder| path.strip_prefix(folder).ok());
    relative.unwrap_or(path).to_string_lossy().into_owned()
}
