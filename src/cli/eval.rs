//! `quire eval`: index a BEIR-layout folder once (cached), run its questions through the chosen retrievers,
//! print the metric table, and optionally write TREC runs, save the report, or compare with another.

use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::time::Instant;

use anyhow::{Context, anyhow, bail};
use quire::corpus::SourceFile;
use quire::embed::{Embedder, EmbeddingModel, TextEmbedder};
use quire::eval::{self, EvalReport, EvalSettings, MetricKind, dataset};
use quire::retrieve::Method;
use quire::store::pipeline::InputFile;
use quire::store::{FORMAT_VERSION, IndexSettings, IndexedCorpus, TableQueries};

use super::indexing;
use super::shared::{CliResult, Models, load_snapshot, message, named, parse_methods, progress, save_snapshot};

#[derive(clap::Args)]
pub struct EvalArgs {
    /// A folder with queries.jsonl and qrels/<split>.tsv (each may be gzipped), and its corpus: corpus.jsonl
    /// (BEIR records), or a corpus/ folder of files in any supported format, whose ids are their paths in it.
    dataset: PathBuf,
    /// Which labels to score: qrels/<split>.tsv (`test`, `dev`, `train`).
    #[arg(long, default_value = "test")]
    split: String,
    /// Retrieval methods, comma-separated (the choices are listed at run time).
    #[arg(long, value_delimiter = ',', default_value = "default,dense,bm25,rrf,zsum")]
    retrievers: Vec<String>,
    /// Cut-offs, comma-separated.
    #[arg(short = 'k', value_delimiter = ',', default_value = "10")]
    cutoffs: Vec<usize>,
    /// Metrics, comma-separated (the choices are listed at run time).
    #[arg(long, value_delimiter = ',', default_value = "ndcg,mrr,recall,precision,hit,coverage")]
    metrics: Vec<String>,
    /// Print the report (with per-question values) as JSON.
    #[arg(long)]
    json: bool,
    /// Write each retriever's document ranking as a TREC run, and the qrels in TREC form, to this folder.
    #[arg(long)]
    runs: Option<PathBuf>,
    /// Save the report as JSON for a later --compare.
    #[arg(long)]
    save: Option<PathBuf>,
    /// Compare each retriever with the same retriever in a saved report, question by question.
    #[arg(long)]
    compare: Option<PathBuf>,
    /// Compare every retriever with this one, question by question.
    #[arg(long)]
    baseline: Option<String>,
    /// Rebuild the cached index.
    #[arg(long)]
    fresh: bool,
    /// Evaluate this snapshot instead of indexing the dataset's corpus.
    #[arg(long)]
    snapshot: Option<PathBuf>,
    /// The network `learned` runs: a file from `quire train-fusion` (default: the shipped SciFact model).
    #[arg(long)]
    fusion_model: Option<PathBuf>,
    /// Turn the questions into vectors by the index's query table instead of the model: what the page and a
    /// site's search answer by meaning with before the model arrives.
    #[arg(long)]
    query_table: bool,
    /// Measure the search `quire site --built` adds instead of `--retrievers`: each question ranked over the
    /// index's fragments as a visitor's search ranks it (dense over the partitions it scans, with BM25), its
    /// vector by the query table.
    #[arg(long, conflicts_with_all = ["query_table", "retrievers"])]
    site_search: bool,
    /// The embedding model of the dataset's index (`minilm`, `e5-small`; default: the one its documents'
    /// languages are suited to, as `quire index` chooses).
    #[arg(long, value_parser = super::shared::parse_model)]
    pub model: Option<EmbeddingModel>,
}

/// A labelled dataset and the index its questions are asked of.
pub struct LabelledIndex {
    pub index: IndexedCorpus,
    pub dataset: dataset::Dataset,
    pub embedder: Rc<Embedder>,
}

/// Where a labelled dataset's index comes from: a snapshot given, or the dataset's corpus indexed (cached)
/// by `model` (`None`: the one its documents are suited to), rebuilt when `fresh`.
pub struct IndexSource<'a> {
    pub snapshot: Option<&'a Path>,
    pub model: Option<EmbeddingModel>,
    pub fresh: bool,
}

/// Reads `dir`'s questions and `split`'s labels, and its index from `source`; with the vectors of every
/// node when `node_vectors` (the methods to run read them), added to the index's file if it lacks them.
pub fn load_labelled(
    model_dir: &Option<PathBuf>,
    dir: &Path,
    split: &str,
    source: IndexSource<'_>,
    node_vectors: bool,
) -> anyhow::Result<LabelledIndex> {
    let name = dataset_name(dir);
    let labels = dataset::read_labels(&dataset::DiskFolder(dir), split)?;
    let mut models = Models::new(model_dir);
    let (index, path) = match source.snapshot {
        Some(path) => (load_snapshot(path)?, path.to_path_buf()),
        None => cached_index(dir, &name, &mut models, source.model, source.fresh)?,
    };
    let embedder = models.for_index(&index).with_context(named(&path))?;
    let index = indexing::with_vectors_for(&mut models, index, node_vectors, Some(&path))?;
    let dataset = labels.label(&name, split, &eval::indexed_document_ids(&index))?;
    Ok(LabelledIndex { index, dataset, embedder })
}

pub fn run(model_dir: &Option<PathBuf>, args: EvalArgs) -> CliResult {
    let settings = eval_settings(&args)?;
    let node_vectors = settings.methods.iter().any(Method::reads_node_vectors);
    let source = IndexSource { snapshot: args.snapshot.as_deref(), model: args.model, fresh: args.fresh };
    let LabelledIndex { index, dataset, embedder } =
        load_labelled(model_dir, &args.dataset, &args.split, source, node_vectors)?;
    let table = || TableQueries::of(&index).with_context(named(&args.dataset));
    let report = match (args.site_search, args.query_table) {
        (true, _) => evaluate(&index, &table()?, &dataset, &settings, true)?,
        (false, true) => evaluate(&index, &table()?, &dataset, &settings, false)?,
        (false, false) => evaluate(&index, embedder.as_ref(), &dataset, &settings, false)?,
    };
    if let Some(dir) = &args.runs {
        write_runs(dir, &report, &dataset)?;
    }
    if let Some(path) = &args.save {
        let json = serde_json::to_string(&report)?;
        std::fs::write(path, json).with_context(named(path))?;
    }
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
        return Ok(());
    }
    print_report(&report, &index);
    if let Some(baseline) = &args.baseline {
        if report.result(baseline).is_none() {
            bail!("--baseline `{baseline}` is not among the evaluated retrievers");
        }
        let pairs =
            report.results.iter().filter(|r| &r.method != baseline).map(|r| (r.method.as_str(), baseline.as_str()));
        print_comparisons(&report, &report, pairs, &format!("against `{baseline}` in this run"));
    }
    if let Some(path) = &args.compare {
        let saved: EvalReport = serde_json::from_str(&read_text(path)?)
            .with_context(|| format!("{}: not a saved `quire eval --save` report", path.display()))?;
        let pairs = report.results.iter().map(|r| (r.method.as_str(), r.method.as_str()));
        print_comparisons(&report, &saved, pairs, &format!("against the same retriever in {}", path.display()));
    }
    Ok(())
}

fn eval_settings(args: &EvalArgs) -> anyhow::Result<EvalSettings> {
    let methods = parse_methods(&args.retrievers, args.fusion_model.as_deref())?;
    let kinds = args
        .metrics
        .iter()
        .map(|m| MetricKind::parse(m).ok_or_else(|| anyhow!("unknown metric `{m}` (known: {})", MetricKind::choices())))
        .collect::<anyhow::Result<Vec<_>>>()?;
    if args.cutoffs.iter().any(|&k| k == 0 || k > eval::RUN_DEPTH) {
        bail!("every -k must be between 1 and {}", eval::RUN_DEPTH);
    }
    Ok(EvalSettings::all_metrics(methods, &kinds, &args.cutoffs))
}

fn dataset_name(dir: &Path) -> String {
    let absolute = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    absolute.file_name().map_or_else(|| "dataset".to_string(), |n| n.to_string_lossy().into_owned())
}

/// A saved report, as text.
fn read_text(path: &Path) -> anyhow::Result<String> {
    std::fs::read_to_string(path).with_context(named(path))
}

fn cache_dir() -> PathBuf {
    let base = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .unwrap_or_else(std::env::temp_dir);
    base.join("quire").join("eval")
}

/// A dataset's corpus: BEIR records in `corpus.jsonl` (ids from the records), or a `corpus/` folder of files
/// in any supported format, read by the real parsers as a user's folder is (ids: paths inside `corpus/`).
fn read_corpus(dir: &Path) -> anyhow::Result<(String, Vec<InputFile>)> {
    let folder = dir.join("corpus");
    if folder.is_dir() {
        return Ok((folder.display().to_string(), super::files::read_folder(&folder)));
    }
    let (shown, bytes) = dataset::read_file(&dataset::DiskFolder(dir), "corpus.jsonl")?;
    Ok((shown, vec![Ok(SourceFile::new("corpus.jsonl", bytes))]))
}

/// The dataset's index from the cache, keyed by the corpus (every file's name and bytes), the model asked
/// for and the models' files, the settings, the snapshot format and the pipeline's revision; built (on every
/// core) and cached when absent or when `fresh`.
fn cached_index(
    dir: &Path,
    name: &str,
    models: &mut Models,
    model: Option<EmbeddingModel>,
    fresh: bool,
) -> anyhow::Result<(IndexedCorpus, PathBuf)> {
    let (corpus_path, files) = read_corpus(dir)?;
    let settings = IndexSettings::default();
    let mut key = blake3::Hasher::new();
    for file in files.iter().flatten() {
        key.update(file.path.as_bytes());
        key.update(&(file.bytes.len() as u64).to_le_bytes());
        key.update(&file.bytes);
    }
    key.update(model.map_or("suited", |model| model.spec().id).as_bytes());
    for spec in EmbeddingModel::ALL.map(EmbeddingModel::spec) {
        key.update(spec.model_blake3.as_bytes());
        key.update(spec.tokenizer_blake3.as_bytes());
    }
    key.update(serde_json::to_string(&settings)?.as_bytes());
    key.update(&FORMAT_VERSION.to_le_bytes());
    key.update(&quire::store::pipeline::REVISION.to_le_bytes());
    let cached = cache_dir().join(format!("{name}-{}.quire", &key.finalize().to_hex()[..16]));
    if cached.exists() && !fresh {
        match load_snapshot(&cached) {
            Ok(index) => {
                eprintln!("using the cached index {} (--fresh rebuilds it)", cached.display());
                return Ok((index, cached));
            }
            Err(e) => eprintln!("warning: rebuilding the cached index: {}", message(&e)),
        }
    }
    let started = Instant::now();
    let records = !Path::new(&corpus_path).is_dir();
    let earlier = if fresh { None } else { earlier_cached_index(name, &cached) };
    let (index, report) = indexing::index_files(models, files, (settings, model), earlier.as_ref())
        .with_context(|| corpus_path.clone())?;
    // One records file is the whole corpus: a failure in it is the dataset's, not one file's among many.
    if let (true, Some(error)) = (records, report.errors.first()) {
        return Err(anyhow!(error.failure.clone()).context(corpus_path));
    }
    let index = index.with_context(|| format!("{corpus_path}: no document could be indexed"))?;
    eprintln!("indexed {corpus_path} in {:.1}s", started.elapsed().as_secs_f64());
    std::fs::create_dir_all(cached.parent().expect("cache path has a folder")).with_context(named(&cache_dir()))?;
    save_snapshot(&index, &cached)?;
    Ok((index, cached))
}

/// The newest other cached index of the dataset `name` that still loads (one the pipeline's last revision,
/// or an earlier version of the dataset, built): its vectors spare re-embedding every text that did not change.
fn earlier_cached_index(name: &str, current: &Path) -> Option<IndexedCorpus> {
    let prefix = format!("{name}-");
    let mut earlier: Vec<(std::time::SystemTime, PathBuf)> = std::fs::read_dir(cache_dir())
        .ok()?
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| path != current && path.extension().is_some_and(|e| e == "quire"))
        .filter(|path| {
            path.file_stem()
                .and_then(|s| s.to_str())
                .and_then(|s| s.strip_prefix(&prefix))
                .is_some_and(|key| key.len() == 16 && key.bytes().all(|b| b.is_ascii_hexdigit()))
        })
        .filter_map(|path| Some((path.metadata().ok()?.modified().ok()?, path)))
        .collect();
    earlier.sort();
    earlier.into_iter().rev().find_map(|(_, path)| {
        let index = load_snapshot(&path).ok()?;
        eprintln!("reusing the vectors of {}", path.display());
        Some(index)
    })
}

/// Every question through the settings' methods, or with `site_search` through the search a built site
/// adds, with a progress bar.
fn evaluate(
    index: &IndexedCorpus,
    embedder: &dyn TextEmbedder,
    dataset: &dataset::Dataset,
    settings: &EvalSettings,
    site_search: bool,
) -> anyhow::Result<EvalReport> {
    let clock = Instant::now();
    let now_ms = || clock.elapsed().as_secs_f64() * 1000.0;
    let bar = progress(dataset.queries.len() as u64, "querying");
    let report = match site_search {
        true => {
            bar.set_message(eval::site_search::SITE_SEARCH);
            let mut on_progress = |done: usize| bar.set_position(done as u64);
            eval::evaluate_site_search(index, embedder, dataset, settings, &mut on_progress, &now_ms)?
        }
        false => {
            let mut current = String::new();
            let mut on_progress = |method: &Method, done: usize| {
                if current != method.name() {
                    current = method.name();
                    bar.reset();
                    bar.set_message(current.clone());
                }
                bar.set_position(done as u64);
            };
            eval::evaluate(index, embedder, dataset, settings, &mut on_progress, &now_ms)?
        }
    };
    bar.finish_and_clear();
    Ok(report)
}

fn write_runs(dir: &Path, report: &EvalReport, dataset: &dataset::Dataset) -> CliResult {
    std::fs::create_dir_all(dir).with_context(named(dir))?;
    let write = |name: String, text: String| {
        let path = dir.join(name);
        std::fs::write(&path, text).with_context(named(&path))
    };
    write("qrels.trec".into(), eval::run::trec_qrels(dataset.queries.iter().map(|q| (q.id.as_str(), &q.relevant))))?;
    for result in &report.results {
        let rankings = report.queries.iter().map(String::as_str).zip(result.rankings.iter().map(Vec::as_slice));
        write(format!("{}.run", result.method), eval::run::trec_run(&result.method, rankings))?;
    }
    eprintln!("wrote TREC runs and qrels.trec to {} (trec_eval -m ndcg_cut.10 qrels.trec METHOD.run)", dir.display());
    Ok(())
}

fn print_table(table: &eval::Table) {
    let widths: Vec<usize> = (0..table.header.len())
        .map(|c| table.rows.iter().map(|r| r[c].len()).chain([table.header[c].len()]).max().unwrap_or(0))
        .collect();
    let line = |cells: &[String]| {
        let padded: Vec<String> = cells
            .iter()
            .zip(&widths)
            .enumerate()
            .map(|(c, (cell, &w))| if c == 0 { format!("{cell:<w$}") } else { format!("{cell:>w$}") })
            .collect();
        println!("{}", padded.join("  "));
    };
    line(&table.header);
    for row in &table.rows {
        line(row);
    }
}

fn print_report(report: &EvalReport, index: &IndexedCorpus) {
    for warning in &report.warnings {
        eprintln!("warning: {warning}");
    }
    println!("\n{}", report.summary(index));
    print_table(&report.table());
    println!(
        "(query embedding: {:.1} ms/query, not included in ms/query above)",
        1000.0 * report.query_embedding_seconds / report.queries.len().max(1) as f64
    );
}

/// One line per `(treatment, baseline)` pair present in both reports.
fn print_comparisons<'a>(
    report: &EvalReport,
    other: &EvalReport,
    pairs: impl Iterator<Item = (&'a str, &'a str)>,
    label: &str,
) {
    println!("\nPaired difference {label}: mean [95 % bootstrap interval], * where the interval excludes 0");
    for (treatment, baseline) in pairs {
        let Some(differences) = report.compare(treatment, other, baseline) else {
            println!("  {treatment:<6} (no `{baseline}` results with the same metrics to compare)");
            continue;
        };
        let cells: Vec<String> = differences
            .iter()
            .map(|(metric, d)| format!("{metric} {d}{}", if d.is_significant() { "*" } else { "" }))
            .collect();
        println!("  {treatment:<6} {}", cells.join("  "));
    }
}
