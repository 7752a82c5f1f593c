//! The retrievers by name. Each is a file of its own in this folder (its search, and the `description` built
//! from its constants); one row of the [`catalogue!`] below names it (its variant, the name `--method` and
//! the app call it, the seed it comes from), and its arm in `registry.rs` says what it reads and runs.
//! Adding a retriever is its file, its `mod` line, its row here and its arm there, which the compiler asks
//! for. The names sit below the retrievers, so that a query can name the retriever whose list it carries.

use serde::{Deserialize, Serialize};

/// Declares the [`Retriever`] enum and its [`CATALOGUE`] from one list, so no variant can lack its row.
macro_rules! catalogue {
    ($($variant:ident = $name:literal, $seed:expr;)*) => {
        /// One retriever: a single ranked list of chunks.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
        pub enum Retriever {
            $($variant,)*
        }

        /// Every retriever in catalogue order, each row at its variant's position: its name, and the seed
        /// document it comes from (`0` is seed 000; docs/ARCHITECTURE.md's glossary), if any.
        const CATALOGUE: &[(Retriever, &str, Option<u8>)] = &[$((Retriever::$variant, $name, $seed),)*];
    };
}

// The seeds' retrievers, then the one-hop baseline: variant = name, seed.
catalogue! {
    Dense = "dense", Some(0);
    Bm25 = "bm25", Some(4);
    Page = "page", Some(0);
    Section = "section", Some(0);
    Entity = "entity", Some(0);
    Path = "path", Some(0);
    Hub = "hub", Some(1);
    Join = "join", Some(2);
    Triplet = "triplet", Some(3);
    Community = "community", Some(4);
    OneHop = "onehop", None;
}

/// How many catalogue rows come from a seed.
const SEED_COUNT: usize = {
    let (mut count, mut row) = (0, 0);
    while row < CATALOGUE.len() {
        if CATALOGUE[row].2.is_some() {
            count += 1;
        }
        row += 1;
    }
    count
};

impl Retriever {
    /// What `rrf-all` and `zsum-all` fuse: every retriever of the seeds (not the one-hop baseline), in
    /// catalogue order; the rows with a seed.
    pub const SEEDS: [Retriever; SEED_COUNT] = {
        let (mut seeds, mut found, mut row) = ([Retriever::Dense; SEED_COUNT], 0, 0);
        while row < CATALOGUE.len() {
            if CATALOGUE[row].2.is_some() {
                seeds[found] = CATALOGUE[row].0;
                found += 1;
            }
            row += 1;
        }
        seeds
    };

    /// Every retriever: the seeds', then the one-hop baseline.
    pub fn all() -> impl Iterator<Item = Retriever> {
        CATALOGUE.iter().map(|row| row.0)
    }

    pub fn name(self) -> &'static str {
        // `catalogue!` writes the rows in variant order.
        CATALOGUE[self as usize].1
    }

    pub fn parse(name: &str) -> Option<Self> {
        let wanted = name.trim().to_ascii_lowercase();
        Self::all().find(|r| r.name() == wanted)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_retriever_has_its_own_name_in_its_place() {
        for (position, &(retriever, name, _)) in CATALOGUE.iter().enumerate() {
            assert_eq!(retriever as usize, position, "{name} is out of place");
            assert_eq!(Retriever::parse(name), Some(retriever), "two retrievers share a name");
        }
        assert_eq!(Retriever::all().take(Retriever::SEEDS.len()).collect::<Vec<_>>(), Retriever::SEEDS);
        assert_eq!(Retriever::SEEDS.len(), 10, "every seed's retriever, not the one-hop baseline");
    }
}
