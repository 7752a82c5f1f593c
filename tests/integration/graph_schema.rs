//! The knowledge-graph schema of seed 000 §3.1 on a small fixture whose every node and edge is counted by
//! hand below.

use crate::common;

use quire::corpus::{self, Corpus, CorpusSettings, RelationSource, SourceFile};
use quire::graph::{EdgeKind, KnowledgeGraph, NodeRef};

const ALPHA: &str = "---
title: Alpha
related: \"[[Beta]]\"
---
# Alpha

Lead paragraph mentions [[Beta]].

## History

First history paragraph.

Second history paragraph.

### Early

Early paragraph about [Gamma](https://example.org/wiki/Gamma).

## Tours

Toured with [Beta](beta.md).
";

/// Two sentences state one relation in two wordings (`opened for`, `opens for`): one type, `opened`.
const BETA: &str =
    "# Beta\n\nBeta opened for Alpha in 1971. In 1972 Beta opens for [Gamma](https://example.org/wiki/Gamma).\n";

/// Chunk target of one word-piece: every paragraph is its own chunk, so counts follow the text.
fn fixture() -> Corpus {
    let settings = CorpusSettings { chunk_target_tokens: 1, ..CorpusSettings::default() };
    let report =
        corpus::ingest(&[SourceFile::new("notes/alpha.md", ALPHA), SourceFile::new("notes/beta.md", BETA)], &settings);
    assert!(report.errors.is_empty() && report.warnings.is_empty());
    Corpus::build(report.documents, common::embedder(), &settings)
}

#[test]
fn sections_chunks_and_uris() {
    let corpus = fixture();
    let uris: Vec<&str> = corpus.sections.iter().map(|s| s.uri.as_str()).collect();
    assert_eq!(uris, vec!["Alpha#History", "Alpha#History#Early", "Alpha#Tours"]);
    let depths: Vec<u8> = corpus.sections.iter().map(|s| s.depth).collect();
    assert_eq!(depths, vec![1, 2, 1]);
    let chunks: Vec<&str> = corpus.chunks.iter().map(|c| c.uri.as_str()).collect();
    assert_eq!(
        chunks,
        vec!["Alpha#1", "Alpha#History#1", "Alpha#History#2", "Alpha#History#Early#1", "Alpha#Tours#1", "Beta#1"]
    );
    assert_eq!(corpus.chunk_label(3), "Alpha › History › Early › #1");
    assert_eq!(corpus.chunk_text(2), "Second history paragraph.");
    let doc = &corpus.documents[0];
    let (start, end) = doc.char_span(corpus.chunks[2].span);
    assert_eq!(doc.text.chars().skip(start).take(end - start).collect::<String>(), "Second history paragraph.");
}

#[test]
fn entities_mentions_and_relations() {
    let corpus = fixture();
    let entities: Vec<(&str, Option<u32>)> = corpus.entities.iter().map(|e| (e.name.as_str(), e.document)).collect();
    assert_eq!(entities, vec![("Alpha", Some(0)), ("Beta", Some(1)), ("Gamma", None)]);
    let mentions: Vec<(u32, u32, bool)> = corpus.mentions.iter().map(|m| (m.chunk, m.entity, m.linked)).collect();
    // Beta's own title in its chunk is a mention too: chunks cite every entity they reference.
    assert_eq!(
        mentions,
        vec![(0, 1, true), (3, 2, true), (4, 1, true), (5, 1, false), (5, 0, false), (5, 1, false), (5, 2, true)]
    );
    let relations: Vec<(&str, &str, &str, RelationSource)> = corpus
        .relations
        .iter()
        .map(|r| {
            (
                corpus.entities[r.subject as usize].name.as_str(),
                corpus.relation_types[r.relation_type as usize].name.as_str(),
                corpus.entities[r.object as usize].name.as_str(),
                r.source,
            )
        })
        .collect();
    assert_eq!(
        relations,
        vec![
            ("Alpha", "related", "Beta", RelationSource::FrontMatter),
            ("Alpha", "early", "Gamma", RelationSource::Section),
            ("Alpha", "tours", "Beta", RelationSource::Section),
            ("Beta", "opened", "Alpha", RelationSource::Phrase),
            ("Beta", "opened", "Gamma", RelationSource::Phrase),
        ]
    );
    assert_eq!(corpus.relation_types[3].inverse_name(), "is_opened_of");
    // Each relation read from text keeps the chunk and the sentence that state it.
    let stated: Vec<(Option<u32>, Option<&str>)> = corpus
        .relations
        .iter()
        .map(|r| (r.chunk, r.evidence.map(|span| corpus.documents[r.document as usize].slice(span))))
        .collect();
    assert_eq!(
        stated,
        vec![
            (None, None),
            (Some(3), Some("Early paragraph about Gamma.")),
            (Some(4), Some("Toured with Beta.")),
            (Some(5), Some("Beta opened for Alpha in 1971.")),
            (Some(5), Some("In 1972 Beta opens for Gamma.")),
        ]
    );
}

#[test]
fn edge_kinds_and_counts() {
    let corpus = fixture();
    let graph = KnowledgeGraph::build(&corpus);
    let stats = graph.stats(&corpus);
    let nodes: Vec<(&str, usize)> = stats.nodes.iter().map(|(k, v)| (k.as_str(), *v)).collect();
    assert_eq!(nodes, vec![("chunk", 6), ("entity", 1), ("page", 2), ("section", 3)]);
    let edges: Vec<(&str, usize)> = stats.edges.iter().map(|(k, v)| (k.as_str(), *v)).collect();
    assert_eq!(
        edges,
        vec![
            // Alpha#1 -> Alpha; History chunks -> History, Alpha (2 x 2); Early#1 -> Early, History, Alpha;
            // Tours#1 -> Tours, Alpha; Beta#1 -> Beta: 1 + 4 + 3 + 2 + 1.
            ("cited_in", 6),
            ("cites", 6),
            ("has_chunk", 6),
            ("has_subchapter", 3),
            ("is_chunk_of", 11),
            // History -> Alpha; Early -> History, Alpha; Tours -> Alpha.
            ("is_subchapter_of", 4),
            ("next", 1),
            ("previous", 1),
            // Five relations, each with its is_<type>_of inverse.
            ("semantic_rel", 10),
        ]
    );
    assert_eq!(stats.relation_types, 4);
    assert_eq!(graph.neighbors(NodeRef::Chunk(1), EdgeKind::Next), vec![NodeRef::Chunk(2)]);
    assert_eq!(graph.neighbors(NodeRef::Chunk(2), EdgeKind::Previous), vec![NodeRef::Chunk(1)]);
    assert_eq!(
        graph.neighbors(NodeRef::Chunk(3), EdgeKind::IsChunkOf),
        vec![NodeRef::Section(1), NodeRef::Section(0), NodeRef::Entity(0)]
    );
    assert_eq!(
        graph.neighbors(NodeRef::Entity(0), EdgeKind::HasSubchapter),
        vec![NodeRef::Section(0), NodeRef::Section(2)]
    );
    assert_eq!(graph.neighbors(NodeRef::Section(0), EdgeKind::HasChunk), vec![NodeRef::Chunk(1), NodeRef::Chunk(2)]);
    assert_eq!(
        graph.neighbors(NodeRef::Entity(1), EdgeKind::CitedIn),
        vec![NodeRef::Chunk(0), NodeRef::Chunk(4), NodeRef::Chunk(5)]
    );
}

/// The page a chunk's mentions point at, by entity name.
fn cited_pages(corpus: &Corpus, chunk: usize) -> Vec<String> {
    corpus
        .mentions
        .iter()
        .filter(|m| m.chunk as usize == chunk)
        .map(|m| corpus.entities[m.entity as usize].name.clone())
        .collect()
}

#[test]
fn relative_links_resolve_against_the_linking_document() {
    let files = [
        SourceFile::new("a/index.md", "# Alpha index\n\nThe index of folder a.\n"),
        SourceFile::new("b/index.md", "# Beta index\n\nThe index of folder b.\n"),
        SourceFile::new("b/notes.md", "# Notes\n\nSee [the index](index.md) and [the other one](../a/index.md).\n"),
        SourceFile::new("c/readme.md", "# Readme\n\nAn [ambiguous link](elsewhere/index.md) names no folder's file.\n"),
    ];
    let settings = CorpusSettings::default();
    let corpus = Corpus::build(corpus::ingest(&files, &settings).documents, common::embedder(), &settings);
    assert_eq!(cited_pages(&corpus, 2), vec!["Beta index", "Alpha index"]);
    // `index.md` is the file name of two documents: the name alone resolves to neither of them, and the
    // link stays an external entity.
    assert_eq!(cited_pages(&corpus, 3), vec!["index"]);
    assert_eq!(corpus.entities.iter().find(|e| e.name == "index").unwrap().document, None);
}

#[test]
fn unlinked_mentions_match_titles_under_unicode_case_folding() {
    let files = [
        SourceFile::new("strasse.md", "# Hauptstraße\n\nDie Hauptstraße ist lang.\n"),
        SourceFile::new("walk.md", "# Walk\n\nWir gingen über die HAUPTSTRASSE und dann die hauptstraße entlang.\n"),
    ];
    let settings = CorpusSettings::default();
    let corpus = Corpus::build(corpus::ingest(&files, &settings).documents, common::embedder(), &settings);
    let walk = corpus.chunks.iter().position(|c| c.document == 1).unwrap();
    let found: Vec<&str> = corpus
        .mentions
        .iter()
        .filter(|m| m.chunk as usize == walk && m.entity == 0)
        .map(|m| corpus.documents[1].slice(m.span))
        .collect();
    assert_eq!(found, vec!["HAUPTSTRASSE", "hauptstraße"]);
}

/// A page whose first heading repeats its title once the site's name has left it (the Rust book's pages,
/// as the toolchain ships them: `<title>How to Write Tests - The Rust Programming Language</title>`, then
/// that `<h1>`) says its title once in a chunk's label; the heading stays a section of the graph.
#[test]
fn a_label_says_a_page_s_title_once() {
    let sysroot = std::process::Command::new("rustc").args(["--print", "sysroot"]).output().unwrap();
    let book = std::path::Path::new(String::from_utf8(sysroot.stdout).unwrap().trim()).join("share/doc/rust/html/book");
    let chapters =
        ["ch11-01-writing-tests.html", "ch11-02-running-tests.html", "ch09-02-recoverable-errors-with-result.html"];
    let files: Vec<SourceFile> = chapters
        .iter()
        .map(|name| SourceFile::new(format!("book/{name}"), std::fs::read(book.join(name)).unwrap()))
        .collect();
    let settings = CorpusSettings::default();
    let corpus = Corpus::build(corpus::ingest(&files, &settings).documents, common::embedder(), &settings);
    let labels: Vec<String> = (0..corpus.chunks.len() as u32).map(|chunk| corpus.chunk_label(chunk)).collect();
    assert!(
        labels.iter().any(|label| label.starts_with("How to Write Tests › Using Result<T, E> in Tests › #")),
        "{labels:?}"
    );
    assert!(labels.iter().all(|label| !label.starts_with("How to Write Tests › How to Write Tests")), "{labels:?}");
    assert!(corpus.sections.iter().any(|section| section.title == "How to Write Tests"), "the heading is a section");
}

/// In a document of more tiny sections than its bytes pay a text each for, runs of them are joined into one
/// chunk: every section the chunk spans has it as its chunk, so section retrieval still reaches its text.
#[test]
fn a_chunk_joined_across_tiny_sections_is_the_chunk_of_each_of_them() {
    let days: String = (1..=30).map(|n| format!("## Day {n}\n\nCalm.\n\n")).collect();
    let settings = CorpusSettings::default();
    let report = corpus::ingest(&[SourceFile::new("log.md", format!("# Log\n\n{days}"))], &settings);
    let corpus = Corpus::build(report.documents, common::embedder(), &settings);
    assert!(corpus.chunks.len() <= 2, "{} chunks", corpus.chunks.len());
    let graph = KnowledgeGraph::build(&corpus);
    for (id, section) in corpus.sections.iter().enumerate() {
        let chunks = graph.neighbors(NodeRef::Section(id as u32), EdgeKind::HasChunk);
        let [NodeRef::Chunk(chunk)] = chunks[..] else { panic!("{}: {chunks:?}", section.title) };
        let chunk = &corpus.chunks[chunk as usize];
        assert!(chunk.section == Some(id as u32) || chunk.span.contains(section.heading), "{}", section.title);
    }
}
