//! The engine worker's answers: a query's best chunks with each retriever's ranks and the trace, a
//! document's outline scored against the question, and LLM-assisted retrieval, which waits here between
//! the LLM calls the page makes for it.

use std::collections::HashSet;

use crate::corpus::{ChunkId, DocId};
use crate::embed::{EmbedError, Embedder, TextEmbedder};
use crate::index::excerpt::Excerpts;
use crate::retrieve::assist::{Assist, AssistedRetrieval, Turn};
use crate::retrieve::trace::graph::TraceGraph;
use crate::retrieve::{
    DocumentHit, FUSION_DEPTH, Method, Query, Retriever, ScoredChunk, Trace, document_depth, group_by_document,
};
use crate::store::{ChunkView, DocumentOutline, IndexedCorpus, Vectors};
use crate::web::browser;
use crate::web::error::EngineError;
use crate::web::protocol::{Answer, AssistTurn, ResultRow};

use super::state::{with_engine, with_searchable_index};

/// An LLM-assisted retrieval waiting for the LLM's reply, and when it started.
struct Waiting {
    retrieval: AssistedRetrieval,
    started: f64,
}

/// Drops the assisted retrieval waiting for the LLM, if any (its chunk ids are the old index's).
pub(super) fn forget_assisted() {
    let _ = with_engine(|engine| engine.assisted = None);
}

fn park(waiting: Waiting) -> Result<(), EngineError> {
    with_engine(|engine| engine.assisted = Some(Box::new(waiting)))
}

fn take_waiting() -> Result<Option<Waiting>, EngineError> {
    with_engine(|engine| engine.assisted.take().and_then(|parked| parked.downcast::<Waiting>().ok()).map(|w| *w))
}

/// The `k` best chunks for `text` by `method`, with each retriever's rank and the trace.
pub(super) fn query(embedder: &Embedder, text: &str, method: &Method, k: usize) -> Result<Answer, EngineError> {
    let started = browser::now_ms();
    with_searchable_index(|index, waiting| {
        index.check_model(embedder.identity()).map_err(EngineError::OtherModel)?;
        let vector = embed_one(embedder, text)?;
        let query = Query::new(text, &vector);
        let method = while_embedding(method, waiting);
        let (hits, trace) = method.rank(index, query, document_depth(k)).grouped(index, k);
        let found_by_words = found_by_words(index, query, waiting, &hits, k);
        Ok(Answer { found_by_words, ..answer(index, &hits, trace, started, waiting.map(HashSet::len)) })
    })
}

/// The `k` best chunks for `text` while there is no model (the answer says so, and the page asks again once
/// the model has loaded): by `method`, the question's vector from the index's query table, where the index
/// has one and knows a term of the question; by words alone otherwise (`Method::Words`: BM25 and the graph
/// retrievers seeding from it). A method that reads node vectors the index does not hold ranks as the default.
pub(super) fn query_without_model(text: &str, method: &Method, k: usize) -> Result<Answer, EngineError> {
    let started = browser::now_ms();
    with_searchable_index(|index, waiting| {
        let vector = index.table_vector(text);
        let method = match &vector {
            None => &Method::Words,
            Some(_) if method.reads_node_vectors() && index.vectors() != Vectors::All => &Method::Default,
            Some(_) => while_embedding(method, waiting),
        };
        let query = Query::new(text, vector.as_deref().unwrap_or_default());
        let (hits, trace) = method.rank(index, query, document_depth(k)).grouped(index, k);
        let answer = answer(index, &hits, trace, started, waiting.map(HashSet::len));
        Ok(Answer { model_loading: true, by_table: vector.is_some(), ..answer })
    })
}

/// The method a question is ranked by while the documents `waiting` have no vectors yet: the default reads
/// dense, which sees only the documents embedded so far, so its fusion would lift those above the new ones by
/// meaning alone (a question about a book being added answered from the demo's pages); until every document
/// can be compared by meaning, the default ranks all of them by their words and through the graph
/// (`Method::Words`). A method the user chose keeps its own inputs.
fn while_embedding<'m>(method: &'m Method, waiting: Option<&HashSet<DocId>>) -> &'m Method {
    match method {
        Method::Default if waiting.is_some_and(|waiting| !waiting.is_empty()) => &Method::Words,
        _ => method,
    }
}

pub(super) fn embed_one(embedder: &Embedder, text: &str) -> Result<Vec<f32>, EmbedError> {
    embedder.embed_query(text)
}

/// The documents of `waiting` (no vector yet) that BM25 ranks for `query` and `hits` does not hold, at most
/// `k`, each at its best chunk: a method that reads vectors ranks them below every embedded document.
fn found_by_words(
    index: &IndexedCorpus,
    query: Query<'_>,
    waiting: Option<&HashSet<DocId>>,
    hits: &[DocumentHit],
    k: usize,
) -> Vec<ResultRow> {
    let Some(waiting) = waiting.filter(|waiting| !waiting.is_empty()) else { return Vec::new() };
    let document = |chunk: u32| index.corpus().chunks[chunk as usize].document;
    let mut shown: HashSet<DocId> = hits.iter().map(|hit| document(hit.best.chunk)).collect();
    let excerpts = Excerpts::for_question(query.text);
    Method::Single(Retriever::Bm25)
        .rank(index, query, FUSION_DEPTH)
        .chunks()
        .iter()
        .enumerate()
        .filter(|(_, hit)| waiting.contains(&document(hit.chunk)) && shown.insert(document(hit.chunk)))
        .take(k)
        .filter_map(|(rank, hit)| {
            let (view, source) = whole(index);
            let shown = Shown { view: &view, source: &source };
            result_row(&shown, &excerpts, hit, vec![("bm25".to_string(), Some(rank + 1))], Vec::new(), Vec::new())
        })
        .collect()
}

/// The document `source` as sections and chunks, each chunk scored against the question's `vector` when
/// there is one.
pub(super) fn outline(source: &str, vector: Option<Vec<f32>>) -> Result<DocumentOutline, EngineError> {
    with_searchable_index(|index, _| {
        index.outline(source, vector.as_deref()).ok_or_else(|| EngineError::NotInIndex(source.to_string()))
    })
}

/// What an answer shows of an index: a chunk as a result shows it (`None` where it is not known), and a
/// document's source.
pub(super) struct Shown<'a> {
    pub view: &'a dyn Fn(ChunkId) -> Option<ChunkView>,
    pub source: &'a dyn Fn(DocId) -> String,
}

fn answer(
    index: &IndexedCorpus,
    hits: &[DocumentHit],
    trace: Trace,
    started: f64,
    documents_waiting: Option<usize>,
) -> Answer {
    let (view, source) = whole(index);
    let graph = trace.graph(index.corpus());
    answer_shown(Shown { view: &view, source: &source }, hits, trace, graph, started, documents_waiting)
}

/// What an answer shows of a whole index.
fn whole(index: &IndexedCorpus) -> (impl Fn(ChunkId) -> Option<ChunkView> + '_, impl Fn(DocId) -> String + '_) {
    (
        move |chunk| Some(index.chunk_view(chunk)),
        move |document: DocId| index.corpus().documents[document as usize].source.clone(),
    )
}

pub(super) fn answer_shown(
    shown: Shown<'_>,
    hits: &[DocumentHit],
    trace: Trace,
    graph: TraceGraph,
    started: f64,
    documents_waiting: Option<usize>,
) -> Answer {
    let excerpts = Excerpts::for_question(&trace.query);
    let row = |hit: &ScoredChunk, more: Vec<ResultRow>, also_in: Vec<String>| {
        result_row(&shown, &excerpts, hit, input_ranks(&trace, hit.chunk), more, also_in)
    };
    let rows = hits
        .iter()
        .filter_map(|hit| {
            let more = hit.more.iter().filter_map(|c| row(c, Vec::new(), Vec::new())).collect();
            row(&hit.best, more, hit.also_in.iter().map(|&d| (shown.source)(d)).collect())
        })
        .collect();
    Answer {
        rows,
        trace,
        graph,
        milliseconds: browser::now_ms() - started,
        documents_waiting,
        found_by_words: Vec::new(),
        model_loading: false,
        by_table: false,
        whole_index_loading: false,
    }
}

/// `hit` as a result shows it, its excerpt marking the question's words.
fn result_row(
    shown: &Shown<'_>,
    excerpts: &Excerpts,
    hit: &ScoredChunk,
    ranks: Vec<(String, Option<usize>)>,
    more: Vec<ResultRow>,
    also_in: Vec<String>,
) -> Option<ResultRow> {
    let view = (shown.view)(hit.chunk)?;
    Some(ResultRow {
        label: view.label,
        source: view.source,
        chunk: hit.chunk,
        score: hit.score,
        ranks,
        excerpt: excerpts.of(&view.text, view.language),
        text: view.text,
        more,
        also_in,
    })
}

pub(super) fn start_assisted(text: &str, method: Method, k: usize, assist: Assist) -> Result<AssistTurn, EngineError> {
    let started = browser::now_ms();
    let embedder = super::model::answering()?;
    let (retrieval, turn) = with_searchable_index(|index, _| {
        let vector = embed_one(&embedder, text)?;
        Ok(AssistedRetrieval::start(assist, method, index, text, vector, k)?)
    })?;
    park(Waiting { retrieval, started })?;
    assist_turn(turn)
}

pub(super) fn resume_assisted(reply: &str) -> Result<AssistTurn, EngineError> {
    let Waiting { mut retrieval, started } = take_waiting()?.ok_or(EngineError::NoAssistWaiting)?;
    let embedder = super::model::answering()?;
    let turn = with_searchable_index(|index, _| {
        let embed = |text: &str| embed_one(&embedder, text);
        Ok(retrieval.resume(index, reply, &embed)?)
    })?;
    park(Waiting { retrieval, started })?;
    assist_turn(turn)
}

fn assist_turn(turn: Turn) -> Result<AssistTurn, EngineError> {
    match turn {
        Turn::Ask(messages) => Ok(AssistTurn::Ask(messages)),
        Turn::Done(chunks, trace) => {
            let Waiting { started, .. } = take_waiting()?.ok_or(EngineError::AssistLost)?;
            with_searchable_index(|index, waiting| {
                let hits = group_by_document(index, &chunks, chunks.len());
                Ok(AssistTurn::Done(answer(index, &hits, trace, started, waiting.map(HashSet::len))))
            })
        }
    }
}

/// Each input retriever's rank for `chunk`: from the fusion's rows, or the lone retriever's own rank; an
/// assisted retrieval's chunk the base method did not rank is named by its lane.
fn input_ranks(trace: &Trace, chunk: u32) -> Vec<(String, Option<usize>)> {
    let row = trace
        .fusion
        .as_ref()
        .and_then(|fusion| fusion.rows.iter().find(|row| row.chunk == chunk).map(|row| (fusion, row)));
    if let Some((fusion, row)) = row {
        return fusion.inputs.iter().cloned().zip(row.ranks.iter().copied()).collect();
    }
    trace
        .retrievers
        .iter()
        .find_map(|r| r.chunks.iter().find(|c| c.chunk == chunk).map(|c| vec![(r.retriever.clone(), Some(c.rank))]))
        .unwrap_or_default()
}
