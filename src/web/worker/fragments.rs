//! An index split into fragments on its site (`store::fragments`), held until the whole snapshot has
//! loaded: the engine fetches the lexicon and the graph when it opens the index (the full engine the
//! centroids too), then for each question what it needs, all of a step at once, and keeps what it fetched
//! for the next questions: the buckets of the question's terms (and of the community summaries', by words),
//! the partitions of its vector's nearest centroids (by meaning, once the model has loaded), and the text
//! runs of its results.

use futures_util::future::join_all;

use crate::embed::{Embedder, TextEmbedder};
use crate::retrieve::Query;
use crate::retrieve::over_fragments::{self, Ranked};
use crate::store::fragments::{Fragment, FragmentError, FragmentedIndex, LEXICON};
use crate::web::browser;
use crate::web::error::{EngineError, Replaced};
use crate::web::protocol::{Answer, IndexState};

use super::answers::{Shown, answer_shown};
use super::state::{Fragments, Held, with_engine};

/// Replaces the index with the one whose fragments lie in `folder`, with its centroids `by_meaning`; `name`
/// says which in an error.
pub(super) async fn open(name: &str, folder: &str, by_meaning: bool) -> Result<IndexState, EngineError> {
    let lexicon_url = format!("{folder}/{LEXICON}");
    // The lexicon names the index every other part must belong to: never a copy the browser's cache kept
    // from an earlier version of the site.
    let lexicon = browser::fetch_bytes_revalidated(&lexicon_url).await?;
    let refused = |error| EngineError::Fragments { name: name.to_string(), error: Box::new(error) };
    let index = FragmentedIndex::open(&lexicon)
        .map_err(|e| refused(EngineError::Fragment { url: lexicon_url.clone(), reason: e.to_string() }))?;
    with_engine(|engine| engine.held = Held::Fragments(Box::new(Fragments { index, folder: folder.to_string() })))?;
    // The page lists every document, and the graph names them.
    fetch_missing(|_| vec![Fragment::Documents]).await.map_err(refused)?;
    let centroids = if by_meaning { vec![Fragment::Centroids] } else { Vec::new() };
    fetch_missing(|_| [vec![Fragment::Graph], centroids].concat()).await.map_err(refused)?;
    with_fragments(|index| {
        Ok(IndexState {
            summary: index.summary().clone(),
            documents: index.documents().to_vec(),
            engine_memory_bytes: browser::wasm_memory_bytes(),
        })
    })
}

/// Whether the engine holds an index by its fragments.
pub(super) fn opened() -> bool {
    with_engine(|engine| matches!(engine.held, Held::Fragments(_))).unwrap_or(false)
}

/// The `k` best documents for `text` by words and through the graph, as the whole index ranks them.
pub(super) async fn query(text: &str, k: usize) -> Result<Answer, EngineError> {
    let answer = answer(Query::new(text, &[]), k, Replaced::QuestionWords).await?;
    Ok(Answer { model_loading: true, ..answer })
}

/// The `k` best documents for `text` by the standardised sum of dense and BM25 over the fragments, its
/// vector embedded by `embedder`.
pub(super) async fn query_by_meaning(embedder: &Embedder, text: &str, k: usize) -> Result<Answer, EngineError> {
    // Without centroids of the model loaded (another model's index) the fragments answer by words alone.
    let model = with_fragments(|index| Ok(index.model().cloned()))?;
    if model.as_ref() != Some(embedder.identity()) {
        let by_words = query(text, k).await?;
        return Ok(Answer { model_loading: false, whole_index_loading: true, ..by_words });
    }
    let vector = super::answers::embed_one(embedder, text)?;
    let answer = answer(Query::new(text, &vector), k, Replaced::Question).await?;
    Ok(Answer { whole_index_loading: true, ..answer })
}

/// The `k` best documents for `query` (`over_fragments::method`), once what it reads is fetched; `replaced`
/// where the index changed meanwhile.
async fn answer(query: Query<'_>, k: usize, replaced: Replaced) -> Result<Answer, EngineError> {
    let started = browser::now_ms();
    // By words, the graph names the summary buckets to fetch: a second step where it was not fetched yet;
    // by meaning, the groups of centroids name the partitions: a third where the centroids were not.
    for _ in 0..3 {
        fetch_missing(|index| over_fragments::missing(index, query)).await?;
    }
    let ranked = with_fragments(|index| Ok(over_fragments::ranked(index, query, k)))?.ok_or(replaced)?;
    finish(ranked, started).await
}

/// Fetches the text runs `ranked` shows, and answers.
async fn finish(ranked: Ranked, started: f64) -> Result<Answer, EngineError> {
    let shown = with_fragments(|index| Ok(ranked.shown_chunks(index)))?;
    fetch_missing(|index| index.missing_for_chunks(shown.iter().copied())).await?;
    with_fragments(|index| {
        let (hits, trace) = ranked.finish(index).ok_or(Replaced::ResultTexts)?;
        let graph = over_fragments::trace_graph(index, &trace);
        let view = |chunk| index.chunk_view(chunk);
        let source = |document| index.source(document);
        let shown = Shown { view: &view, source: &source };
        Ok(answer_shown(shown, &hits, trace, graph, started, None))
    })
}

fn with_fragments<T>(f: impl FnOnce(&FragmentedIndex) -> Result<T, EngineError>) -> Result<T, EngineError> {
    with_engine(|engine| match &engine.held {
        Held::Fragments(fragments) => f(&fragments.index),
        _ => Err(EngineError::NoFragments),
    })?
}

/// Fetches, all at once, the fragments `missing` names of the index held, and takes them in.
async fn fetch_missing(missing: impl FnOnce(&FragmentedIndex) -> Vec<Fragment>) -> Result<(), EngineError> {
    let (wanted, folder) = with_engine(|engine| match &engine.held {
        Held::Fragments(fragments) => Some((missing(&fragments.index), fragments.folder.clone())),
        _ => None,
    })?
    .ok_or(EngineError::NoFragments)?;
    let urls: Vec<String> = wanted.iter().map(|fragment| format!("{folder}/{}", fragment.path())).collect();
    let fetched = join_all(urls.iter().map(|url| browser::fetch_bytes(url))).await;
    for ((fragment, url), bytes) in wanted.into_iter().zip(&urls).zip(fetched) {
        take_in(fragment, bytes?, url).await?;
    }
    Ok(())
}

/// Takes `bytes` of `fragment` into the index held; a part of another index (a copy the browser's cache
/// kept from an earlier version of the site) is fetched again, confirmed with the server.
async fn take_in(fragment: Fragment, bytes: Vec<u8>, url: &str) -> Result<(), EngineError> {
    let add = |bytes: &[u8]| {
        with_engine(|engine| match &mut engine.held {
            Held::Fragments(fragments) => Ok(fragments.index.add(fragment, bytes)),
            _ => Err(EngineError::Replaced(Replaced::Index)),
        })?
    };
    let added = match add(&bytes)? {
        Err(FragmentError::OtherIndex) => add(&browser::fetch_bytes_revalidated(url).await?)?,
        added => added,
    };
    added.map_err(|e| EngineError::Fragment { url: url.to_string(), reason: e.to_string() })
}
