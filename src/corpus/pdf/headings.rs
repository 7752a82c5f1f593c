//! Headings of a PDF: from its outline (bookmarks), each entry found on its page, or else from layout,
//! lines set larger than the body text or numbered like `2.10.`, never table rows.

use std::collections::HashMap;

use super::lines::Line;
use crate::corpus::document::collapse_whitespace;

/// The size most of the text is set in (by characters), to the half point.
pub(super) fn body_size(pages: &[Vec<Line>]) -> f32 {
    let mut characters: HashMap<i32, usize> = HashMap::new();
    for line in pages.iter().flatten() {
        *characters.entry((line.size * 2.0).round() as i32).or_default() += line.text.len();
    }
    characters.into_iter().max_by_key(|&(size, count)| (count, -size)).map_or(10.0, |(size, _)| size as f32 / 2.0)
}

/// Headings by line position (page index, line index): the line itself at a level, or an outline entry's
/// title to put before the line where its text was not found.
pub(super) type Headings = HashMap<(usize, usize), (u8, Option<String>)>;

pub(super) fn normalised(text: &str) -> String {
    text.chars().filter(|c| c.is_alphanumeric()).flat_map(char::to_lowercase).collect()
}

/// `2.1 Methods` → `Methods`, `Chapter 3: Utilities` → `Utilities`: a heading line without its numbering,
/// which outlines often leave out.
pub(super) fn without_numbering(text: &str) -> &str {
    let text = text.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.' || c.is_whitespace());
    ["Chapter ", "Appendix ", "Part ", "Section "]
        .iter()
        .find_map(|word| text.strip_prefix(word))
        .map(|rest| rest.trim_start_matches(|c: char| c.is_alphanumeric()).trim_start_matches([':', '.', ' ']))
        .unwrap_or(text)
}

/// Each outline entry at the line that starts with its title on its page (or the page after: outlines
/// often point at the page before a heading near the top); an entry not found goes before the first line
/// of its page, so its section still starts there.
pub(super) fn headings_from_outline(pages: &[Vec<Line>], outline: &[(usize, String, usize)]) -> Headings {
    // Each line's comparable forms, with and without its numbering, computed once.
    let keys: Vec<Vec<(usize, [String; 2])>> = pages
        .iter()
        .map(|page| {
            page.iter()
                .enumerate()
                .map(|(i, line)| (i, [normalised(&line.text), normalised(without_numbering(&line.text))]))
                .collect()
        })
        .collect();
    let mut headings = Headings::new();
    for (level, title, page) in outline {
        let wanted = normalised(without_numbering(title));
        if wanted.is_empty() {
            continue;
        }
        let level = (*level).clamp(1, 6) as u8;
        let first_page = page.saturating_sub(1);
        // A line matches an entry when it is the entry's title, or starts it or with it and is about as long:
        // "Index" must not claim the sentence "Indexing is…".
        let matches = |text: &str| {
            let near = text.len() <= wanted.len() * 2 + 8 && wanted.len() <= text.len() * 2 + 8;
            text == wanted || (near && text.len() >= 4 && (wanted.starts_with(text) || text.starts_with(&wanted)))
        };
        let found = (first_page..(first_page + 2).min(pages.len())).find_map(|p| {
            let line = keys[p]
                .iter()
                .find(|(i, forms)| !headings.contains_key(&(p, *i)) && forms.iter().any(|form| matches(form)));
            line.map(|(i, _)| (p, *i))
        });
        match found {
            Some(at) => {
                headings.insert(at, (level, None));
            }
            None if pages.get(first_page).is_some_and(|lines| !lines.is_empty()) => {
                headings.entry((first_page, 0)).or_insert((level, Some(collapse_whitespace(title))));
            }
            None => {}
        }
    }
    headings
}

const MAX_HEADING_WORDS: usize = 14;

/// Lines set larger than the body, ranked by size (the largest is level 1), and numbered lines (`2.10.
/// Storing…`) at their numbering's depth; neither may end like a sentence or be split into columns.
pub(super) fn headings_from_layout(pages: &[Vec<Line>], body_size: f32) -> Headings {
    let title_like = |line: &Line| {
        let words = line.text.split_whitespace().count();
        line.column_gaps == 0
            && words <= MAX_HEADING_WORDS
            && line.text.chars().any(char::is_alphabetic)
            && !line.text.ends_with(['.', ',', ';', ':', '!', '?'])
    };
    let larger = |line: &Line| line.size >= body_size * 1.15;
    let mut sizes: Vec<i32> =
        pages.iter().flatten().filter(|l| larger(l) && title_like(l)).map(|l| (l.size * 2.0).round() as i32).collect();
    sizes.sort_unstable_by(|a, b| b.cmp(a));
    sizes.dedup();
    // A table of contents repeats the numbered headings that follow it: where a numbered heading's text
    // comes again, the last one is the heading. (Unnumbered ones, such as each chapter's "Examples", may
    // repeat in their own right.)
    let mut last_of: HashMap<String, (usize, usize)> = HashMap::new();
    for (p, page) in pages.iter().enumerate() {
        for (i, line) in page.iter().enumerate().filter(|(_, l)| numbering_depth(&l.text).is_some()) {
            last_of.insert(normalised(&line.text), (p, i));
        }
    }
    let mut headings = Headings::new();
    for (p, page) in pages.iter().enumerate() {
        for (i, line) in page.iter().enumerate().filter(|(_, l)| title_like(l)) {
            let numbered = numbering_depth(&line.text).is_some();
            if numbered && last_of.get(&normalised(&line.text)) != Some(&(p, i)) {
                continue;
            }
            let numbered = numbering_depth(&line.text);
            let level = match (larger(line), numbered) {
                (_, Some(depth)) => depth,
                (true, None) => {
                    let rank = sizes.iter().position(|&s| s == (line.size * 2.0).round() as i32).unwrap_or(0);
                    (rank + 1).min(6) as u8
                }
                (false, None) => continue,
            };
            headings.insert((p, i), (level, None));
        }
    }
    headings
}

/// `2.10. Storing the MIME type` → 2: a section number ending in a dot (or with several parts), then a
/// capitalised word. `4 CARD32 FIRST_MATCHLET_OFFSET` is a table row, not a heading: identifiers with
/// digits or underscores after the number do not count.
pub(super) fn numbering_depth(text: &str) -> Option<u8> {
    let mut words = text.split_whitespace();
    let number = words.next()?;
    let next = words.next()?;
    let parts: Vec<&str> = number.trim_end_matches('.').split('.').collect();
    let numeric = parts.iter().all(|p| !p.is_empty() && p.len() <= 3 && p.chars().all(|c| c.is_ascii_digit()));
    let dotted = number.ends_with('.') || parts.len() > 1;
    let titled = next.chars().next().is_some_and(char::is_uppercase)
        && next.chars().skip(1).any(char::is_lowercase)
        && !next.contains(['_', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9']);
    (numeric && dotted && titled && parts.len() <= 6).then_some(parts.len() as u8)
}
