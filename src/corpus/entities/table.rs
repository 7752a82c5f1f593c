//! The table of entities: every document a page, and each link target resolved to one by title, alias, slug
//! or file name, or kept as an external entity; the keys a mention is looked up by.

use std::collections::{HashMap, HashSet};

use percent_encoding::percent_decode_str;

use crate::corpus::document::{Document, LinkKind, Span, title_from_file_name};
use crate::corpus::types::{Corpus, DocId, Entity, EntityId};

/// Titles too generic to count as a mention when they appear unlinked.
#[rustfmt::skip]
pub(super) const TITLE_STOP_LIST: &[&str] = &[
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
            .then(|| crate::corpus::path::resolve_relative(from, target))
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
    pub(super) fn dictionary(&self, documents: &[Document], min_chars: usize) -> Vec<(String, EntityId)> {
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
pub(super) fn link_candidates(target: &str) -> Vec<String> {
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

pub(super) fn external_name(target: &str, kind: LinkKind, anchor: &str) -> Option<String> {
    let name = if kind == LinkKind::Wiki {
        target.split('#').next().unwrap_or("").trim().to_string()
    } else {
        let path = link_path(target);
        let last = path.trim_end_matches('/').rsplit('/').next().unwrap_or("");
        let decoded = percent_decode_str(last).decode_utf8_lossy();
        let readable = without_extension(&decoded).replace('_', " ").trim().to_string();
        if readable.is_empty() { anchor.trim().to_string() } else { readable }
    };
    let name = crate::corpus::document::collapse_whitespace(&name);
    (!name.is_empty()).then_some(name)
}

/// The chunk of `document` whose span contains `span`.
pub(super) fn chunk_containing(corpus: &Corpus, document: DocId, span: Span) -> Option<u32> {
    let range = corpus.document_chunks(document);
    let chunks = &corpus.chunks[range.start as usize..range.end as usize];
    let index = chunks.partition_point(|c| c.span.start <= span.start).checked_sub(1)?;
    chunks[index].span.contains(span).then_some(range.start + index as u32)
}
