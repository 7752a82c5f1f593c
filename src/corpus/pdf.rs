//! PDF, read as a careful reader would: text lines with their font size and position (pdf-extract's
//! `OutputDev` hands over every glyph), then
//! - running headers and footers (the same line, digits aside, at the top or bottom of most pages) dropped;
//! - the section tree from the document outline (bookmarks, read by `outline.rs`) when there is one, each entry
//!   found on its page; otherwise headings from layout: lines set larger than the body text, ranked by size,
//!   or numbered like `2.10.`, never lines split into columns (table rows);
//! - words hyphenated across line ends rejoined, lines joined into paragraphs at vertical gaps;
//! - the title from the document information, else the largest text on page 1.
//!
//! Every block keeps its 1-based page number, for citations.

use std::collections::HashMap;

use pdf_extract::Object;

use super::Malformed;
use super::document::{BlockKind, DocumentBuilder, Metadata, collapse_whitespace};

mod headings;
mod lines;
mod outline;

use headings::{Headings, body_size, headings_from_layout, headings_from_outline, normalised, without_numbering};
use lines::{Line, LineCollector, decode_text_string};

pub fn parse(bytes: &[u8], builder: &mut DocumentBuilder) -> Result<Metadata, Malformed> {
    // pdf-extract panics on some malformed files instead of returning an error: `corpus::parse_guarded`
    // makes that this file's failure.
    let (mut pages, outline, metadata_title) = read_pdf(bytes)?;
    // Before running headers go: a title page's title is often the running header of the pages after it.
    let title = metadata_title.or_else(|| largest_text_on_first_page(&pages));
    drop_running_lines(&mut pages);
    let body_size = body_size(&pages);
    let headings = match outline.is_empty() {
        false => headings_from_outline(&pages, &outline),
        true => headings_from_layout(&pages, body_size),
    };
    lay_out(&pages, &headings, builder);
    Ok(Metadata { title, ..Metadata::default() })
}

/// A PDF's outline (bookmarks) as (level, title) entries, in order; empty when it has none.
pub fn outline(bytes: &[u8]) -> Vec<(usize, String)> {
    let Ok((_, entries, _)) = read_pdf(bytes) else { return Vec::new() };
    entries.into_iter().map(|(level, title, _)| (level, title)).collect()
}

/// How many of a PDF's outline entries became sections of `document` (by title, numbering aside): how much
/// of the author's own structure was recovered.
pub fn outline_recovered(outline: &[(usize, String)], section_titles: &[&str]) -> usize {
    let titles: Vec<String> = section_titles.iter().map(|t| normalised(without_numbering(t))).collect();
    outline
        .iter()
        .filter(|(_, entry)| {
            let entry = normalised(without_numbering(entry));
            titles.iter().any(|title| !entry.is_empty() && (title == &entry || title.starts_with(&entry)))
        })
        .count()
}

type Read = (Vec<Vec<Line>>, Vec<(usize, String, usize)>, Option<String>);

fn read_pdf(bytes: &[u8]) -> Result<Read, Malformed> {
    let unreadable = |e: &dyn std::fmt::Display| format!("unreadable PDF: {e}");
    let mut document = pdf_extract::Document::load_mem(bytes).map_err(|e| unreadable(&e))?;
    if document.is_encrypted() {
        document.decrypt("").map_err(|_| "the PDF is encrypted with a password".to_string())?;
    }
    check_inflation(&document)?;
    let mut lines = LineCollector::default();
    pdf_extract::output_doc(&document, &mut lines).map_err(|e| unreadable(&e))?;
    let outline = outline::outline_entries(&document);
    Ok((lines.pages, outline, metadata_title(&document)))
}

/// Refuses a PDF whose compressed streams inflate past the package limits (a stream, and all of them): the
/// PDF library inflates each stream whole, and a 1 MB file can hold a gigabyte of zeros. Measured before
/// the library reads them, without keeping what is inflated.
fn check_inflation(document: &pdf_extract::Document) -> Result<(), Malformed> {
    use super::package::{MAX_PART_BYTES, MAX_TOTAL_BYTES};
    use std::io::Read;
    let mut total = 0u64;
    for object in document.objects.values() {
        let Object::Stream(stream) = object else { continue };
        if !stream.filters().is_ok_and(|filters| filters.first() == Some(&&b"FlateDecode"[..])) {
            continue;
        }
        let limit = MAX_PART_BYTES.min(MAX_TOTAL_BYTES - total);
        let mut sink = std::io::sink();
        let zlib = flate2::read::ZlibDecoder::new(stream.content.as_slice()).take(limit + 1);
        let inflated = match std::io::copy(&mut { zlib }, &mut sink) {
            Ok(bytes) => bytes,
            // As the library does: a stream with a damaged zlib header is read as raw deflate.
            Err(_) => stream.content.get(2..).map_or(0, |raw| {
                std::io::copy(&mut flate2::read::DeflateDecoder::new(raw).take(limit + 1), &mut sink).unwrap_or(0)
            }),
        };
        if inflated > limit {
            return Err(Malformed(format!(
                "a compressed stream inflates past {} MiB (each may inflate to {} MiB, all together to {} MiB)",
                (total + inflated) >> 20,
                MAX_PART_BYTES >> 20,
                MAX_TOTAL_BYTES >> 20
            )));
        }
        total += inflated;
    }
    Ok(())
}

/// The document information's `Title`, unless it is empty or a converter's placeholder.
fn metadata_title(document: &pdf_extract::Document) -> Option<String> {
    let info = document.trailer.get(b"Info").ok()?;
    let info = match info {
        Object::Reference(id) => document.get_dictionary(*id).ok()?,
        Object::Dictionary(dictionary) => dictionary,
        _ => return None,
    };
    let Object::String(bytes, _) = info.get(b"Title").ok()? else { return None };
    let title = collapse_whitespace(&decode_text_string(bytes));
    let title = title.strip_prefix("Microsoft Word - ").unwrap_or(&title).to_string();
    let placeholder = ["untitled", "title", "document", "slide 1"].contains(&title.to_lowercase().as_str());
    (!title.is_empty() && !placeholder && !title.ends_with(".dvi")).then_some(title)
}

/// A line as it repeats from page to page: digits (page numbers, dates) do not count.
fn running_key(line: &Line) -> String {
    line.text.chars().map(|c| if c.is_ascii_digit() { '#' } else { c }).collect()
}

/// A page's first line and its last.
fn edge_lines(page: &[Line]) -> impl Iterator<Item = &Line> {
    page.first().into_iter().chain(page.last().filter(|_| page.len() > 1))
}

/// The number a line starts or ends with (`Chapter 2: Utilities 7` → 7).
fn edge_number(line: &Line) -> Option<i64> {
    let mut words = line.text.split_whitespace();
    let (first, last) = (words.next()?, words.next_back());
    let number = |word: &str| word.parse::<u32>().ok().map(i64::from);
    last.and_then(number).or_else(|| number(first))
}

/// How printed page numbers run against page positions (a page numbered 7 at position 10: offset 3), when
/// enough first or last lines carry a number that agrees.
fn page_number_offset(pages: &[Vec<Line>]) -> Option<i64> {
    let mut offsets: HashMap<i64, usize> = HashMap::new();
    for (p, page) in pages.iter().enumerate() {
        for number in edge_lines(page).filter_map(edge_number) {
            *offsets.entry(p as i64 + 1 - number).or_default() += 1;
        }
    }
    let (offset, count) = offsets.into_iter().max_by_key(|&(offset, count)| (count, -offset.abs()))?;
    (count >= (pages.len() / 4).max(2)).then_some(offset)
}

/// Drops running headers and footers: a page's first or last line when the same line (digits aside, not a
/// sentence) is in that place on at least half the pages, when it carries the page's printed number
/// (`Chapter 2: Utilities 7`), or when it is a bare number; twice, for a header above a page number.
fn drop_running_lines(pages: &mut [Vec<Line>]) {
    let enough = (pages.len() / 2).max(2);
    let offset = page_number_offset(pages);
    for _ in 0..2 {
        let mut seen: HashMap<String, usize> = HashMap::new();
        for line in pages.iter().flat_map(|page| edge_lines(page)) {
            *seen.entry(running_key(line)).or_default() += 1;
        }
        let running = |p: usize, line: &Line| {
            let bare_number = line.text.chars().all(|c| c.is_ascii_digit() || c.is_whitespace() || c == '-');
            let repeated = seen.get(&running_key(line)).is_some_and(|&n| n >= enough) && !line.text.ends_with('.');
            let numbered = offset.is_some_and(|offset| edge_number(line) == Some(p as i64 + 1 - offset));
            bare_number || repeated || (numbered && line.text.split_whitespace().count() <= 12)
        };
        for (p, page) in pages.iter_mut().enumerate() {
            if page.last().is_some_and(|line| running(p, line)) {
                page.pop();
            }
            if page.first().is_some_and(|line| running(p, line)) {
                page.remove(0);
            }
        }
    }
}

/// Headings as headings; other lines joined into paragraphs, broken at vertical gaps, at size changes and at
/// page ends, with words hyphenated across line ends rejoined.
fn lay_out(pages: &[Vec<Line>], headings: &Headings, builder: &mut DocumentBuilder) {
    for (p, page) in pages.iter().enumerate() {
        builder.set_page(Some(p as u32 + 1));
        let mut paragraph = String::new();
        let mut previous: Option<&Line> = None;
        for (i, line) in page.iter().enumerate() {
            match headings.get(&(p, i)) {
                Some((level, None)) => {
                    flush(&mut paragraph, builder);
                    builder.heading(*level, &line.text);
                    previous = None;
                    continue;
                }
                Some((level, Some(title))) => {
                    flush(&mut paragraph, builder);
                    builder.heading(*level, title);
                    previous = None;
                }
                None => {}
            }
            let breaks = previous.is_some_and(|before| {
                (line.y - before.y) > before.size.max(line.size) * 1.9 || (line.size - before.size).abs() > 1.0
            });
            if breaks {
                flush(&mut paragraph, builder);
            }
            join_line(&mut paragraph, &line.text);
            previous = Some(line);
        }
        flush(&mut paragraph, builder);
    }
    builder.end_block();
}

fn flush(paragraph: &mut String, builder: &mut DocumentBuilder) {
    if !paragraph.trim().is_empty() {
        builder.paragraph(BlockKind::Paragraph, paragraph);
    }
    paragraph.clear();
}

/// Appends a line to a paragraph: `hyphen-` + `ated` → `hyphenated` when a lowercase word goes on.
fn join_line(paragraph: &mut String, line: &str) {
    let hyphenated = paragraph.strip_suffix('-').is_some_and(|before| before.ends_with(char::is_alphabetic))
        && line.starts_with(char::is_lowercase);
    if hyphenated {
        paragraph.pop();
    } else if !paragraph.is_empty() {
        paragraph.push(' ');
    }
    paragraph.push_str(line);
}

/// The largest text on page 1 (consecutive lines in that size joined), when it is larger than the rest.
fn largest_text_on_first_page(pages: &[Vec<Line>]) -> Option<String> {
    let first = pages.iter().find(|p| !p.is_empty())?;
    let largest = first.iter().map(|l| l.size).fold(0.0_f32, f32::max);
    let start = first.iter().position(|l| l.size >= largest - 0.5)?;
    let title: Vec<&str> =
        first[start..].iter().take_while(|l| l.size >= largest - 0.5).map(|l| l.text.as_str()).take(3).collect();
    let title = collapse_whitespace(&title.join(" "));
    let others_smaller = first.iter().any(|l| l.size < largest - 0.5);
    (others_smaller && title.split_whitespace().count() <= 20 && title.chars().any(char::is_alphabetic))
        .then_some(title)
}

#[cfg(test)]
mod tests;
