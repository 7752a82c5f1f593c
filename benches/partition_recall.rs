//! Partitioned vectors (`store::fragments`) against exact search: for an index and a set of real
//! questions, the recall@10 of the partitioned dense search (the chunks exact search ranks in its first ten
//! that the partitions' search also ranks in its first ten) and the bytes of partitions a question fetches,
//! for several partition sizes and numbers of vectors scanned.
//! Run: cargo bench --bench partition_recall -- SNAPSHOT.quire QUERIES.jsonl[.gz] [PARTITION_KB ...]
//! (docs/QUALITY.md, "Partitioned vectors", lists the snapshots and questions measured.)

use std::collections::{HashMap, HashSet};

use quire::embed::{Embedder, EmbeddingModel, TextEmbedder};
use quire::eval::dataset;
use quire::index::{VectorIndex, VectorIndexKind};
use quire::store::IndexedCorpus;
use quire::store::fragments::{self, Fragment, FragmentedIndex, LEXICON, Sizes};

const K: usize = 10;
const BUDGETS: [usize; 5] = [512, 1024, 2048, 4096, 8192];

fn main() {
    let args: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with("--bench")).collect();
    let [snapshot, queries, sizes @ ..] = args.as_slice() else {
        eprintln!(
            "usage: cargo bench --bench partition_recall -- SNAPSHOT.quire QUERIES.jsonl[.gz] [PARTITION_KB ...]"
        );
        std::process::exit(2);
    };
    let snapshot = std::fs::read(snapshot).expect("the snapshot can be read");
    let index = IndexedCorpus::from_snapshot(&snapshot).expect("a Quire snapshot");
    let models = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("models");
    let embedder = Embedder::from_dir(&models, EmbeddingModel::MiniLm).expect("the model loads (bash models/fetch.sh)");
    let questions = read_questions(queries);
    let texts: Vec<&str> = questions.iter().map(String::as_str).collect();
    let vectors = embedder.embed(&texts).expect("the questions embed");
    let exact =
        VectorIndex::build_kind(index.embeddings().vectors(), index.rows().chunks.clone(), VectorIndexKind::Flat);
    let truth: Vec<HashSet<u32>> = vectors
        .iter()
        .map(|v| exact.search(index.embeddings().vectors(), v, K).into_iter().map(|hit| hit.id).collect())
        .collect();
    let sizes: Vec<usize> = sizes.iter().filter_map(|s| s.parse().ok()).collect();
    let sizes = if sizes.is_empty() { vec![16, 32, 64] } else { sizes };
    println!("{} chunks, {} questions", index.corpus().chunks.len(), questions.len());
    println!(
        "| partition (kB) | partitions | centroids (kB) | vectors scanned | recall@10 | partition kB per question |"
    );
    println!("|---|---|---|---|---|---|");
    for kb in sizes {
        let sizes = Sizes { partition_bytes: kb * 1024, ..Sizes::default() };
        let files: HashMap<String, Vec<u8>> =
            fragments::split(&index, &snapshot, sizes).expect("the index splits").into_iter().collect();
        let partitions =
            files.keys().filter(|path| path.starts_with("vectors/") && !path.ends_with("centroids.bin")).count();
        let centroids = files[&Fragment::Centroids.path()].len();
        for budget in BUDGETS {
            let mut recall = 0.0;
            let mut bytes = 0;
            for (vector, truth) in vectors.iter().zip(&truth) {
                // A fresh index per question: what one question fetches, with nothing kept from another.
                let mut fragmented = FragmentedIndex::open(&files[LEXICON]).expect("the lexicon opens");
                fragmented.probe(budget);
                fragmented.add(Fragment::Centroids, &files[&Fragment::Centroids.path()]).expect("the centroids");
                for fragment in fragmented.missing_for_meaning(vector) {
                    let file = &files[&fragment.path()];
                    bytes += file.len();
                    fragmented.add(fragment, file).expect("a partition");
                }
                let found = fragmented.dense_hits(vector, K).expect("every partition fetched");
                let hits = found.iter().filter(|hit| truth.contains(&hit.id)).count();
                recall += hits as f64 / truth.len().max(1) as f64;
            }
            let n = questions.len().max(1) as f64;
            println!(
                "| {kb} | {partitions} | {:.0} | {budget} | {:.3} | {:.0} |",
                centroids as f64 / 1024.0,
                recall / n,
                bytes as f64 / n / 1024.0
            );
        }
    }
}

/// The `text` of every line of a BEIR queries file, gzipped or not.
fn read_questions(path: &str) -> Vec<String> {
    let bytes = std::fs::read(path).expect("the questions can be read");
    let bytes = dataset::file_bytes(path, bytes).expect("a readable queries file");
    let text = String::from_utf8(bytes).expect("UTF-8");
    dataset::parse_queries(path, &text).expect("a BEIR queries file").into_iter().map(|query| query.text).collect()
}
