//! Mentions: links resolved to entities, and unlinked occurrences of titles and aliases found by dictionary
//! matching (case-folded, whole words, leftmost-longest) in documents and, by the [`Gazetteer`], in queries.

use std::collections::{HashMap, HashSet};

use aho_corasick::{AhoCorasickBuilder, MatchKind};

use crate::corpus::document::Span;
use crate::corpus::types::{Corpus, DocId, EntityId, Mention};

use super::table::{EntityTable, TITLE_STOP_LIST, chunk_containing};

/// Entity names found in a short text (a query) by the same rules as unlinked mentions in documents:
/// case-folded, whole words, leftmost-longest, generic titles and names under the minimum length skipped.
pub struct Gazetteer {
    matcher: Option<aho_corasick::AhoCorasick>,
    entities: Vec<EntityId>,
}

impl Gazetteer {
    pub fn new(corpus: &Corpus) -> Self {
        Self::from_names(corpus.entities.iter().map(|e| e.name.as_str()), corpus.settings.min_mention_chars)
    }

    /// The gazetteer of entities named `names`, in id order, skipping names under `min_chars` characters (an
    /// index split for a static host keeps the names, not the corpus).
    pub fn from_names<'a>(names: impl IntoIterator<Item = &'a str>, min_chars: usize) -> Self {
        let mut seen = HashSet::new();
        let (names, entities): (Vec<String>, Vec<EntityId>) = names
            .into_iter()
            .enumerate()
            .filter(|(_, name)| {
                let folded = caseless::default_case_fold_str(name);
                name.chars().count() >= min_chars && !TITLE_STOP_LIST.contains(&folded.as_str()) && seen.insert(folded)
            })
            .map(|(id, name)| (caseless::default_case_fold_str(name), id as EntityId))
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
pub(super) struct CaseFolded {
    pub(super) text: String,
    /// For every byte of `text`, the offset of the original char it came from; one more entry at the end.
    origin: Vec<u32>,
}

impl CaseFolded {
    pub(super) fn new(original: &str) -> Self {
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
    pub(super) fn original_span(&self, start: usize, end: usize) -> Option<Span> {
        let starts_char = start == 0 || self.origin[start] != self.origin[start - 1];
        let ends_char = end == self.text.len() || self.origin[end] != self.origin[end - 1];
        (starts_char && ends_char).then(|| Span::new(self.origin[start] as usize, self.origin[end] as usize))
    }
}

pub(super) fn is_whole_word(text: &str, start: usize, end: usize) -> bool {
    let before = text[..start].chars().next_back();
    let after = text[end..].chars().next();
    !before.is_some_and(char::is_alphanumeric) && !after.is_some_and(char::is_alphanumeric)
}
