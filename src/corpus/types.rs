//! The corpus as records: documents, the section tree, chunks, entities, mentions and relations, with the
//! reads every later stage makes of them (a chunk's text, label and search text, a relation in words).
//! Built by [`super::build`]; checked here because a decoded snapshot must satisfy the same invariants.

use serde::{Deserialize, Serialize};

use super::CorpusSettings;
use super::document::{Document, Span};
use crate::error::Inconsistent;

pub type DocId = u32;
pub type SectionId = u32;
pub type ChunkId = u32;
pub type EntityId = u32;
pub type RelationTypeId = u32;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Section {
    pub document: DocId,
    pub parent: Option<SectionId>,
    pub title: String,
    /// 1 for a top-level section.
    pub depth: u8,
    /// `Page#Chapter#Sub`.
    pub uri: String,
    pub heading: Span,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Chunk {
    pub document: DocId,
    /// `None` for lead text before the first heading, which hangs directly off the page.
    pub section: Option<SectionId>,
    /// 1-based position within its section (or the page lead).
    pub ordinal: u32,
    pub span: Span,
    pub page: Option<u32>,
    pub tokens: u32,
    /// The header of the table whose rows the chunk holds, when its text does not say it: carried in the
    /// chunk's context.
    pub header: Option<Span>,
    /// Section uri (or page name) + `#ordinal`.
    pub uri: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Entity {
    pub name: String,
    /// `Some` for a Page: the document describing this entity. External entities have none.
    pub document: Option<DocId>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Mention {
    pub chunk: ChunkId,
    pub entity: EntityId,
    pub span: Span,
    /// True for an explicit link, false for a dictionary match of a title or alias.
    pub linked: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RelationType {
    /// Normalised `snake_case` label, e.g. `launched_by`.
    pub name: String,
}

impl RelationType {
    pub fn inverse_name(&self) -> String {
        format!("is_{}_of", self.name)
    }
    /// What gets embedded: the label in words.
    pub fn text(&self) -> String {
        self.name.replace('_', " ")
    }
    /// The inverse label in words (`is launched by of`), embedded too: a traversal that follows an edge
    /// backwards compares the query with what the edge means in that direction.
    pub fn inverse_text(&self) -> String {
        self.inverse_name().replace('_', " ")
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum RelationSource {
    FrontMatter,
    Infobox,
    /// Page → entity linked inside a section; the section title is the type.
    Section,
    /// The words connecting two mentions in one sentence.
    Phrase,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Relation {
    pub subject: EntityId,
    pub relation_type: RelationTypeId,
    pub object: EntityId,
    pub document: DocId,
    pub source: RelationSource,
    /// The chunk that states the relation (none for front matter and infoboxes, which are metadata).
    pub chunk: Option<ChunkId>,
    /// The sentence that states it, a span of the document text.
    pub evidence: Option<Span>,
}

/// The structured corpus. Entity `i` for `i < documents.len()` is the page of document `i`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Corpus {
    pub settings: CorpusSettings,
    pub documents: Vec<Document>,
    pub sections: Vec<Section>,
    pub chunks: Vec<Chunk>,
    pub entities: Vec<Entity>,
    pub mentions: Vec<Mention>,
    pub relation_types: Vec<RelationType>,
    pub relations: Vec<Relation>,
}

impl Corpus {
    /// Each language's ISO 639-1 code with its count of documents, the most documents first.
    pub fn language_counts(&self) -> Vec<(String, usize)> {
        let counts = crate::language::tally(self.documents.iter().map(|document| document.language));
        counts.into_iter().map(|(language, count)| (language.code().to_string(), count)).collect()
    }

    /// Whether every reference between records is in range and every span lies on character boundaries of
    /// its document: what a decoded snapshot must satisfy before anything indexes into it.
    pub fn check(&self) -> Result<(), Inconsistent> {
        let (documents, sections, chunks, entities) =
            (self.documents.len(), self.sections.len(), self.chunks.len(), self.entities.len());
        let span_fits = |doc: u32, span: Span| {
            self.documents
                .get(doc as usize)
                .is_some_and(|d| span.start <= span.end && d.text.get(span.range()).is_some())
        };
        let in_range = |id: u32, len: usize| (id as usize) < len;
        ensure(entities >= documents, "fewer entities than documents")?;
        for doc in &self.documents {
            let spans = doc.blocks.iter().map(|b| b.span).chain(doc.links.iter().map(|l| l.span));
            ensure(
                spans.clone().all(|s| s.start <= s.end && doc.text.get(s.range()).is_some()),
                "a block or link span outside its text",
            )?;
        }
        for (id, section) in self.sections.iter().enumerate() {
            ensure(
                in_range(section.document, documents) && span_fits(section.document, section.heading),
                "a section outside its document",
            )?;
            // Parents precede children, which also rules out cycles.
            ensure(
                section
                    .parent
                    .is_none_or(|p| (p as usize) < id && self.sections[p as usize].document == section.document),
                "a section with an invalid parent",
            )?;
        }
        for chunk in &self.chunks {
            ensure(span_fits(chunk.document, chunk.span), "a chunk outside its document")?;
            ensure(
                chunk.header.is_none_or(|header| span_fits(chunk.document, header)),
                "a table header outside its document",
            )?;
            ensure(
                chunk
                    .section
                    .is_none_or(|s| in_range(s, sections) && self.sections[s as usize].document == chunk.document),
                "a chunk in a section of another document",
            )?;
        }
        ensure(
            self.entities.iter().all(|e| e.document.is_none_or(|d| in_range(d, documents))),
            "an entity of a missing document",
        )?;
        for mention in &self.mentions {
            ensure(
                in_range(mention.chunk, chunks) && in_range(mention.entity, entities),
                "a mention of a missing chunk or entity",
            )?;
            ensure(
                span_fits(self.chunks[mention.chunk as usize].document, mention.span),
                "a mention outside its document",
            )?;
        }
        for relation in &self.relations {
            let valid = in_range(relation.subject, entities)
                && in_range(relation.object, entities)
                && in_range(relation.relation_type, self.relation_types.len())
                && in_range(relation.document, documents);
            ensure(valid, "a relation between missing entities")?;
            ensure(
                relation
                    .chunk
                    .is_none_or(|c| in_range(c, chunks) && self.chunks[c as usize].document == relation.document)
                    && relation.evidence.is_none_or(|span| span_fits(relation.document, span)),
                "a relation stated outside its document",
            )?;
        }
        Ok(())
    }

    pub fn chunk_text(&self, chunk: ChunkId) -> &str {
        let chunk = &self.chunks[chunk as usize];
        self.documents[chunk.document as usize].slice(chunk.span)
    }

    /// Page node text: the title, with the type hint in parentheses when known (seed 000 §3.1).
    pub fn page_text(&self, doc: DocId) -> String {
        let document = &self.documents[doc as usize];
        let name = &self.entities[doc as usize].name;
        match &document.type_hint {
            Some(hint) => format!("{name} ({hint})"),
            None => name.clone(),
        }
    }

    /// The chunks of `document`: chunks of one document are contiguous and in document order.
    pub fn document_chunks(&self, document: DocId) -> std::ops::Range<ChunkId> {
        let first = self.chunks.partition_point(|c| c.document < document);
        let last = self.chunks.partition_point(|c| c.document <= document);
        first as ChunkId..last as ChunkId
    }

    /// A relation in words, `{subject} {relation} {object}` (`Apollo 11 launched by NASA`): what the triplet
    /// and hub retrievers embed and search.
    pub fn relation_statement(&self, relation: usize) -> String {
        let relation = &self.relations[relation];
        let name = |entity: EntityId| self.entities[entity as usize].name.as_str();
        let verb = self.relation_types[relation.relation_type as usize].text();
        format!("{} {verb} {}", name(relation.subject), name(relation.object))
    }

    /// Titles of the sections a chunk lies in, outermost first.
    fn section_titles(&self, chunk: ChunkId) -> Vec<&str> {
        self.chunks[chunk as usize].section.map_or_else(Vec::new, |section| self.section_path(section))
    }

    /// Titles from the outermost section down to `section`, itself included.
    pub fn section_path(&self, section: SectionId) -> Vec<&str> {
        let mut path = Vec::new();
        let mut section = Some(section);
        while let Some(id) = section {
            path.push(self.sections[id as usize].title.as_str());
            section = self.sections[id as usize].parent;
        }
        path.reverse();
        path
    }

    /// `Page › Section › #n`, the provenance shown with every retrieved chunk.
    pub fn chunk_label(&self, chunk: ChunkId) -> String {
        let record = &self.chunks[chunk as usize];
        let title = self.entities[record.document as usize].name.as_str();
        let mut parts = vec![title];
        // A page whose first heading is its title says it once ("Testing › Unit tests", not "Testing ›
        // Testing › Unit tests").
        let mut headings = self.section_titles(chunk).into_iter().peekable();
        headings.next_if(|heading| heading.trim().eq_ignore_ascii_case(title.trim()));
        parts.extend(headings);
        let ordinal = format!("#{}", record.ordinal);
        parts.push(&ordinal);
        parts.join(" › ")
    }

    /// What a chunk is about beyond its own words: the document title and the headings above it
    /// (`Apollo 11 > Launch`), and the header of the table whose rows it holds (`Planets > name; moons`).
    /// Embedded and indexed with the chunk, never shown as part of it.
    pub fn chunk_context(&self, chunk: ChunkId) -> String {
        let record = &self.chunks[chunk as usize];
        let document = &self.documents[record.document as usize];
        let context = context_path(document, self.section_titles(chunk));
        match record.header {
            Some(header) => join_context(&context, super::chunking::carried_header(document, header)),
            None => context,
        }
    }

    /// The text that dense search and BM25 see for a chunk: its context line, then its text.
    pub fn chunk_search_text(&self, chunk: ChunkId) -> String {
        let context = self.chunk_context(chunk);
        let text = self.chunk_text(chunk);
        if context.is_empty() { text.to_string() } else { format!("{context}\n{text}") }
    }
}

/// `Title > Heading > Subheading`; a title that is only a record id is left out.
pub(super) fn context_path(document: &Document, headings: Vec<&str>) -> String {
    let title = if document.title_is_identifier { "" } else { document.title.as_str() };
    headings.into_iter().fold(title.to_string(), |context, heading| join_context(&context, heading))
}

pub(super) fn join_context(context: &str, heading: &str) -> String {
    if context.is_empty() { heading.to_string() } else { format!("{context} > {heading}") }
}

fn ensure(condition: bool, problem: &str) -> Result<(), Inconsistent> {
    if condition { Ok(()) } else { Err(problem.into()) }
}
