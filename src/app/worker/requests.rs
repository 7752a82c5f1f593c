//! Which requests each engine serves. The full engine serves them all, answering by words until its model
//! has loaded; the engine that answers by words (the page's module, without embedder or parsers) serves
//! only what needs neither: opening and exporting an index, questions by BM25, outlines and overviews. The
//! two handlers share no function that reaches the embedder, so the page's module links none of it.

use crate::embed::TextEmbedder;
use crate::graph::overview::Overview;

use super::{answers, evaluation, fragments, indexing, model, with_index};
use crate::app::protocol::{Reply, Request};

/// What the full engine says of a change asked of an index it holds by its fragments.
const FRAGMENTS_HELD: &str = "the site's whole index is still loading: this can be done once it has";

/// What the engine by words says of a request only the full engine serves.
const NEEDS_THE_MODEL: &str = "this needs the embedding model, which is still loading";

/// A request served alike by both engines, or the request handed back.
enum Shared {
    Served(Result<Reply, String>),
    Not(Request),
}

fn shared(request: Request) -> Shared {
    Shared::Served(match request {
        Request::Export => with_index(|_, index| index.to_snapshot().map_err(|e| e.to_string())).map(Reply::Snapshot),
        Request::Overview { max_nodes } => {
            with_index(|_, index| Ok(Reply::Overview(Overview::build(index.corpus(), index.chunk_graph(), max_nodes))))
        }
        other => return Shared::Not(other),
    })
}

pub(super) async fn handle_by_words(request: Request) -> Result<Reply, String> {
    match shared(request) {
        Shared::Served(reply) => reply,
        Shared::Not(Request::Open { name, bytes }) => indexing::open(&name, &bytes, None).map(Reply::Opened),
        Shared::Not(Request::OpenFragments { name, folder }) => {
            fragments::open(&name, &folder, false).await.map(Reply::Opened)
        }
        Shared::Not(Request::Query { text, k, .. }) if fragments::opened() => {
            fragments::query(&text, k).await.map(Reply::Answer)
        }
        Shared::Not(Request::Query { text, k, .. }) => answers::query_by_words(&text, k).map(Reply::Answer),
        Shared::Not(Request::Outline { source, .. }) => answers::outline(&source, None).map(Reply::Outline),
        Shared::Not(_) => Err(NEEDS_THE_MODEL.to_string()),
    }
}

pub(super) async fn handle(request: Request) -> Result<Reply, String> {
    let request = match shared(request) {
        Shared::Served(reply) => return reply,
        Shared::Not(request) => request,
    };
    match request {
        // A retrieval waiting for the LLM holds ids of the index it started on.
        Request::Open { name, bytes } => {
            answers::forget_assisted();
            let embedder = model::loaded();
            indexing::open(&name, &bytes, embedder.as_ref().map(|e| e.identity())).map(Reply::Opened)
        }
        // An index held by its fragments changes once it is whole.
        Request::Update { .. } | Request::AddNodeVectors | Request::Assist { .. } if fragments::opened() => {
            Err(FRAGMENTS_HELD.into())
        }
        // Questions by words and opening go on while the model loads; the rest waits for it.
        Request::Update { .. }
        | Request::AddNodeVectors
        | Request::Assist { .. }
        | Request::AssistReply { .. }
        | Request::Evaluate { .. }
            if model::loaded().is_none() =>
        {
            model::ready().await?;
            Box::pin(handle(request)).await
        }
        Request::OpenFragments { name, folder } => {
            answers::forget_assisted();
            fragments::open(&name, &folder, true).await.map(Reply::Opened)
        }
        Request::Update { files, removed } => {
            answers::forget_assisted();
            indexing::update(files, removed).await
        }
        Request::AddNodeVectors => {
            answers::forget_assisted();
            indexing::add_node_vectors().await
        }
        Request::Query { text, method, k } => match model::loaded() {
            Some(embedder) if fragments::opened() => match fragments::query_by_meaning(&embedder, &text, k).await {
                // The whole index opened while the question was looked up in the fragments.
                Err(_) if !fragments::opened() => answers::query(&embedder, &text, &method.method(), k),
                answered => answered,
            },
            None if fragments::opened() => fragments::query(&text, k).await,
            Some(embedder) => answers::query(&embedder, &text, &method.method(), k),
            None => answers::query_by_words(&text, k),
        }
        .map(Reply::Answer),
        Request::Assist { text, method, k, assist } => {
            answers::start_assisted(&text, method.method(), k, assist).map(Reply::Assist)
        }
        Request::AssistReply { reply } => answers::resume_assisted(&reply).map(Reply::Assist),
        Request::Outline { source, query } => {
            let embedder = model::loaded();
            // Unscored while the model loads.
            let vector = match (query, &embedder) {
                (Some(text), Some(embedder)) => Some(answers::embed_one(embedder, text.as_str())?),
                _ => None,
            };
            answers::outline(&source, vector).map(Reply::Outline)
        }
        Request::Evaluate { dataset, split, files, snapshot, methods, cutoffs } => {
            let request = evaluation::EvaluationRequest { dataset, split, files, snapshot, methods, cutoffs };
            evaluation::evaluate(request).await.map(Reply::Evaluation)
        }
        #[cfg(feature = "bench")]
        Request::Benchmark(benchmark) => {
            model::ready().await?;
            super::measuring::measure(benchmark).await.map(Reply::Benchmark)
        }
        #[cfg(not(feature = "bench"))]
        Request::Benchmark(_) => {
            Err("this build measures nothing: build it with `trunk build --features bench`".into())
        }
        Request::Export | Request::Overview { .. } => unreachable!("served by `shared`"),
    }
}
