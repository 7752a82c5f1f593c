//! Chunks stay within the embedder's 256 word-pieces on inputs built to exceed it: long sentences, long
//! unbroken words, dense punctuation and scripts where every character is a word-piece. Counts are
//! recounted with the real tokenizer, never taken from what the chunker stored.

use crate::common;

use proptest::prelude::*;
use quire::corpus::{self, Corpus, CorpusSettings, SourceFile, TokenCounter};

/// Pieces that cost many word-pieces per byte or that no segmenter splits.
const PIECES: &[&str] = &[
    "word",
    "antidisestablishmentarianism",
    "a.b.c.d.e.f",
    "東京大学",
    "—",
    ",",
    ".",
    "!",
    "xyz",
    "1,234,567.89",
    "e=mc²",
    "naïve",
    "ünïcödé",
    "(",
    ")",
    "[[Link]]",
    "https://example.org/a/b?c=d",
];

fn long_text() -> impl Strategy<Value = String> {
    (proptest::collection::vec((0..PIECES.len(), 0..3usize), 200..1500), any::<bool>()).prop_map(|(picks, spaced)| {
        let separators = [" ", "", "  "];
        let mut text = String::new();
        for (piece, separator) in picks {
            text.push_str(PIECES[piece]);
            text.push_str(if spaced { " " } else { separators[separator] });
        }
        text
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn every_chunk_and_its_search_text_fit_the_model(text in long_text(), ext in prop_oneof![Just("txt"), Just("md")]) {
        let settings = CorpusSettings::default();
        let report = corpus::ingest(&[SourceFile::new(format!("long.{ext}"), text.clone())], &settings);
        prop_assume!(!report.documents.is_empty());
        let corpus = Corpus::build(report.documents, common::embedder(), &settings);
        let embedder = common::embedder();
        let mut longest = 0;
        for id in 0..corpus.chunks.len() as u32 {
            let tokens = embedder.count_tokens(corpus.chunk_text(id));
            prop_assert!(tokens + 2 <= settings.chunk_max_tokens, "chunk {} has {} word-pieces", id, tokens);
            prop_assert_eq!(tokens, corpus.chunks[id as usize].tokens as usize);
            let searched = embedder.count_tokens(&corpus.chunk_search_text(id));
            prop_assert!(searched + 2 <= settings.chunk_max_tokens, "chunk {} is searched as {}", id, searched);
            longest = longest.max(tokens);
        }
        // The inputs are long enough that some chunk comes close to the limit: the bound is really tested.
        let total = embedder.count_tokens(&text);
        prop_assert!(total < 400 || longest > 120, "{} word-pieces in all, longest chunk {}", total, longest);
    }
}
