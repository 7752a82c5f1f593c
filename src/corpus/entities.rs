//! Entities, mentions and relations without an LLM: links resolved to documents by title, alias, slug or
//! file name; unresolved targets as external entities; unlinked title mentions by dictionary matching; and
//! relations from front matter, infoboxes, section titles and connecting phrases.

use std::collections::{HashMap, HashSet};

use aho_corasick::{AhoCorasickBuilder, MatchKind};
use percent_encoding::percent_decode_str;
use unicode_segmentation::UnicodeSegmentation;

use super::build::{Corpus, DocId, Entity, EntityId, Mention, Relation, RelationSource, RelationType, RelationTypeId};
use super::document::{Document, LinkKind, Span, title_from_file_name};
use crate::index::analyzer::is_stop_word;

/// Titles too generic to count as a mention when they appear unlinked.
#[rustfmt::skip]
const TITLE_STOP_LIST: &[&str] = &[
    "about", "appendix", "background", "chapter", "contents", "data", "details", "example", "examples", "history",
    "home", "index", "introduction", "list", "main", "note", "notes", "other", "overview", "page", "readme",
    "references", "section", "see also", "summary", "table", "this", "that", "there", "these", "those", "untitled",
];

/// All entities, with the keys that resolve a link target or a name to one of them.
pub struct EntityTable {
    entities: Vec<Entity>,
    keys: HashMap<String, EntityId>,
    documents: usize,
}

impl EntityTable {
    /// One entity per document, named by its title (made unique: `Title (source)` on a clash).
    pub fn for_documents(documents: &[Document]) -> Self {
        let mut table = EntityTable { entities: Vec::new(), keys: HashMap::new(), documents: documents.len() };
        let mut names: HashSet<String> = HashSet::new();
        for (id, doc) in documents.iter().enumerate() {
            let mut name = doc.title.clone();
            if !names.insert(normalize_key(&name)) {
                name = format!("{} ({})", doc.title, doc.source);
                names.insert(normalize_key(&name));
            }
            table.entities.push(Entity { name: name.clone(), document: Some(id as DocId) });
            let file_name = doc.source.rsplit(['/', '\\']).next().unwrap_or(&doc.source).to_string();
            let record_id = doc.source.rsplit_once('#').map(|(_, id)| id.to_string());
            let mut keys =
                vec![name, doc.title.clone(), doc.source.clone(), file_name.clone(), title_from_file_name(&file_name)];
            keys.extend(doc.aliases.iter().cloned());
            keys.extend(record_id);
            for key in keys {
                table.keys.entry(normalize_key(&key)).or_insert(id as EntityId);
            }
        }
        table
    }

    pub fn page_entities(&self) -> Vec<Entity> {
        self.entities[..self.documents].to_vec()
    }

    pub fn into_entities(self) -> Vec<Entity> {
        self.entities
    }

    /// The document a link target points at, if any.
    pub fn resolve(&self, target: &str) -> Option<EntityId> {
        link_candidates(target).iter().find_map(|candidate| self.keys.get(&normalize_key(candidate)).copied())
    }

    /// The entity a link names: a document, or an external entity created on first sight.
    pub fn resolve_or_external(&mut self, target: &str, kind: LinkKind, anchor: &str) -> Option<EntityId> {
        if let Some(id) = self.resolve(target) {
            return Some(id);
        }
        let name = external_name(target, kind, anchor)?;
        let key = normalize_key(&name);
        if let Some(id) = self.keys.get(&key) {
            return Some(*id);
        }
        let id = self.entities.len() as EntityId;
        self.entities.push(Entity { name, document: None });
        self.keys.insert(key, id);
        Some(id)
    }

    /// Names and aliases of documents worth matching in running text.
    fn dictionary(&self, documents: &[Document], min_chars: usize) -> Vec<(String, EntityId)> {
        let mut seen = HashSet::new();
        let mut patterns = Vec::new();
        for (id, doc) in documents.iter().enumerate() {
            let names =
                std::iter::once(&self.entities[id].name).chain(std::iter::once(&doc.title)).chain(doc.aliases.iter());
            for name in names {
                let lowered = name.to_lowercase();
                let eligible = name.chars().count() >= min_chars && !TITLE_STOP_LIST.contains(&lowered.as_str());
                if eligible && seen.insert(lowered) {
                    patterns.push((name.clone(), id as EntityId));
                }
            }
        }
        patterns
    }
}

/// Lowercase, percent-decoded, `_`/`-` as spaces, whitespace collapsed: how names are compared.
pub fn normalize_key(text: &str) -> String {
    let decoded = percent_decode_str(text).decode_utf8_lossy();
    decoded.to_lowercase().replace(['_', '-'], " ").split_whitespace().collect::<Vec<_>>().join(" ")
}

/// What a link target could be named by: the whole path, its last segment, and that without extension.
fn link_candidates(target: &str) -> Vec<String> {
    let path = link_path(target);
    if path.is_empty() {
        return Vec::new();
    }
    let last = path.trim_end_matches('/').rsplit('/').next().unwrap_or(path);
    let mut candidates = vec![path.to_string(), last.to_string()];
    if let Some((stem, _)) = last.rsplit_once('.').filter(|(stem, ext)| !stem.is_empty() && ext.len() <= 5) {
        candidates.push(stem.to_string());
    }
    candidates
}

/// The path part of a target: no scheme or host, no query, no fragment.
fn link_path(target: &str) -> &str {
    let target = target.trim();
    let without_fragment = target.split('#').next().unwrap_or("");
    let without_query = without_fragment.split('?').next().unwrap_or("");
    match without_query.split_once("://") {
        Some((_, rest)) => rest.split_once('/').map_or("", |(_, path)| path),
        None => without_query.trim_start_matches("./"),
    }
}

fn external_name(target: &str, kind: LinkKind, anchor: &str) -> Option<String> {
    let name = if kind == LinkKind::Wiki {
        target.split('#').next().unwrap_or("").trim().to_string()
    } else {
        let path = link_path(target);
        let last = path.trim_end_matches('/').rsplit('/').next().unwrap_or("");
        let decoded = percent_decode_str(last).decode_utf8_lossy().to_string();
        let stem = decoded
            .rsplit_once('.')
            .filter(|(s, e)| !s.is_empty() && e.len() <= 5)
            .map_or(decoded.as_str(), |(s, _)| s);
        let readable = stem.replace('_', " ").trim().to_string();
        if readable.is_empty() { anchor.trim().to_string() } else { readable }
    };
    let name = super::document::collapse_whitespace(&name);
    (!name.is_empty()).then_some(name)
}

/// The chunk of `document` whose span contains `span`; chunks of one document are contiguous and ordered.
fn chunk_containing(corpus: &Corpus, document: DocId, span: Span) -> Option<u32> {
    let first = corpus.chunks.partition_point(|c| c.document < document);
    let last = corpus.chunks.partition_point(|c| c.document <= document);
    let chunks = &corpus.chunks[first..last];
    let index = chunks.partition_point(|c| c.span.start <= span.start).checked_sub(1)?;
    chunks[index].span.contains(span).then_some((first + index) as u32)
}

pub fn link_mentions(corpus: &mut Corpus, table: &mut EntityTable) {
    let mut mentions = Vec::new();
    for (doc_id, doc) in corpus.documents.iter().enumerate() {
        for link in &doc.links {
            let Some(entity) = table.resolve_or_external(&link.target, link.kind, doc.slice(link.span)) else {
                continue;
            };
            if let Some(chunk) = chunk_containing(corpus, doc_id as DocId, link.span) {
                mentions.push(Mention { chunk, entity, span: link.span, linked: true });
            }
        }
    }
    corpus.mentions.extend(mentions);
}

/// Whole-word, case-insensitive occurrences of document titles and aliases outside links.
pub fn dictionary_mentions(corpus: &mut Corpus, table: &EntityTable) {
    let patterns = table.dictionary(&corpus.documents, corpus.settings.min_mention_chars);
    if patterns.is_empty() {
        return;
    }
    // A dictionary beyond the automaton's size limits yields no unlinked mentions rather than a failure.
    let Ok(matcher) = AhoCorasickBuilder::new()
        .ascii_case_insensitive(true)
        .match_kind(MatchKind::LeftmostLongest)
        .build(patterns.iter().map(|(p, _)| p))
    else {
        return;
    };
    let mut link_spans: HashMap<u32, Vec<Span>> = HashMap::new();
    for mention in &corpus.mentions {
        link_spans.entry(mention.chunk).or_default().push(mention.span);
    }
    let mut found = Vec::new();
    for (doc_id, doc) in corpus.documents.iter().enumerate() {
        for hit in matcher.find_iter(&doc.text) {
            if !is_whole_word(&doc.text, hit.start(), hit.end()) {
                continue;
            }
            let span = Span::new(hit.start(), hit.end());
            let Some(chunk) = chunk_containing(corpus, doc_id as DocId, span) else { continue };
            let inside_link = link_spans.get(&chunk).is_some_and(|spans| spans.iter().any(|s| s.overlaps(span)));
            if !inside_link {
                found.push(Mention { chunk, entity: patterns[hit.pattern().as_usize()].1, span, linked: false });
            }
        }
    }
    corpus.mentions.extend(found);
}

fn is_whole_word(text: &str, start: usize, end: usize) -> bool {
    let before = text[..start].chars().next_back();
    let after = text[end..].chars().next();
    !before.is_some_and(char::is_alphanumeric) && !after.is_some_and(char::is_alphanumeric)
}

/// Snake-case relation label: `Launched by` → `launched_by`.
pub fn relation_type_name(label: &str) -> String {
    let mapped: String = label.to_lowercase().chars().map(|c| if c.is_alphanumeric() { c } else { '_' }).collect();
    mapped.split('_').filter(|part| !part.is_empty()).collect::<Vec<_>>().join("_")
}

struct RelationSink {
    types: HashMap<String, RelationTypeId>,
    relation_types: Vec<RelationType>,
    relations: Vec<Relation>,
    seen: HashSet<(EntityId, RelationTypeId, EntityId)>,
}

impl RelationSink {
    fn add(&mut self, subject: EntityId, label: &str, object: EntityId, document: DocId, source: RelationSource) {
        let name = relation_type_name(label);
        if name.is_empty() || subject == object {
            return;
        }
        let next_id = self.relation_types.len() as RelationTypeId;
        let relation_type = *self.types.entry(name.clone()).or_insert_with(|| {
            self.relation_types.push(RelationType { name });
            next_id
        });
        if self.seen.insert((subject, relation_type, object)) {
            self.relations.push(Relation { subject, relation_type, object, document, source });
        }
    }
}

pub fn extract_relations(corpus: &mut Corpus, table: &mut EntityTable) {
    let mut sink =
        RelationSink { types: HashMap::new(), relation_types: Vec::new(), relations: Vec::new(), seen: HashSet::new() };
    for (doc_id, doc) in corpus.documents.iter().enumerate() {
        for declared in &doc.declared_relations {
            let kind = if declared.origin == super::document::RelationOrigin::FrontMatter {
                LinkKind::Wiki
            } else {
                LinkKind::Html
            };
            if let Some(object) = table.resolve_or_external(&declared.target, kind, &declared.target) {
                let source = match declared.origin {
                    super::document::RelationOrigin::FrontMatter => RelationSource::FrontMatter,
                    super::document::RelationOrigin::Infobox => RelationSource::Infobox,
                };
                sink.add(doc_id as EntityId, &declared.label, object, doc_id as DocId, source);
            }
        }
    }
    for mention in corpus.mentions.iter().filter(|m| m.linked) {
        let chunk = &corpus.chunks[mention.chunk as usize];
        if let Some(section) = chunk.section {
            let title = &corpus.sections[section as usize].title;
            sink.add(chunk.document, title, mention.entity, chunk.document, RelationSource::Section);
        }
    }
    phrase_relations(corpus, &mut sink);
    corpus.relation_types = sink.relation_types;
    corpus.relations = sink.relations;
}

/// `A <phrase> B` within one sentence, the phrase at most `max_relation_phrase_words` words with at least
/// one content word, becomes the relation `A phrase B`.
fn phrase_relations(corpus: &Corpus, sink: &mut RelationSink) {
    let max_words = corpus.settings.max_relation_phrase_words;
    for mentions in corpus.mentions.chunk_by(|a, b| a.chunk == b.chunk) {
        let chunk = &corpus.chunks[mentions[0].chunk as usize];
        let doc = &corpus.documents[chunk.document as usize];
        let sentence_ends: Vec<usize> = doc
            .slice(chunk.span)
            .split_sentence_bound_indices()
            .map(|(offset, s)| chunk.span.start as usize + offset + s.len())
            .collect();
        let sentence_of = |pos: u32| sentence_ends.partition_point(|end| *end <= pos as usize);
        for pair in mentions.windows(2) {
            let (a, b) = (&pair[0], &pair[1]);
            if a.entity == b.entity
                || a.span.end > b.span.start
                || sentence_of(a.span.start) != sentence_of(b.span.start)
            {
                continue;
            }
            let between = &doc.text[a.span.end as usize..b.span.start as usize];
            let words: Vec<&str> = between.unicode_words().collect();
            let meaningful = words.iter().any(|w| !is_stop_word(&w.to_lowercase()));
            if !words.is_empty() && words.len() <= max_words && meaningful && !between.contains(['(', ')', ';']) {
                sink.add(a.entity, &words.join(" "), b.entity, chunk.document, RelationSource::Phrase);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_and_candidates() {
        assert_eq!(normalize_key("Io_(moon)"), "io (moon)");
        assert_eq!(normalize_key("Saturn%20V"), "saturn v");
        assert_eq!(
            link_candidates("https://en.wikipedia.org/wiki/Io_(moon)#Orbit"),
            vec!["wiki/Io_(moon)", "Io_(moon)"]
        );
        assert_eq!(link_candidates("../moons/phobos.md"), vec!["../moons/phobos.md", "phobos.md", "phobos"]);
        assert!(link_candidates("#top").is_empty());
    }

    #[test]
    fn external_names_are_readable() {
        assert_eq!(external_name("https://example.org/wiki/Saturn_V", LinkKind::Html, "rocket").unwrap(), "Saturn V");
        assert_eq!(external_name("Lunar Module#Design", LinkKind::Wiki, "LM").unwrap(), "Lunar Module");
        assert_eq!(external_name("https://nasa.gov/", LinkKind::Markdown, "NASA").unwrap(), "NASA");
    }

    #[test]
    fn relation_labels_normalise() {
        assert_eq!(relation_type_name("Launched by"), "launched_by");
        assert_eq!(relation_type_name("  Tours / Concerts "), "tours_concerts");
        assert_eq!(RelationType { name: "tours".into() }.inverse_name(), "is_tours_of");
    }

    #[test]
    fn whole_words_only() {
        assert!(is_whole_word("the Moon rises", 4, 8));
        assert!(!is_whole_word("Moonlight", 0, 4));
    }
}
