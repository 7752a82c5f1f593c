//! The retrievers as one registry: each is a file of its own in this folder (its search, and the
//! `description` built from its constants), and one row of the [`registry!`] below declares it: its
//! variant, the name `--method` and the app call it, and the function that runs it. Adding a retriever is
//! its file, its `mod` line and its row.

use serde::{Deserialize, Serialize};

use super::{Query, Retrieval};
use super::{bm25, community, dense, entity, hub, join, one_hop, page, path, section, triplet};
use crate::store::IndexedCorpus;

/// What the registry knows of a retriever.
struct Entry {
    retriever: Retriever,
    name: &'static str,
    description: fn() -> String,
    run: fn(&IndexedCorpus, Query<'_>, usize) -> Retrieval,
}

/// Declares the [`Retriever`] enum and its [`REGISTRY`] from one list, so no variant can lack its row.
macro_rules! registry {
    ($($variant:ident = $name:literal, $module:ident, $run:expr;)*) => {
        /// One retriever: a single ranked list of chunks.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
        pub enum Retriever {
            $($variant,)*
        }

        /// Every retriever in catalogue order, each row at its variant's position.
        const REGISTRY: &[Entry] = &[
            $(Entry { retriever: Retriever::$variant, name: $name, description: $module::description, run: $run },)*
        ];
    };
}

/// A retriever that records no steps, as a registry row's `run`.
macro_rules! plain {
    ($retrieve:path) => {
        |index, query, depth| Retrieval { chunks: $retrieve(index, query, depth), steps: Vec::new() }
    };
}

// The seeds' retrievers, then the one-hop baseline.
registry! {
    Dense = "dense", dense, plain!(dense::dense);
    Bm25 = "bm25", bm25, plain!(bm25::bm25);
    Page = "page", page, page::page;
    Section = "section", section, section::section;
    Entity = "entity", entity, entity::entity;
    Path = "path", path, path::path;
    Hub = "hub", hub, hub::hub;
    Join = "join", join, |index, query, depth| join::join(index, query, depth);
    Triplet = "triplet", triplet, triplet::triplet;
    Community = "community", community, |index, query, depth| community::community(index, query, depth);
    OneHop = "onehop", one_hop, one_hop::one_hop;
}

impl Retriever {
    /// What `rrf-all` and `zsum-all` fuse: every retriever of the seeds (not the one-hop baseline).
    pub const SEEDS: [Retriever; 10] = [
        Self::Dense,
        Self::Bm25,
        Self::Page,
        Self::Section,
        Self::Entity,
        Self::Path,
        Self::Hub,
        Self::Join,
        Self::Triplet,
        Self::Community,
    ];

    /// Every retriever: the seeds', then the one-hop baseline.
    pub fn all() -> impl Iterator<Item = Retriever> {
        REGISTRY.iter().map(|entry| entry.retriever)
    }

    fn entry(self) -> &'static Entry {
        // `registry!` writes the rows in variant order.
        &REGISTRY[self as usize]
    }

    pub fn name(self) -> &'static str {
        self.entry().name
    }

    pub fn description(self) -> String {
        (self.entry().description)()
    }

    pub fn parse(name: &str) -> Option<Self> {
        let wanted = name.trim().to_ascii_lowercase();
        Self::all().find(|r| r.name() == wanted)
    }

    /// Whether it searches the vectors of other nodes than chunks (pages, sections, entities, relations),
    /// which an index of chunk vectors must gain first (`store::Vectors`).
    pub fn reads_node_vectors(self) -> bool {
        matches!(self, Self::Page | Self::Section | Self::Entity | Self::Path | Self::Hub | Self::Triplet)
    }

    /// Its ranked chunks for `query`; none, with the reason as its one step, on an index that lacks the
    /// node vectors it reads (a front end adds them before running it: `pipeline::Base::AllVectors`).
    pub fn run(self, index: &IndexedCorpus, query: Query<'_>, depth: usize) -> Retrieval {
        if self.reads_node_vectors() && index.vectors() != crate::store::Vectors::All {
            let note = "this index holds chunk vectors only; the page, section, entity and relation vectors this \
                        retriever searches are added when it is chosen";
            return Retrieval { chunks: Vec::new(), steps: vec![super::Step::keep(note, Vec::new(), 0.0)] };
        }
        (self.entry().run)(index, query, depth)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_retriever_has_its_own_name_and_description() {
        for (position, entry) in REGISTRY.iter().enumerate() {
            assert_eq!(entry.retriever as usize, position, "{} is out of place", entry.name);
            assert_eq!(Retriever::parse(entry.name), Some(entry.retriever), "two retrievers share a name");
            assert!(!entry.retriever.description().is_empty());
        }
        assert_eq!(Retriever::all().take(Retriever::SEEDS.len()).collect::<Vec<_>>(), Retriever::SEEDS);
        assert!(Retriever::Page.description().contains("the 3 pages"), "built from page::PAGES");
    }
}
