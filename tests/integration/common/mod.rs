//! Shared by the integration tests: the real embedder, the bundled demo corpus, and indexing in-memory files.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use quire::corpus::SourceFile;
use quire::embed::{Embedder, EmbeddingModel, TextEmbedder};
use quire::store::{IndexBuilder, IndexSettings, IndexedCorpus, Vectors};

/// The checkout the tests run in. Read when they run (cargo sets it), not when they were compiled: the build
/// cache is shared between checkouts (a fresh clone's CI run), and a binary another checkout compiled can be
/// fresh here while its compiled-in path is gone.
pub fn root() -> &'static Path {
    static ROOT: OnceLock<PathBuf> = OnceLock::new();
    ROOT.get_or_init(|| {
        std::env::var_os("CARGO_MANIFEST_DIR").map_or_else(|| env!("CARGO_MANIFEST_DIR").into(), PathBuf::from)
    })
}

pub fn model_dir() -> PathBuf {
    root().join("models")
}

/// The pinned model; the tests need it (`bash models/fetch.sh`, which the README's test command runs).
pub fn embedder() -> &'static Embedder {
    static EMBEDDER: OnceLock<Embedder> = OnceLock::new();
    EMBEDDER.get_or_init(|| Embedder::from_dir(&model_dir(), EmbeddingModel::MiniLm).unwrap_or_else(|e| panic!("{e}")))
}

pub fn demo_files() -> Vec<SourceFile> {
    let manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(root().join("public/demo/manifest.json")).unwrap()).unwrap();
    manifest["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|name| {
            let name = name.as_str().unwrap();
            SourceFile::new(name, std::fs::read(root().join("public/demo").join(name)).unwrap())
        })
        .collect()
}

/// The demo corpus written as files into a new folder `docs` under `dir`; returns that folder.
pub fn write_demo_folder(dir: &Path) -> PathBuf {
    let docs = dir.join("docs");
    std::fs::create_dir(&docs).unwrap();
    for file in demo_files() {
        std::fs::write(docs.join(&file.path), &file.bytes).unwrap();
    }
    docs
}

/// `files` (name, text) parsed, embedded and indexed with `settings`; every file must parse.
pub fn index_files(files: &[(&str, &str)], settings: IndexSettings) -> IndexedCorpus {
    let files: Vec<SourceFile> = files.iter().map(|(name, text)| SourceFile::new(name, *text)).collect();
    let report = quire::corpus::ingest(&files, &settings.corpus);
    assert!(report.errors.is_empty(), "{:?}", report.errors);
    let embedder = embedder();
    let mut builder =
        IndexBuilder::new(report.documents, embedder, embedder.identity().clone(), settings, None, Vectors::All);
    builder.embed_all(embedder).unwrap();
    builder.finish()
}

/// The `quire` binary run with `args`, the models' folder set.
pub fn quire(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_quire"))
        .args(args)
        .env("QUIRE_MODEL_DIR", model_dir())
        .output()
        .expect("the quire binary runs")
}
