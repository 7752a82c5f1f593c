//! A PDF's outline (bookmarks) as (level, title, page) entries, read here rather than by lopdf's `get_toc`:
//! that walk recurses once per nesting level and follows `Next` links without remembering them, so an
//! 829-byte file whose outline refers to itself overflowed the stack (taking the whole run down, since a
//! stack overflow cannot be caught) or looped forever. This walk keeps its own stack, visits each outline
//! item once, and stops at [`MAX_ENTRIES`]. Entries are as `get_toc` gave them: in reading order, levels
//! from 1, 1-based page numbers, one entry per title (a repeated title keeps its first place and its last
//! destination), entries whose destination names no page left out.

use std::collections::{HashMap, HashSet};

use pdf_extract::{Dictionary, Document, Object, ObjectId};

use super::lines::decode_text_string;

/// Outline entries read at most: a real book has hundreds; past this a crafted outline gives nothing more.
const MAX_ENTRIES: usize = 10_000;
/// Nodes of the named-destinations tree read at most, for the same reason.
const MAX_NAME_NODES: usize = 100_000;

/// The outline entries of `document`, as the module describes.
pub fn outline_entries(document: &Document) -> Vec<(usize, String, usize)> {
    let Ok(catalog) = document.catalog() else { return Vec::new() };
    let Some(outlines) = dictionary(document, catalog.get(b"Outlines").ok()) else { return Vec::new() };
    let pages: HashMap<ObjectId, usize> = document.get_pages().into_iter().map(|(n, id)| (id, n as usize)).collect();
    let named = named_destinations(document, catalog);
    let mut entries: Vec<(usize, String, usize)> = Vec::new();
    let mut by_title: HashMap<String, usize> = HashMap::new();
    let mut visited: HashSet<ObjectId> = HashSet::new();
    // Items to read: (the item, its level). A child goes above its next sibling, so reading is in order.
    let mut stack: Vec<(&Object, usize)> = outlines.get(b"First").ok().map(|first| (first, 1)).into_iter().collect();
    while let Some((object, level)) = stack.pop() {
        if entries.len() >= MAX_ENTRIES {
            break;
        }
        if let Object::Reference(id) = object
            && !visited.insert(*id)
        {
            continue;
        }
        let Some(item) = dictionary(document, Some(object)) else { continue };
        if let Ok(next) = item.get(b"Next") {
            stack.push((next, level));
        }
        if let Ok(first) = item.get(b"First") {
            stack.push((first, level + 1));
        }
        let title = item.get(b"Title").and_then(|title| document.dereference(title)).and_then(|(_, t)| t.as_str());
        let Ok(title) = title.map(title_text) else { continue };
        let Some(page) = destination_page(document, item, &named, &pages) else { continue };
        match by_title.get(&title) {
            Some(&at) => entries[at] = (level, title, page),
            None => {
                by_title.insert(title.clone(), entries.len());
                entries.push((level, title, page));
            }
        }
    }
    entries
}

/// An outline title's text: UTF-16 after a byte order mark (either order, as writers use both), UTF-8 where
/// the bytes are (some writers store it against the standard), else PDFDocEncoding.
fn title_text(bytes: &[u8]) -> String {
    if let Some(utf16) = bytes.strip_prefix(&[0xFF, 0xFE]) {
        return encoding_rs::UTF_16LE.decode_without_bom_handling(utf16).0.into_owned();
    }
    match std::str::from_utf8(bytes) {
        Ok(text) if !bytes.starts_with(&[0xFE, 0xFF]) => text.to_string(),
        _ => decode_text_string(bytes),
    }
}

/// The dictionary an object is or refers to.
fn dictionary<'a>(document: &'a Document, object: Option<&'a Object>) -> Option<&'a Dictionary> {
    document.dereference(object?).ok()?.1.as_dict().ok()
}

/// The page an outline item leads to: its `Dest`, or its `GoTo` action's `D`; an explicit destination
/// (`[page /XYZ …]`) or a name looked up among the named destinations.
fn destination_page(
    document: &Document,
    item: &Dictionary,
    named: &HashMap<Vec<u8>, ObjectId>,
    pages: &HashMap<ObjectId, usize>,
) -> Option<usize> {
    let destination = match item.get(b"Dest") {
        Ok(destination) => destination,
        Err(_) => dictionary(document, item.get(b"A").ok())?.get(b"D").ok()?,
    };
    let page = match document.dereference(destination).ok()?.1 {
        Object::Name(name) | Object::String(name, _) => *named.get(name)?,
        explicit => explicit_page(document, explicit)?,
    };
    pages.get(&page).copied()
}

/// The page object of an explicit destination: an array, or a dictionary holding one under `D`.
fn explicit_page(document: &Document, destination: &Object) -> Option<ObjectId> {
    let array = match destination {
        Object::Array(array) => array,
        Object::Dictionary(dictionary) => document.dereference(dictionary.get(b"D").ok()?).ok()?.1.as_array().ok()?,
        _ => return None,
    };
    array.first()?.as_reference().ok()
}

/// Named destinations, name to page object: the catalog's `Dests` dictionary (PDF 1.1) and the `Dests` name
/// tree under `Names` (PDF 1.2), read with a stack and a visited set for the same reasons as the outline.
fn named_destinations(document: &Document, catalog: &Dictionary) -> HashMap<Vec<u8>, ObjectId> {
    let mut named = HashMap::new();
    if let Some(dests) = dictionary(document, catalog.get(b"Dests").ok()) {
        for (name, destination) in dests.iter() {
            if let Some(page) = document.dereference(destination).ok().and_then(|(_, d)| explicit_page(document, d)) {
                named.insert(name.clone(), page);
            }
        }
    }
    let tree = dictionary(document, catalog.get(b"Names").ok()).and_then(|names| names.get(b"Dests").ok());
    let mut stack: Vec<&Object> = tree.into_iter().collect();
    let mut visited: HashSet<ObjectId> = HashSet::new();
    let mut read = 0;
    while let Some(object) = stack.pop() {
        read += 1;
        if read > MAX_NAME_NODES {
            break;
        }
        if let Object::Reference(id) = object
            && !visited.insert(*id)
        {
            continue;
        }
        let Some(node) = dictionary(document, Some(object)) else { continue };
        if let Ok(kids) = node.get(b"Kids").and_then(Object::as_array) {
            stack.extend(kids.iter());
        }
        let Ok(pairs) = node.get(b"Names").and_then(Object::as_array) else { continue };
        for pair in pairs.chunks_exact(2) {
            let (Ok(name), Ok((_, destination))) = (pair[0].as_str(), document.dereference(&pair[1])) else { continue };
            if let Some(page) = explicit_page(document, destination) {
                named.insert(name.to_vec(), page);
            }
        }
    }
    named
}
