//! What each retriever reads and runs: one arm per retriever (the compiler asks for every one), above the
//! retrievers' own files, which it calls, and below the methods that run them (`method`, `execute`).

use super::reader::IndexReader;
use super::trace::Step;
use super::{Query, Retrieval, Retriever};
use super::{bm25, community, dense, entity, hub, join, one_hop, page, path, section, triplet};
use crate::store::IndexedCorpus;

/// How a retriever runs, which says what it reads.
#[derive(Clone, Copy)]
enum Run {
    /// Over any index ([`IndexReader`]: the whole index, its preview or its fragments): chunks (their texts,
    /// vectors, the chunk graph) and the knowledge graph's links.
    Reader(fn(&dyn IndexReader, Query<'_>, usize) -> Retrieval),
    /// Over the vectors of pages, sections, entities or relations ([`IndexReader::node_vectors`]), which an
    /// index of chunk vectors must gain first (`store::Vectors`).
    NodeVectors(fn(&IndexedCorpus, Query<'_>, usize) -> Retrieval),
}

/// A retriever that records no steps, as a registry arm's `run`.
macro_rules! plain {
    ($retrieve:path) => {
        |index, query, depth| Retrieval { chunks: $retrieve(index, query, depth), steps: Vec::new() }
    };
}

impl Retriever {
    /// Its description (built from its module's constants) and how it runs.
    fn registered(self) -> (fn() -> String, Run) {
        match self {
            Retriever::Dense => (dense::description, Run::Reader(plain!(dense::dense))),
            Retriever::Bm25 => (bm25::description, Run::Reader(plain!(bm25::bm25))),
            Retriever::Page => (page::description, Run::NodeVectors(page::page)),
            Retriever::Section => (section::description, Run::NodeVectors(section::section)),
            Retriever::Entity => (entity::description, Run::NodeVectors(entity::entity)),
            Retriever::Path => (path::description, Run::NodeVectors(path::path)),
            Retriever::Hub => (hub::description, Run::NodeVectors(hub::hub)),
            Retriever::Join => (join::description, Run::Reader(join::join)),
            Retriever::Triplet => (triplet::description, Run::NodeVectors(triplet::triplet)),
            Retriever::Community => (community::description, Run::Reader(community::community)),
            Retriever::OneHop => (one_hop::description, Run::Reader(one_hop::one_hop)),
        }
    }

    pub fn description(self) -> String {
        (self.registered().0)()
    }

    /// Whether it searches the vectors of other nodes than chunks (pages, sections, entities, relations),
    /// which an index of chunk vectors must gain first (`store::Vectors`).
    pub fn reads_node_vectors(self) -> bool {
        matches!(self.registered().1, Run::NodeVectors(_))
    }

    /// Its ranked chunks for `query`; none, with the reason as its one step, on an index that lacks the
    /// node vectors it reads (a front end adds them before running it: `pipeline::Base::AllVectors`).
    pub fn run(self, index: &dyn IndexReader, query: Query<'_>, depth: usize) -> Retrieval {
        match (self.registered().1, index.node_vectors()) {
            (Run::Reader(run), _) => run(index, query, depth),
            (Run::NodeVectors(run), Some(index)) => run(index, query, depth),
            (Run::NodeVectors(_), None) => {
                let note = "this index holds chunk vectors only; the page, section, entity and relation vectors \
                            this retriever searches are added when it is chosen";
                Retrieval { chunks: Vec::new(), steps: vec![Step::keep(note, Vec::new(), 0.0)] }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_retriever_has_a_description_and_says_what_it_reads() {
        assert!(Retriever::all().all(|r| !r.description().is_empty()));
        assert!(Retriever::Page.description().contains("the 3 pages"), "built from page::PAGES");
        let node_vectors: Vec<&str> =
            Retriever::all().filter(|r| r.reads_node_vectors()).map(Retriever::name).collect();
        assert_eq!(node_vectors, ["page", "section", "entity", "path", "hub", "triplet"]);
    }
}
