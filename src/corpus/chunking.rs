//! Paragraph-aware chunking bounded by the embedder's word-pieces: long paragraphs split at sentence
//! boundaries (at word boundaries for a sentence that alone is too long), short neighbours merged up to a
//! target size. Chunks are spans of the document text. A table's rows merge like paragraphs, each chunk
//! of them carrying the table's header in its context; in a document of more chunks than its bytes pay for,
//! runs of small chunks join across headings ([`bound_chunks`]), so that a file of many tiny sections or
//! one-word rows costs chunks in proportion to its bytes, not to its headings or rows.

use super::document::{BlockKind, Document, Span, TextBlock};
pub use super::token_counter::TokenCounter;

mod splitting;

use splitting::{MAX_BYTES_PER_TOKEN, count_within_reach, floor_boundary, split_long};

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

#[cfg(test)]
pub(crate) mod tests;
