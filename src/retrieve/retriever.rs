//! The retrievers as one registry: each is a file of its own in this folder, and one row of [`REGISTRY`]
//! gives its name (what `--method` and the app call it), what it does, and the function that runs it.

use serde::{Deserialize, Serialize};

use super::{Query, Retrieval};
use crate::index::bm25::Bm25Params;
use crate::store::IndexedCorpus;

/// One retriever: a single ranked list of chunks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Retriever {
    Dense,
    Bm25,
    Page,
    Section,
    Entity,
    Path,
    Hub,
    Join,
    Triplet,
    Community,
    OneHop,
}

/// What the registry knows of a retriever.
struct Entry {
    retriever: Retriever,
    name: &'static str,
    /// Built from the retriever's own constants, so the text cannot drift from what it does.
    description: fn() -> String,
    run: fn(&IndexedCorpus, Query<'_>, usize) -> Retrieval,
}

/// A retriever that records no steps, as a registry entry's `run`.
macro_rules! plain {
    ($retrieve:path) => {
        |index, query, depth| Retrieval { chunks: $retrieve(index, query, depth), steps: Vec::new() }
    };
}

/// Every retriever in catalogue order: the seeds' retrievers, then the one-hop baseline. Adding a retriever
/// is its file, its variant and its row here.
const REGISTRY: [Entry; 11] = [
    Entry {
        retriever: Retriever::Dense,
        name: "dense",
        description: || "cosine of query and chunk embeddings (seed 000)".to_string(),
        run: plain!(super::dense),
    },
    Entry {
        retriever: Retriever::Bm25,
        name: "bm25",
        description: || {
            let Bm25Params { k1, b } = Bm25Params::default();
            format!("Okapi BM25 (k1 {k1}, b {b}), English analyzer (seed 004)")
        },
        run: plain!(super::bm25),
    },
    Entry {
        retriever: Retriever::Page,
        name: "page",
        description: || format!("chunks of the {} pages nearest the query (seed 000)", super::page::PAGES),
        run: super::page,
    },
    Entry {
        retriever: Retriever::Section,
        name: "section",
        description: || {
            format!("direct chunks of the {} sections or pages nearest the query (seed 000)", super::section::SECTIONS)
        },
        run: super::section,
    },
    Entry {
        retriever: Retriever::Entity,
        name: "entity",
        description: || format!("chunks citing the {} entities nearest the query (seed 000)", super::entity::ENTITIES),
        run: super::entity,
    },
    Entry {
        retriever: Retriever::Path,
        name: "path",
        description: || {
            let (seeds, size) = (super::path::SEEDS, super::path::SUBGRAPH_SIZE);
            format!("{seeds} seed entities grown to {size}-node subgraphs by comparison embeddings (seed 000)")
        },
        run: super::path,
    },
    Entry {
        retriever: Retriever::Hub,
        name: "hub",
        description: || {
            format!(
                "documents as hubs of verbalised relation paths, α = {} weighted mean (seed 001)",
                super::hub::ALPHA
            )
        },
        run: super::hub,
    },
    Entry {
        retriever: Retriever::Join,
        name: "join",
        description: || {
            "named and best-matching pages joined with their neighbours, ranked by anchor–neighbour pairs (seed 002)"
                .to_string()
        },
        run: super::join,
    },
    Entry {
        retriever: Retriever::Triplet,
        name: "triplet",
        description: || "verbalised relations ranked with the chunks (seed 003)".to_string(),
        run: super::triplet,
    },
    Entry {
        retriever: Retriever::Community,
        name: "community",
        description: || {
            let (seeds, pool) = (super::community::SEED_COMMUNITIES, super::community::POOL_COMMUNITIES);
            format!(
                "{seeds} chunk-graph communities by hybrid search, one similarity hop to {pool}, hybrid search in their chunks (seed 004)"
            )
        },
        run: super::community,
    },
    Entry {
        retriever: Retriever::OneHop,
        name: "onehop",
        description: || "baseline: RRF plus the documents one title mention away".to_string(),
        run: super::one_hop,
    },
];

/// Fails to compile when a variant is added without being listed here, which is the moment to give it its
/// row of [`REGISTRY`]; `registry_rows_follow_the_variants` then checks the row's place.
const fn has_a_row(retriever: Retriever) -> bool {
    use Retriever::*;
    match retriever {
        Dense | Bm25 | Page | Section | Entity | Path | Hub | Join | Triplet | Community | OneHop => {
            (retriever as usize) < REGISTRY.len()
        }
    }
}

const _: () = assert!(has_a_row(Retriever::OneHop) && REGISTRY.len() == Retriever::OneHop as usize + 1);

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
        // Rows are in variant order; `registry_rows_follow_the_variants` checks it.
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

    pub fn run(self, index: &IndexedCorpus, query: Query<'_>, depth: usize) -> Retrieval {
        (self.entry().run)(index, query, depth)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registry_rows_follow_the_variants() {
        for (position, entry) in REGISTRY.iter().enumerate() {
            assert_eq!(entry.retriever as usize, position, "{} is out of place", entry.name);
            assert_eq!(Retriever::parse(entry.name), Some(entry.retriever), "two retrievers share a name");
        }
        assert_eq!(Retriever::all().take(Retriever::SEEDS.len()).collect::<Vec<_>>(), Retriever::SEEDS);
    }
}
