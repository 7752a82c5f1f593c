//! What a result shows of its chunk, as search pages show it: the passage where the question's words
//! gather, about [`EXCERPT_WORDS`] words, with each word the analyzer matched to a question term marked
//! (stemmed as BM25 matched it: "landing" marks for "land"). The whole chunk opens in the outline.
//!
//! Hand-written: the passage must be chosen by the analyzer BM25 searches with, which no highlighter
//! crate shares.

use std::collections::HashSet;
use std::ops::Range;

use serde::{Deserialize, Serialize};

use crate::analyzer::Analyzer;
use crate::language::Language;

/// Words an excerpt shows.
pub const EXCERPT_WORDS: usize = 40;

/// A run of an excerpt's text, marked where it is a word that matched the question.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Piece {
    pub text: String,
    pub marked: bool,
}

/// A question's excerpts: its terms analysed in each result's language, then matched in the result's text.
pub struct Excerpts {
    question: String,
}

impl Excerpts {
    pub fn for_question(question: &str) -> Self {
        Excerpts { question: question.to_string() }
    }

    /// The excerpt of `text`, written in `language`: the window of [`EXCERPT_WORDS`] words holding the most
    /// distinct question terms (then the most matches, then the earliest), `…` where it cuts the text; the
    /// text's opening where nothing matched.
    pub fn of(&self, text: &str, language: Language) -> Vec<Piece> {
        let analyzer = Analyzer::new(language);
        let wanted: HashSet<String> = analyzer.terms(&self.question).into_iter().collect();
        let wanted = &wanted;
        let words: Vec<(Range<usize>, Option<String>)> = analyzer.words(text).collect();
        let Some(window) = best_window(&words, wanted) else {
            return vec![Piece { text: text.to_string(), marked: false }];
        };
        let start = if window.start == 0 { 0 } else { words[window.start].0.start };
        let end = if window.end == words.len() { text.len() } else { words[window.end - 1].0.end };
        let mut pieces = Vec::new();
        if start > 0 {
            pieces.push(Piece { text: "…".to_string(), marked: false });
        }
        let mut at = start;
        let matched = words[window].iter().filter(|(_, term)| term.as_ref().is_some_and(|term| wanted.contains(term)));
        // The pairs of an unspaced run overlap: a marked pair may start inside the one before.
        for (range, _) in matched {
            let start = range.start.max(at);
            push(&mut pieces, &text[at..start], false);
            push(&mut pieces, &text[start..range.end.max(start)], true);
            at = range.end.max(at);
        }
        push(&mut pieces, &text[at..end], false);
        if end < text.len() {
            push(&mut pieces, "…", false);
        }
        pieces
    }
}

/// The words (by index) the excerpt shows; `None` for a text without words. Among the windows with the
/// most distinct terms (then matches), the one that opens [`LEAD_WORDS`] before its first match, so the
/// marked words are read in their sentence; then the earliest.
fn best_window(words: &[(Range<usize>, Option<String>)], wanted: &HashSet<String>) -> Option<Range<usize>> {
    if words.is_empty() {
        return None;
    }
    let width = EXCERPT_WORDS.min(words.len());
    fn matched<'w>(word: &'w (Range<usize>, Option<String>), wanted: &HashSet<String>) -> Option<&'w String> {
        word.1.as_ref().filter(|term| wanted.contains(*term))
    }
    let matches = |word| matched(word, wanted);
    let rank = |first: usize| {
        let window = &words[first..first + width];
        let matched: Vec<&String> = window.iter().filter_map(matches).collect();
        let distinct: HashSet<&String> = matched.iter().copied().collect();
        let lead = window.iter().position(|word| matches(word).is_some()).unwrap_or(LEAD_WORDS);
        (distinct.len(), matched.len(), std::cmp::Reverse(lead.abs_diff(LEAD_WORDS)), std::cmp::Reverse(first))
    };
    let first = (0..=words.len() - width).max_by_key(|&first| rank(first))?;
    Some(first..first + width)
}

/// Words shown before the first marked word, where the text has them.
const LEAD_WORDS: usize = 8;

/// Adds `text` to `pieces`, joined to the last piece where that is marked alike.
fn push(pieces: &mut Vec<Piece>, text: &str, marked: bool) {
    if text.is_empty() {
        return;
    }
    match pieces.last_mut() {
        Some(last) if last.marked == marked => last.text.push_str(text),
        _ => pieces.push(Piece { text: text.to_string(), marked }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn render(pieces: &[Piece]) -> String {
        pieces.iter().map(|p| if p.marked { format!("[{}]", p.text) } else { p.text.clone() }).collect()
    }

    #[test]
    fn marks_the_words_the_analyzer_matched_stemmed() {
        let pieces = Excerpts::for_question("moon landings")
            .of("Astronauts landed on the Moon; the landing was watched.", Language::English);
        assert_eq!(render(&pieces), "Astronauts [landed] on the [Moon]; the [landing] was watched.");
    }

    #[test]
    fn shows_the_window_where_the_question_s_words_gather() {
        let filler = "word ".repeat(100);
        let text = format!("{filler}the harbour lights shine at night {filler}");
        let pieces = Excerpts::for_question("harbour lights").of(&text, Language::English);
        let shown = render(&pieces);
        assert!(shown.starts_with('…') && shown.ends_with('…'), "{shown}");
        assert!(shown.contains("the [harbour] [lights] shine"), "{shown}");
        assert_eq!(shown.split_whitespace().filter(|w| *w != "…").count(), EXCERPT_WORDS);
    }

    #[test]
    fn without_a_match_shows_the_opening() {
        let text = "one two three ".repeat(30);
        let english = |question, text| render(&Excerpts::for_question(question).of(text, Language::English));
        let shown = english("zebra", &text);
        assert!(shown.starts_with("one two three") && shown.ends_with('…'), "{shown}");
        assert_eq!(english("zebra", ""), "");
        assert_eq!(english("text", "short text"), "short [text]");
    }

    #[test]
    fn a_long_run_without_spaces_is_cut_on_characters_around_its_match() {
        let run = format!("{}帯域幅を制限する{}", "日本語の文書".repeat(40), "設定の説明".repeat(40));
        let pieces = Excerpts::for_question("帯域幅").of(&run, Language::Japanese);
        let shown = render(&pieces);
        assert!(shown.starts_with('…') && shown.ends_with('…'), "{shown}");
        assert!(shown.contains("[帯域幅]"), "{shown}");
        // About EXCERPT_WORDS character pairs: a window of characters, not the whole unspaced run.
        let characters = shown.chars().count();
        assert!((EXCERPT_WORDS / 2..=EXCERPT_WORDS * 2).contains(&characters), "{characters}: {shown}");
    }

    #[test]
    fn marks_each_language_s_words_by_its_own_stems() {
        let german = Excerpts::for_question("Paket installieren")
            .of("Mit apt werden Pakete aus dem Archiv installiert.", Language::German);
        assert_eq!(render(&german), "Mit apt werden [Pakete] aus dem Archiv installiert.");
        let japanese =
            Excerpts::for_question("パッケージの設定").of("まずパッケージを設定します。", Language::Japanese);
        assert_eq!(render(&japanese), "まず[パッケージ]を[設定]します。");
    }
}
