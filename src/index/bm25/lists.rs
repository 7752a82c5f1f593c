//! BM25's term dictionary and postings, each in a few flat arrays. A `BTreeMap<String, u32>` of terms and a
//! `Vec<Vec<Posting>>` spent about 150 bytes a distinct term on map nodes and two allocations of their own:
//! a CSV of 1,000,000 distinct labels and as many values (2,000,000 terms) held 304 MB of BM25 index (issue
//! 48). Both serialise as the map and the list of lists they replace, so a snapshot's bytes are unchanged.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize, Serializer};

/// A text holding a term, and how often.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Posting {
    pub doc: u32,
    pub tf: u32,
}

/// Terms in byte order, each with its id (the place of its postings), all in one string.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(from = "BTreeMap<String, u32>")]
pub(super) struct Terms {
    text: String,
    /// Where each term ends in `text`; it starts where the one before it ends.
    ends: Vec<u32>,
    ids: Vec<u32>,
}

impl Terms {
    /// `sorted`: terms in byte order, each once.
    pub(super) fn from_sorted<'a>(sorted: impl IntoIterator<Item = (&'a str, u32)>) -> Self {
        let mut terms = Terms::default();
        for (term, id) in sorted {
            debug_assert!(terms.ids.is_empty() || terms.term(terms.len() - 1) < term, "terms out of order");
            terms.text.push_str(term);
            terms.ends.push(terms.text.len() as u32);
            terms.ids.push(id);
        }
        terms
    }

    pub(super) fn len(&self) -> usize {
        self.ids.len()
    }

    fn term(&self, at: usize) -> &str {
        &self.text[span(&self.ends, at)]
    }

    pub(super) fn get(&self, term: &str) -> Option<u32> {
        let (mut low, mut high) = (0, self.len());
        while low < high {
            let middle = (low + high) / 2;
            match self.term(middle).cmp(term) {
                std::cmp::Ordering::Less => low = middle + 1,
                std::cmp::Ordering::Greater => high = middle,
                std::cmp::Ordering::Equal => return Some(self.ids[middle]),
            }
        }
        None
    }

    /// Every term with its id, in byte order.
    pub(super) fn iter(&self) -> impl Iterator<Item = (&str, u32)> {
        (0..self.len()).map(|at| (self.term(at), self.ids[at]))
    }

    pub(super) fn ids(&self) -> &[u32] {
        &self.ids
    }
}

/// Item `at` of items laid end to end, each ending at its entry of `ends`.
fn span(ends: &[u32], at: usize) -> std::ops::Range<usize> {
    let start = if at == 0 { 0 } else { ends[at - 1] as usize };
    start..ends[at] as usize
}

impl From<BTreeMap<String, u32>> for Terms {
    fn from(map: BTreeMap<String, u32>) -> Self {
        Terms::from_sorted(map.iter().map(|(term, &id)| (term.as_str(), id)))
    }
}

impl Serialize for Terms {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_map(self.iter())
    }
}

/// The postings of every term, by id, one after another.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(from = "Vec<Vec<Posting>>")]
pub(super) struct PostingLists {
    /// Where each list ends in `all`; it starts where the one before it ends.
    ends: Vec<u32>,
    all: Vec<Posting>,
}

impl PostingLists {
    /// `by_id`: each posting with the id of its term, in order of id and, within an id, of text.
    pub(super) fn from_sorted(lists: usize, by_id: impl IntoIterator<Item = (u32, Posting)>) -> Self {
        let mut postings = PostingLists { ends: Vec::with_capacity(lists), all: Vec::new() };
        for (id, posting) in by_id {
            postings.end_lists_before(id as usize);
            postings.all.push(posting);
        }
        postings.end_lists_before(lists);
        postings
    }

    /// Ends every list before list `id` that is still open, at the postings so far.
    fn end_lists_before(&mut self, id: usize) {
        let end = self.all.len() as u32;
        self.ends.resize(self.ends.len().max(id), end);
    }

    pub(super) fn len(&self) -> usize {
        self.ends.len()
    }

    pub(super) fn get(&self, id: u32) -> &[Posting] {
        &self.all[span(&self.ends, id as usize)]
    }

    pub(super) fn all(&self) -> &[Posting] {
        &self.all
    }
}

impl From<Vec<Vec<Posting>>> for PostingLists {
    fn from(lists: Vec<Vec<Posting>>) -> Self {
        let count = lists.len();
        let by_id = lists.into_iter().enumerate().flat_map(|(id, list)| list.into_iter().map(move |p| (id as u32, p)));
        PostingLists::from_sorted(count, by_id)
    }
}

impl Serialize for PostingLists {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq((0..self.len()).map(|id| self.get(id as u32)))
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    proptest! {
        /// Written as the map and the lists they replace, to the byte, read back whole, and every term found.
        #[test]
        fn lists_keep_the_layout_they_replace(
            map in proptest::collection::btree_map("[a-zé0-9]{0,6}", any::<u32>(), 0..40),
            lists in proptest::collection::vec(proptest::collection::vec((any::<u32>(), any::<u32>()), 0..5), 0..20),
            absent in "[a-z]{7}",
        ) {
            let terms = Terms::from(map.clone());
            prop_assert_eq!(postcard::to_allocvec(&terms).unwrap(), postcard::to_allocvec(&map).unwrap());
            prop_assert_eq!(postcard::from_bytes::<Terms>(&postcard::to_allocvec(&map).unwrap()).unwrap(), terms.clone());
            for (term, &id) in &map {
                prop_assert_eq!(terms.get(term), Some(id));
            }
            prop_assert_eq!(terms.get(&absent), None);

            let lists: Vec<Vec<Posting>> =
                lists.into_iter().map(|l| l.into_iter().map(|(doc, tf)| Posting { doc, tf }).collect()).collect();
            let postings = PostingLists::from(lists.clone());
            prop_assert_eq!(postcard::to_allocvec(&postings).unwrap(), postcard::to_allocvec(&lists).unwrap());
            for (id, list) in lists.iter().enumerate() {
                prop_assert_eq!(postings.get(id as u32), list.as_slice());
            }
        }
    }
}
