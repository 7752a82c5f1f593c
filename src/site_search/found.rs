//! What a search of a built site gives its script: each page found, with the section and the excerpt of
//! its best passage, its question's words marked, as the JSON the script draws.

use serde::Serialize;

use crate::index::excerpt::{Excerpts, Piece};
use crate::store::ChunkView;

#[derive(Debug, Serialize)]
pub struct Found {
    pub question: String,
    /// Whether the question was answered by meaning too (the query table knew its words), or by words alone.
    pub by_meaning: bool,
    pub pages: Vec<FoundPage>,
    /// The bytes of the index fetched so far, this question's included.
    pub fetched_bytes: usize,
}

#[derive(Debug, Serialize)]
pub struct FoundPage {
    pub title: String,
    /// The page's path inside the site, `/`-separated.
    pub source: String,
    /// The headings above the passage, below the page's title; empty at the page's top.
    pub section: String,
    pub excerpt: Vec<Piece>,
}

impl Found {
    /// No page, for a question none of whose words the index holds.
    pub fn nothing(question: &str, fetched_bytes: usize) -> Self {
        Found { question: question.to_string(), by_meaning: false, pages: Vec::new(), fetched_bytes }
    }

    /// The pages of `views`, each its best passage.
    pub fn of(question: &str, views: &[ChunkView], by_meaning: bool, fetched_bytes: usize) -> Self {
        let excerpts = Excerpts::for_question(question);
        let page = |view: &ChunkView| FoundPage {
            title: view.title.clone(),
            source: view.source.clone(),
            section: section(&view.label),
            excerpt: excerpts.of(&view.text, view.language),
        };
        Found { question: question.to_string(), by_meaning, pages: views.iter().map(page).collect(), fetched_bytes }
    }
}

/// A chunk's label (`Page › Section › #n`) less its page and its ordinal.
fn section(label: &str) -> String {
    let parts: Vec<&str> = label.split(" › ").skip(1).filter(|part| !part.starts_with('#')).collect();
    parts.join(" › ")
}

#[cfg(test)]
mod tests {
    use super::section;

    #[test]
    fn a_section_is_the_label_below_its_page() {
        assert_eq!(section("Testing › Unit tests › #2"), "Unit tests");
        assert_eq!(section("Testing › #1"), "");
        assert_eq!(section("Guide › Install › On Linux"), "Install › On Linux");
    }
}
