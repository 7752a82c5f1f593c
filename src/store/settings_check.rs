//! The ranges index settings may take: what `quire index` accepts, and what a snapshot's stored settings must
//! be before they drive anything (a crafted file with 3-token chunks re-chunked a one-line note into
//! 1,165 chunks on the next `add`; one with a BM25 k1 of NaN scored every chunk NaN).

use std::ops::RangeInclusive;

use super::IndexSettings;
use crate::error::Inconsistent;

/// Word-pieces per chunk at most: the model reads 512 positions.
const CHUNK_MAX_TOKENS: RangeInclusive<usize> = 32..=512;
/// Word-pieces a chunk is filled to, from a sentence or two up to the chunk's limit.
const CHUNK_TARGET_MIN: usize = 16;
const MIN_MENTION_CHARS: RangeInclusive<usize> = 1..=100;
const MAX_RELATION_PHRASE_WORDS: RangeInclusive<usize> = 1..=32;
const MAX_PHRASE_RELATION_TYPES: RangeInclusive<usize> = 0..=65_536;
/// Bytes a file may have at most: past a gigabyte no file is read into memory whole.
const MAX_FILE_BYTES: RangeInclusive<usize> = 1..=1 << 30;
const BM25_K1: RangeInclusive<f32> = 0.0..=10.0;
const BM25_B: RangeInclusive<f32> = 0.0..=1.0;

impl IndexSettings {
    /// Whether every setting is in its accepted range; the first that is not, named with its range.
    pub fn check(&self) -> Result<(), Inconsistent> {
        let corpus = &self.corpus;
        within("chunk_max_tokens", corpus.chunk_max_tokens, CHUNK_MAX_TOKENS)?;
        within("chunk_target_tokens", corpus.chunk_target_tokens, CHUNK_TARGET_MIN..=corpus.chunk_max_tokens)?;
        within("min_mention_chars", corpus.min_mention_chars, MIN_MENTION_CHARS)?;
        within("max_relation_phrase_words", corpus.max_relation_phrase_words, MAX_RELATION_PHRASE_WORDS)?;
        within("max_phrase_relation_types", corpus.max_phrase_relation_types, MAX_PHRASE_RELATION_TYPES)?;
        within("max_file_bytes", corpus.max_file_bytes, MAX_FILE_BYTES)?;
        // A NaN is in no range: `contains` is false for it.
        within("BM25 k1", self.bm25.k1, BM25_K1)?;
        within("BM25 b", self.bm25.b, BM25_B)
    }
}

fn within<T: PartialOrd + std::fmt::Display>(
    name: &str,
    value: T,
    range: RangeInclusive<T>,
) -> Result<(), Inconsistent> {
    if range.contains(&value) {
        return Ok(());
    }
    Err(format!("the setting {name} is {value}, outside {} to {}", range.start(), range.end()).into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_pass_and_each_setting_out_of_range_is_named() {
        assert_eq!(IndexSettings::default().check(), Ok(()));
        let refused = |change: &dyn Fn(&mut IndexSettings)| {
            let mut settings = IndexSettings::default();
            change(&mut settings);
            settings.check().unwrap_err().0
        };
        assert_eq!(
            refused(&|s| s.corpus.chunk_target_tokens = 3),
            "the setting chunk_target_tokens is 3, outside 16 to 256"
        );
        assert_eq!(refused(&|s| s.bm25.k1 = f32::NAN), "the setting BM25 k1 is NaN, outside 0 to 10");
        assert!(refused(&|s| s.corpus.max_file_bytes = usize::MAX).starts_with("the setting max_file_bytes is "));
        assert!(refused(&|s| s.corpus.chunk_target_tokens = 300).contains("outside 16 to 256"));
        assert!(refused(&|s| s.bm25.b = -0.5).starts_with("the setting BM25 b is -0.5"));
    }
}
