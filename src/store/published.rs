//! What a static build of the app publishes: its title and the prebuilt corpora it offers (the first is the
//! one it opens), each a snapshot with its sample questions, listed in [`MANIFEST`] at the build's root.
//! `scripts/build_demos.sh` lists the demos in every build; `quire site` lists a user's own corpus instead.
//! The page reads the list; nothing here touches a file system or the network.

use serde::{Deserialize, Serialize};

/// The list's file name, at the root of the build.
pub const MANIFEST: &str = "corpora.json";

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Published {
    /// The site's title (a `quire site --title`); the app's own name when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    pub corpora: Vec<PublishedCorpus>,
}

/// A prebuilt corpus: its snapshot and sample questions, as paths inside the build.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PublishedCorpus {
    /// A short name for links and tests (`data-demo`).
    pub key: String,
    pub title: String,
    pub snapshot: String,
    /// The folder of the snapshot's fragments (`store::fragments`), where a site has them: the engine by
    /// words answers from them before the snapshot has downloaded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fragments: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub questions: Option<String>,
    /// A lesson to walk through on it (`retrieve::lesson`), as JSON.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lesson: Option<String>,
}

/// A question to try on a corpus, with what a good answer draws on.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SampleQuestion {
    pub text: String,
    #[serde(default)]
    pub note: String,
}

/// Why a build's list of corpora is refused.
#[derive(Debug, thiserror::Error)]
pub enum PublishedError {
    #[error("{MANIFEST}: {0}")]
    Json(serde_json::Error),
    #[error("{MANIFEST} lists no corpus")]
    NoCorpus,
    /// A file named by a path that leaves the build.
    #[error("{MANIFEST}: {0:?} is not a path inside the build")]
    Outside(String),
}

/// A link's `?index=` that names no file of this site.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("?index={0}: the page opens only an index of its own site, named by a path such as corpus/notes.quire")]
pub struct NotOfThisSite(pub String);

/// Why a file of sample questions is refused.
#[derive(Debug, thiserror::Error)]
pub enum QuestionsError {
    #[error("not a JSON list of questions: {0}")]
    Json(serde_json::Error),
    #[error("it holds no question")]
    NoQuestion,
}

impl Published {
    /// The list as a build holds it; refused when it offers no corpus or names a file outside the build.
    pub fn from_json(bytes: &[u8]) -> Result<Published, PublishedError> {
        let published: Published = serde_json::from_slice(bytes).map_err(PublishedError::Json)?;
        if published.corpora.is_empty() {
            return Err(PublishedError::NoCorpus);
        }
        for corpus in &published.corpora {
            for path in std::iter::once(&corpus.snapshot)
                .chain(&corpus.fragments)
                .chain(&corpus.questions)
                .chain(&corpus.lesson)
            {
                if inside_the_build(path).is_none() {
                    return Err(PublishedError::Outside(path.clone()));
                }
            }
        }
        Ok(published)
    }
}

/// The corpus a page's link names by its snapshot's path (`?index=`): the one `published` lists at that
/// path, with its title, sample questions, lesson and fragments, else that file alone; `Err` with the reason
/// for a path outside the build.
pub fn linked(published: &[PublishedCorpus], asked: &str) -> Result<PublishedCorpus, NotOfThisSite> {
    let Some(path) = inside_the_build(asked) else {
        return Err(NotOfThisSite(asked.to_string()));
    };
    let listed = published.iter().find(|corpus| inside_the_build(&corpus.snapshot) == Some(path));
    Ok(listed.cloned().unwrap_or_else(|| PublishedCorpus {
        key: "linked".into(),
        title: path.into(),
        snapshot: path.into(),
        fragments: None,
        questions: None,
        lesson: None,
    }))
}

/// `path` when it names a file of this build, relative to the page: no scheme, host, parent folder or
/// query. The page fetches only these, so a link's `?index=` cannot make it read another origin's file
/// (the Content-Security-Policy would refuse that too; this says why in words).
pub fn inside_the_build(path: &str) -> Option<&str> {
    let path = path.strip_prefix("./").unwrap_or(path);
    // Only characters a URL parser leaves as they are: it drops tabs and newlines and decodes `%2e` to a dot,
    // either of which could turn a path that passes the checks below into `//host/…` or `../…`.
    let plain = |c: char| c.is_ascii_alphanumeric() || "._~-/".contains(c);
    let refused = path.is_empty()
        || !path.chars().all(plain)
        || path.starts_with('/')
        || path.split('/').any(|part| part.is_empty() || part == "." || part == "..");
    (!refused).then_some(path)
}

/// Sample questions from a file a user wrote: a JSON list (of strings, or of `{"text", "note"}`), or plain
/// text with a question on each line. Refused when it holds none.
pub fn parse_questions(text: &str) -> Result<Vec<SampleQuestion>, QuestionsError> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Entry {
        Text(String),
        Question(SampleQuestion),
    }
    let questions: Vec<SampleQuestion> = if text.trim_start().starts_with('[') {
        let entries: Vec<Entry> = serde_json::from_str(text).map_err(QuestionsError::Json)?;
        entries
            .into_iter()
            .map(|entry| match entry {
                Entry::Text(text) => SampleQuestion { text, note: String::new() },
                Entry::Question(question) => question,
            })
            .collect()
    } else {
        text.lines().map(|line| SampleQuestion { text: line.to_string(), note: String::new() }).collect()
    };
    let questions: Vec<SampleQuestion> = questions
        .into_iter()
        .map(|q| SampleQuestion { text: q.text.trim().to_string(), note: q.note.trim().to_string() })
        .filter(|q| !q.text.is_empty())
        .collect();
    if questions.is_empty() {
        return Err(QuestionsError::NoQuestion);
    }
    Ok(questions)
}

#[cfg(test)]
mod tests {
    use super::*;

    use proptest::prelude::*;

    /// Paths a build may hold, and paths that reach outside it (another origin, a parent folder, an odd
    /// character a URL parser would rewrite).
    const INSIDE: [&str; 3] = ["corpus/index.quire", "./snapshots/planets.quire", "corpus/fragments"];
    const OUTSIDE: [&str; 4] = ["https://elsewhere.example/x.quire", "../index.quire", "a//b.json", "notes\tx.json"];

    /// A path that is inside the build unless `outside`.
    fn path(outside: bool) -> impl Strategy<Value = String> {
        let choices: &[&str] = if outside { &OUTSIDE } else { &INSIDE };
        proptest::sample::select(choices).prop_map(String::from)
    }

    /// A listed corpus with an outside path for each `true` of `outside` (snapshot, fragments, questions,
    /// lesson), the optional ones present or not.
    fn listed(outside: [bool; 4]) -> impl Strategy<Value = PublishedCorpus> {
        let optional = |outside| proptest::option::of(path(outside));
        (
            "[a-z]{1,6}",
            "[A-Z][a-z ]{0,10}",
            path(outside[0]),
            optional(outside[1]),
            optional(outside[2]),
            optional(outside[3]),
        )
            .prop_map(|(key, title, snapshot, fragments, questions, lesson)| PublishedCorpus {
                key,
                title,
                snapshot,
                fragments,
                questions,
                lesson,
            })
    }

    /// The first path outside the build, in the order the list is checked.
    fn first_outside(published: &Published) -> Option<&String> {
        published
            .corpora
            .iter()
            .flat_map(|c| std::iter::once(&c.snapshot).chain(&c.fragments).chain(&c.questions).chain(&c.lesson))
            .find(|path| OUTSIDE.contains(&path.as_str()))
    }

    proptest::proptest! {
        /// Bytes that are (all but surely) no list are refused with a reason naming the list's file.
        #[test]
        fn any_bytes_are_a_list_or_a_reason(bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..300)) {
            match Published::from_json(&bytes) {
                Ok(published) => prop_assert!(!published.corpora.is_empty(), "{published:?}"),
                Err(reason) => {
                    let reason = reason.to_string();
                    prop_assert!(reason.starts_with(MANIFEST) && reason.len() > MANIFEST.len() + 2, "{reason:?}")
                }
            }
        }

        /// A list as a build writes it reads back as written, unless it lists no corpus or a path outside the
        /// build, which the refusal names (the first such path).
        #[test]
        fn a_written_list_reads_back_or_names_what_is_wrong(
            title in proptest::option::of("[A-Z][a-z ]{0,10}"),
            corpora in proptest::collection::vec(
                proptest::array::uniform4(proptest::bool::weighted(0.1)).prop_flat_map(listed), 0..4),
        ) {
            let published = Published { title, corpora };
            let read = Published::from_json(&serde_json::to_vec(&published).unwrap());
            match (read, first_outside(&published)) {
                (Ok(read), None) if !published.corpora.is_empty() => prop_assert_eq!(read, published),
                (Err(reason), None) => prop_assert_eq!(reason.to_string(), format!("{MANIFEST} lists no corpus")),
                (Err(reason), Some(path)) => prop_assert_eq!(
                    reason.to_string(),
                    format!("{MANIFEST}: {path:?} is not a path inside the build")
                ),
                (read, path) => prop_assert!(false, "{read:?} with {path:?} outside the build"),
            }
        }

        #[test]
        fn any_text_is_questions_or_a_reason(text in ".{0,300}") {
            if let Ok(questions) = parse_questions(&text) {
                proptest::prop_assert!(questions.iter().all(|q| !q.text.is_empty()));
            }
        }

        #[test]
        fn a_path_let_through_is_plain(path in "[ -~\n\t%]{0,40}") {
            if let Some(kept) = inside_the_build(&path) {
                proptest::prop_assert!(!kept.starts_with('/') && !kept.split('/').any(|p| p == ".." || p.is_empty()));
                proptest::prop_assert!(kept.chars().all(|c| c.is_ascii_alphanumeric() || "._~-/".contains(c)));
            }
        }
    }

    #[test]
    fn only_paths_inside_the_build_are_fetched() {
        for fine in ["corpus/index.quire", "./notes.quire", "snapshots/planets-questions.json"] {
            assert!(inside_the_build(fine).is_some(), "{fine}");
        }
        for refused in [
            "",
            "/etc/passwd",
            "//evil.example/x.quire",
            "https://evil.example/x.quire",
            "javascript:alert(1)",
            "../x.quire",
            "a/../../x.quire",
            "a//b.quire",
            "a\\b.quire",
            "x.quire?y=1",
            "data:application/octet-stream,abc",
            "\n/\t/evil.example/x.quire",
            "%2e%2e/x.quire",
            "%252e%252e/x.quire",
            "notes/\u{0}x.quire",
            "caf\u{e9}.quire",
        ] {
            assert!(inside_the_build(refused).is_none(), "{refused}");
        }
    }

    #[test]
    fn the_demos_list_as_the_build_writes_it_is_read() {
        let listed = br#"{"corpora": [{"key": "planets", "title": "Planets", "snapshot": "snapshots/planets.quire",
            "questions": "snapshots/planets-questions.json"}]}"#;
        let published = Published::from_json(listed).unwrap();
        assert_eq!(published.title, None);
        assert_eq!(published.corpora[0].questions.as_deref(), Some("snapshots/planets-questions.json"));
        let written = serde_json::to_vec(&published).unwrap();
        assert_eq!(Published::from_json(&written).unwrap(), published);
    }

    /// A link to the site's own corpus opens it with its questions, lesson and fragments, however the path
    /// is spelled; a link to another file of the site opens that file alone; one outside is refused.
    #[test]
    fn a_link_to_a_listed_corpus_keeps_its_questions() {
        let listed = br#"{"corpora": [{"key": "site", "title": "Notes", "snapshot": "corpus/index.quire",
            "fragments": "corpus/fragments", "questions": "corpus/questions.json", "lesson": "corpus/lesson.json"}]}"#;
        let published = Published::from_json(listed).unwrap();
        for asked in ["corpus/index.quire", "./corpus/index.quire"] {
            assert_eq!(linked(&published.corpora, asked).unwrap(), published.corpora[0], "{asked}");
        }
        let other = linked(&published.corpora, "corpus/older.quire").unwrap();
        assert_eq!((other.snapshot.as_str(), other.questions, other.fragments), ("corpus/older.quire", None, None));
        assert!(linked(&published.corpora, "../index.quire").unwrap_err().to_string().contains("its own site"));
    }

    #[test]
    fn a_list_without_corpora_or_reaching_outside_is_refused() {
        assert!(Published::from_json(br#"{"corpora": []}"#).unwrap_err().to_string().contains("no corpus"));
        let outside = br#"{"corpora": [{"key": "x", "title": "X", "snapshot": "https://elsewhere.example/x.quire"}]}"#;
        assert!(Published::from_json(outside).unwrap_err().to_string().contains("not a path inside the build"));
        assert!(Published::from_json(b"{").is_err());
    }

    #[test]
    fn questions_are_read_from_json_lists_and_from_lines() {
        let lines = parse_questions("What is a crate?\n\n  How do I publish one?  \n").unwrap();
        assert_eq!(
            lines.iter().map(|q| q.text.as_str()).collect::<Vec<_>>(),
            ["What is a crate?", "How do I publish one?"]
        );
        let strings = parse_questions(r#"["What is a crate?"]"#).unwrap();
        assert_eq!(strings[0].text, "What is a crate?");
        let objects = parse_questions(r#"[{"text": "Why borrow?", "note": "chapter 4"}]"#).unwrap();
        assert_eq!(objects[0], SampleQuestion { text: "Why borrow?".into(), note: "chapter 4".into() });
        assert!(parse_questions("\n  \n").unwrap_err().to_string().contains("no question"));
        assert!(parse_questions("[1, 2]").unwrap_err().to_string().contains("not a JSON list"));
    }
}
