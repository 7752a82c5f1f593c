use super::*;
use crate::corpus::document::{DocumentBuilder, Format, Metadata};

/// One token per word and per punctuation mark: close to WordPiece for plain English.
pub struct WordCounter;
impl TokenCounter for WordCounter {
    fn count_tokens(&self, text: &str) -> usize {
        text.split_word_bounds().filter(|w| !w.trim().is_empty()).count()
    }
}

fn doc_of(paragraphs: &[(&str, BlockKind)]) -> Document {
    let mut b = DocumentBuilder::new();
    for (text, kind) in paragraphs {
        b.paragraph(*kind, text);
    }
    b.finish("x.md".into(), [0; 16], Format::Markdown, Metadata::default(), "x")
}

fn chunk_texts(doc: &Document, target: usize, max: usize) -> Vec<String> {
    let blocks: Vec<&TextBlock> = doc.blocks.iter().collect();
    chunk_blocks(doc, &blocks, &WordCounter, &ChunkLimits { target_tokens: target, max_tokens: max })
        .iter()
        .map(|c| doc.slice(c.span).to_string())
        .collect()
}

#[test]
fn merges_short_paragraphs_up_to_target() {
    let doc = doc_of(&[
        ("One two three.", BlockKind::Paragraph),
        ("Four five.", BlockKind::Paragraph),
        ("Six seven eight nine.", BlockKind::Paragraph),
    ]);
    assert_eq!(chunk_texts(&doc, 8, 20), vec!["One two three.\n\nFour five.", "Six seven eight nine."]);
}

#[test]
fn table_rows_stay_alone() {
    let doc = doc_of(&[("a: 1", BlockKind::TableRow), ("a: 2", BlockKind::TableRow)]);
    assert_eq!(chunk_texts(&doc, 50, 60), vec!["a: 1", "a: 2"]);
}

#[test]
fn long_paragraph_splits_at_sentences_then_words() {
    let long_sentence = format!("Then {}", (1..30).map(|i| format!("w{i}")).collect::<Vec<_>>().join(" "));
    let text = format!("Short one here. Another short one. {long_sentence}.");
    let doc = doc_of(&[(&text, BlockKind::Paragraph)]);
    let chunks = chunk_texts(&doc, 8, 12);
    assert_eq!(chunks[0], "Short one here. Another short one.", "{chunks:?}");
    for chunk in &chunks {
        assert!(WordCounter.count_tokens(chunk) <= 10, "{chunk:?}");
    }
    let rejoined: String = chunks.join(" ");
    assert!(rejoined.contains("Then w1") && rejoined.contains("w29"));
}

/// Counts the bytes every call is asked to tokenize, so the cost of chunking is measured without a clock.
struct MeteredCounter {
    bytes: std::cell::Cell<usize>,
}
impl TokenCounter for MeteredCounter {
    /// Like BERT's pre-tokenizer: every punctuation mark and every run of letters and digits is a token.
    fn count_tokens(&self, text: &str) -> usize {
        self.bytes.set(self.bytes.get() + text.len());
        let punctuation = text.chars().filter(char::is_ascii_punctuation).count();
        punctuation + text.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).count()
    }
}

fn bytes_tokenized(text: &str) -> (usize, Vec<PlannedChunk>) {
    let doc = doc_of(&[(text, BlockKind::Paragraph)]);
    let blocks: Vec<&TextBlock> = doc.blocks.iter().collect();
    let counter = MeteredCounter { bytes: std::cell::Cell::new(0) };
    let chunks = chunk_blocks(&doc, &blocks, &counter, &ChunkLimits { target_tokens: 128, max_tokens: 256 });
    let tokenized = counter.bytes.get();
    for chunk in &chunks {
        assert!(counter.count_tokens(doc.slice(chunk.span)) <= 254);
    }
    (tokenized, chunks)
}

#[test]
fn a_paragraph_without_sentence_ends_is_split_in_linear_time() {
    let words: Vec<String> = (0..1_000_000).map(|i| format!("w{}", i % 997)).collect();
    let text = words.join(" ");
    let (tokenized, chunks) = bytes_tokenized(&text);
    assert!(chunks.len() > 1_000_000 / 254, "{} chunks", chunks.len());
    assert!(tokenized < 40 * text.len(), "{tokenized} bytes tokenized for {} bytes of text", text.len());
}

#[test]
fn an_unbroken_word_is_split_in_linear_time() {
    // `a.a.a…` is one word to Unicode segmentation but a token per letter and per dot to BERT.
    let text = "a.".repeat(500_000) + "a";
    let (tokenized, chunks) = bytes_tokenized(&text);
    assert!(chunks.len() >= 1_000_000 / 254, "{} chunks", chunks.len());
    assert_eq!(chunks.iter().map(|c| c.span.len()).sum::<usize>(), text.len());
    assert!(tokenized < 40 * text.len(), "{tokenized} bytes tokenized for {} bytes of text", text.len());
}

/// Like WordPiece with offsets: runs of letters and digits in pieces of at most 8 characters, each
/// punctuation mark alone, and a run over 100 characters one unknown piece; counts the bytes tokenized.
struct SpannedCounter {
    bytes: std::cell::Cell<usize>,
}
impl TokenCounter for SpannedCounter {
    fn count_tokens(&self, text: &str) -> usize {
        self.token_spans(text).unwrap().len()
    }
    fn token_spans(&self, text: &str) -> Option<Vec<(usize, usize)>> {
        self.bytes.set(self.bytes.get() + text.len());
        let mut spans = Vec::new();
        let mut run: Option<usize> = None;
        let close = |spans: &mut Vec<(usize, usize)>, start: usize, end: usize| match end - start > 100 {
            true => spans.push((start, end)),
            false => spans.extend((start..end).step_by(8).map(|s| (s, (s + 8).min(end)))),
        };
        for (i, c) in text.char_indices() {
            match (c.is_alphanumeric(), run) {
                (true, None) => run = Some(i),
                (true, Some(_)) => {}
                (false, Some(start)) => {
                    close(&mut spans, start, i);
                    run = None;
                }
                (false, None) => {}
            }
            if c.is_ascii_punctuation() {
                spans.push((i, i + 1));
            }
        }
        if let Some(start) = run {
            close(&mut spans, start, text.len());
        }
        Some(spans)
    }
}

fn split_with_spans(text: &str) -> (usize, Vec<PlannedChunk>, Document) {
    let doc = doc_of(&[(text, BlockKind::Paragraph)]);
    let blocks: Vec<&TextBlock> = doc.blocks.iter().collect();
    let counter = SpannedCounter { bytes: std::cell::Cell::new(0) };
    let chunks = chunk_blocks(&doc, &blocks, &counter, &ChunkLimits { target_tokens: 128, max_tokens: 256 });
    let tokenized = counter.bytes.get();
    for chunk in &chunks {
        let piece = doc.slice(chunk.span);
        assert!(
            counter.count_tokens(piece) <= 254 && piece.len() <= 254 * MAX_BYTES_PER_TOKEN,
            "{} tokens, {} bytes",
            counter.count_tokens(piece),
            piece.len()
        );
        assert_eq!(chunk.tokens, counter.count_tokens(piece), "{piece:?}");
        assert_eq!(piece, piece.trim());
    }
    let kept: String = chunks.iter().map(|c| doc.slice(c.span)).collect::<String>().split_whitespace().collect();
    assert_eq!(kept, doc.text.split_whitespace().collect::<String>(), "every word is in one chunk");
    (tokenized, chunks, doc)
}

#[test]
fn a_long_paragraph_is_split_from_one_tokenization_of_each_window() {
    let words: Vec<String> = (0..400_000).map(|i| format!("word{}", i % 997)).collect();
    let text = words.join(" ");
    let (tokenized, chunks, _) = split_with_spans(&text);
    assert!(tokenized < 3 * text.len(), "{tokenized} bytes tokenized for {} bytes of text", text.len());
    assert!(chunks.iter().all(|c| c.tokens >= 200), "pieces are full: {:?}", chunks.iter().map(|c| c.tokens).min());

    let glued = "a.".repeat(300_000) + "a";
    let (tokenized, chunks, _) = split_with_spans(&glued);
    assert!(tokenized < 3 * glued.len(), "{tokenized} bytes for {}", glued.len());
    assert!(chunks.len() >= 600_000 / 254);
}

#[test]
fn a_word_of_megabytes_is_cut_by_bytes() {
    let text = format!("before {} after", "x".repeat(2_000_000));
    let (_, chunks, doc) = split_with_spans(&text);
    assert!(chunks.len() >= 2_000_000 / (254 * MAX_BYTES_PER_TOKEN));
    assert!(doc.slice(chunks[0].span).starts_with("before"));
}
