//! A paragraph too long for one chunk, split at sentence boundaries, and a sentence that alone is too long
//! at word boundaries (at character boundaries for one unbroken word): each cut found by a galloping search
//! or from one tokenization of a window, so a text of any length splits in linear time.

use unicode_segmentation::UnicodeSegmentation;

use crate::corpus::document::Span;
use crate::corpus::token_counter::TokenCounter;

/// Splits an over-long block into pieces of at most `budget` tokens, packing whole sentences up to `target`.
pub(super) fn split_long(
    text: &str,
    span: Span,
    counter: &dyn TokenCounter,
    target: usize,
    budget: usize,
) -> Vec<(Span, usize)> {
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
pub(super) const MAX_BYTES_PER_TOKEN: usize = 400;

/// The token count of `text`, or `None` when it is too long to fit `budget` in any case worth counting:
/// tokenizing megabytes at once costs gigabytes of encoding, and splitting never needs that count. Every
/// word is at least one word-piece, so a text of more words than `budget` is known too long uncounted.
pub(super) fn count_within_reach(text: &str, counter: &dyn TokenCounter, budget: usize) -> Option<usize> {
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

pub(super) fn floor_boundary(text: &str, at: usize) -> usize {
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
