//! `quire stats` and `quire query`: what an index holds, and what a question finds in it.

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::Context;

use quire::embed::TextEmbedder;
use quire::retrieve;
use quire::store::{IndexedCorpus, TableQueries};

use super::indexing;
use super::shared::{CliResult, Models, load_snapshot, named, parse_methods};

pub(super) fn stats(snapshot: &Path, json: bool, list_documents: bool) -> CliResult {
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
    match summary.query_table {
        Some((terms, bytes)) => println!(
            "query table {terms} terms, {:.1} KiB in 4-bit codes: questions by meaning without the model (--query-table)",
            bytes as f64 / 1024.0
        ),
        None => println!("query table none (the snapshot is older than the table; index the documents again)"),
    }
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
pub(super) enum Show {
    Lists,
    Trace,
    Json,
}

pub(super) fn query(
    model: &Option<PathBuf>,
    snapshot: &Path,
    text: &str,
    k: usize,
    (method, fusion_model, by_table): (&str, Option<&Path>, bool),
    show: Show,
) -> CliResult {
    let method = parse_methods(&[method.to_string()], fusion_model)?.remove(0);
    let index = load_snapshot(snapshot)?;
    let mut models = Models::new(model);
    let index = indexing::with_vectors_for(&mut models, index, method.reads_node_vectors(), Some(snapshot))?;
    // By the table, the model is not loaded at all: the question is asked as an engine without it asks.
    let vector = match by_table {
        true => TableQueries::of(&index).with_context(named(snapshot))?.embed_query(text)?,
        false => models.for_index(&index)?.embed_query(text)?,
    };
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
