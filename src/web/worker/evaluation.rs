//! The engine worker's evaluations, run as `quire eval` runs them: the dataset's questions and labels, its
//! index (a prebuilt snapshot, the last evaluation's, or its corpus indexed here), and the same metrics and
//! table.

use crate::corpus::SourceFile;
use crate::embed::{EmbeddingModel, TextEmbedder};
use crate::eval::dataset::{DatasetError, DatasetFolder, read_file, read_labels};
use crate::eval::{EvalSettings, MetricKind};
use crate::retrieve::Method;
use crate::store::pipeline::Base;
use crate::store::{IndexedCorpus, Vectors};
use crate::web::browser;
use crate::web::error::{EngineError, EvaluationRefused};
use crate::web::protocol::{Evaluation, FileBytes, Progress, Task};

use super::indexing::run_pipeline;
use super::state::{send_progress, with_engine};

/// What an evaluation was asked for (`Request::Evaluate`).
pub(super) struct EvaluationRequest {
    pub dataset: String,
    pub split: String,
    pub files: Vec<FileBytes>,
    pub snapshot: Option<Vec<u8>>,
    pub methods: Vec<String>,
    pub cutoffs: Vec<usize>,
}

/// The picked folder as a labelled folder: a file is found at any depth, since a picked folder's paths
/// start with the folder's own name.
impl DatasetFolder for EvaluationRequest {
    fn describe(&self, name: &str) -> String {
        name.to_string()
    }

    fn read(&self, name: &str) -> Result<Option<Vec<u8>>, DatasetError> {
        let inside = format!("/{name}");
        Ok(self.files.iter().find(|f| f.path == name || f.path.ends_with(&inside)).map(|f| f.bytes.clone()))
    }
}

/// Runs an evaluation as `quire eval` does: the same metrics, the same table.
pub(super) async fn evaluate(request: EvaluationRequest) -> Result<Evaluation, EngineError> {
    let methods = request.methods.iter().map(|name| Method::parse(name)).collect::<Result<Vec<_>, _>>();
    let methods = methods.map_err(|e| EvaluationRefused::Method(e.to_string()))?;
    if methods.is_empty() {
        return Err(EvaluationRefused::NoMethod.into());
    }
    if request.cutoffs.iter().any(|&k| k == 0 || k > crate::eval::RUN_DEPTH) {
        return Err(EvaluationRefused::Cutoff(crate::eval::RUN_DEPTH).into());
    }
    let dataset_refused = |e: DatasetError| EvaluationRefused::Dataset(e.to_string());
    let labels = read_labels(&request, &request.split).map_err(dataset_refused)?;
    let (key, index) = evaluation_index(&request).await?;
    let index = match methods.iter().any(Method::reads_node_vectors) && index.vectors() != Vectors::All {
        true => {
            let outcome = run_pipeline(Base::AllVectors { current: &index }, std::iter::empty()).await?;
            (key, outcome.index.ok_or(EngineError::Cancelled)?)
        }
        false => (key, index),
    };
    let settings = EvalSettings::all_metrics(methods, &MetricKind::ALL, &request.cutoffs);
    // The dataset's own model (a dataset in another language was embedded by e5), which the index held
    // afterwards need not share.
    let embedder = match EmbeddingModel::of(index.1.model()) {
        Some(kind) => super::model::ready_for(kind).await?,
        None => super::model::embedder()?,
    };
    let indexed = crate::eval::indexed_document_ids(&index.1);
    let dataset = labels.label(&request.dataset, &request.split, &indexed).map_err(dataset_refused)?;
    let questions = dataset.queries.len();
    let mut progress = |method: &Method, done: usize| {
        let current = Some(method.name());
        send_progress(Progress {
            task: Task::Evaluate,
            done,
            total: questions,
            rate: None,
            current,
            seconds_left: None,
        });
    };
    let report = crate::eval::evaluate(&index.1, &*embedder, &dataset, &settings, &mut progress, &browser::now_ms)
        .map_err(EngineError::from);
    let evaluated = report.map(|r| Evaluation { summary: r.summary(&index.1), table: r.table(), warnings: r.warnings });
    with_engine(|engine| engine.evaluated = Some(index))?;
    evaluated
}

/// The dataset's index: its prebuilt snapshot, or its corpus indexed here (through the pool), or the one
/// the last evaluation of the same dataset built.
async fn evaluation_index(request: &EvaluationRequest) -> Result<(blake3::Hash, IndexedCorpus), EngineError> {
    let corpus = match &request.snapshot {
        Some(_) => None,
        None => Some(read_file(request, "corpus.jsonl").map_err(|e| EvaluationRefused::Dataset(e.to_string()))?),
    };
    let source = request.snapshot.as_deref().unwrap_or_else(|| corpus.as_ref().map_or(&[][..], |c| c.1.as_slice()));
    let key = blake3::hash(source);
    if let Some(cached) = with_engine(|engine| engine.evaluated.take().filter(|(k, _)| *k == key))? {
        return Ok(cached);
    }
    if let Some(bytes) = &request.snapshot {
        let name = format!("{}'s index", request.dataset);
        let refused = |reason: &dyn std::fmt::Display| EvaluationRefused::Index {
            name: name.clone(),
            reason: reason.to_string(),
        };
        let index = IndexedCorpus::from_snapshot(bytes).map_err(|e| refused(&e))?;
        if EmbeddingModel::of(index.model()).is_none() {
            index.check_model(super::model::embedder()?.identity()).map_err(|e| refused(&e))?;
        }
        return Ok((key, index));
    }
    let (name, bytes) = corpus.unwrap_or_default();
    let base = Base::Fresh {
        settings: crate::store::IndexSettings::default(),
        reuse_vectors_of: None,
        vectors: Vectors::Chunks,
        model: None,
    };
    let file = SourceFile::new("corpus.jsonl", bytes);
    let outcome = run_pipeline(base, std::iter::once(Ok(file))).await?;
    if let Some(error) = outcome.report.errors.first() {
        return Err(EvaluationRefused::Index { name, reason: error.failure.to_string() }.into());
    }
    if outcome.cancelled {
        return Err(EngineError::Cancelled);
    }
    let index = outcome.index.ok_or(EvaluationRefused::NothingIndexed(name))?;
    Ok((key, index))
}
