//! The native command line: build, update, inspect and query snapshot files, and evaluate retrieval on
//! labelled data. Presentation only: every step is an engine call.
//!
//! Over 400 lines: every command and flag is declared here, so that the CLI reads as one table; each command's work is a module of its own.

mod ask;
mod eval;
mod handout;
mod indexing;
mod isolation;
mod log_lines;
mod site;
mod train;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use anyhow::{Context, bail};
use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};

use quire::embed::{MiniLmEmbedder, TextEmbedder};
use quire::retrieve;
use quire::store::{IndexSettings, IndexedCorpus, Vectors};

#[derive(Parser)]
#[command(name = "quire", version, about = "Private knowledge-graph retrieval: index documents and query them")]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// Folder holding model.onnx and tokenizer.json (fetched by `bash models/fetch.sh`).
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
    },
    /// Read files and folders as `index` would, report what each gives and what indexing would embed;
    /// nothing is embedded or written.
    Check {
        #[arg(required = true)]
        paths: Vec<PathBuf>,
    },
    /// Add or replace documents in a snapshot; only new texts are embedded.
    Add {
        snapshot: PathBuf,
        #[arg(required = true)]
        paths: Vec<PathBuf>,
    },
    /// Remove documents (by source path as shown by `stats --documents`) from a snapshot.
    Remove {
        snapshot: PathBuf,
        #[arg(required = true)]
        sources: Vec<String>,
    },
    /// Print corpus statistics: documents, graph nodes and edges by kind, indexes.
    Stats {
        snapshot: PathBuf,
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
        snapshot: PathBuf,
        text: String,
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

type CliResult = anyhow::Result<()>;

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
        Command::Index { paths, output, fresh, hnsw_threshold, chunk_target, all_vectors } => {
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
                    indexing::index(&cli.model_dir, &paths, &output, fresh, (settings, vectors))
                }
                Err(problem) => Err(problem.into()),
            }
        }
        Command::Check { paths } => indexing::check(&cli.model_dir, &paths),
        Command::ParseWorker => isolation::serve(),
        Command::Add { snapshot, paths } => indexing::update(&cli.model_dir, &snapshot, &paths, &[]),
        Command::Remove { snapshot, sources } => indexing::update(&cli.model_dir, &snapshot, &[], &sources),
        Command::Stats { snapshot, json, documents } => stats(&snapshot, json, documents),
        Command::Query { snapshot, text, k, method, trace, json, fusion_model } => query(
            &cli.model_dir,
            &snapshot,
            &text,
            k,
            (&method, fusion_model.as_deref()),
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

/// `error` with the causes its contexts wrap, joined by `: ` as `{:#}` joins them (`x.quire: the snapshot is
/// truncated`), except that a cause the message so far already ends with is not said again: a
/// library error that shows its source in its own words (`…: {0}`) also gives it as its `source()`.
fn message(error: &anyhow::Error) -> String {
    let mut message = String::new();
    for cause in error.chain().map(ToString::to_string) {
        if message.is_empty() {
            message = cause;
        } else if !message.ends_with(&cause) {
            message = format!("{message}: {cause}");
        }
    }
    message
}

fn model_dir(explicit: &Option<PathBuf>) -> PathBuf {
    explicit.clone().unwrap_or_else(|| {
        let local = PathBuf::from("models");
        if local.join(quire::embed::MODEL_FILE).exists() {
            local
        } else {
            Path::new(env!("CARGO_MANIFEST_DIR")).join("models")
        }
    })
}

fn load_embedder(explicit: &Option<PathBuf>) -> anyhow::Result<MiniLmEmbedder> {
    Ok(MiniLmEmbedder::from_dir(&model_dir(explicit))?)
}

/// A file's path as messages name it (`x.quire: the snapshot is truncated`).
fn named(path: &Path) -> impl FnOnce() -> String + '_ {
    move || path.display().to_string()
}

fn load_snapshot(path: &Path) -> anyhow::Result<IndexedCorpus> {
    let bytes = std::fs::read(path).with_context(named(path))?;
    IndexedCorpus::from_snapshot(&bytes).with_context(named(path))
}

fn save_snapshot(index: &IndexedCorpus, path: &Path) -> CliResult {
    let bytes = index.to_snapshot()?;
    let temporary = path.with_extension("quire.partial");
    std::fs::write(&temporary, &bytes).with_context(named(&temporary))?;
    std::fs::rename(&temporary, path).with_context(named(path))?;
    eprintln!("wrote {} ({:.1} KiB)", path.display(), bytes.len() as f64 / 1024.0);
    Ok(())
}

fn progress(total: u64, label: &str) -> ProgressBar {
    let bar = ProgressBar::new(total);
    let template = format!("{label:>9} [{{bar:30}}] {{pos}}/{{len}} {{per_sec}} eta {{eta}} {{wide_msg}}");
    bar.set_style(ProgressStyle::with_template(&template).expect("static template").progress_chars("=> "));
    bar
}

fn stats(snapshot: &Path, json: bool, list_documents: bool) -> CliResult {
    let index = load_snapshot(snapshot)?;
    let summary = index.summary();
    if json {
        let mut value = serde_json::to_value(&summary)?;
        value["chunk_index"] = format!("{:?}", index.chunk_index().kind()).into();
        value["model"] = serde_json::to_value(index.model())?;
        value["settings"] = serde_json::to_value(index.settings())?;
        println!("{}", serde_json::to_string_pretty(&value)?);
        return Ok(());
    }
    println!("snapshot   {} (format v{})", snapshot.display(), quire::store::FORMAT_VERSION);
    let short_hash: String = index.model().model_hash.chars().take(16).collect();
    println!("model      {} [{short_hash}]", index.model().name);
    println!("documents  {}", summary.documents);
    let languages: Vec<String> = summary.languages.iter().map(|(code, count)| format!("{code} {count}")).collect();
    println!("languages  {}", languages.join(", "));
    println!("sections   {}", summary.sections);
    println!("chunks     {} (index: {:?})", summary.chunks, index.chunk_index().kind());
    if summary.copied_chunks > 0 {
        println!(
            "  copies   {} repeat another document's passage: embedded once, found as the original",
            summary.copied_chunks
        );
    }
    println!("entities   {} ({} external)", summary.entities, summary.external_entities);
    println!("mentions   {} ({} linked)", summary.mentions, summary.linked_mentions);
    println!("relations  {} of {} types", summary.relations, summary.relation_types);
    println!(
        "vectors    {} distinct texts, {:.1} KiB int8, of {}",
        summary.embeddings,
        summary.embedding_bytes as f64 / 1024.0,
        match summary.node_vectors {
            true => "every node",
            false => "chunks (other nodes' are embedded when a retriever that searches them is first used)",
        }
    );
    println!("graph nodes");
    for (kind, count) in &summary.graph.nodes {
        println!("  {kind:<18} {count}");
    }
    println!("graph edges");
    for (kind, count) in &summary.graph.edges {
        println!("  {kind:<18} {count}");
    }
    let chunk_graph = &summary.chunk_graph;
    let threshold = |t: Option<f32>| t.map_or("none".to_string(), |t| format!("{t:.3}"));
    println!("chunk graph (seed 004)");
    println!("  {:<18} {} (largest {} chunks)", "communities", chunk_graph.communities, chunk_graph.largest_community);
    println!(
        "  {:<18} {} (cosine ≥ {})",
        "similar_to edges",
        chunk_graph.similar_edges,
        threshold(chunk_graph.similar_threshold)
    );
    println!(
        "  {:<18} {} (cosine ≥ {})",
        "comm_similar_to",
        chunk_graph.community_links,
        threshold(chunk_graph.link_threshold)
    );
    if list_documents {
        println!("documents");
        for doc in &index.corpus().documents {
            println!("  {}  {}  \"{}\"", doc.language.code(), doc.source, doc.title);
        }
    }
    Ok(())
}

/// How `quire query` prints what it found.
enum Show {
    Lists,
    Trace,
    Json,
}

fn query(
    model: &Option<PathBuf>,
    snapshot: &Path,
    text: &str,
    k: usize,
    (method, fusion_model): (&str, Option<&Path>),
    show: Show,
) -> CliResult {
    let method = parse_methods(&[method.to_string()], fusion_model)?.remove(0);
    let index = load_snapshot(snapshot)?;
    let embedder = load_embedder(model)?;
    index.check_model(embedder.identity())?;
    let index = indexing::with_vectors_for(&embedder, index, method.reads_node_vectors(), Some(snapshot))?;
    let vector = embedder.embed(&[text])?.remove(0);
    let started = Instant::now();
    let (hits, trace) =
        method.rank(&index, retrieve::Query::new(text, &vector), retrieve::document_depth(k)).grouped(&index, k);
    let elapsed = started.elapsed();
    match show {
        Show::Json => {
            let view = |hit: &retrieve::ScoredChunk| (hit.score, index.chunk_view(hit.chunk));
            let results: Vec<_> = hits
                .iter()
                .map(|hit| {
                    let (score, best) = view(&hit.best);
                    let more: Vec<_> = hit.more.iter().map(view).collect();
                    let also_in: Vec<&str> = hit.also_in.iter().map(|&d| document_source(&index, d)).collect();
                    serde_json::json!({ "score": score, "chunk": best, "more": more, "also_in": also_in })
                })
                .collect();
            let json = serde_json::json!({ "method": method.name(), "results": results, "trace": trace });
            println!("{}", serde_json::to_string_pretty(&json)?);
            return Ok(());
        }
        Show::Trace => println!("{}", trace.render()),
        Show::Lists if trace.fusion.is_some() => {
            for list in &trace.retrievers {
                println!("\n{}", list.retriever);
                for traced in &list.chunks {
                    print_hit(&index, traced.rank, traced.chunk, traced.score, "");
                }
            }
        }
        Show::Lists => {}
    }
    println!("\n{} — {}", method.name(), method.description());
    let inputs: Vec<&str> = trace.retrievers.iter().map(|r| r.retriever.as_str()).collect();
    for (position, hit) in hits.iter().enumerate() {
        let best = hit.best;
        let row = trace.fusion.as_ref().and_then(|f| f.rows.iter().find(|row| row.chunk == best.chunk));
        let note = row.map(|row| retrieve::fusion::describe_ranks(&inputs, &row.ranks)).unwrap_or_default();
        print_hit(&index, position + 1, best.chunk, best.score, &note);
        if !hit.more.is_empty() {
            let labels: Vec<String> = hit.more.iter().map(|c| index.chunk_view(c.chunk).label).collect();
            println!("      + {} more from this document: {}", hit.more.len(), labels.join(" · "));
        }
        if !hit.also_in.is_empty() {
            let copies: Vec<&str> = hit.also_in.iter().map(|&d| document_source(&index, d)).collect();
            println!("      also in {}", copies.join(", "));
        }
    }
    println!("\n({:.1} ms retrieval, query embedding excluded)", elapsed.as_secs_f64() * 1000.0);
    Ok(())
}

fn document_source(index: &IndexedCorpus, document: u32) -> &str {
    &index.corpus().documents[document as usize].source
}

/// Method names, `learned` running the network in `fusion_model` when one is given.
fn parse_methods(names: &[String], fusion_model: Option<&Path>) -> anyhow::Result<Vec<retrieve::Method>> {
    let is_learned = |name: &String| name.trim().eq_ignore_ascii_case(retrieve::LEARNED);
    if fusion_model.is_some() && !names.iter().any(is_learned) {
        bail!("--fusion-model is run by the `{}` method only, and it was not asked for", retrieve::LEARNED);
    }
    let model = fusion_model.map(load_fusion_model).transpose()?;
    let method = |name: &String| match &model {
        Some(model) if is_learned(name) => Ok(retrieve::Method::Learned(model.clone())),
        _ => retrieve::Method::parse(name),
    };
    Ok(names.iter().map(method).collect::<Result<_, _>>()?)
}

fn load_fusion_model(path: &Path) -> anyhow::Result<Arc<retrieve::FusionModel>> {
    let bytes = std::fs::read(path).with_context(named(path))?;
    let model = retrieve::FusionModel::from_bytes(&bytes).with_context(named(path))?;
    Ok(Arc::new(model))
}

fn print_hit(index: &IndexedCorpus, position: usize, chunk_id: u32, score: f32, note: &str) {
    let view = index.chunk_view(chunk_id);
    let page = view.page.map(|p| format!(", page {p}")).unwrap_or_default();
    let note = if note.is_empty() { String::new() } else { format!("  ({note})") };
    println!("{position:>3}. {score:.4}  {}{note}", view.label);
    println!("      {} chars {}–{}{page}", view.source, view.chars.0, view.chars.1);
    let text = view.text.replace('\n', " ");
    let preview: String = text.chars().take(160).collect();
    println!("      {preview}{}", if text.chars().count() > 160 { "…" } else { "" });
}
