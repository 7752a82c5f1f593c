//! Relations between entities: from front matter, infoboxes and section titles as declared, and from
//! connecting phrases between two mentions in one sentence, grouped into a capped vocabulary of types.

use std::collections::{HashMap, HashSet};

use unicode_segmentation::UnicodeSegmentation;

use crate::analyzer::{Analyzer, is_stop_word};
use crate::corpus::document::{LinkKind, RelationOrigin, Span};
use crate::corpus::types::{ChunkId, Corpus, DocId, EntityId, Relation, RelationSource, RelationType, RelationTypeId};

use super::table::EntityTable;

/// Snake-case relation label: `Launched by` → `launched_by`.
pub fn relation_type_name(label: &str) -> String {
    let mapped: String = label.to_lowercase().chars().map(|c| if c.is_alphanumeric() { c } else { '_' }).collect();
    mapped.split('_').filter(|part| !part.is_empty()).collect::<Vec<_>>().join("_")
}

/// Where a relation is stated: its document and, for relations read from running text, the chunk and
/// the sentence.
#[derive(Clone, Copy)]
pub(super) struct Provenance {
    pub(super) document: DocId,
    pub(super) chunk: Option<ChunkId>,
    pub(super) evidence: Option<Span>,
}

pub(super) struct RelationSink {
    types: HashMap<String, RelationTypeId>,
    relation_types: Vec<RelationType>,
    relations: Vec<Relation>,
    seen: HashSet<(EntityId, RelationTypeId, EntityId)>,
}

impl RelationSink {
    pub(super) fn add(
        &mut self,
        subject: EntityId,
        name: String,
        object: EntityId,
        provenance: Provenance,
        source: RelationSource,
    ) {
        if name.is_empty() || subject == object {
            return;
        }
        let next_id = self.relation_types.len() as RelationTypeId;
        let relation_type = *self.types.entry(name.clone()).or_insert_with(|| {
            self.relation_types.push(RelationType { name });
            next_id
        });
        if self.seen.insert((subject, relation_type, object)) {
            let Provenance { document, chunk, evidence } = provenance;
            self.relations.push(Relation { subject, relation_type, object, document, source, chunk, evidence });
        }
    }
}

pub fn extract_relations(corpus: &mut Corpus, table: &mut EntityTable) {
    let mut sink =
        RelationSink { types: HashMap::new(), relation_types: Vec::new(), relations: Vec::new(), seen: HashSet::new() };
    for (doc_id, doc) in corpus.documents.iter().enumerate() {
        for declared in &doc.declared_relations {
            let (kind, source) = match declared.origin {
                RelationOrigin::FrontMatter => (LinkKind::Wiki, RelationSource::FrontMatter),
                RelationOrigin::Infobox => (LinkKind::Html, RelationSource::Infobox),
            };
            if let Some(object) = table.resolve_or_external(&doc.source, &declared.target, kind, &declared.target) {
                let provenance = Provenance { document: doc_id as DocId, chunk: None, evidence: None };
                sink.add(doc_id as EntityId, relation_type_name(&declared.label), object, provenance, source);
            }
        }
    }
    // Mentions are sorted by chunk: each chunk's sentences are found once for all its links.
    for mentions in corpus.mentions.chunk_by(|a, b| a.chunk == b.chunk) {
        let chunk_id = mentions[0].chunk;
        let chunk = &corpus.chunks[chunk_id as usize];
        let Some(section) = chunk.section else { continue };
        if !mentions.iter().any(|m| m.linked) {
            continue;
        }
        let type_name = relation_type_name(&corpus.sections[section as usize].title);
        let sentences = Sentences::of(corpus, chunk_id);
        for mention in mentions.iter().filter(|m| m.linked) {
            let provenance = Provenance {
                document: chunk.document,
                chunk: Some(chunk_id),
                evidence: Some(sentences.around(mention.span.start)),
            };
            sink.add(chunk.document, type_name.clone(), mention.entity, provenance, RelationSource::Section);
        }
    }
    for (candidate, name) in phrase_vocabulary(phrase_candidates(corpus), corpus.settings.max_phrase_relation_types) {
        sink.add(candidate.subject, name, candidate.object, candidate.provenance, RelationSource::Phrase);
    }
    corpus.relation_types = sink.relation_types;
    corpus.relations = sink.relations;
}

/// The sentences of one chunk, as byte offsets of the document text.
pub(super) struct Sentences {
    starts: Vec<usize>,
    ends: Vec<usize>,
}

impl Sentences {
    pub(super) fn of(corpus: &Corpus, chunk: ChunkId) -> Self {
        let chunk = &corpus.chunks[chunk as usize];
        let text = corpus.documents[chunk.document as usize].slice(chunk.span);
        let base = chunk.span.start as usize;
        let (starts, ends) = text
            .split_sentence_bound_indices()
            .map(|(offset, sentence)| {
                let leading = sentence.len() - sentence.trim_start().len();
                (base + offset + leading, base + offset + sentence.trim_end().len())
            })
            .unzip();
        Self { starts, ends }
    }

    pub(super) fn index_of(&self, position: u32) -> usize {
        self.ends.partition_point(|end| *end <= position as usize).min(self.ends.len().saturating_sub(1))
    }

    /// The sentence holding the byte at `position`.
    pub(super) fn around(&self, position: u32) -> Span {
        let index = self.index_of(position);
        Span::new(self.starts[index], self.ends[index].max(self.starts[index]))
    }
}

/// Two mentions joined by a short phrase in one sentence: `A <phrase> B`.
pub(super) struct PhraseCandidate {
    pub(super) subject: EntityId,
    pub(super) object: EntityId,
    /// Stemmed content words: `launched by`, `launches` and `was launched by the` group together.
    pub(super) key: String,
    /// The phrase's content words as written (lowercased), for the type's name.
    pub(super) surface: String,
    pub(super) provenance: Provenance,
}

/// `A <phrase> B` within one sentence, the phrase at most `max_relation_phrase_words` words with at least
/// one content word.
pub(super) fn phrase_candidates(corpus: &Corpus) -> Vec<PhraseCandidate> {
    let max_words = corpus.settings.max_relation_phrase_words;
    let analyzer = Analyzer::default();
    let mut candidates = Vec::new();
    for mentions in corpus.mentions.chunk_by(|a, b| a.chunk == b.chunk) {
        let chunk = &corpus.chunks[mentions[0].chunk as usize];
        let doc = &corpus.documents[chunk.document as usize];
        let sentences = Sentences::of(corpus, mentions[0].chunk);
        for pair in mentions.windows(2) {
            let (a, b) = (&pair[0], &pair[1]);
            if a.entity == b.entity
                || a.span.end > b.span.start
                || sentences.index_of(a.span.start) != sentences.index_of(b.span.start)
            {
                continue;
            }
            let between = &doc.text[a.span.end as usize..b.span.start as usize];
            let words: Vec<String> = between.unicode_words().map(str::to_lowercase).collect();
            let content: Vec<&str> = words.iter().map(String::as_str).filter(|w| !is_stop_word(w)).collect();
            if content.is_empty() || words.len() > max_words || between.contains(['(', ')', ';']) {
                continue;
            }
            candidates.push(PhraseCandidate {
                subject: a.entity,
                object: b.entity,
                key: analyzer.terms(between).join(" "),
                surface: content.join("_"),
                provenance: Provenance {
                    document: chunk.document,
                    chunk: Some(mentions[0].chunk),
                    evidence: Some(sentences.around(a.span.start)),
                },
            });
        }
    }
    candidates
}

/// Phrase relations need a vocabulary, not one type per wording: phrases group by stemmed content words,
/// each group is named by its most frequent wording, and only groups seen at least twice, at most
/// `max_types` of the most frequent, keep their own type; the others become `related_to`.
pub(super) fn phrase_vocabulary(candidates: Vec<PhraseCandidate>, max_types: usize) -> Vec<(PhraseCandidate, String)> {
    let mut wordings: HashMap<&str, HashMap<&str, usize>> = HashMap::new();
    for candidate in &candidates {
        *wordings.entry(&candidate.key).or_default().entry(&candidate.surface).or_default() += 1;
    }
    let mut groups: Vec<(&str, usize, &str)> = wordings
        .iter()
        .map(|(key, surfaces)| {
            let total = surfaces.values().sum();
            let (name, _) =
                surfaces.iter().max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(a.0))).expect("a group has a wording");
            (*key, total, *name)
        })
        .filter(|(_, total, _)| *total >= 2)
        .collect();
    groups.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    let names: HashMap<String, String> =
        groups.into_iter().take(max_types).map(|(key, _, name)| (key.to_string(), relation_type_name(name))).collect();
    candidates
        .into_iter()
        .map(|candidate| {
            let name = names.get(&candidate.key).cloned().unwrap_or_else(|| GENERIC_RELATION.to_string());
            (candidate, name)
        })
        .collect()
}

/// The type of a phrase relation whose wording is too rare to be a type of its own.
pub const GENERIC_RELATION: &str = "related_to";
