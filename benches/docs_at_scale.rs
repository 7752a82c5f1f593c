//! An index of real documentation with real MiniLM vectors at a chosen size, for what depends on what the
//! vectors say at scale: the partitioned dense search's recall (`benches/partition_recall.rs`) and a site's
//! bytes per question (`tests/browser/bench-site.mjs`). `scale_snapshots` builds its large indexes with
//! stand-in vectors, which say nothing about how MiniLM's vectors cluster.
//! Run: cargo bench --bench docs_at_scale --features bench -- OUT.quire CHUNKS [WORDS]
//!
//! The documents are the Rust toolchain's HTML documentation (`rustc --print sysroot`/share/doc/rust/html:
//! the standard library's API pages and the books), in an order fixed by each path's hash, so that a prefix
//! mixes the API pages with the books; documents are taken in that order until the index holds CHUNKS
//! chunks. Each chunk's vector is MiniLM's over the first WORDS words of the text it is embedded from
//! (default 48, about 64 word pieces): embedding 100k whole chunks takes over an hour on two cores, a
//! 48-word prefix about a tenth of that, and the vectors are still MiniLM's, of real text. The snapshot
//! carries the model's identity, so the app embeds questions with the same model.

use std::path::{Path, PathBuf};
use std::time::Instant;

use quire::corpus::{self, SourceFile};
use quire::embed::{EmbedError, MiniLmEmbedder, ModelIdentity, TextEmbedder};
use quire::store::{IndexSettings, Vectors, plan_index};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with("--bench")).collect();
    let (Some(out), Some(chunks)) = (args.first(), args.get(1).and_then(|n| n.parse::<usize>().ok())) else {
        eprintln!("usage: cargo bench --bench docs_at_scale --features bench -- OUT.quire CHUNKS [WORDS]");
        std::process::exit(2);
    };
    let words = args.get(2).and_then(|n| n.parse().ok()).unwrap_or(48);
    let models = Path::new(env!("CARGO_MANIFEST_DIR")).join("models");
    let embedder = MiniLmEmbedder::from_dir(&models).expect("the model loads (bash models/fetch.sh)");
    let started = Instant::now();
    let files = documentation_files();
    let mut report = corpus::ingest(&files, &IndexSettings::default().corpus);
    drop(files);
    println!("{} documents read in {:.0} s", report.documents.len(), started.elapsed().as_secs_f64());
    let settings = IndexSettings::default();
    let identity = embedder.identity().clone();
    let mut builder = loop {
        let builder =
            plan_index(report.documents.clone(), None, &embedder, identity.clone(), settings.clone(), Vectors::Chunks)
                .expect("documents to index");
        let found = builder.corpus().chunks.len();
        if found <= chunks + chunks / 50 {
            break builder;
        }
        // Documents average the same chunks at any prefix of a shuffled order, near enough: cut in proportion.
        let keep = (report.documents.len() * chunks / found).max(1);
        report.documents.truncate(if keep < report.documents.len() { keep } else { report.documents.len() - 1 });
    };
    println!(
        "{} documents, {} chunks, {} texts to embed",
        builder.corpus().documents.len(),
        builder.corpus().chunks.len(),
        builder.to_embed()
    );
    let started = Instant::now();
    let prefixes = FirstWords { embedder: &embedder, words };
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    builder.embed_all_parallel(&prefixes, threads, &|_| {}).expect("the texts embed");
    println!("embedded in {:.0} s", started.elapsed().as_secs_f64());
    let started = Instant::now();
    let index = builder.finish();
    let bytes = index.to_snapshot().expect("the snapshot encodes");
    std::fs::write(out, &bytes).expect("the snapshot is written");
    println!(
        "indexes built in {:.0} s; {} chunks, {:.1} MB, {out}",
        started.elapsed().as_secs_f64(),
        index.corpus().chunks.len(),
        bytes.len() as f64 / 1e6
    );
}

/// Every HTML file of the toolchain's documentation, in the order of its path's hash.
fn documentation_files() -> Vec<SourceFile> {
    let sysroot = std::process::Command::new("rustc").args(["--print", "sysroot"]).output().expect("rustc runs");
    let root =
        PathBuf::from(String::from_utf8(sysroot.stdout).expect("a UTF-8 path").trim()).join("share/doc/rust/html");
    let mut paths = Vec::new();
    let mut folders = vec![root.clone()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).unwrap_or_else(|e| panic!("{}: {e}", folder.display())).flatten() {
            let path = entry.path();
            if path.is_dir() {
                folders.push(path);
            } else if path.extension().is_some_and(|e| e == "html") {
                paths.push(path);
            }
        }
    }
    paths.sort_by_cached_key(|path| *blake3::hash(path.as_os_str().as_encoded_bytes()).as_bytes());
    paths
        .iter()
        .map(|path| {
            let name = path.strip_prefix(&root).expect("under the root").to_string_lossy();
            SourceFile::new(name, std::fs::read(path).expect("readable"))
        })
        .collect()
}

/// An embedder of each text's first `words` words.
struct FirstWords<'a> {
    embedder: &'a MiniLmEmbedder,
    words: usize,
}

impl TextEmbedder for FirstWords<'_> {
    fn identity(&self) -> &ModelIdentity {
        self.embedder.identity()
    }

    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        let prefixes: Vec<String> =
            texts.iter().map(|text| text.split_whitespace().take(self.words).collect::<Vec<_>>().join(" ")).collect();
        self.embedder.embed(&prefixes.iter().map(String::as_str).collect::<Vec<_>>())
    }
}
