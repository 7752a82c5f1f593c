use unicode_segmentation::UnicodeSegmentation;

use super::splitting::MAX_BYTES_PER_TOKEN;
use super::*;
use crate::corpus::CorpusSettings;
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
fn rows_merge_under_their_header_which_later_chunks_carry() {
    let mut blocks = vec![("Intro.", BlockKind::Paragraph), ("station; reading", BlockKind::TableHeader)];
    let rows: Vec<String> = (0..40).map(|n| format!("pier {n}; calm")).collect();
    blocks.extend(rows.iter().map(|row| (row.as_str(), BlockKind::TableRow)));
    blocks.push(("After the table.", BlockKind::Paragraph));
    let doc = doc_of(&blocks);
    let all: Vec<&TextBlock> = doc.blocks.iter().collect();
    let limits = ChunkLimits { target_tokens: 30, max_tokens: 40 };
    let chunks = chunk_blocks(&doc, &all, &WordCounter, &limits);
    let texts: Vec<&str> = chunks.iter().map(|c| doc.slice(c.span)).collect();
    let header = doc.blocks[1].span;
    assert_eq!(texts[0], "Intro.", "prose does not join a table's rows");
    assert!(texts[1].starts_with("station; reading\n\npier 0; calm"), "{texts:?}");
    assert_eq!(chunks[1].header, None, "the first chunk says its header in its text");
    let rows_chunks = &chunks[2..chunks.len() - 1];
    assert!(rows_chunks.len() >= 2, "{texts:?}");
    for chunk in rows_chunks {
        assert_eq!(chunk.header, Some(header));
        assert!(doc.slice(chunk.span).starts_with("pier "));
        // The header's 4 word-pieces (and a separator) come out of each chunk's room.
        assert!(chunk.tokens <= 30 - 4, "{} word-pieces", chunk.tokens);
    }
    assert_eq!(*texts.last().unwrap(), "After the table.");
    assert_eq!(chunks.last().unwrap().header, None);
    assert_eq!(carried_header(&doc, header), "station; reading");
}

fn built(markdown: &str) -> crate::corpus::Corpus {
    built_from("notes.md", markdown)
}

fn built_from(name: &str, text: &str) -> crate::corpus::Corpus {
    use crate::corpus::{SourceFile, ingest};
    let settings = CorpusSettings::default();
    let files = [SourceFile::new(name, text.as_bytes())];
    crate::corpus::Corpus::build(ingest(&files, &settings).documents, &WordCounter, &settings)
}

#[test]
fn runs_of_tiny_sections_join_where_they_are_many_and_a_normal_section_keeps_to_itself() {
    let normal = "The keeper trims the wick every evening, logs each passing ship by name and flag, and in fog \
                  sounds the horn twice a minute until the morning boat comes round the point with the mail, the oil \
                  and the news from the mainland, which he reads aloud to the cat by the light of the lamp.";
    let days = |from: usize| (from..from + 12).map(|n| format!("## Day {n}\n\nCalm.\n\n")).collect::<String>();
    let corpus = built(&format!("# Log\n\n{}## Duties\n\n{normal}\n\n{}", days(1), days(13)));
    let texts: Vec<&str> = (0..corpus.chunks.len() as u32).map(|c| corpus.chunk_text(c)).collect();
    assert_eq!(texts.len(), 3, "{texts:?}");
    assert!(texts[0].starts_with("Calm.\n\nDay 2\n\nCalm.") && texts[0].ends_with("Day 12\n\nCalm."), "{texts:?}");
    assert_eq!(texts[1], normal);
    assert!(texts[2].starts_with("Calm.\n\nDay 14") && texts[2].ends_with("Day 24\n\nCalm."), "{texts:?}");
    let section = |c: usize| corpus.sections[corpus.chunks[c].section.unwrap() as usize].title.as_str();
    assert_eq!((section(0), section(1), section(2)), ("Day 1", "Duties", "Day 13"));

    // A short note keeps a chunk per section.
    let note = built("# Moon\n\n## Landings\n\nApollo 11.\n\n## Tides\n\nRaised by gravity.\n");
    assert_eq!(note.chunks.len(), 2);
}

/// 100,000 headings each over one line were 100,000 chunks to embed.
#[test]
fn a_document_of_many_tiny_sections_costs_chunks_by_its_words() {
    let markdown: String = (0..10_000).map(|n| format!("## Heading {n}\n\nline {n}\n\n")).collect();
    let corpus = built(&markdown);
    let words = WordCounter.count_tokens(&markdown);
    let room = CorpusSettings::default().chunk_target_tokens;
    let bound = 2 * words / (room / SMALL_CHUNK_DIVISOR) + words / (room - room / SMALL_CHUNK_DIVISOR) + 1;
    assert!(corpus.chunks.len() <= bound, "{} chunks for {words} words, bound {bound}", corpus.chunks.len());
    assert!(corpus.chunks.len() < 10_000 / 20, "{} chunks", corpus.chunks.len());
    let last = corpus.chunk_text(corpus.chunks.len() as u32 - 1);
    assert!(last.ends_with("line 9999"), "every line is in a chunk: {last:?}");
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

/// 1,000,000 one-word rows were 1,000,000 chunks, each saying the header again.
#[test]
fn one_word_rows_merge_into_chunks_that_carry_their_header() {
    let rows: String = (0..5_000).map(|n| format!("w{}\n", n % 500)).collect();
    let corpus = built_from("rows.csv", &format!("word\n{rows}"));
    let words = WordCounter.count_tokens(&rows);
    assert!(corpus.chunks.len() <= words / 100, "{} chunks for {words} words", corpus.chunks.len());
    let last = corpus.chunks.len() as u32 - 1;
    assert_eq!(corpus.chunk_context(last), "rows > rows.csv > word");
    assert!(corpus.chunk_search_text(last).starts_with("rows > rows.csv > word\nw"));
    assert_eq!(corpus.chunk_context(0), "rows > rows.csv", "the first chunk says the header in its text");
    assert!(corpus.chunk_text(0).starts_with("word\n\nw0\n\nw1"));
}
