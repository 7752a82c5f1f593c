//! Plain text: paragraphs are separated by blank lines; headings are recognised heuristically (setext
//! underlines, `#` markers, numbered titles such as `2.1 Methods`, ALL-CAPS lines, and short title-like
//! lines standing alone before a paragraph). Also lays out PDF pages and JSONL record bodies.

use super::document::{BlockKind, DocumentBuilder};

/// Appends `text` to `builder`; blocks carry `page` when given.
pub fn parse(text: &str, page: Option<u32>, builder: &mut DocumentBuilder) {
    builder.set_page(page);
    let paragraphs = split_paragraphs(text);
    for (index, lines) in paragraphs.iter().enumerate() {
        let next_is_body = paragraphs.get(index + 1).is_some_and(|next| heading_level(next, false).is_none());
        match heading_level(lines, next_is_body) {
            Some(level) => builder.heading(level, heading_text(lines)),
            None => builder.paragraph(BlockKind::Paragraph, &lines.join(" ")),
        }
    }
    builder.end_block();
}

fn split_paragraphs(text: &str) -> Vec<Vec<&str>> {
    let mut paragraphs = Vec::new();
    let mut current: Vec<&str> = Vec::new();
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() {
            if !current.is_empty() {
                paragraphs.push(std::mem::take(&mut current));
            }
        } else {
            current.push(line);
        }
    }
    if !current.is_empty() {
        paragraphs.push(current);
    }
    paragraphs
}

fn heading_text<'a>(lines: &[&'a str]) -> &'a str {
    lines[0].trim_start_matches('#').trim()
}

const MAX_HEADING_WORDS: usize = 12;

fn heading_level(lines: &[&str], next_is_body: bool) -> Option<u8> {
    if lines.len() == 2 && is_underline(lines[1], '=') {
        return Some(1);
    }
    if lines.len() == 2 && is_underline(lines[1], '-') {
        return Some(2);
    }
    if lines.len() != 1 {
        return None;
    }
    let line = lines[0];
    let words: Vec<&str> = line.split_whitespace().collect();
    if words.len() > MAX_HEADING_WORDS || line.chars().count() > 100 {
        return None;
    }
    let hashes = line.chars().take_while(|c| *c == '#').count();
    if (1..=6).contains(&hashes) && line[hashes..].starts_with(' ') {
        return Some(hashes as u8);
    }
    if ends_like_sentence(line) {
        return None;
    }
    if let Some(depth) = numbered_title_depth(&words) {
        return Some(depth);
    }
    let letters: Vec<char> = line.chars().filter(|c| c.is_alphabetic()).collect();
    if letters.len() >= 3 && letters.iter().all(|c| c.is_uppercase()) {
        return Some(1);
    }
    let starts_upper = line.chars().next().is_some_and(char::is_uppercase);
    (next_is_body && starts_upper && words.len() <= 8).then_some(2)
}

fn is_underline(line: &str, mark: char) -> bool {
    line.len() >= 3 && line.chars().all(|c| c == mark)
}

fn ends_like_sentence(line: &str) -> bool {
    line.ends_with(['.', ',', ';', ':', '!', '?', ')', '"', '\''])
}

/// `2.1 Methods` → 2, `3 Results` → 1; the number must be followed by a capitalised word.
fn numbered_title_depth(words: &[&str]) -> Option<u8> {
    let (number, rest) = words.split_first()?;
    let number = number.trim_end_matches('.');
    let parts: Vec<&str> = number.split('.').collect();
    let numeric = !number.is_empty()
        && parts.iter().all(|p| !p.is_empty() && p.len() <= 3 && p.chars().all(|c| c.is_ascii_digit()));
    let titled = rest.first().is_some_and(|w| w.chars().next().is_some_and(char::is_uppercase));
    (numeric && titled && parts.len() <= 6).then_some(parts.len() as u8)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::document::{Format, Metadata};

    fn layout(text: &str) -> Vec<(BlockKind, String)> {
        let mut builder = DocumentBuilder::new();
        parse(text, None, &mut builder);
        let doc = builder.finish("t.txt".into(), [0; 16], Format::Text, Metadata::default(), "t");
        doc.blocks.iter().map(|b| (b.kind, doc.slice(b.span).to_string())).collect()
    }

    #[test]
    fn recognises_heading_styles() {
        let blocks = layout(
            "THE SOLAR SYSTEM\n\nIntro paragraph that\nwraps over lines.\n\n1.2 Inner Planets\n\nMercury is closest.\n\nOrbits\n------\n\nThey are ellipses.\n\nNotes\n\nShort line.",
        );
        let kinds: Vec<BlockKind> = blocks.iter().map(|(k, _)| *k).collect();
        assert_eq!(
            kinds,
            vec![
                BlockKind::Heading { level: 1 },
                BlockKind::Paragraph,
                BlockKind::Heading { level: 2 },
                BlockKind::Paragraph,
                BlockKind::Heading { level: 2 },
                BlockKind::Paragraph,
                BlockKind::Heading { level: 2 },
                BlockKind::Paragraph,
            ]
        );
        assert_eq!(blocks[1].1, "Intro paragraph that wraps over lines.");
        assert_eq!(blocks[4].1, "Orbits");
    }

    #[test]
    fn sentences_are_not_headings() {
        let blocks = layout("It rained.\n\nShe left early today.");
        assert!(blocks.iter().all(|(k, _)| *k == BlockKind::Paragraph), "{blocks:?}");
    }
}
