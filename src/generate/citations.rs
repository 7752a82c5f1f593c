//! Citations in an answer: `[2]`, `[1, 3]`, `[1][4]`, `[2-3]`, each a 1-based passage number of the
//! context, kept when it names a passage that was given.

/// A stretch of an answer's text: plain text, or a citation with the passages it names (in its order).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Piece<'a> {
    Text(&'a str),
    Citation { text: &'a str, passages: Vec<usize> },
}

/// `text` cut into plain text and citations; a bracket whose numbers name no passage of `1..=passages`
/// stays text (a model may invent numbers; `a[i]` is not a citation).
pub fn pieces(text: &str, passages: usize) -> Vec<Piece<'_>> {
    let mut out = Vec::new();
    let mut plain_from = 0;
    let mut search_from = 0;
    while let Some(open) = text[search_from..].find('[').map(|i| search_from + i) {
        let Some(close) = text[open..].find(']').map(|i| open + i) else { break };
        let inside = &text[open + 1..close];
        let named: Vec<usize> =
            if inside.len() <= 40 && inside.chars().all(|c| c.is_ascii_digit() || ", -–".contains(c)) {
                numbers(inside).into_iter().filter(|n| (1..=passages).contains(n)).collect()
            } else {
                Vec::new()
            };
        if named.is_empty() {
            search_from = open + 1;
            continue;
        }
        if plain_from < open {
            out.push(Piece::Text(&text[plain_from..open]));
        }
        out.push(Piece::Citation { text: &text[open..=close], passages: named });
        plain_from = close + 1;
        search_from = plain_from;
    }
    if plain_from < text.len() {
        out.push(Piece::Text(&text[plain_from..]));
    }
    out
}

/// The passages an answer cites, in order of first citation, each once.
pub fn cited(answer: &str, passages: usize) -> Vec<usize> {
    let mut found = Vec::new();
    for piece in pieces(answer, passages) {
        if let Piece::Citation { passages, .. } = piece {
            for number in passages {
                if !found.contains(&number) {
                    found.push(number);
                }
            }
        }
    }
    found
}

/// The sources an answer was given, numbered as in its context, each marked when the answer cites it:
/// `Sources (1 of 2 cited):` then `[1] cited Moon › #1 (moon.md)` lines. What `quire ask` prints after an
/// answer, and what the app copies with one.
pub fn sources_list(answer: &str, sources: &[(String, String)]) -> String {
    let cited = cited(answer, sources.len());
    let mut out = format!("Sources ({} of {} cited):", cited.len(), sources.len());
    for (number, (label, source)) in sources.iter().enumerate().map(|(i, s)| (i + 1, s)) {
        let mark = if cited.contains(&number) { "cited" } else { "     " };
        out.push_str(&format!("\n[{number}] {mark} {label} ({source})"));
    }
    out
}

/// `1, 3` → 1, 3; `2-4` → 2, 3, 4 (a range of at most 20).
fn numbers(inside: &str) -> Vec<usize> {
    let mut out = Vec::new();
    for part in inside.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let bounds: Vec<usize> = part.split(['-', '–']).filter_map(|n| n.trim().parse().ok()).collect();
        match bounds.as_slice() {
            [one] => out.push(*one),
            [from, to] if from <= to && to - from < 20 => out.extend(*from..=*to),
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_citation_form_is_read_and_invented_numbers_are_dropped() {
        let answer = "Apollo 11 landed in 1969 [2]. Armstrong walked first [1, 3][2]. See also [4-5] and [9]. \
            Arrays like a[i] or [link](x) are not citations.";
        assert_eq!(cited(answer, 5), vec![2, 1, 3, 4, 5]);
        assert_eq!(cited("No citation here.", 3), Vec::<usize>::new());
        assert_eq!(cited("Unclosed [1", 3), Vec::<usize>::new());
    }

    #[test]
    fn the_sources_list_marks_what_is_cited() {
        let sources = [("Moon › #1".to_string(), "moon.md".to_string()), ("Sun › #1".into(), "sun.md".into())];
        assert_eq!(
            sources_list("It landed [2].", &sources),
            "Sources (1 of 2 cited):\n[1]       Moon › #1 (moon.md)\n[2] cited Sun › #1 (sun.md)"
        );
    }

    #[test]
    fn pieces_put_the_text_back_together() {
        let answer = "In 1969 [2]; a[i] and [9] stay text [1,2].";
        let pieces = pieces(answer, 3);
        let rebuilt: String = pieces
            .iter()
            .map(|p| match p {
                Piece::Text(t) | Piece::Citation { text: t, .. } => *t,
            })
            .collect();
        assert_eq!(rebuilt, answer);
        assert_eq!(pieces[1], Piece::Citation { text: "[2]", passages: vec![2] });
        assert_eq!(pieces[3], Piece::Citation { text: "[1,2]", passages: vec![1, 2] });
        assert_eq!(pieces[2], Piece::Text("; a[i] and [9] stay text "));
    }
}
