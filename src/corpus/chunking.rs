//! Paragraph-aware chunking bounded by the embedder's word-pieces: long paragraphs split at sentence
//! boundaries (at word boundaries for a sentence that alone is too long), short neighbours merged up to a
//! target size. Chunks are spans of the document text. A table's rows merge like paragraphs, each chunk
//! of them carrying the table's header in its context; in a document of more chunks than its bytes pay for,
//! runs of small chunks join across headings ([`bound_chunks`]), so that a file of many tiny sections or
//! one-word rows costs chunks in proportion to its bytes, not to its headings or rows.

use unicode_segmentation::UnicodeSegmentation;

use super::document::{BlockKind, Document, Span, TextBlock};

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

#[derive(Clone, Debug, PartialEq)]
pub struct PlannedChunk {
    pub span: Span,
    pub page: Option<u32>,
    pub tokens: usize,
    /// The header of the table whose rows the chunk holds, when the chunk does not hold the header itself.
    pub header: Option<Span>,
    /// Word-pieces the chunk may grow to: the target, less what its section's context and table header
    /// take of the embedder's budget.
    pub room: usize,
}

#[derive(Clone, Copy, Debug)]
struct Piece {
    span: Span,
    page: Option<u32>,
    tokens: usize,
    /// The header of the table the piece belongs to (its own span for the header itself): pieces join only
    /// pieces under the same header, or none.
    header: Option<Span>,
    room: usize,
}

pub struct ChunkLimits {
    pub target_tokens: usize,
    pub max_tokens: usize,
}

/// Bytes of a table's header carried into the context of each chunk of its rows: enough for the labels of
/// a real table, while a header of megabytes is said whole only once, in the table's first chunk.
pub const MAX_CARRIED_HEADER_BYTES: usize = 300;

/// A chunk under `room / SMALL_CHUNK_DIVISOR` word-pieces is small: in a document of too many chunks
/// ([`bound_chunks`]), a run of small chunks (tiny sections, one-line notes under headings) joins into chunks
/// of the normal size across the headings between them, while a chunk of a normal size keeps to its section.
/// Such a document's chunks are then at most twice its word-pieces divided by `room / SMALL_CHUNK_DIVISOR`
/// (a chunk of a normal size, and at most one run before it) plus those divided by `room - room /
/// SMALL_CHUNK_DIVISOR` (the full runs).
pub const SMALL_CHUNK_DIVISOR: usize = 4;

/// What of a table's `header` the chunks of its rows carry in their context.
pub fn carried_header(doc: &Document, header: Span) -> &str {
    let text = doc.slice(header);
    &text[..floor_boundary(text, MAX_CARRIED_HEADER_BYTES)]
}

/// Chunks for the consecutive body blocks of one section.
pub fn chunk_blocks(
    doc: &Document,
    blocks: &[&TextBlock],
    counter: &dyn TokenCounter,
    limits: &ChunkLimits,
) -> Vec<PlannedChunk> {
    let budget = limits.max_tokens.saturating_sub(counter.special_tokens()).max(1);
    let target = limits.target_tokens.min(budget).max(1);
    let mut pieces = Vec::new();
    // The table being read: its header, and the word-pieces that header takes of each chunk's budget (at
    // most a quarter, as a section's context does in `corpus::build`).
    let mut table: Option<(Span, usize)> = None;
    for block in blocks {
        table = match block.kind {
            BlockKind::TableHeader => {
                Some((block.span, (counter.count_tokens(carried_header(doc, block.span)) + 1).min(budget / 4)))
            }
            BlockKind::TableRow => table,
            _ => None,
        };
        let reserved = table.map_or(0, |(_, tokens)| tokens);
        let (budget, room) = (budget - reserved, target.saturating_sub(reserved).max(1));
        let (header, page) = (table.map(|(span, _)| span), block.page);
        match count_within_reach(doc.slice(block.span), counter, budget) {
            Some(tokens) if tokens <= budget => pieces.push(Piece { span: block.span, page, tokens, header, room }),
            _ => {
                for (span, tokens) in split_long(&doc.text, block.span, counter, room, budget) {
                    pieces.push(Piece { span, page, tokens, header, room });
                }
            }
        }
    }
    merge(pieces)
}

/// Groups neighbouring pieces of one table (or of none) while the group stays within its room and
/// `room × MAX_BYTES_PER_TOKEN` bytes (a chunk is bounded in bytes too: pieces of unknown "words" count one
/// word-piece for any length). WordPiece pre-tokenises on whitespace and punctuation, so the token count of
/// joined pieces is the sum of their counts.
fn merge(pieces: Vec<Piece>) -> Vec<PlannedChunk> {
    let mut chunks: Vec<PlannedChunk> = Vec::new();
    let mut table: Option<Option<Span>> = None; // the header of the last chunk's pieces
    for piece in pieces {
        let joins = table == Some(piece.header)
            && chunks.last().is_some_and(|group| {
                group.page == piece.page
                    && fits_in_room(group.span.start, piece.span.end, group.tokens + piece.tokens, piece.room)
            });
        table = Some(piece.header);
        match chunks.last_mut() {
            Some(group) if joins => {
                group.span.end = piece.span.end;
                group.tokens += piece.tokens;
            }
            _ => chunks.push(PlannedChunk {
                span: piece.span,
                page: piece.page,
                tokens: piece.tokens,
                // The table's first chunk says its header in its text.
                header: piece.header.filter(|header| !piece.span.contains(*header)),
                room: piece.room,
            }),
        }
    }
    chunks
}

/// Bytes of text a document's chunks may average before its runs of small chunks are joined: a quarter
/// of what a chunk of prose at the target size holds (about 800 bytes). Below that a document keeps every
/// section its own chunk (a reference page of short options is searched best that way); past it, the
/// sections are too small to pay for a text each (100,000 headings over a line each), and
/// [`join_small`] joins them.
pub const MIN_BYTES_PER_CHUNK: usize = 200;

/// Chunks a document may have whatever its size: a short note with a heading over each line keeps them.
pub const FREE_CHUNKS_PER_DOCUMENT: usize = 4;

/// `chunks` as they are, or with their runs of small chunks joined when the document has more than
/// [`FREE_CHUNKS_PER_DOCUMENT`] and one per [`MIN_BYTES_PER_CHUNK`] of its text.
pub fn bound_chunks<S>(
    doc: &Document,
    chunks: Vec<(S, PlannedChunk)>,
    counter: &dyn TokenCounter,
) -> Vec<(S, PlannedChunk)> {
    if chunks.len() <= doc.text.len() / MIN_BYTES_PER_CHUNK + FREE_CHUNKS_PER_DOCUMENT {
        return chunks;
    }
    join_small(doc, chunks, counter)
}

/// Joins each run of small chunks (under `room / SMALL_CHUNK_DIVISOR`) into chunks up to their room,
/// across the headings between them: a document of many tiny sections becomes chunks of the normal size,
/// each kept under the section it starts in, with the later sections' headings in its text. `chunks` are one
/// document's, in order, with their sections.
fn join_small<S>(doc: &Document, chunks: Vec<(S, PlannedChunk)>, counter: &dyn TokenCounter) -> Vec<(S, PlannedChunk)> {
    let small = |chunk: &PlannedChunk| chunk.tokens < chunk.room / SMALL_CHUNK_DIVISOR && chunk.header.is_none();
    let mut joined: Vec<(S, PlannedChunk)> = Vec::with_capacity(chunks.len());
    let mut run_open = false; // whether the last chunk is a run of small chunks, open to more
    for (section, chunk) in chunks {
        let is_small = small(&chunk);
        if let Some((_, run)) = joined.last_mut().filter(|_| run_open && is_small)
            && let Some(tokens) = joined_tokens(doc, run, &chunk, counter)
        {
            run.span.end = chunk.span.end;
            run.tokens = tokens;
            continue;
        }
        run_open = is_small;
        joined.push((section, chunk));
    }
    joined
}

/// Whether a chunk from byte `start` to `end` of `tokens` word-pieces fits `room`: its word-pieces, and
/// `room × MAX_BYTES_PER_TOKEN` bytes (pieces of unknown "words" count one word-piece for any length).
fn fits_in_room(start: u32, end: u32, tokens: usize, room: usize) -> bool {
    tokens <= room && (end - start) as usize <= room.saturating_mul(MAX_BYTES_PER_TOKEN)
}

/// The word-pieces of `run` joined with `next`, with the headings between them, when they fit its room.
fn joined_tokens(doc: &Document, run: &PlannedChunk, next: &PlannedChunk, counter: &dyn TokenCounter) -> Option<usize> {
    if run.page != next.page || !fits_in_room(run.span.start, next.span.end, run.tokens + next.tokens, run.room) {
        return None;
    }
    let between = doc.slice(Span { start: run.span.end, end: next.span.start });
    let tokens = run.tokens + count_within_reach(between, counter, run.room)? + next.tokens;
    (tokens <= run.room).then_some(tokens)
}

/// Splits an over-long block into pieces of at most `budget` tokens, packing whole sentences up to `target`.
fn split_long(text: &str, span: Span, counter: &dyn TokenCounter, target: usize, budget: usize) -> Vec<(Span, usize)> {
    let block = &text[span.range()];
    let mut pieces = Vec::new();
    let mut current: Option<(usize, usize, usize)> = None; // start, end, tokens (relative to block)
    for (offset, sentence) in block.split_sentence_bound_indices() {
        let trimmed = sentence.trim_end();
        if trimmed.trim().is_empty() {
            continue;
        }
        let end = offset + trimmed.len();
        let Some(tokens) = count_within_reach(trimmed, counter, budget).filter(|&tokens| tokens <= budget) else {
            if let Some(piece) = current.take() {
                pieces.push(piece);
            }
            for (start, end, tokens) in split_by_words(block, offset, end, counter, budget) {
                pieces.push((start, end, tokens));
            }
            continue;
        };
        current = match current {
            Some((start, _, sum)) if sum + tokens <= target => Some((start, end, sum + tokens)),
            Some(piece) => {
                pieces.push(piece);
                Some((offset + (sentence.len() - sentence.trim_start().len()), end, tokens))
            }
            None => Some((offset + (sentence.len() - sentence.trim_start().len()), end, tokens)),
        };
    }
    pieces.extend(current);
    let base = span.start as usize;
    pieces.into_iter().map(|(s, e, t)| (Span::new(base + s, base + e), t)).collect()
}

/// WordPiece turns a word of up to 100 characters (400 bytes) into at least one token and anything longer
/// into one unknown token. Pieces are searched within this many bytes per token of budget: a longer span
/// could only fit by being mostly unknown tokens, and cutting it shorter keeps every piece within budget.
const MAX_BYTES_PER_TOKEN: usize = 400;

/// The token count of `text`, or `None` when it is too long to fit `budget` in any case worth counting:
/// tokenizing megabytes at once costs gigabytes of encoding, and splitting never needs that count. Every
/// word is at least one word-piece, so a text of more words than `budget` is known too long uncounted.
fn count_within_reach(text: &str, counter: &dyn TokenCounter, budget: usize) -> Option<usize> {
    let reachable =
        text.len() <= budget.saturating_mul(MAX_BYTES_PER_TOKEN) && text.split_whitespace().nth(budget).is_none();
    reachable.then(|| counter.count_tokens(text))
}

/// Longest word-aligned prefixes within `budget`. Each cut is found by a galloping search over the word
/// boundaries within reach of the previous cut, so a piece costs tokenizer work in proportion to its own
/// length (times a logarithm) and a sentence of any length is split in linear time.
fn split_by_words(
    block: &str,
    start: usize,
    end: usize,
    counter: &dyn TokenCounter,
    budget: usize,
) -> Vec<(usize, usize, usize)> {
    if let Some(pieces) = split_by_token_spans(&block[start..end], counter, budget) {
        return pieces.into_iter().map(|(s, e, t)| (start + s, start + e, t)).collect();
    }
    let sentence = &block[start..end];
    let mut bounds: Vec<usize> = sentence.split_word_bound_indices().map(|(i, w)| i + w.len()).collect();
    bounds.dedup();
    let mut pieces = Vec::new();
    let mut from = 0usize;
    let mut first = 0usize; // index of the first bound after `from`
    while from < sentence.len() {
        while bounds[first] <= from {
            first += 1;
        }
        let reach = from.saturating_add(budget.saturating_mul(MAX_BYTES_PER_TOKEN));
        let candidates = &bounds[first..];
        let candidates = &candidates[..candidates.partition_point(|&b| b <= reach)];
        let fitting =
            fitting_prefix(candidates.len(), |i| counter.count_tokens(&sentence[from..candidates[i]]) <= budget);
        // A single word above the budget (no whitespace for hundreds of pieces) is cut at a char boundary.
        let cut = match fitting {
            0 => char_cut(sentence, from, bounds[first].min(reach), counter, budget),
            _ => candidates[fitting - 1],
        };
        let piece = &sentence[from..cut];
        let leading = piece.len() - piece.trim_start().len();
        let trailing = piece.len() - piece.trim_end().len();
        if leading + trailing < piece.len() {
            pieces.push((start + from + leading, start + cut - trailing, counter.count_tokens(piece.trim())));
        }
        from = cut;
    }
    pieces
}

/// Bytes tokenized at once when a long sentence is split from its word-pieces' spans: large enough to hold
/// many pieces (each at most `budget × MAX_BYTES_PER_TOKEN`), small enough that an encoding stays a few
/// megabytes.
const WINDOW_BYTES: usize = 1 << 20;

/// `sentence` cut into pieces of at most `budget` word-pieces and `budget × MAX_BYTES_PER_TOKEN` bytes,
/// each ending at a word (a gap between word-pieces) where one is in reach, from one tokenization per
/// window; `None` when the counter cannot give spans. Linear in the sentence's length.
fn split_by_token_spans(
    sentence: &str,
    counter: &dyn TokenCounter,
    budget: usize,
) -> Option<Vec<(usize, usize, usize)>> {
    let reach = budget.saturating_mul(MAX_BYTES_PER_TOKEN);
    let mut pieces = Vec::new();
    let mut from = 0usize;
    while from < sentence.len() {
        let window_end = window_end(sentence, from, WINDOW_BYTES.max(2 * reach), reach);
        let spans = counter.token_spans(&sentence[from..window_end])?;
        let mut first = 0usize; // the pending piece's first word-piece
        let mut word_start = None; // the last word start after `first`
        let mut resume = None;
        'tokens: for i in 0..spans.len() {
            if i > first && spans[i].0 > spans[i - 1].1 {
                word_start = Some(i);
            }
            while i + 1 - first > budget || spans[i].1 - spans[first].0 > reach {
                let Some(cut) = word_start.filter(|&w| w > first).or((i > first).then_some(i)) else {
                    // One word-piece longer than a piece may be (an unknown "word" of megabytes): cut by bytes.
                    let start = from + spans[i].0;
                    let end = ceil_boundary(sentence, floor_boundary(sentence, start + reach).max(start + 1));
                    pieces.push((start, end, counter.count_tokens(&sentence[start..end])));
                    resume = Some(end);
                    break 'tokens;
                };
                let (start, end) = (from + spans[first].0, from + spans[cut - 1].1);
                // A cut inside a word changes how its rest is split into word-pieces: counted again.
                let at_word = Some(cut) == word_start;
                let tokens = if at_word { cut - first } else { counter.count_tokens(&sentence[start..end]) };
                pieces.push((start, end, tokens));
                first = cut;
                word_start = (cut + 1..=i).rev().find(|&j| spans[j].0 > spans[j - 1].1);
            }
        }
        from = match resume {
            Some(end) => end,
            None if spans.len() == first => window_end,
            // The window ends between words (or the sentence ends): the pending piece is whole.
            None if window_end == sentence.len() || first == 0 => {
                let (start, end) = (from + spans[first].0, from + spans[spans.len() - 1].1);
                pieces.push((start, end, spans.len() - first));
                window_end
            }
            None => from + spans[first].0,
        };
    }
    Some(pieces)
}

/// Where a window of about `size` bytes from `from` ends: at the sentence's end, else after the last
/// whitespace past `from + reach` (so no word is cut), else at a char boundary.
fn window_end(sentence: &str, from: usize, size: usize, reach: usize) -> usize {
    let end = floor_boundary(sentence, from.saturating_add(size));
    if end == sentence.len() {
        return end;
    }
    let floor = floor_boundary(sentence, from + reach);
    sentence[floor..end].rfind(char::is_whitespace).map_or(end, |at| floor + at + 1)
}

fn floor_boundary(text: &str, at: usize) -> usize {
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

fn ceil_boundary(text: &str, at: usize) -> usize {
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at += 1;
    }
    at
}

/// The longest prefix of `sentence[from..limit]` within `budget`, cut at a char boundary (at least one char).
fn char_cut(sentence: &str, from: usize, limit: usize, counter: &dyn TokenCounter, budget: usize) -> usize {
    let floor = |mut at: usize| {
        while !sentence.is_char_boundary(at) {
            at -= 1;
        }
        at
    };
    let fitting =
        fitting_prefix(limit - from, |i| counter.count_tokens(&sentence[from..floor(from + i + 1)]) <= budget);
    let cut = floor(from + fitting);
    if cut > from { cut } else { from + sentence[from..].chars().next().map_or(1, char::len_utf8) }
}

/// How many leading candidates `0..len` satisfy `fits`, which holds for a prefix of them. Gallops (1, 2, 4,
/// … candidates) before bisecting, so no candidate much beyond the answer is ever tried: with a tokenizer
/// behind `fits`, the work stays proportional to the answer, not to the whole candidate list.
fn fitting_prefix(len: usize, fits: impl Fn(usize) -> bool) -> usize {
    let (mut lo, mut hi) = (0usize, len); // candidates below `lo` fit; from `hi` on they do not
    let mut step = 1usize;
    while lo + step <= len {
        let probe = lo + step - 1;
        if fits(probe) {
            lo = probe + 1;
            step *= 2;
        } else {
            hi = probe;
            break;
        }
    }
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if fits(mid) { lo = mid + 1 } else { hi = mid }
    }
    lo
}

#[cfg(test)]
pub(crate) mod tests;
