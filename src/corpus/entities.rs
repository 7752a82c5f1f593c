//! Entities, mentions and relations without an LLM: links resolved to documents by title, alias, slug or
//! file name; unresolved targets as external entities; unlinked title mentions by dictionary matching; and
//! relations from front matter, infoboxes, section titles and connecting phrases.

mod mentions;
mod relations;
mod table;

pub use mentions::{Gazetteer, dictionary_mentions, link_mentions};
pub use relations::extract_relations;
pub use table::EntityTable;

#[cfg(test)]
mod tests;
