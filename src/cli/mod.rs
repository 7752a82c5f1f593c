//! The native command line: build, update, inspect and query snapshot files, and evaluate retrieval on
//! labelled data. Presentation only: every step is an engine call.
//!
//! Over 400 lines: every command and flag is declared here, so that the CLI reads as one table; each command's work is a module of its own.

mod ask;
mod compressed;
mod eval;
mod files;
mod handout;
mod indexing;
mod inspect;
mod isolation;
mod log_lines;
mod shared;
mod site;
mod site_search;
mod staging;
mod train;

use std::path::PathBuf;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};

use quire::embed::EmbeddingModel;
use quire::retrieve;
use quire::store::{IndexSettings, Vectors};

use inspect::{Show, query, stats};
use shared::message;

#[derive(Parser)]
#[command(name = "quire", version, about = "Private knowledge-graph retrieval: index documents and query them")]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// Folder holding the models' files (fetched by `bash models/fetch.sh`).
    #[arg(long, global = true, env = "QUIRE_MODEL_DIR")]
    model_dir: Option<PathBuf>,
}

#[derive(Subcommand)]
enum Command {
    /// Index files and folders into a snapshot. Vectors already in an existing output are reused.
    Index {
        /// Files and folders to index (folders are read recursively; what is not a document is reported).
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        /// The snapshot to write (`.quire`); written whole or not at all.
        #[arg(short, long)]
        output: PathBuf,
        /// Ignore an existing output file instead of reusing its embeddings.
        #[arg(long)]
        fresh: bool,
        /// Chunk collections of at least this size get an HNSW index (default 100,000); smaller ones are
        /// searched exactly.
        #[arg(long)]
        hnsw_threshold: Option<usize>,
        /// Merge short paragraphs up to this many word-pieces.
        #[arg(long)]
        chunk_target: Option<usize>,
        /// Embed pages, sections, entities and relations now, not only chunks: the retrievers that search
        /// them (page, section, entity, path, hub, triplet) otherwise add them on first use.
        #[arg(long)]
        all_vectors: bool,
        /// The embedding model: `minilm` (English) or `e5-small` (about 100 languages, twice the time); by
        /// default the multilingual one where languages other than English hold a twentieth of the text.
        #[arg(long, value_parser = shared::parse_model)]
        model: Option<EmbeddingModel>,
    },
    /// Read files and folders as `index` would, report what each gives and what indexing would embed;
    /// nothing is embedded or written.
    Check {
        /// Files and folders to read (folders are read recursively).
        #[arg(required = true)]
        paths: Vec<PathBuf>,
    },
    /// Add or replace documents in a snapshot; only new texts are embedded.
    Add {
        /// The snapshot to update (`.quire`), rewritten whole or not at all.
        snapshot: PathBuf,
        /// Files and folders to add; a document with the same source path replaces the one in the snapshot.
        #[arg(required = true)]
        paths: Vec<PathBuf>,
    },
    /// Remove documents (by source path as shown by `stats --documents`) from a snapshot.
    Remove {
        /// The snapshot to update (`.quire`), rewritten whole or not at all.
        snapshot: PathBuf,
        /// Source paths to remove, as `stats --documents` lists them (a CSV or JSONL file's path removes all
        /// its records).
        #[arg(required = true)]
        sources: Vec<String>,
    },
    /// Print corpus statistics: documents, graph nodes and edges by kind, indexes.
    Stats {
        /// The snapshot to describe (`.quire`).
        snapshot: PathBuf,
        /// Print the statistics, the model and the settings as JSON.
        #[arg(long)]
        json: bool,
        /// Also list every document.
        #[arg(long)]
        documents: bool,
    },
    /// Evaluate retrievers on a labelled folder: queries.jsonl, qrels/<split>.tsv (each may be gzipped) and
    /// a corpus (BEIR's corpus.jsonl, or a corpus/ folder of files). Indexed once, cached under ~/.cache/quire/eval.
    Eval(eval::EvalArgs),
    /// Print the best documents for a question (each at its best chunk, its other chunks named below it),
    /// and each fused retriever's top chunks.
    Query {
        /// The snapshot to search (`.quire`).
        snapshot: PathBuf,
        /// The question, in any language the snapshot's documents are in.
        text: String,
        /// How many documents to print.
        #[arg(short, default_value_t = 10)]
        k: usize,
        /// The retrieval method (the choices are listed at run time, from the engine's catalogue).
        #[arg(long, default_value = retrieve::DEFAULT)]
        method: String,
        /// Also print every step each retriever took and the fusion's features.
        #[arg(long)]
        trace: bool,
        /// Print the results and the whole trace as JSON.
        #[arg(long)]
        json: bool,
        /// The network `--method learned` runs: a file from `quire train-fusion` (default: the shipped one).
        #[arg(long)]
        fusion_model: Option<PathBuf>,
        /// Turn the question into a vector by the snapshot's query table instead of the model: what the
        /// page and a site's search answer by meaning with before the model arrives.
        #[arg(long)]
        query_table: bool,
    },
    /// Answer a question from the snapshot with the user's LLM endpoint (OpenAI-compatible or Ollama),
    /// streamed, citing its sources.
    Ask(ask::AskArgs),
    /// Publish a corpus as a static site: the app with the corpus's index as the one it opens, its title and
    /// sample questions, offline after a first visit, every file also precompressed.
    Site(site::SiteArgs),
    /// Train learned fusion (seed 000's network) on a BEIR-layout folder's labelled questions and write the
    /// weights for `--fusion-model`.
    TrainFusion(train::TrainArgs),
    /// Parses the files sent on stdin, one at a time, for `index`, `add`, `check` and `eval` (see
    /// `cli/isolation.rs`).
    #[command(hide = true)]
    ParseWorker,
}

/// The arguments, with every list of methods in the help read from the engine's catalogue.
fn parse_arguments() -> Cli {
    let methods = format!("Retrieval method: {}", retrieve::Method::choices());
    let retrievers = format!("Retrieval methods, comma-separated: {}", retrieve::Method::choices());
    let command = Cli::command()
        .mut_subcommand("query", |query| query.mut_arg("method", |arg| arg.help(methods.clone())))
        .mut_subcommand("ask", |ask| ask.mut_arg("method", |arg| arg.help(methods)))
        .mut_subcommand("eval", |eval| {
            let metrics = format!("Metrics, comma-separated: {}", quire::eval::MetricKind::choices());
            eval.mut_arg("retrievers", |arg| arg.help(retrievers)).mut_arg("metrics", |arg| arg.help(metrics))
        });
    Cli::from_arg_matches(&command.get_matches()).unwrap_or_else(|e| e.exit())
}

pub fn run() -> i32 {
    let cli = parse_arguments();
    let outcome = match cli.command {
        Command::Index { paths, output, fresh, hnsw_threshold, chunk_target, all_vectors, model } => {
            let mut settings = IndexSettings::default();
            if let Some(threshold) = hnsw_threshold {
                settings.hnsw_threshold = threshold;
            }
            if let Some(target) = chunk_target {
                settings.corpus.chunk_target_tokens = target;
            }
            match settings.check() {
                Ok(()) => {
                    let vectors = if all_vectors { Vectors::All } else { Vectors::Chunks };
                    indexing::index(&cli.model_dir, &paths, &output, fresh, (settings, vectors, model))
                }
                Err(problem) => Err(problem.into()),
            }
        }
        Command::Check { paths } => indexing::check(&cli.model_dir, &paths),
        Command::ParseWorker => isolation::serve(),
        Command::Add { snapshot, paths } => indexing::update(&cli.model_dir, &snapshot, &paths, &[]),
        Command::Remove { snapshot, sources } => indexing::update(&cli.model_dir, &snapshot, &[], &sources),
        Command::Stats { snapshot, json, documents } => stats(&snapshot, json, documents),
        Command::Query { snapshot, text, k, method, trace, json, fusion_model, query_table } => query(
            &cli.model_dir,
            &snapshot,
            &text,
            k,
            (&method, fusion_model.as_deref(), query_table),
            if json {
                Show::Json
            } else if trace {
                Show::Trace
            } else {
                Show::Lists
            },
        ),
        Command::Eval(args) => eval::run(&cli.model_dir, args),
        Command::Ask(args) => ask::run(&cli.model_dir, args),
        Command::TrainFusion(args) => train::run(&cli.model_dir, args),
        Command::Site(args) => site::run(&cli.model_dir, args),
    };
    match outcome {
        Ok(()) => 0,
        Err(error) => {
            eprintln!("error: {}", message(&error));
            1
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every argument of every command, in `quire --help` and `quire <command> --help`, says what it is for.
    #[test]
    fn every_argument_has_help() {
        let command = Cli::command();
        let mut missing = Vec::new();
        for sub in command.get_subcommands().filter(|sub| !sub.is_hide_set()) {
            for arg in sub.get_arguments().chain(command.get_arguments()) {
                if arg.get_help().is_none() && arg.get_long_help().is_none() && !arg.is_hide_set() {
                    missing.push(format!("quire {} {}", sub.get_name(), arg.get_id()));
                }
            }
        }
        assert!(missing.is_empty(), "arguments without help: {missing:?}");
    }
}
