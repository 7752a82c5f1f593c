//! How each engine serves each call (`calls::Serve`). The full engine ([`Full`]) serves them all,
//! answering by words until its model has loaded; the engine that answers by words ([`ByWords`], the page's
//! module, without embedder or parsers) serves only what needs neither: opening and exporting an index,
//! questions by words, outlines and overviews, and refuses the rest. `calls::dispatch` is generic over the
//! engine, so the page's module links only [`ByWords`]'s implementations, none of which reaches the
//! embedder.

use crate::embed::TextEmbedder;
use crate::graph::overview::Overview;
use crate::retrieve::Method;
use crate::store::{DocumentOutline, SnapshotSink};
use crate::web::calls::{
    AddNodeVectors, AssistReply, Evaluate, Export, GraphOverview, Open, OpenFragments, OpenSaved, Outline, Query, Save,
    Serve, Snapshot, StartAssist, Update, Updated, refuse,
};
use crate::web::error::EngineError;
use crate::web::protocol::{Answer, AssistTurn, Benchmark, Evaluation, IndexState};
use crate::web::storage;

use super::state::with_index;
use super::{answers, evaluation, fragments, indexing, model};

/// The engine with the embedder and the parsers (the `quire` binary's module).
pub(super) struct Full;

/// The engine that answers by words while the full one loads (the page's own module).
pub(super) struct ByWords;

/// The index's snapshot, written into `sink`: a buffer here to save, the page's own for an export.
fn snapshot<S: SnapshotSink>(mut sink: S) -> Result<S, EngineError> {
    with_index(|index| index.write_snapshot(&mut sink).map_err(|e| EngineError::Export(e.to_string())))?;
    Ok(sink)
}

async fn save() -> Result<(), EngineError> {
    storage::save(&snapshot(Vec::new())?).await.map_err(EngineError::Storage)
}

/// What the saved index is called in messages.
const SAVED_INDEX: &str = "the index saved in this browser";

/// The saved index's bytes, if one is saved.
async fn saved() -> Result<Option<Vec<u8>>, EngineError> {
    storage::load().await.map_err(EngineError::SavedIndex)
}

fn overview(max_nodes: usize) -> Result<Overview, EngineError> {
    with_index(|index| Ok(Overview::build(index.corpus(), index.chunk_graph(), max_nodes)))
}

/// Both engines: what needs neither the model nor the parsers is served alike by each.
trait EitherEngine {}
impl EitherEngine for Full {}
impl EitherEngine for ByWords {}

impl<E: EitherEngine> Serve<Export> for E {
    async fn serve(_: Export) -> Result<Snapshot, EngineError> {
        snapshot(Snapshot(js_sys::Uint8Array::new_with_length(0)))
    }
}

impl<E: EitherEngine> Serve<Save> for E {
    async fn serve(_: Save) -> Result<(), EngineError> {
        save().await
    }
}

impl<E: EitherEngine> Serve<GraphOverview> for E {
    async fn serve(call: GraphOverview) -> Result<Overview, EngineError> {
        overview(call.max_nodes)
    }
}

impl Serve<OpenSaved> for ByWords {
    async fn serve(_: OpenSaved) -> Result<Option<IndexState>, EngineError> {
        let Some(bytes) = saved().await? else { return Ok(None) };
        indexing::open(SAVED_INDEX, &bytes, None).map(Some)
    }
}

impl Serve<OpenSaved> for Full {
    async fn serve(_: OpenSaved) -> Result<Option<IndexState>, EngineError> {
        let Some(bytes) = saved().await? else { return Ok(None) };
        <Full as Serve<Open>>::serve(Open { name: SAVED_INDEX.into(), bytes }).await.map(Some)
    }
}

impl Serve<Open> for ByWords {
    async fn serve(Open { name, bytes }: Open) -> Result<IndexState, EngineError> {
        indexing::open(&name, &bytes, None)
    }
}

impl Serve<OpenFragments> for ByWords {
    async fn serve(OpenFragments { name, folder }: OpenFragments) -> Result<IndexState, EngineError> {
        fragments::open(&name, &folder, false).await
    }
}

impl Serve<Query> for ByWords {
    async fn serve(Query { text, k, .. }: Query) -> Result<Answer, EngineError> {
        // The default, whatever was chosen: the page's module links no learned fusion, which a chosen
        // method could name; the full engine asks again by the chosen one.
        match fragments::opened() {
            true => fragments::query(&text, k).await,
            false => answers::query_without_model(&text, &Method::Default, k),
        }
    }
}

impl Serve<Outline> for ByWords {
    async fn serve(Outline { source, .. }: Outline) -> Result<DocumentOutline, EngineError> {
        answers::outline(&source, None)
    }
}

refuse!(ByWords, EngineError::NeedsTheModel, [Update, AddNodeVectors, StartAssist, AssistReply, Evaluate, Benchmark]);

// A retrieval waiting for the LLM holds ids of the index it started on: every call that replaces or
// changes the index forgets it.

impl Serve<Open> for Full {
    async fn serve(Open { name, bytes }: Open) -> Result<IndexState, EngineError> {
        answers::forget_assisted();
        let embedder = model::embedder().ok();
        let opened = indexing::open(&name, &bytes, embedder.as_ref().map(|e| e.identity()))?;
        model::follow_index();
        Ok(opened)
    }
}

impl Serve<OpenFragments> for Full {
    async fn serve(OpenFragments { name, folder }: OpenFragments) -> Result<IndexState, EngineError> {
        answers::forget_assisted();
        fragments::open(&name, &folder, true).await
    }
}

/// What an index held by its fragments cannot do: change, or run an assisted retrieval, until it is
/// whole. Otherwise the model, once it has loaded (opening and questions by words go on while it loads).
async fn whole_index_and_model() -> Result<(), EngineError> {
    if fragments::opened() {
        return Err(EngineError::WholeIndexLoading);
    }
    model::ready().await.map(drop)
}

impl Serve<Update> for Full {
    async fn serve(Update { files, removed }: Update) -> Result<Updated, EngineError> {
        whole_index_and_model().await?;
        answers::forget_assisted();
        indexing::update(files, removed).await
    }
}

impl Serve<AddNodeVectors> for Full {
    async fn serve(_: AddNodeVectors) -> Result<Updated, EngineError> {
        whole_index_and_model().await?;
        answers::forget_assisted();
        indexing::add_node_vectors().await
    }
}

impl Serve<Query> for Full {
    async fn serve(Query { text, method, k }: Query) -> Result<Answer, EngineError> {
        match model::loaded() {
            Some(embedder) if fragments::opened() => match fragments::query_by_meaning(&embedder, &text, k).await {
                // The whole index opened while the question was looked up in the fragments.
                Err(_) if !fragments::opened() => answers::query(&embedder, &text, &method.method(), k),
                answered => answered,
            },
            None if fragments::opened() => fragments::query(&text, k).await,
            Some(embedder) => answers::query(&embedder, &text, &method.method(), k),
            None => answers::query_without_model(&text, &method.method(), k),
        }
    }
}

impl Serve<StartAssist> for Full {
    async fn serve(StartAssist { text, method, k, assist }: StartAssist) -> Result<AssistTurn, EngineError> {
        whole_index_and_model().await?;
        answers::start_assisted(&text, method.method(), k, assist)
    }
}

impl Serve<AssistReply> for Full {
    async fn serve(AssistReply { reply }: AssistReply) -> Result<AssistTurn, EngineError> {
        model::ready().await?;
        answers::resume_assisted(&reply)
    }
}

impl Serve<Outline> for Full {
    async fn serve(Outline { source, query }: Outline) -> Result<DocumentOutline, EngineError> {
        // Unscored while the model loads.
        let vector = match (query, model::loaded()) {
            (Some(text), Some(embedder)) => Some(answers::embed_one(&embedder, text.as_str())?),
            _ => None,
        };
        answers::outline(&source, vector)
    }
}

impl Serve<Evaluate> for Full {
    async fn serve(call: Evaluate) -> Result<Evaluation, EngineError> {
        model::ready().await?;
        let Evaluate { dataset, split, files, snapshot, methods, cutoffs } = call;
        let request = evaluation::EvaluationRequest { dataset, split, files, snapshot, methods, cutoffs };
        let evaluated = evaluation::evaluate(request).await;
        // A dataset in another language embedded with its model; the index held answers with its own.
        model::follow_index();
        evaluated
    }
}

impl Serve<Benchmark> for Full {
    #[cfg(feature = "bench")]
    async fn serve(benchmark: Benchmark) -> Result<String, EngineError> {
        model::ready().await?;
        super::measuring::measure(benchmark).await
    }

    #[cfg(not(feature = "bench"))]
    async fn serve(_: Benchmark) -> Result<String, EngineError> {
        Err(EngineError::NoBenchmarks)
    }
}
