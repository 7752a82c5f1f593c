//! The English analyzer: Unicode word segmentation, lowercasing, stop words, Snowball stemming. BM25
//! (`index`) indexes and searches its tokens; entity extraction (`corpus`) matches names and phrases with it.

use rust_stemmers::{Algorithm, Stemmer};
use unicode_segmentation::UnicodeSegmentation;

/// A general English stop list (articles, pronouns, auxiliaries, prepositions, conjunctions). Hand-kept
/// because the analyzer needs one small fixed list that never changes under a dependency update: a changed
/// list would silently change every stored BM25 index.
#[rustfmt::skip]
const STOP_WORDS: &[&str] = &[
    "a", "about", "above", "after", "again", "against", "all", "am", "an", "and", "any", "are", "as", "at", "be",
    "because", "been", "before", "being", "below", "between", "both", "but", "by", "can", "could", "did", "do",
    "does", "doing", "down", "during", "each", "few", "for", "from", "further", "had", "has", "have", "having", "he",
    "her", "here", "hers", "herself", "him", "himself", "his", "how", "i", "if", "in", "into", "is", "it", "its",
    "itself", "just", "me", "more", "most", "my", "myself", "no", "nor", "not", "now", "of", "off", "on", "once",
    "only", "or", "other", "our", "ours", "ourselves", "out", "over", "own", "same", "she", "should", "so", "some",
    "such", "than", "that", "the", "their", "theirs", "them", "themselves", "then", "there", "these", "they", "this",
    "those", "through", "to", "too", "under", "until", "up", "very", "was", "we", "were", "what", "when", "where",
    "which", "while", "who", "whom", "why", "will", "with", "would", "you", "your", "yours", "yourself", "yourselves",
];

pub fn is_stop_word(lowercase_word: &str) -> bool {
    STOP_WORDS.binary_search(&lowercase_word).is_ok()
}

pub struct Analyzer {
    stemmer: Stemmer,
}

impl Default for Analyzer {
    fn default() -> Self {
        Self { stemmer: Stemmer::create(Algorithm::English) }
    }
}

impl Analyzer {
    /// Index terms of `text`, in order, duplicates kept.
    pub fn terms(&self, text: &str) -> Vec<String> {
        text.unicode_words().filter_map(|word| self.term(word)).collect()
    }

    /// Every word of `text` with where it lies (a byte range) and its index term, `None` for a stop word:
    /// what an excerpt marks where a question's terms matched.
    pub fn words<'a>(&'a self, text: &'a str) -> impl Iterator<Item = (std::ops::Range<usize>, Option<String>)> + 'a {
        text.unicode_word_indices().map(|(at, word)| (at..at + word.len(), self.term(word)))
    }

    fn term(&self, word: &str) -> Option<String> {
        let lowercase = word.to_lowercase();
        (!is_stop_word(&lowercase)).then(|| self.stemmer.stem(&lowercase).into_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stop_list_is_sorted_for_binary_search() {
        assert!(STOP_WORDS.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn analyzes_english() {
        let terms = Analyzer::default().terms("The Astronauts were LANDING on the Moon's surface, didn't they?");
        assert_eq!(terms, vec!["astronaut", "land", "moon", "surfac", "didn't"]);
    }
}
