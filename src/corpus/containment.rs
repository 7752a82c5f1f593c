//! Documents that only repeat others: an all-in-one page that holds every chapter of a book (mdBook's
//! `print.html`), a copy of a page kept in another folder, and stubs with nothing of their own (an old
//! edition's page that only says the edition is gone, the same lines on every page of its folder). Indexed,
//! such a page outranks the chapter a user wants, since its chunks repeat every chapter's (or its title is the
//! chapter's), and it costs as much embedding again. A document whose passages are nearly all found, word for
//! word after normalisation, in *more specific* documents (ones with fewer passages) is left out, and so is
//! one whose text is all boilerplate; the report says which documents hold its text.
//!
//! Passages are a document's blocks (paragraphs, list items, table rows, code) of some length, compared by a
//! hash of their lowercased, whitespace-collapsed text: chunk boundaries differ between a chapter and the page
//! that holds it, block boundaries do not. A passage many documents share is boilerplate and not counted. Documents are checked largest first, so of two near-copies the
//! larger goes and the other stays, and a passage only counts as covered by a document still kept.

use std::collections::{HashMap, HashSet};

use super::document::{BlockKind, Document, content_hash};

/// Blocks shorter than this are not passages: headings, navigation links and "Next chapter" say nothing
/// about whose text a page holds.
const MIN_PASSAGE_CHARS: usize = 60;
/// A document needs this many passages to be a compilation: a short note or a record never is.
const MIN_PASSAGES: usize = 3;
/// The share of a document's passages that must be found in more specific documents.
const COVERED_SHARE: f64 = 0.8;
/// A passage found in more documents than this is boilerplate (the options every command page of a manual
/// repeats), which says nothing about whose text a page holds: it is not counted at all.
const MAX_HOLDERS: usize = 3;
/// Characters of text of its own, beyond boilerplate and headings, that a page needs to answer anything.
const MIN_OWN_CHARS: usize = 100;

type PassageKey = [u8; 16];

/// Leaves out of `added` every document whose passages more specific documents (of `added` or `indexed`)
/// already hold; returns each one left out with the note the report gives.
pub fn drop_repeating_pages(added: &mut Vec<Document>, indexed: &[Document]) -> Vec<(String, String)> {
    let mut all_passages: Vec<Vec<PassageKey>> = added.iter().map(passages).collect();
    // An update of short notes, or removals alone, need not read the whole index: only stubs among the
    // added documents themselves are found then.
    let indexed = if all_passages.iter().any(|keys| keys.len() >= MIN_PASSAGES) { indexed } else { &[] };
    all_passages.extend(indexed.iter().map(passages));
    let documents: Vec<&Document> = added.iter().chain(indexed).collect();
    let mut holders: HashMap<PassageKey, Vec<usize>> = HashMap::new();
    for (document, keys) in all_passages.iter().enumerate() {
        for key in keys.iter().collect::<HashSet<_>>() {
            holders.entry(*key).or_default().push(document);
        }
    }
    let is_boilerplate = |key: &PassageKey| holders[key].len() > MAX_HOLDERS;
    let mut dropped: HashSet<usize> = HashSet::new();
    let mut notes = Vec::new();
    for (document, keys) in all_passages.iter().enumerate().take(added.len()) {
        if !keys.is_empty() && keys.iter().all(is_boilerplate) && own_chars(&added[document]) < MIN_OWN_CHARS {
            dropped.insert(document);
            let sharing = keys.iter().map(|key| holders[key].len()).max().unwrap_or(0);
            notes.push((added[document].source.clone(), stub_note(sharing)));
        }
    }
    let passages: Vec<Vec<PassageKey>> =
        all_passages.into_iter().map(|keys| keys.into_iter().filter(|key| !is_boilerplate(key)).collect()).collect();
    let mut order: Vec<usize> =
        (0..added.len()).filter(|&d| passages[d].len() >= MIN_PASSAGES && !dropped.contains(&d)).collect();
    order.sort_by_key(|&d| std::cmp::Reverse(passages[d].len()));
    for &document in &order {
        // Only documents with fewer passages, or as many and checked later, are more specific.
        let more_specific = |other: usize| {
            other != document
                && !dropped.contains(&other)
                && (passages[other].len() < passages[document].len()
                    || (passages[other].len() == passages[document].len() && other > document))
        };
        let mut sources: HashSet<usize> = HashSet::new();
        let covered = passages[document]
            .iter()
            .filter(|key| {
                let holding: Vec<usize> = holders[*key].iter().copied().filter(|&o| more_specific(o)).collect();
                sources.extend(holding.first());
                !holding.is_empty()
            })
            .count();
        let share = covered as f64 / passages[document].len() as f64;
        if share >= COVERED_SHARE {
            dropped.insert(document);
            notes.push((documents[document].source.clone(), note(share, &sources, &documents)));
        }
    }
    let mut position = 0;
    added.retain(|_| {
        position += 1;
        !dropped.contains(&(position - 1))
    });
    notes
}

/// `its text is in ch1.md, ch2.md and 3 more (97 % of its passages): not indexed, so they answer instead`.
fn note(share: f64, sources: &HashSet<usize>, documents: &[&Document]) -> String {
    let mut names: Vec<&str> = sources.iter().map(|&s| documents[s].source.as_str()).collect();
    names.sort_unstable();
    let shown = match names.len() {
        0..=3 => names.join(", "),
        n => format!("{}, {} and {} more", names[0], names[1], n - 2),
    };
    let instead = if names.len() == 1 { "it answers" } else { "they answer" };
    format!("its text is in {shown} ({:.0} % of its passages): not indexed, so {instead} instead", share * 100.0)
}

/// How [`stub_note`] begins: the report counts such notes on one line.
const STUB_NOTE: &str = "holds only text that ";

/// `holds only text that 104 documents repeat (a stub or a navigation page): not indexed`.
pub(crate) fn stub_note(sharing: usize) -> String {
    format!("{STUB_NOTE}{sharing} documents repeat (a stub or a navigation page): not indexed")
}

/// Whether `note` is a [`stub_note`].
pub(crate) fn is_stub_note(note: &str) -> bool {
    note.starts_with(STUB_NOTE)
}

/// Characters of a document's blocks too short to be passages, headings aside: of a document whose every
/// passage is boilerplate, the text it has of its own (see [`MIN_OWN_CHARS`]).
fn own_chars(document: &Document) -> usize {
    document
        .blocks
        .iter()
        .filter(|block| !matches!(block.kind, BlockKind::Heading { .. }))
        .map(|block| normalised(document.slice(block.span)).chars().count())
        .filter(|&chars| chars < MIN_PASSAGE_CHARS)
        .sum()
}

/// The keys of a document's passages, in order.
fn passages(document: &Document) -> Vec<PassageKey> {
    document
        .blocks
        .iter()
        .filter(|block| !matches!(block.kind, BlockKind::Heading { .. }))
        .map(|block| normalised(document.slice(block.span)))
        .filter(|text| text.chars().count() >= MIN_PASSAGE_CHARS)
        .map(|text| content_hash(text.as_bytes()))
        .collect()
}

fn normalised(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ").to_lowercase()
}

#[cfg(test)]
mod tests;
