//! The analyzers: Unicode word segmentation, lowercasing, then per language its stop words and Snowball
//! stemming; runs of Chinese, Japanese, Korean and Thai characters become overlapping character bigrams, as
//! Lucene's CJK analyzer makes them, so that no dictionary ships in the page. BM25 (`index`) indexes each
//! text with its document's analyzer and searches a question's terms in every language of the index;
//! entity extraction (`corpus`) matches names and phrases with the English one.

use rust_stemmers::{Algorithm, Stemmer};
use unicode_segmentation::UnicodeSegmentation;

use crate::language::Language;

/// A general English stop list (articles, pronouns, auxiliaries, prepositions, conjunctions). Hand-kept
/// because the analyzer needs one small fixed list that never changes under a dependency update: a changed
/// list would silently change every stored BM25 index.
#[rustfmt::skip]
const STOP_WORDS: &[&str] = &[
    "a", "about", "above", "after", "again", "against", "all", "am", "an", "and", "any", "are", "as", "at", "be",
    "because", "been", "before", "being", "below", "between", "both", "but", "by", "can", "could", "did", "do",
    "does", "doing", "down", "during", "each", "few", "for", "from", "further", "had", "has", "have", "having", "he",
    "her", "here", "hers", "herself", "him", "himself", "his", "how", "i", "if", "in", "into", "is", "it", "its",
    "itself", "just", "me", "more", "most", "my", "myself", "no", "nor", "not", "now", "of", "off", "on", "once",
    "only", "or", "other", "our", "ours", "ourselves", "out", "over", "own", "same", "she", "should", "so", "some",
    "such", "than", "that", "the", "their", "theirs", "them", "themselves", "then", "there", "these", "they", "this",
    "those", "through", "to", "too", "under", "until", "up", "very", "was", "we", "were", "what", "when", "where",
    "which", "while", "who", "whom", "why", "will", "with", "would", "you", "your", "yours", "yourself", "yourselves",
];

pub fn is_stop_word(lowercase_word: &str) -> bool {
    STOP_WORDS.binary_search(&lowercase_word).is_ok()
}

pub struct Analyzer {
    stemmer: Option<Stemmer>,
    /// The articles and pronouns its language joins to the next word with an apostrophe (`l'archive`):
    /// cut off, as Lucene's elision filter cuts them, so the word is found alone.
    elided: &'static [&'static str],
    /// Sorted, for binary search.
    stop_words: Vec<&'static str>,
}

impl Default for Analyzer {
    fn default() -> Self {
        Analyzer::new(Language::English)
    }
}

impl Analyzer {
    /// The analyzer of `language`: English keeps its own list; the other Snowball languages take NLTK's
    /// (`nltk_stop_words`, part of `store::pipeline::REVISION`'s meaning); the languages without spaces stop
    /// nothing.
    pub fn new(language: Language) -> Self {
        let mut stop_words: Vec<&'static str> = match language {
            Language::English => STOP_WORDS.to_vec(),
            _ => nltk_stop_words(language).collect(),
        };
        stop_words.sort_unstable();
        stop_words.dedup();
        let elided: &[&str] = match language {
            Language::French => &["c", "d", "j", "jusqu", "l", "lorsqu", "m", "n", "puisqu", "qu", "quoiqu", "s", "t"],
            Language::Italian => &[
                "all", "c", "coll", "d", "dall", "dell", "gl", "l", "m", "nell", "pell", "quell", "s", "sull", "t",
                "un", "v",
            ],
            _ => &[],
        };
        Analyzer { stemmer: snowball(language).map(Stemmer::create), elided, stop_words }
    }

    /// Index terms of `text`, in order, duplicates kept.
    pub fn terms(&self, text: &str) -> Vec<String> {
        self.words(text).filter_map(|(_, term)| term).collect()
    }

    /// Every word of `text` with where it lies (a byte range) and its index term, `None` for a stop word:
    /// what an excerpt marks where a question's terms matched. A run of CJK or Thai characters gives one
    /// word per pair of neighbours (a lone character is a word of its own); the pairs overlap.
    pub fn words<'a>(&'a self, text: &'a str) -> impl Iterator<Item = (std::ops::Range<usize>, Option<String>)> + 'a {
        let mut run = Bigrams::default();
        let mut words = text.unicode_word_indices().peekable();
        std::iter::from_fn(move || {
            loop {
                if let Some(pair) = run.next() {
                    return Some((pair.clone(), Some(text[pair].to_string())));
                }
                let (at, word) = words.next()?;
                if is_unspaced(word) {
                    run.extend(at, word);
                    if words.peek().is_some_and(|&(next, w)| next == at + word.len() && is_unspaced(w)) {
                        continue;
                    }
                    run.close();
                    continue;
                }
                return Some((at..at + word.len(), self.term(word)));
            }
        })
    }

    /// Whether a lowercase word is one of its stop words.
    pub fn stops(&self, lowercase_word: &str) -> bool {
        self.stop_words.binary_search(&lowercase_word).is_ok()
    }

    fn term(&self, word: &str) -> Option<String> {
        let mut lowercase = word.to_lowercase();
        if let Some((article, rest)) = lowercase.split_once(['\'', '\u{2019}'])
            && self.elided.contains(&article)
            && !rest.is_empty()
        {
            lowercase = rest.to_string();
        }
        if self.stops(&lowercase) {
            return None;
        }
        Some(match &self.stemmer {
            Some(stemmer) => stemmer.stem(&lowercase).into_owned(),
            None => lowercase,
        })
    }
}

/// One analyzer per language, each made when first asked for: what indexing a corpus of several
/// languages, or a question asked in each, needs.
#[derive(Default)]
pub struct Analyzers {
    made: Vec<(Language, Analyzer)>,
}

impl Analyzers {
    pub fn of(&mut self, language: Language) -> &Analyzer {
        let at = match self.made.iter().position(|(made, _)| *made == language) {
            Some(at) => at,
            None => {
                self.made.push((language, Analyzer::new(language)));
                self.made.len() - 1
            }
        };
        &self.made[at].1
    }
}

/// The Snowball stemmer of a language.
fn snowball(language: Language) -> Option<Algorithm> {
    use Language::*;
    Some(match language {
        English => Algorithm::English,
        German => Algorithm::German,
        French => Algorithm::French,
        Spanish => Algorithm::Spanish,
        Italian => Algorithm::Italian,
        Portuguese => Algorithm::Portuguese,
        Dutch => Algorithm::Dutch,
        Swedish => Algorithm::Swedish,
        Norwegian => Algorithm::Norwegian,
        Danish => Algorithm::Danish,
        Finnish => Algorithm::Finnish,
        Russian => Algorithm::Russian,
        Hungarian => Algorithm::Hungarian,
        Romanian => Algorithm::Romanian,
        Turkish => Algorithm::Turkish,
        Greek => Algorithm::Greek,
        Arabic => Algorithm::Arabic,
        Tamil => Algorithm::Tamil,
        Chinese | Japanese | Korean | Thai | Other => return None,
    })
}

/// NLTK's stop words of a Snowball language other than English (none for the others). The lists are the
/// `stop-words` crate's, copied (src/analyzer/nltk/README; a test holds them equal): the crate
/// looks a list up by its code at run time, so every module linked all 33 of its lists, about 120 kB of the
/// site search's module in the 16 no analyzer uses.
fn nltk_stop_words(language: Language) -> impl Iterator<Item = &'static str> {
    use Language::*;
    let list = match language {
        German => include_str!("analyzer/nltk/de.txt"),
        French => include_str!("analyzer/nltk/fr.txt"),
        Spanish => include_str!("analyzer/nltk/es.txt"),
        Italian => include_str!("analyzer/nltk/it.txt"),
        Portuguese => include_str!("analyzer/nltk/pt.txt"),
        Dutch => include_str!("analyzer/nltk/nl.txt"),
        Swedish => include_str!("analyzer/nltk/sv.txt"),
        Norwegian => include_str!("analyzer/nltk/no.txt"),
        Danish => include_str!("analyzer/nltk/da.txt"),
        Finnish => include_str!("analyzer/nltk/fi.txt"),
        Russian => include_str!("analyzer/nltk/ru.txt"),
        Hungarian => include_str!("analyzer/nltk/hu.txt"),
        Romanian => include_str!("analyzer/nltk/ro.txt"),
        Turkish => include_str!("analyzer/nltk/tr.txt"),
        Greek => include_str!("analyzer/nltk/el.txt"),
        Arabic => include_str!("analyzer/nltk/ar.txt"),
        Tamil => include_str!("analyzer/nltk/ta.txt"),
        English | Chinese | Japanese | Korean | Thai | Other => "",
    };
    // A word a line, as the crate reads them.
    list.lines().filter(|word| !word.is_empty())
}

/// Whether a segmented word is of a script written without spaces between words: Han, Hiragana, Katakana,
/// Hangul or Thai. UAX 29 makes each ideograph and kana a word of its own, and leaves Thai unsplit.
fn is_unspaced(word: &str) -> bool {
    word.chars().all(|c| crate::language::unspaced_script(c).is_some())
}

/// A run of unspaced characters (byte ranges of each), given out as overlapping pairs once it closes.
#[derive(Default)]
struct Bigrams {
    chars: Vec<std::ops::Range<usize>>,
    closed: bool,
    given: usize,
}

impl Bigrams {
    fn extend(&mut self, at: usize, word: &str) {
        if self.closed {
            *self = Bigrams::default();
        }
        self.chars.extend(word.char_indices().map(|(i, c)| at + i..at + i + c.len_utf8()));
    }

    fn close(&mut self) {
        self.closed = true;
    }

    /// The next pair of a closed run (its one character when it has one alone).
    fn next(&mut self) -> Option<std::ops::Range<usize>> {
        if !self.closed {
            return None;
        }
        let pairs = self.chars.len().saturating_sub(1).max(self.chars.len().min(1));
        if self.given >= pairs {
            return None;
        }
        let first = &self.chars[self.given];
        let last = &self.chars[(self.given + 1).min(self.chars.len() - 1)];
        self.given += 1;
        Some(first.start..last.end)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stop_list_is_sorted_for_binary_search() {
        assert!(STOP_WORDS.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn each_copied_stop_list_is_the_stop_words_crates() {
        for language in [
            Language::German,
            Language::French,
            Language::Spanish,
            Language::Italian,
            Language::Portuguese,
            Language::Dutch,
            Language::Swedish,
            Language::Norwegian,
            Language::Danish,
            Language::Finnish,
            Language::Russian,
            Language::Hungarian,
            Language::Romanian,
            Language::Turkish,
            Language::Greek,
            Language::Arabic,
            Language::Tamil,
        ] {
            let copied: Vec<&str> = nltk_stop_words(language).collect();
            let crates = stop_words::lookup(language.code()).unwrap_or_else(|| panic!("{language:?}"));
            assert!(copied.len() > 20, "{language:?}");
            assert_eq!(copied, crates, "{language:?}");
        }
    }

    #[test]
    fn stems_and_stops_each_language_by_its_own_rules() {
        let german = Analyzer::new(Language::German).terms("Die Pakete werden aus den Archiven installiert");
        assert_eq!(german, vec!["paket", "archiv", "installiert"]);
        let french = Analyzer::new(Language::French).terms("Les paquets sont installés depuis les archives");
        assert_eq!(french, vec!["paquet", "install", "depuis", "archiv"]);
        let elided = Analyzer::new(Language::French).terms("l'archive d’installation");
        assert_eq!(elided, vec!["archiv", "install"]);
        let russian = Analyzer::new(Language::Russian).terms("Пакеты устанавливаются из архивов");
        assert_eq!(russian, vec!["пакет", "устанавлива", "архив"]);
    }

    #[test]
    fn cuts_unspaced_scripts_into_overlapping_pairs() {
        let analyzer = Analyzer::new(Language::Japanese);
        assert_eq!(
            analyzer.terms("パッケージを設定する"),
            vec!["パッ", "ッケ", "ケー", "ージ", "ジを", "を設", "設定", "定す", "する"]
        );
        assert_eq!(analyzer.terms("中文 apt 是"), vec!["中文", "apt", "是"]);
        let words: Vec<_> = analyzer.words("設定").map(|(range, _)| range).collect();
        assert_eq!(words, vec![0..6]);
    }

    #[test]
    fn analyzes_english() {
        let terms = Analyzer::default().terms("The Astronauts were LANDING on the Moon's surface, didn't they?");
        assert_eq!(terms, vec!["astronaut", "land", "moon", "surfac", "didn't"]);
    }
}
