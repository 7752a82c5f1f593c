//! How the embedder counts word-pieces, as chunking needs it: a trait, so that the corpus is built without
//! the model (the page's module counts without one) and tests count words.

/// Counts word-pieces the way the embedder will.
pub trait TokenCounter {
    /// Word-pieces of `text`, special tokens excluded.
    fn count_tokens(&self, text: &str) -> usize;
    /// Special tokens added around every sequence (`[CLS]`, `[SEP]`).
    fn special_tokens(&self) -> usize {
        2
    }
    /// Byte ranges of `text`'s word-pieces, where the counter can tell them: a long paragraph is then split
    /// from one tokenization of each window instead of a search that tokenizes each piece many times.
    fn token_spans(&self, _text: &str) -> Option<Vec<(usize, usize)>> {
        None
    }
}
