//! The retrievers as one registry: each is a file of its own in this folder (its search, and the
//! `description` built from its constants), and one row of the [`registry!`] below declares it: its
//! variant, the name `--method` and the app call it, and the function that runs it. Adding a retriever is
//! its file, its `mod` line and its row.

use serde::{Deserialize, Serialize};

use super::reader::IndexReader;
use super::{Query, Retrieval};
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

/// What the registry knows of a retriever.
struct Entry {
    retriever: Retriever,
    name: &'static str,
    /// The seed document it comes from (`0` is seed 000; docs/ARCHITECTURE.md's glossary), if any.
    seed: Option<u8>,
    description: fn() -> String,
    run: Run,
}

/// Declares the [`Retriever`] enum and its [`REGISTRY`] from one list, so no variant can lack its row.
macro_rules! registry {
    ($($variant:ident = $name:literal, $seed:expr, $reads:ident, $module:ident, $run:expr;)*) => {
        /// One retriever: a single ranked list of chunks.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
        pub enum Retriever {
            $($variant,)*
        }

        /// Every retriever in catalogue order, each row at its variant's position.
        const REGISTRY: &[Entry] = &[
            $(Entry {
                retriever: Retriever::$variant,
                name: $name,
                seed: $seed,
                description: $module::description,
                run: Run::$reads($run),
            },)*
        ];
    };
}

/// A retriever that records no steps, as a registry row's `run`.
macro_rules! plain {
    ($retrieve:path) => {
        |index, query, depth| Retrieval { chunks: $retrieve(index, query, depth), steps: Vec::new() }
    };
}

// The seeds' retrievers, then the one-hop baseline: variant = name, seed, what it reads, module, run.
registry! {
    Dense = "dense", Some(0), Reader, dense, plain!(dense::dense);
    Bm25 = "bm25", Some(4), Reader, bm25, plain!(bm25::bm25);
    Page = "page", Some(0), NodeVectors, page, page::page;
    Section = "section", Some(0), NodeVectors, section, section::section;
    Entity = "entity", Some(0), NodeVectors, entity, entity::entity;
    Path = "path", Some(0), NodeVectors, path, path::path;
    Hub = "hub", Some(1), NodeVectors, hub, hub::hub;
    Join = "join", Some(2), Reader, join, join::join;
    Triplet = "triplet", Some(3), NodeVectors, triplet, triplet::triplet;
    Community = "community", Some(4), Reader, community, community::community;
    OneHop = "onehop", None, Reader, one_hop, one_hop::one_hop;
}

/// How many registry rows come from a seed.
const SEED_COUNT: usize = {
    let (mut count, mut row) = (0, 0);
    while row < REGISTRY.len() {
        if REGISTRY[row].seed.is_some() {
            count += 1;
        }
        row += 1;
    }
    count
};

impl Retriever {
    /// What `rrf-all` and `zsum-all` fuse: every retriever of the seeds (not the one-hop baseline), in
    /// registry order; the rows with a seed.
    pub const SEEDS: [Retriever; SEED_COUNT] = {
        let (mut seeds, mut found, mut row) = ([Retriever::Dense; SEED_COUNT], 0, 0);
        while row < REGISTRY.len() {
            if REGISTRY[row].seed.is_some() {
                seeds[found] = REGISTRY[row].retriever;
                found += 1;
            }
            row += 1;
        }
        seeds
    };

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
        matches!(self.entry().run, Run::NodeVectors(_))
    }

    /// Its ranked chunks for `query`; none, with the reason as its one step, on an index that lacks the
    /// node vectors it reads (a front end adds them before running it: `pipeline::Base::AllVectors`).
    pub fn run(self, index: &dyn IndexReader, query: Query<'_>, depth: usize) -> Retrieval {
        match (self.entry().run, index.node_vectors()) {
            (Run::Reader(run), _) => run(index, query, depth),
            (Run::NodeVectors(run), Some(index)) => run(index, query, depth),
            (Run::NodeVectors(_), None) => {
                let note = "this index holds chunk vectors only; the page, section, entity and relation vectors \
                            this retriever searches are added when it is chosen";
                Retrieval { chunks: Vec::new(), steps: vec![super::Step::keep(note, Vec::new(), 0.0)] }
            }
        }
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
        assert_eq!(Retriever::SEEDS.len(), 10, "every seed's retriever, not the one-hop baseline");
        let node_vectors: Vec<&str> =
            Retriever::all().filter(|r| r.reads_node_vectors()).map(Retriever::name).collect();
        assert_eq!(node_vectors, ["page", "section", "entity", "path", "hub", "triplet"]);
    }
}
