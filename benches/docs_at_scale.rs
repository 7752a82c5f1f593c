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
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use quire::corpus::{self, Document, SourceFile};
use quire::embed::{EmbedError, Embedder, EmbeddingModel, ModelIdentity, TextEmbedder};
use quire::store::{IndexBuilder, IndexSettings, Vectors, plan_index};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with("--bench")).collect();
    let (Some(out), Some(chunks)) = (args.first(), args.get(1).and_then(|n| n.parse::<usize>().ok())) else {
        eprintln!("usage: cargo bench --bench docs_at_scale --features bench -- OUT.quire CHUNKS [WORDS]");
        std::process::exit(2);
    };
    let words = args.get(2).and_then(|n| n.parse().ok()).unwrap_or(48);
    let models = Path::new(env!("CARGO_MANIFEST_DIR")).join("models");
    let embedder = Embedder::from_dir(&models, EmbeddingModel::MiniLm).expect("the model loads (bash models/fetch.sh)");
    let started = Instant::now();
    let files = documentation_files();
    let report = corpus::ingest(&files, &IndexSettings::default().corpus);
    drop(files);
    println!("{} documents read in {:.0} s", report.documents.len(), started.elapsed().as_secs_f64());
    let mut builder = plan_about(report.documents, chunks, &embedder);
    println!(
        "{} documents, {} chunks, {} texts to embed",
        builder.corpus().documents.len(),
        builder.corpus().chunks.len(),
        builder.to_embed()
    );
    let started = Instant::now();
    let prefixes = FirstWords { embedder: &embedder, words };
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let (total, done, shown) = (builder.to_embed(), AtomicUsize::new(0), AtomicUsize::new(0));
    let progress = |batch: usize| {
        let done = done.fetch_add(batch, Ordering::Relaxed) + batch;
        let percent = done * 100 / total.max(1);
        if shown.fetch_max(percent / 5, Ordering::Relaxed) < percent / 5 {
            let seconds = started.elapsed().as_secs_f64();
            println!(
                "  embedded {done} of {total} ({percent} %) in {seconds:.0} s, {:.0} texts/s",
                done as f64 / seconds
            );
        }
    };
    builder.embed_all_parallel(&prefixes, threads, &progress).expect("the texts embed");
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

/// The index plan of a prefix of `documents` holding about `chunks` chunks: within 2 %, or else one of the
/// two prefixes either side of that count, one document apart. Documents average about the same chunks at
/// any prefix of a shuffled order, so the prefix is first sized from a sample's average and then searched:
/// a proportional guess kept inside the bounds found so far, since one document can hold hundreds of chunks
/// and proportion alone can swing between two prefixes forever (it did at 1,000 chunks). Planning all 33k
/// documents to count them would take most of half an hour on two cores.
fn plan_about(documents: Vec<Document>, chunks: usize, embedder: &Embedder) -> IndexBuilder {
    const SAMPLE: usize = 500;
    let plan = |documents: &[Document]| {
        let identity = embedder.identity().clone();
        plan_index(documents.to_vec(), None, embedder, identity, IndexSettings::default(), Vectors::Chunks)
            .expect("documents to index")
    };
    let sample = plan(&documents[..SAMPLE.min(documents.len())]);
    let per_document = sample.corpus().chunks.len() as f64 / sample.corpus().documents.len().max(1) as f64;
    let mut keep = ((chunks as f64 / per_document.max(1e-3)) as usize).clamp(1, documents.len());
    // Prefix lengths known to give too few chunks (`under`) and too many (`over`).
    let (mut under, mut over) = (0, documents.len() + 1);
    loop {
        let builder = plan(&documents[..keep]);
        let found = builder.corpus().chunks.len();
        if found.abs_diff(chunks) <= chunks / 50 {
            return builder;
        }
        if found < chunks {
            under = keep
        } else {
            over = keep
        }
        if over - under <= 1 {
            return builder;
        }
        let guess = (keep as f64 * chunks as f64 / found.max(1) as f64) as usize;
        let next = if guess > under && guess < over { guess } else { under + (over - under) / 2 };
        println!("  {found} chunks from a plan of {keep} documents; planning {next}");
        keep = next;
    }
}

/// Every HTML file of the toolchain's documentation, in the order of its path's hash.
fn documentation_files() -> Vec<SourceFile> {
    let sysroot = std::process::Command::new("rustc").args(["--print", "sysroot"]).output().expect("rustc runs");
    let root =
        PathBuf::from(String::from_utf8(sysroot.stdout).expect("a UTF-8 path").trim()).join("share/doc/rust/html");
    let mut paths: Vec<PathBuf> = walkdir::WalkDir::new(&root)
        .into_iter()
        .map(|entry| entry.unwrap_or_else(|e| panic!("{}: {e}", root.display())))
        .filter(|entry| entry.file_type().is_file() && entry.path().extension().is_some_and(|e| e == "html"))
        .map(walkdir::DirEntry::into_path)
        .collect();
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
    embedder: &'a Embedder,
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
