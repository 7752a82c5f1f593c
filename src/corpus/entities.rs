//! Entities, mentions and relations without an LLM: links resolved to documents by title, alias, slug or
//! file name; unresolved targets as external entities; unlinked title mentions by dictionary matching; and
//! relations from front matter, infoboxes, section titles and connecting phrases.

use std::collections::{HashMap, HashSet};

use aho_corasick::{AhoCorasickBuilder, MatchKind};
use percent_encoding::percent_decode_str;
use unicode_segmentation::UnicodeSegmentation;

use super::document::{Document, LinkKind, RelationOrigin, Span, title_from_file_name};
use super::types::{
    ChunkId, Corpus, DocId, Entity, EntityId, Mention, Relation, RelationSource, RelationType, RelationTypeId,
};
use crate::analyzer::{Analyzer, is_stop_word};

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
    /// Name keys; `None` where two documents claim the same key, so an ambiguous name resolves to neither
    /// instead of to whichever came first.
    keys: HashMap<String, Option<EntityId>>,
    /// Document paths, with and without their extension, for links that are relative paths.
    paths: HashMap<String, Option<EntityId>>,
    documents: usize,
}

/// Records `key` for `id`, marking it ambiguous when another entity already holds it.
fn claim(keys: &mut HashMap<String, Option<EntityId>>, key: String, id: EntityId) {
    keys.entry(key)
        .and_modify(|owner| {
            if *owner != Some(id) {
                *owner = None
            }
        })
        .or_insert(Some(id));
}

/// `notes/a.md` → `notes/a`: links often leave the extension out.
fn without_extension(path: &str) -> &str {
    let file_start = path.rfind('/').map_or(0, |slash| slash + 1);
    match path[file_start..].rsplit_once('.') {
        Some((stem, extension)) if !stem.is_empty() && extension.len() <= 5 => &path[..file_start + stem.len()],
        _ => path,
    }
}

impl EntityTable {
    /// One entity per document, named by its title (made unique: `Title (source)` on a clash).
    pub fn for_documents(documents: &[Document]) -> Self {
        let mut table = EntityTable {
            entities: Vec::new(),
            keys: HashMap::new(),
            paths: HashMap::new(),
            documents: documents.len(),
        };
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
                claim(&mut table.keys, normalize_key(&key), id as EntityId);
            }
            let file = doc.source.split_once('#').map_or(doc.source.as_str(), |(file, _)| file);
            if file == doc.source {
                claim(&mut table.paths, file.to_string(), id as EntityId);
                claim(&mut table.paths, without_extension(file).to_string(), id as EntityId);
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

    /// The document a link target in document `from` points at, if any: a path link resolves against
    /// `from`'s folder first, then any link by an unambiguous title, alias or file name.
    pub fn resolve(&self, from: &str, target: &str, kind: LinkKind) -> Option<EntityId> {
        let by_path = (kind != LinkKind::Wiki)
            .then(|| super::path::resolve_relative(from, target))
            .flatten()
            .and_then(|path| self.paths.get(&path).or_else(|| self.paths.get(without_extension(&path))).copied());
        if let Some(found) = by_path {
            return found;
        }
        link_candidates(target).iter().find_map(|candidate| self.keys.get(&normalize_key(candidate)).copied().flatten())
    }

    /// The entity a link in document `from` names: a document, or an external entity created on first sight.
    pub fn resolve_or_external(&mut self, from: &str, target: &str, kind: LinkKind, anchor: &str) -> Option<EntityId> {
        if let Some(id) = self.resolve(from, target, kind) {
            return Some(id);
        }
        let name = external_name(target, kind, anchor)?;
        let key = normalize_key(&name);
        if let Some(&Some(id)) = self.keys.get(&key) {
            return Some(id);
        }
        let id = self.entities.len() as EntityId;
        self.entities.push(Entity { name, document: None });
        self.keys.insert(key, Some(id));
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
    let stem = without_extension(last);
    if stem != last {
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
        let decoded = percent_decode_str(last).decode_utf8_lossy();
        let readable = without_extension(&decoded).replace('_', " ").trim().to_string();
        if readable.is_empty() { anchor.trim().to_string() } else { readable }
    };
    let name = super::document::collapse_whitespace(&name);
    (!name.is_empty()).then_some(name)
}

/// The chunk of `document` whose span contains `span`.
fn chunk_containing(corpus: &Corpus, document: DocId, span: Span) -> Option<u32> {
    let range = corpus.document_chunks(document);
    let chunks = &corpus.chunks[range.start as usize..range.end as usize];
    let index = chunks.partition_point(|c| c.span.start <= span.start).checked_sub(1)?;
    chunks[index].span.contains(span).then_some(range.start + index as u32)
}

/// Entity names found in a short text (a query) by the same rules as unlinked mentions in documents:
/// case-folded, whole words, leftmost-longest, generic titles and names under the minimum length skipped.
pub struct Gazetteer {
    matcher: Option<aho_corasick::AhoCorasick>,
    entities: Vec<EntityId>,
}

impl Gazetteer {
    pub fn new(corpus: &Corpus) -> Self {
        let mut seen = HashSet::new();
        let (names, entities): (Vec<String>, Vec<EntityId>) = corpus
            .entities
            .iter()
            .enumerate()
            .filter(|(_, e)| {
                let folded = caseless::default_case_fold_str(&e.name);
                e.name.chars().count() >= corpus.settings.min_mention_chars
                    && !TITLE_STOP_LIST.contains(&folded.as_str())
                    && seen.insert(folded)
            })
            .map(|(id, e)| (caseless::default_case_fold_str(&e.name), id as EntityId))
            .unzip();
        let matcher = AhoCorasickBuilder::new().match_kind(MatchKind::LeftmostLongest).build(names).ok();
        Self { matcher, entities }
    }

    /// Entities named in `text`, in order of appearance, each once.
    pub fn find(&self, text: &str) -> Vec<EntityId> {
        let Some(matcher) = &self.matcher else { return Vec::new() };
        let folded = CaseFolded::new(text);
        let mut found = Vec::new();
        for hit in matcher.find_iter(&folded.text) {
            let Some(span) = folded.original_span(hit.start(), hit.end()) else { continue };
            let entity = self.entities[hit.pattern().as_usize()];
            if is_whole_word(text, span.start as usize, span.end as usize) && !found.contains(&entity) {
                found.push(entity);
            }
        }
        found
    }
}

pub fn link_mentions(corpus: &mut Corpus, table: &mut EntityTable) {
    let mut mentions = Vec::new();
    for (doc_id, doc) in corpus.documents.iter().enumerate() {
        for link in &doc.links {
            let Some(entity) = table.resolve_or_external(&doc.source, &link.target, link.kind, doc.slice(link.span))
            else {
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
        .match_kind(MatchKind::LeftmostLongest)
        .build(patterns.iter().map(|(p, _)| caseless::default_case_fold_str(p)))
    else {
        return;
    };
    let mut link_spans: HashMap<u32, Vec<Span>> = HashMap::new();
    for mention in &corpus.mentions {
        link_spans.entry(mention.chunk).or_default().push(mention.span);
    }
    let mut found = Vec::new();
    for (doc_id, doc) in corpus.documents.iter().enumerate() {
        let folded = CaseFolded::new(&doc.text);
        for hit in matcher.find_iter(&folded.text) {
            let Some(span) = folded.original_span(hit.start(), hit.end()) else { continue };
            if !is_whole_word(&doc.text, span.start as usize, span.end as usize) {
                continue;
            }
            let Some(chunk) = chunk_containing(corpus, doc_id as DocId, span) else { continue };
            let inside_link = link_spans.get(&chunk).is_some_and(|spans| spans.iter().any(|s| s.overlaps(span)));
            if !inside_link {
                found.push(Mention { chunk, entity: patterns[hit.pattern().as_usize()].1, span, linked: false });
            }
        }
    }
    corpus.mentions.extend(found);
}

/// A text under Unicode default case folding (`Straße` and `STRASSE` fold alike), with the way back to
/// byte offsets of the original: folding changes lengths, so matches are found in the folded text and
/// reported as spans of the original.
struct CaseFolded {
    text: String,
    /// For every byte of `text`, the offset of the original char it came from; one more entry at the end.
    origin: Vec<u32>,
}

impl CaseFolded {
    fn new(original: &str) -> Self {
        use caseless::Caseless;
        let mut text = String::with_capacity(original.len());
        let mut origin = Vec::with_capacity(original.len() + 1);
        for (offset, ch) in original.char_indices() {
            for folded in std::iter::once(ch).default_case_fold() {
                text.push(folded);
                origin.resize(text.len(), offset as u32);
            }
        }
        origin.push(original.len() as u32);
        Self { text, origin }
    }

    /// The original span of `text[start..end]`, or `None` when a boundary falls inside the folding of one
    /// original char (`ss` matching half of `ß`'s `ss`).
    fn original_span(&self, start: usize, end: usize) -> Option<Span> {
        let starts_char = start == 0 || self.origin[start] != self.origin[start - 1];
        let ends_char = end == self.text.len() || self.origin[end] != self.origin[end - 1];
        (starts_char && ends_char).then(|| Span::new(self.origin[start] as usize, self.origin[end] as usize))
    }
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

/// Where a relation is stated: its document and, for relations read from running text, the chunk and
/// the sentence.
#[derive(Clone, Copy)]
struct Provenance {
    document: DocId,
    chunk: Option<ChunkId>,
    evidence: Option<Span>,
}

struct RelationSink {
    types: HashMap<String, RelationTypeId>,
    relation_types: Vec<RelationType>,
    relations: Vec<Relation>,
    seen: HashSet<(EntityId, RelationTypeId, EntityId)>,
}

impl RelationSink {
    fn add(
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
struct Sentences {
    starts: Vec<usize>,
    ends: Vec<usize>,
}

impl Sentences {
    fn of(corpus: &Corpus, chunk: ChunkId) -> Self {
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

    fn index_of(&self, position: u32) -> usize {
        self.ends.partition_point(|end| *end <= position as usize).min(self.ends.len().saturating_sub(1))
    }

    /// The sentence holding the byte at `position`.
    fn around(&self, position: u32) -> Span {
        let index = self.index_of(position);
        Span::new(self.starts[index], self.ends[index].max(self.starts[index]))
    }
}

/// Two mentions joined by a short phrase in one sentence: `A <phrase> B`.
struct PhraseCandidate {
    subject: EntityId,
    object: EntityId,
    /// Stemmed content words: `launched by`, `launches` and `was launched by the` group together.
    key: String,
    /// The phrase's content words as written (lowercased), for the type's name.
    surface: String,
    provenance: Provenance,
}

/// `A <phrase> B` within one sentence, the phrase at most `max_relation_phrase_words` words with at least
/// one content word.
fn phrase_candidates(corpus: &Corpus) -> Vec<PhraseCandidate> {
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
fn phrase_vocabulary(candidates: Vec<PhraseCandidate>, max_types: usize) -> Vec<(PhraseCandidate, String)> {
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

    fn candidate(key: &str, surface: &str) -> PhraseCandidate {
        PhraseCandidate {
            subject: 0,
            object: 1,
            key: key.into(),
            surface: surface.into(),
            provenance: Provenance { document: 0, chunk: None, evidence: None },
        }
    }

    #[test]
    fn phrase_types_are_a_capped_vocabulary_of_repeated_wordings() {
        let candidates = [
            candidate("launch", "launched"),
            candidate("launch", "launches"),
            candidate("launch", "launched"),
            candidate("orbit", "orbits"),
            candidate("orbit", "orbits"),
            candidate("visit", "visited"),
        ];
        let names = |max_types| -> Vec<String> {
            let candidates = candidates.iter().map(|c| candidate(&c.key, &c.surface)).collect();
            phrase_vocabulary(candidates, max_types).into_iter().map(|(_, name)| name).collect()
        };
        // Wordings of one stem share the most frequent one's name; a wording seen once has no type of its own.
        assert_eq!(names(10), ["launched", "launched", "launched", "orbits", "orbits", "related_to"]);
        // Past the cap, the less frequent groups fall back to the generic type.
        assert_eq!(names(1), ["launched", "launched", "launched", "related_to", "related_to", "related_to"]);
    }

    #[test]
    fn relation_labels_normalise() {
        assert_eq!(relation_type_name("Launched by"), "launched_by");
        assert_eq!(relation_type_name("  Tours / Concerts "), "tours_concerts");
        assert_eq!(RelationType { name: "tours".into() }.inverse_name(), "is_tours_of");
    }

    #[test]
    fn case_folding_maps_matches_back_to_the_original() {
        let folded = CaseFolded::new("Die STRASSE, die Straße, ÉCOLE.");
        let hits: Vec<&str> = folded
            .text
            .match_indices("strasse")
            .filter_map(|(at, m)| folded.original_span(at, at + m.len()))
            .map(|span| &"Die STRASSE, die Straße, ÉCOLE."[span.range()])
            .collect();
        assert_eq!(hits, vec!["STRASSE", "Straße"]);
        let at = folded.text.find("école").unwrap();
        assert_eq!(folded.original_span(at, at + "école".len()), Some(Span::new(26, 32)));
        let half = folded.text.rfind("ss").unwrap();
        assert_eq!(folded.original_span(half, half + 1), None);
    }

    #[test]
    fn whole_words_only() {
        assert!(is_whole_word("the Moon rises", 4, 8));
        assert!(!is_whole_word("Moonlight", 0, 4));
    }
}
