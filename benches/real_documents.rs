//! Real documents (tests/real-documents/README.md): for each file, its format, size, the time to parse and
//! structure it (sections, chunks, entities; no embedding) per MB, the title and sections found, and for a
//! PDF with an outline how many outline entries became sections.
//! Run: bash scripts/fetch_real_documents.sh && cargo bench --bench real_documents [-- FOLDER]

use std::time::Instant;

use quire::corpus::{self, Corpus, CorpusSettings, SourceFile};
use quire::embed::{Embedder, EmbeddingModel};

const ROUNDS: u32 = 5;

fn main() {
    let folder =
        std::env::args().skip(1).find(|a| !a.starts_with('-')).map(std::path::PathBuf::from).unwrap_or_else(|| {
            std::path::PathBuf::from(std::env::var("HOME").expect("HOME is set")).join(".cache/quire/real-documents")
        });
    let models = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("models");
    let counter = Embedder::from_dir(&models, EmbeddingModel::MiniLm).unwrap_or_else(|e| panic!("{e}"));
    let mut names: Vec<_> =
        std::fs::read_dir(&folder).unwrap_or_else(|e| panic!("{}: {e}", folder.display())).flatten().collect();
    names.sort_by_key(|entry| entry.file_name());
    println!(
        "| file | format | KB | ms (mean of {ROUNDS}) | ms per MB | title | sections | outline entries recovered |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    for entry in names {
        let name = entry.file_name().to_string_lossy().into_owned();
        let bytes = std::fs::read(entry.path()).expect("readable");
        let file = SourceFile::new(&name, bytes.clone());
        let started = Instant::now();
        let mut corpus = None;
        for _ in 0..ROUNDS {
            let report = corpus::ingest(std::slice::from_ref(&file), &CorpusSettings::default());
            corpus = Some(Corpus::build(report.documents, &counter, &CorpusSettings::default()));
        }
        let ms = started.elapsed().as_secs_f64() * 1000.0 / f64::from(ROUNDS);
        let corpus = corpus.expect("parsed");
        let Some(document) = corpus.documents.first() else {
            println!("| {name} | — | — | — | — | (not parsed) | — | — |");
            continue;
        };
        let titles: Vec<&str> = corpus.sections.iter().map(|s| s.title.as_str()).collect();
        let outline = if name.ends_with(".pdf") { corpus::pdf::outline(&bytes) } else { Vec::new() };
        let recovered = match outline.len() {
            0 => "—".to_string(),
            total => format!("{} of {total}", corpus::pdf::outline_recovered(&outline, &titles)),
        };
        let kb = bytes.len() as f64 / 1024.0;
        println!(
            "| {name} | {:?} | {kb:.0} | {ms:.1} | {:.0} | {} | {} | {recovered} |",
            document.format,
            ms / (bytes.len() as f64 / 1e6),
            document.title,
            corpus.sections.len()
        );
    }
}
