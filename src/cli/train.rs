//! `quire train-fusion`: gather every training question's labelled candidates, fit seed 000's network,
//! report each retriever's permutation importance on the held-out questions, and write the weights.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::{Context, anyhow};
use quire::eval;
use quire::retrieve::fusion::training::{self, TrainingSettings};
use quire::retrieve::{Method, Retriever};

use super::eval::{IndexSource, LabelledIndex, load_labelled};
use super::shared::{CliResult, named, progress};

#[derive(clap::Args)]
pub struct TrainArgs {
    /// A folder with corpus.jsonl, queries.jsonl and qrels/<split>.tsv (each may be gzipped).
    dataset: PathBuf,
    /// The labelled split to learn from; never the one you evaluate on.
    #[arg(long, default_value = "train")]
    split: String,
    /// Where to write the weights (safetensors).
    #[arg(short, long)]
    output: PathBuf,
    /// The retrievers whose scores the network reads, comma-separated (default: every seed retriever).
    #[arg(long, value_delimiter = ',')]
    retrievers: Vec<String>,
    /// Seeds the question split, the samples, the initial weights and dropout.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Keep the first network (balanced random negatives) instead of retraining on its hardest negatives.
    #[arg(long)]
    no_active_sampling: bool,
    /// Learn from this snapshot instead of indexing the dataset's corpus.
    #[arg(long)]
    snapshot: Option<PathBuf>,
}

pub fn run(model_dir: &Option<PathBuf>, args: TrainArgs) -> CliResult {
    let retrievers = if args.retrievers.is_empty() {
        Retriever::SEEDS.to_vec()
    } else {
        args.retrievers
            .iter()
            .map(|name| Retriever::parse(name).ok_or_else(|| anyhow!("unknown retriever `{name}`")))
            .collect::<anyhow::Result<Vec<_>>>()?
    };
    let node_vectors = retrievers.iter().any(|r| r.reads_node_vectors());
    let LabelledIndex { index, dataset, embedder } = load_labelled(
        model_dir,
        &args.dataset,
        &args.split,
        IndexSource { snapshot: args.snapshot.as_deref(), model: None, fresh: false },
        node_vectors,
    )?;
    let bar = progress(dataset.queries.len() as u64, "gathering candidates");
    let questions = eval::labelled_candidates(&index, &*embedder, &dataset, &retrievers, &mut |done| {
        bar.set_position(done as u64)
    })?;
    bar.finish_and_clear();
    let candidates: usize = questions.iter().map(|q| q.relevant.len()).sum();
    let positives: usize = questions.iter().map(|q| q.relevant.iter().filter(|&&r| r).count()).sum();
    println!(
        "{} questions of {} ({} split): {candidates} candidates, {positives} relevant",
        questions.len(),
        dataset.name,
        dataset.split
    );
    let settings =
        TrainingSettings { seed: args.seed, active_sampling: !args.no_active_sampling, ..TrainingSettings::default() };
    let about = BTreeMap::from([
        ("dataset".to_string(), format!("{} ({} split)", dataset.name, dataset.split)),
        ("seed".to_string(), args.seed.to_string()),
    ]);
    let (model, report) =
        training::train(&retrievers, &questions, &settings, about, &mut |line| eprint!("\r\x1b[2K{line}"))?;
    eprintln!();
    for stage in &report.stages {
        println!(
            "{}: {} positives, {} negatives, {} epochs, best validation loss {:.4}",
            stage.name, stage.positives, stage.negatives, stage.epochs, stage.best_validation_loss
        );
    }
    if let Some(importance) = &report.importance {
        println!("permutation importance on the {} validation questions:", report.validation_questions);
        for (retriever, share) in importance {
            println!("  {:<8} {:>5.1} %", retriever.name(), 100.0 * share);
        }
    }
    std::fs::write(&args.output, model.to_bytes()).with_context(named(&args.output))?;
    println!("wrote {} ({})", args.output.display(), Method::Learned(Arc::new(model)).description());
    Ok(())
}
