//! From documents to the corpus structure: sections from the heading hierarchy, chunks per section,
//! entities (every document, plus external link targets), mentions, and typed relations.

use std::collections::{HashMap, HashSet};

use super::CorpusSettings;
use super::chunking::{self, ChunkLimits, TokenCounter};
use super::document::{BlockKind, Document, TextBlock};
use super::entities::{self, EntityTable};
use super::types::{Chunk, Corpus, DocId, Section, SectionId, context_path, join_context};

impl Corpus {
    pub fn build(mut documents: Vec<Document>, counter: &dyn TokenCounter, settings: &CorpusSettings) -> Corpus {
        super::site_titles::strip_site_suffixes(&mut documents);
        let mut corpus = Corpus {
            settings: settings.clone(),
            documents,
            sections: Vec::new(),
            chunks: Vec::new(),
            entities: Vec::new(),
            mentions: Vec::new(),
            relation_types: Vec::new(),
            relations: Vec::new(),
        };
        let mut table = EntityTable::for_documents(&corpus.documents);
        corpus.entities = table.page_entities();
        for doc_id in 0..corpus.documents.len() {
            corpus.structure_document(doc_id as DocId, counter);
        }
        entities::link_mentions(&mut corpus, &mut table);
        entities::dictionary_mentions(&mut corpus, &table);
        corpus.mentions.sort_by_key(|m| (m.chunk, m.span.start, m.entity));
        entities::extract_relations(&mut corpus, &mut table);
        corpus.entities = table.into_entities();
        corpus
    }

    fn structure_document(&mut self, doc_id: DocId, counter: &dyn TokenCounter) {
        let document = &self.documents[doc_id as usize];
        let page_name = self.entities[doc_id as usize].name.clone();
        let settings = &self.settings;
        // Each chunk is embedded behind its context line, so the context's word-pieces come out of the
        // chunk's budget (at most a quarter of it: a longer context is cut by the embedder instead).
        let limits_under = |context: &str| {
            let reserved = if context.is_empty() { 0 } else { counter.count_tokens(context) + 1 };
            ChunkLimits {
                target_tokens: settings.chunk_target_tokens,
                max_tokens: settings.chunk_max_tokens - reserved.min(settings.chunk_max_tokens / 4),
            }
        };
        let page_context = context_path(document, Vec::new());
        let mut section_contexts: Vec<String> = Vec::new();
        let mut limits = limits_under(&page_context);
        let mut stack: Vec<(u8, SectionId)> = Vec::new();
        let mut used_uris: HashSet<String> = HashSet::new();
        let mut body: Vec<&TextBlock> = Vec::new();
        let mut new_sections = Vec::new();
        let mut new_chunks = Vec::new();
        let first_section = self.sections.len() as SectionId;
        let mut container: Option<SectionId> = None;
        let blocks = skip_title_heading(document);
        for block in blocks {
            let BlockKind::Heading { level } = block.kind else {
                body.push(block);
                continue;
            };
            let planned = chunking::chunk_blocks(document, &body, counter, &limits);
            new_chunks.extend(planned.into_iter().map(|c| (container, c)));
            body.clear();
            while stack.last().is_some_and(|(l, _)| *l >= level) {
                stack.pop();
            }
            let parent = stack.last().map(|(_, id)| *id);
            let parent_uri = parent.map_or(page_name.clone(), |p| {
                let section: &Section = &new_sections[(p - first_section) as usize];
                section.uri.clone()
            });
            let title = super::document::bounded_name(document.slice(block.span));
            let (title, uri) = unique_child(&parent_uri, &title, &mut used_uris);
            let parent_context = parent.map_or(&page_context, |p| &section_contexts[(p - first_section) as usize]);
            let context = join_context(parent_context, &title);
            limits = limits_under(&context);
            section_contexts.push(context);
            let id = first_section + new_sections.len() as SectionId;
            new_sections.push(Section {
                document: doc_id,
                parent,
                title,
                depth: stack.len() as u8 + 1,
                uri,
                heading: block.span,
            });
            stack.push((level, id));
            container = Some(id);
        }
        let planned = chunking::chunk_blocks(document, &body, counter, &limits);
        new_chunks.extend(planned.into_iter().map(|c| (container, c)));
        self.sections.extend(new_sections);
        let new_chunks = chunking::bound_chunks(document, new_chunks, counter);
        let mut ordinals: HashMap<Option<SectionId>, u32> = HashMap::new();
        for (section, planned) in new_chunks {
            let ordinal = ordinals.entry(section).and_modify(|o| *o += 1).or_insert(1);
            let prefix = section.map_or(page_name.clone(), |s| self.sections[s as usize].uri.clone());
            self.chunks.push(Chunk {
                document: doc_id,
                section,
                ordinal: *ordinal,
                span: planned.span,
                page: planned.page,
                tokens: planned.tokens as u32,
                header: planned.header,
                uri: format!("{prefix}#{ordinal}"),
            });
        }
    }
}
/// A leading H1 that repeats the title names the page, not a section.
fn skip_title_heading(document: &Document) -> &[TextBlock] {
    match document.blocks.first() {
        Some(first)
            if first.kind == (BlockKind::Heading { level: 1 }) && document.slice(first.span) == document.title =>
        {
            &document.blocks[1..]
        }
        _ => &document.blocks,
    }
}

/// Sibling sections with equal titles get ` (2)`, ` (3)`… so every uri names one node.
fn unique_child(parent_uri: &str, title: &str, used: &mut HashSet<String>) -> (String, String) {
    let mut candidate = title.to_string();
    let mut n = 2;
    while !used.insert(format!("{parent_uri}#{candidate}")) {
        candidate = format!("{title} ({n})");
        n += 1;
    }
    let uri = format!("{parent_uri}#{candidate}");
    (candidate, uri)
}
