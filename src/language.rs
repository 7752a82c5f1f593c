//! The language a document is written in: the one its file declares (HTML `lang`, front matter `lang:`,
//! EPUB, DOCX and ODT metadata) unless its text plainly reads as another, else the one its text reads as
//! (whatlang), else English. The analyzer (`analyzer`) stems and stops each document's words by it, and a
//! question is analysed in every language its index holds.

use serde::{Deserialize, Serialize};

/// The languages the analyzer treats apart: those with a Snowball stemmer, and the scripts whose words are
/// not separated by spaces. Stored in snapshots by position: new languages go last, none is ever removed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Language {
    #[default]
    English,
    German,
    French,
    Spanish,
    Italian,
    Portuguese,
    Dutch,
    Swedish,
    Norwegian,
    Danish,
    Finnish,
    Russian,
    Hungarian,
    Romanian,
    Turkish,
    Greek,
    Arabic,
    Tamil,
    Chinese,
    Japanese,
    Korean,
    Thai,
    /// A language none of the others is: its words are lowercased and kept whole.
    Other,
}

/// Each language's ISO 639-1 code, the code whatlang names it by (ISO 639-3), and its English name.
const CODES: &[(Language, &str, &str, &str)] = &[
    (Language::English, "en", "eng", "English"),
    (Language::German, "de", "deu", "German"),
    (Language::French, "fr", "fra", "French"),
    (Language::Spanish, "es", "spa", "Spanish"),
    (Language::Italian, "it", "ita", "Italian"),
    (Language::Portuguese, "pt", "por", "Portuguese"),
    (Language::Dutch, "nl", "nld", "Dutch"),
    (Language::Swedish, "sv", "swe", "Swedish"),
    (Language::Norwegian, "no", "nob", "Norwegian"),
    (Language::Danish, "da", "dan", "Danish"),
    (Language::Finnish, "fi", "fin", "Finnish"),
    (Language::Russian, "ru", "rus", "Russian"),
    (Language::Hungarian, "hu", "hun", "Hungarian"),
    (Language::Romanian, "ro", "ron", "Romanian"),
    (Language::Turkish, "tr", "tur", "Turkish"),
    (Language::Greek, "el", "ell", "Greek"),
    (Language::Arabic, "ar", "ara", "Arabic"),
    (Language::Tamil, "ta", "tam", "Tamil"),
    (Language::Chinese, "zh", "cmn", "Chinese"),
    (Language::Japanese, "ja", "jpn", "Japanese"),
    (Language::Korean, "ko", "kor", "Korean"),
    (Language::Thai, "th", "tha", "Thai"),
];

/// Characters of a document's prose the detector reads: enough for a reliable guess, and a bounded cost on
/// a file of megabytes.
pub const SAMPLE_CHARS: usize = 6_000;

/// The scripts written without spaces between words, which the analyzer cuts into pairs of characters and
/// which tell their languages apart before whatlang reads a text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnspacedScript {
    /// Hiragana, Katakana and their extensions, half-width Katakana.
    Kana,
    /// Hangul Jamo and syllables.
    Hangul,
    /// CJK ideographs: unified, extension A, compatibility, and extensions B to F.
    Han,
    Thai,
}

pub fn unspaced_script(c: char) -> Option<UnspacedScript> {
    match c as u32 {
        0x3040..=0x30FF | 0x31F0..=0x31FF | 0xFF66..=0xFF9F => Some(UnspacedScript::Kana),
        0x1100..=0x11FF | 0xAC00..=0xD7AF => Some(UnspacedScript::Hangul),
        0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF | 0x20000..=0x2FA1F => Some(UnspacedScript::Han),
        0x0E00..=0x0E7F => Some(UnspacedScript::Thai),
        _ => None,
    }
}

/// Each language of `languages` with how often it comes, the most common first (ties in [`Language`]'s order).
pub fn tally(languages: impl IntoIterator<Item = Language>) -> Vec<(Language, usize)> {
    let mut counts: Vec<(Language, usize)> = Vec::new();
    for language in languages {
        match counts.iter_mut().find(|(counted, _)| *counted == language) {
            Some((_, count)) => *count += 1,
            None => counts.push((language, 1)),
        }
    }
    counts.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    counts
}

impl Language {
    /// The ISO 639-1 code (`und` for [`Language::Other`]).
    pub fn code(self) -> &'static str {
        CODES.iter().find(|entry| entry.0 == self).map_or("und", |entry| entry.1)
    }

    pub fn name(self) -> &'static str {
        CODES.iter().find(|entry| entry.0 == self).map_or("another language", |entry| entry.3)
    }

    /// The language a tag names (`de`, `de-AT`, `pt_BR`, `ger`…); `None` for a tag it cannot read. Norwegian
    /// Bokmål and Nynorsk are Norwegian, and every Chinese tag (`zh-Hant`, `zh-TW`) is Chinese.
    pub fn from_tag(tag: &str) -> Option<Language> {
        let primary = tag.trim().split(['-', '_']).next()?.to_ascii_lowercase();
        let primary = match primary.as_str() {
            "nb" | "nn" | "nor" | "nno" => "no",
            "zho" | "chi" => "zh",
            "ger" => "deu",
            "fre" => "fra",
            "gre" => "ell",
            "rum" => "ron",
            "dut" => "nld",
            other => other,
        };
        if primary.is_empty() {
            return None;
        }
        CODES.iter().find(|entry| entry.1 == primary || entry.2 == primary).map(|entry| entry.0)
    }

    /// The language of `text`, from the file's own `declared` tag where it has one: the declaration wins
    /// unless the text reads reliably as another language (site generators often write `lang="en"` on
    /// every page, whatever its language). Text the detector cannot tell is in the declared language, else
    /// in English.
    pub fn of(declared: Option<&str>, text: &str) -> Language {
        let declared = declared.and_then(Language::from_tag);
        match (declared, detect(text)) {
            (_, Some(detected)) => detected,
            (Some(declared), None) => declared,
            (None, None) => Language::English,
        }
    }
}

/// What the text reads as, when the detector is sure. Scripts written without spaces decide first: a
/// Japanese manual full of English commands is Japanese, though its Latin letters may outnumber its kana,
/// which no other language writes; then whatlang's trigrams tell the alphabetic languages apart.
fn detect(text: &str) -> Option<Language> {
    let sample = match text.char_indices().nth(SAMPLE_CHARS) {
        Some((cut, _)) => &text[..cut],
        None => text,
    };
    if let Some(language) = by_script(sample) {
        return Some(language);
    }
    let info = whatlang::detect(sample)?;
    if !info.is_reliable() {
        return None;
    }
    let code = info.lang().code();
    Some(CODES.iter().find(|entry| entry.2 == code).map_or(Language::Other, |entry| entry.0))
}

/// Japanese where kana are at least a twentieth of the letters; Korean, Chinese or Thai where Hangul, Han
/// or Thai letters are a fifth.
fn by_script(sample: &str) -> Option<Language> {
    let (mut letters, mut kana, mut hangul, mut han, mut thai) = (0usize, 0usize, 0usize, 0usize, 0usize);
    for c in sample.chars().filter(|c| c.is_alphabetic()) {
        letters += 1;
        match unspaced_script(c) {
            Some(UnspacedScript::Kana) => kana += 1,
            Some(UnspacedScript::Hangul) => hangul += 1,
            Some(UnspacedScript::Han) => han += 1,
            Some(UnspacedScript::Thai) => thai += 1,
            None => {}
        }
    }
    let share = |count: usize, parts: usize| letters > 0 && count * parts >= letters;
    if share(kana, 20) {
        Some(Language::Japanese)
    } else if share(hangul, 5) {
        Some(Language::Korean)
    } else if share(han, 5) {
        Some(Language::Chinese)
    } else if share(thai, 5) {
        Some(Language::Thai)
    } else {
        None
    }
}

/// The languages of an index's documents, each once, in [`Language`] order: the languages a question is
/// analysed in. English when there are none, so an empty index analyses questions as it always did.
pub fn distinct(languages: impl IntoIterator<Item = Language>) -> Vec<Language> {
    let mut distinct: Vec<Language> = languages.into_iter().collect();
    distinct.sort_unstable();
    distinct.dedup();
    if distinct.is_empty() {
        distinct.push(Language::English);
    }
    distinct
}

#[cfg(test)]
mod tests {
    use super::*;

    const GERMAN: &str = "Die Paketverwaltung von Debian installiert Programme aus den Archiven, löst ihre \
        Abhängigkeiten auf und hält das System auf dem neuesten Stand, ohne dass der Benutzer eingreifen muss.";
    const JAPANESE: &str = "Debian のパッケージ管理システムは、アーカイブからプログラムをインストールし、\
        依存関係を解決して、システムを最新の状態に保ちます。";

    #[test]
    fn reads_tags_of_every_form() {
        assert_eq!(Language::from_tag("de-AT"), Some(Language::German));
        assert_eq!(Language::from_tag("pt_BR"), Some(Language::Portuguese));
        assert_eq!(Language::from_tag("zh-Hant"), Some(Language::Chinese));
        assert_eq!(Language::from_tag("nb"), Some(Language::Norwegian));
        assert_eq!(Language::from_tag("FRA"), Some(Language::French));
        assert_eq!(Language::from_tag("x-klingon"), None);
        assert_eq!(Language::from_tag(""), None);
    }

    #[test]
    fn detects_what_the_text_reads_as() {
        assert_eq!(Language::of(None, GERMAN), Language::German);
        assert_eq!(Language::of(None, JAPANESE), Language::Japanese);
        assert_eq!(Language::of(None, "Mars has two moons."), Language::English);
    }

    #[test]
    fn a_declaration_holds_unless_the_text_plainly_says_otherwise() {
        assert_eq!(Language::of(Some("fr"), "OK"), Language::French);
        assert_eq!(Language::of(Some("en"), GERMAN), Language::German);
    }

    #[test]
    fn every_language_has_a_code_its_tag_reads_back() {
        for &(language, code, _, _) in CODES {
            assert_eq!(Language::from_tag(code), Some(language));
            assert_eq!(language.code(), code);
        }
        assert_eq!(Language::Other.code(), "und");
    }
}
