//! Retrieval evaluation: labelled questions in the BEIR layout ([`dataset`]), metrics with trec_eval's and
//! BEIR's definitions ([`metrics`]), document rankings and TREC run files ([`run`]), and paired comparison of
//! two runs question by question ([`compare`]). Platform-neutral: the CLI's `quire eval` and the browser app
//! run the same [`evaluate`] and show the same [`EvalReport::table`].

pub mod compare;
pub mod dataset;
pub mod metrics;
pub mod run;
pub mod site_search;

use std::collections::{BTreeMap, HashSet};

use serde::{Deserialize, Serialize};

use crate::corpus::ChunkId;
use crate::embed::{EmbedError, TextEmbedder};
use crate::retrieve::fusion::training::LabelledCandidates;
use crate::retrieve::{self, Method, Query, Retriever, ScoredChunk};
use crate::store::IndexedCorpus;
use crate::store::fragments::FragmentError;

pub use compare::{PairedDifference, paired_difference};
pub use dataset::{Dataset, DatasetError, LabelledQuery};
pub use metrics::{Metric, MetricKind};

/// Documents kept per question in the run (and the run file): trec_eval's metrics at k ≤ this are exact for
/// single retrievers. A fusion ranks only its inputs' top [`crate::retrieve::FUSION_DEPTH`] chunks each, so
/// its run can hold fewer documents.
pub const RUN_DEPTH: usize = 100;
/// Chunks asked of a retriever per question; several chunks can belong to one document.
const CHUNK_DEPTH: usize = 300;
/// Queries embedded per call.
const QUERY_BATCH: usize = 32;

/// What to evaluate.
#[derive(Clone, Debug, PartialEq)]
pub struct EvalSettings {
    pub methods: Vec<Method>,
    pub metrics: Vec<Metric>,
}

impl EvalSettings {
    /// Every metric kind at every cut-off in `cutoffs`.
    pub fn all_metrics(methods: Vec<Method>, kinds: &[MetricKind], cutoffs: &[usize]) -> Self {
        let metrics =
            cutoffs.iter().flat_map(|&k| kinds.iter().map(move |&kind| Metric { kind, k })).collect::<Vec<_>>();
        Self { methods, metrics }
    }
}

/// One retriever's results over every question.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MethodResult {
    pub method: String,
    /// Mean of each metric, in [`EvalReport::metrics`] order.
    pub means: Vec<f64>,
    /// `per_query[q][m]`: metric `m` for question `q` (in [`EvalReport::queries`] order).
    pub per_query: Vec<Vec<f64>>,
    /// Document rankings, best first, per question; written as TREC runs, not kept in saved reports.
    #[serde(skip)]
    pub rankings: Vec<Vec<(String, f32)>>,
    /// Retrieval time for all questions, excluding query embedding.
    pub seconds: f64,
}

/// The outcome of one evaluation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EvalReport {
    pub dataset: String,
    pub split: String,
    pub queries: Vec<String>,
    pub metrics: Vec<Metric>,
    pub results: Vec<MethodResult>,
    /// Skipped labels and questions, named.
    pub warnings: Vec<String>,
    /// Embedding all questions.
    pub query_embedding_seconds: f64,
    pub document_score: String,
}

/// How a document is scored from its chunks; printed with every table.
pub const DOCUMENT_SCORE: &str = "document score = best score of its chunks";

/// A table of means: one row per retriever, one column per metric, F1@k added where P@k and R@k are both there.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Table {
    pub header: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

impl EvalReport {
    pub fn result(&self, method: &str) -> Option<&MethodResult> {
        self.results.iter().find(|r| r.method == method)
    }

    /// Cut-offs that have both precision and recall, for F1.
    fn f1_cutoffs(&self) -> Vec<(usize, usize, usize)> {
        let position = |kind, k| self.metrics.iter().position(|m| *m == Metric { kind, k });
        let mut cutoffs: Vec<usize> = self.metrics.iter().map(|m| m.k).collect();
        cutoffs.dedup();
        cutoffs
            .into_iter()
            .filter_map(|k| Some((k, position(MetricKind::Precision, k)?, position(MetricKind::Recall, k)?)))
            .collect()
    }

    /// What was measured, over what: `scifact (test split): 300 questions over 5183 documents, …`.
    pub fn summary(&self, index: &IndexedCorpus) -> String {
        format!(
            "{} ({} split): {} questions over {} documents, {} chunks; {}",
            self.dataset,
            self.split,
            self.queries.len(),
            index.corpus().documents.len(),
            index.corpus().chunks.len(),
            self.document_score
        )
    }

    pub fn table(&self) -> Table {
        let f1 = self.f1_cutoffs();
        let mut header = vec!["retriever".to_string()];
        header.extend(self.metrics.iter().map(Metric::to_string));
        header.extend(f1.iter().map(|(k, _, _)| format!("F1@{k}")));
        header.push("ms/query".to_string());
        let rows = self
            .results
            .iter()
            .map(|result| {
                let mut row = vec![result.method.clone()];
                row.extend(result.means.iter().map(|v| format!("{:.3}", v + 0.0)));
                row.extend(
                    f1.iter()
                        .map(|&(_, p, r)| format!("{:.3}", metrics::f_beta(result.means[p], result.means[r], 1.0))),
                );
                row.push(format!("{:.2}", 1000.0 * result.seconds / self.queries.len().max(1) as f64));
                row
            })
            .collect();
        Table { header, rows }
    }

    /// Each metric of `treatment` minus `baseline`, with a bootstrap interval. Only questions both reports
    /// contain are paired; `None` when a method or metric is missing from either.
    pub fn compare(
        &self,
        treatment: &str,
        baseline_report: &EvalReport,
        baseline: &str,
    ) -> Option<Vec<(Metric, PairedDifference)>> {
        let ours = self.result(treatment)?;
        let theirs = baseline_report.result(baseline)?;
        let their_rows: BTreeMap<&str, usize> =
            baseline_report.queries.iter().enumerate().map(|(i, q)| (q.as_str(), i)).collect();
        let pairs: Vec<(usize, usize)> =
            self.queries.iter().enumerate().filter_map(|(i, q)| their_rows.get(q.as_str()).map(|&j| (i, j))).collect();
        self.metrics
            .iter()
            .enumerate()
            .map(|(m, metric)| {
                let theirs_m = baseline_report.metrics.iter().position(|x| x == metric)?;
                let a: Vec<f64> = pairs.iter().map(|&(i, _)| ours.per_query[i][m]).collect();
                let b: Vec<f64> = pairs.iter().map(|&(_, j)| theirs.per_query[j][theirs_m]).collect();
                Some((*metric, paired_difference(&a, &b)))
            })
            .collect()
    }
}

/// Every document id of the index, as the qrels name them.
pub fn indexed_document_ids(index: &IndexedCorpus) -> HashSet<&str> {
    index.corpus().documents.iter().map(|d| run::corpus_id(&d.source)).collect()
}

/// Runs every question through every method. `progress` is told how many questions were done for the current
/// method; `now_ms` is the platform's clock.
pub fn evaluate(
    index: &IndexedCorpus,
    embedder: &dyn TextEmbedder,
    dataset: &Dataset,
    settings: &EvalSettings,
    progress: &mut dyn FnMut(&Method, usize),
    now_ms: &dyn Fn() -> f64,
) -> Result<EvalReport, EmbedError> {
    let started = now_ms();
    let vectors = embed_queries(embedder, &dataset.queries)?;
    let query_embedding_seconds = (now_ms() - started) / 1000.0;
    let results = (settings.methods.iter())
        .map(|method| {
            let rank = |query: Query<'_>| method.rank(index, query, CHUNK_DEPTH).into_chunks();
            let questions = Questions { index, dataset, vectors: &vectors, metrics: &settings.metrics, now_ms };
            questions.measure(method.name(), &mut |done| progress(method, done), &rank)
        })
        .collect();
    Ok(report(dataset, settings, results, query_embedding_seconds))
}

/// Why the site search could not be measured.
#[derive(Debug, thiserror::Error)]
pub enum SiteSearchEvalError {
    #[error(transparent)]
    Embed(#[from] EmbedError),
    #[error("the index could not be split as a site's: {0}")]
    Fragments(#[from] FragmentError),
}

/// Runs every question through the search a built site adds ([`site_search`]), each question's vector by
/// `embedder` (the index's query table, as the site's): the report's one row, [`site_search::SITE_SEARCH`].
pub fn evaluate_site_search(
    index: &IndexedCorpus,
    embedder: &dyn TextEmbedder,
    dataset: &Dataset,
    settings: &EvalSettings,
    progress: &mut dyn FnMut(usize),
    now_ms: &dyn Fn() -> f64,
) -> Result<EvalReport, SiteSearchEvalError> {
    let started = now_ms();
    let vectors = embed_queries(embedder, &dataset.queries)?;
    let query_embedding_seconds = (now_ms() - started) / 1000.0;
    let fragments = site_search::site_fragments(index)?;
    let rank = |query: Query<'_>| site_search::site_search_chunks(&fragments, query, CHUNK_DEPTH);
    let questions = Questions { index, dataset, vectors: &vectors, metrics: &settings.metrics, now_ms };
    let result = questions.measure(site_search::SITE_SEARCH.to_string(), progress, &rank);
    Ok(report(dataset, settings, vec![result], query_embedding_seconds))
}

/// A dataset's questions with their vectors, to measure rankings of them by.
struct Questions<'a> {
    index: &'a IndexedCorpus,
    dataset: &'a Dataset,
    vectors: &'a [Vec<f32>],
    metrics: &'a [Metric],
    now_ms: &'a dyn Fn() -> f64,
}

impl Questions<'_> {
    /// The metrics of every question's documents as `rank` ranks its chunks, under `name`.
    fn measure(
        &self,
        name: String,
        progress: &mut dyn FnMut(usize),
        rank: &dyn Fn(Query<'_>) -> Vec<ScoredChunk>,
    ) -> MethodResult {
        let started = (self.now_ms)();
        let questions = self.dataset.queries.len();
        let mut result = MethodResult {
            method: name,
            means: vec![0.0; self.metrics.len()],
            per_query: Vec::with_capacity(questions),
            rankings: Vec::with_capacity(questions),
            seconds: 0.0,
        };
        for (done, (question, vector)) in self.dataset.queries.iter().zip(self.vectors).enumerate() {
            let chunks = rank(Query::new(&question.text, vector));
            let ranking = run::rank_documents(self.index.corpus(), &chunks, RUN_DEPTH);
            let ids: Vec<&str> = ranking.iter().map(|(id, _)| *id).collect();
            result.per_query.push(self.metrics.iter().map(|m| m.score(&ids, &question.relevant)).collect());
            result.rankings.push(ranking.into_iter().map(|(id, score)| (id.to_string(), score)).collect());
            progress(done + 1);
        }
        result.seconds = ((self.now_ms)() - started) / 1000.0;
        let n = result.per_query.len().max(1) as f64;
        for (m, mean) in result.means.iter_mut().enumerate() {
            *mean = result.per_query.iter().map(|row| row[m]).sum::<f64>() / n;
        }
        result
    }
}

fn report(dataset: &Dataset, settings: &EvalSettings, results: Vec<MethodResult>, embedding: f64) -> EvalReport {
    EvalReport {
        dataset: dataset.name.clone(),
        split: dataset.split.clone(),
        queries: dataset.queries.iter().map(|q| q.id.clone()).collect(),
        metrics: settings.metrics.clone(),
        results,
        warnings: dataset.warnings.clone(),
        query_embedding_seconds: embedding,
        document_score: DOCUMENT_SCORE.to_string(),
    }
}

/// Every question's candidates from `retrievers`, standardised and labelled by the question's relevant
/// documents, for training learned fusion. `progress` is told how many questions were done.
pub fn labelled_candidates(
    index: &IndexedCorpus,
    embedder: &dyn TextEmbedder,
    dataset: &Dataset,
    retrievers: &[Retriever],
    progress: &mut dyn FnMut(usize),
) -> Result<Vec<LabelledCandidates>, EmbedError> {
    let vectors = embed_queries(embedder, &dataset.queries)?;
    let corpus = &index.corpus();
    let mut questions = Vec::with_capacity(dataset.queries.len());
    for (done, (question, vector)) in dataset.queries.iter().zip(&vectors).enumerate() {
        let relevant = |chunk: ChunkId| {
            let document = &corpus.documents[corpus.chunks[chunk as usize].document as usize];
            question.relevant.contains_key(run::corpus_id(&document.source))
        };
        let query = Query::new(&question.text, vector);
        questions.push(retrieve::labelled_candidates(index, query, retrievers, &relevant));
        progress(done + 1);
    }
    Ok(questions)
}

fn embed_queries(embedder: &dyn TextEmbedder, queries: &[LabelledQuery]) -> Result<Vec<Vec<f32>>, EmbedError> {
    let mut vectors = Vec::with_capacity(queries.len());
    for batch in queries.chunks(QUERY_BATCH) {
        let texts: Vec<&str> = batch.iter().map(|q| q.text.as_str()).collect();
        vectors.extend(embedder.embed_queries(&texts)?);
    }
    Ok(vectors)
}
