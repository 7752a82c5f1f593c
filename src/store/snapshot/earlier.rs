//! The documents and corpora of earlier snapshot formats, read into today's: version 7 and earlier stored
//! no language (every document was analysed as English), version 6 and earlier no table headers.

use serde::Deserialize;

use crate::corpus::document::{DeclaredRelation, Link, TextBlock};
use crate::corpus::{
    Chunk, Corpus, CorpusSettings, DocId, Document, Entity, Format, Mention, Relation, RelationType, Section,
    SectionId, Span,
};
use crate::language::Language;

/// A document as version 7 and earlier stored it: without a language.
#[derive(Deserialize)]
pub(super) struct DocumentBeforeLanguages {
    source: String,
    content_hash: [u8; 16],
    format: Format,
    title: String,
    title_is_identifier: bool,
    aliases: Vec<String>,
    type_hint: Option<String>,
    declared_relations: Vec<DeclaredRelation>,
    text: String,
    blocks: Vec<TextBlock>,
    links: Vec<Link>,
}

impl From<DocumentBeforeLanguages> for Document {
    fn from(old: DocumentBeforeLanguages) -> Document {
        Document {
            source: old.source,
            content_hash: old.content_hash,
            format: old.format,
            title: old.title,
            title_is_identifier: old.title_is_identifier,
            aliases: old.aliases,
            type_hint: old.type_hint,
            declared_relations: old.declared_relations,
            text: old.text,
            blocks: old.blocks,
            links: old.links,
            language: Language::English,
        }
    }
}

/// A corpus as version 7 stored it: its documents had no language.
#[derive(Deserialize)]
pub(super) struct CorpusBeforeLanguages {
    settings: CorpusSettings,
    documents: Vec<DocumentBeforeLanguages>,
    sections: Vec<Section>,
    chunks: Vec<Chunk>,
    entities: Vec<Entity>,
    mentions: Vec<Mention>,
    relation_types: Vec<RelationType>,
    relations: Vec<Relation>,
}

impl From<CorpusBeforeLanguages> for Corpus {
    fn from(old: CorpusBeforeLanguages) -> Corpus {
        let CorpusBeforeLanguages {
            settings,
            documents,
            sections,
            chunks,
            entities,
            mentions,
            relation_types,
            relations,
        } = old;
        let documents = documents.into_iter().map(Document::from).collect();
        Corpus { settings, documents, sections, chunks, entities, mentions, relation_types, relations }
    }
}

/// A corpus as version 6 and earlier stored it: its chunks had no table header.
#[derive(Deserialize)]
pub(super) struct CorpusBeforeHeaders {
    settings: CorpusSettings,
    documents: Vec<DocumentBeforeLanguages>,
    sections: Vec<Section>,
    chunks: Vec<ChunkBeforeHeaders>,
    entities: Vec<Entity>,
    mentions: Vec<Mention>,
    relation_types: Vec<RelationType>,
    relations: Vec<Relation>,
}

#[derive(Deserialize)]
pub(super) struct ChunkBeforeHeaders {
    document: DocId,
    section: Option<SectionId>,
    ordinal: u32,
    span: Span,
    page: Option<u32>,
    tokens: u32,
    uri: String,
}

impl From<CorpusBeforeHeaders> for Corpus {
    fn from(old: CorpusBeforeHeaders) -> Corpus {
        let chunks = old
            .chunks
            .into_iter()
            .map(|c| Chunk {
                document: c.document,
                section: c.section,
                ordinal: c.ordinal,
                span: c.span,
                page: c.page,
                tokens: c.tokens,
                header: None,
                uri: c.uri,
            })
            .collect();
        let CorpusBeforeHeaders {
            settings, documents, sections, entities, mentions, relation_types, relations, ..
        } = old;
        let documents = documents.into_iter().map(Document::from).collect();
        Corpus { settings, documents, sections, chunks, entities, mentions, relation_types, relations }
    }
}
