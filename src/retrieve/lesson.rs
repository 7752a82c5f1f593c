//! A lesson for a class: steps to walk through, each a question, the retrievers to compare on it (run side
//! by side and fused, so the teaching view draws one lane per retriever) and a note for the class. Read from
//! the file a teacher writes (JSON, or the same in YAML) and checked here, so that a site never publishes a
//! step the engine cannot run.

use serde::{Deserialize, Serialize};

use super::trace::Trace;
use super::{Fusion, Method, Retriever};
use crate::error::UnknownName;
use crate::yaml::YamlError;

/// The most retrievers one step compares: each is a column on the page and a lane in the drawing.
pub const MOST_COMPARED: usize = 6;
/// Results per column, on the page and in the handout.
pub const COLUMN_ROWS: usize = 5;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Lesson {
    pub title: String,
    pub steps: Vec<LessonStep>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LessonStep {
    pub question: String,
    /// Retriever names (`dense`, `bm25`, `join`, …).
    pub compare: Vec<String>,
    /// How the compared lists are fused: `zsum` (the default) or `rrf`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fusion: Option<String>,
    #[serde(default)]
    pub note: String,
}

/// Why a lesson file is refused.
#[derive(Debug, thiserror::Error)]
pub enum LessonError {
    #[error("not a lesson in JSON: {0}")]
    Json(serde_json::Error),
    #[error("not a lesson in YAML: {0}")]
    Yaml(YamlError),
    #[error("the lesson file is empty")]
    Empty,
    /// JSON or YAML, but not shaped as a lesson.
    #[error("not a lesson: {0}")]
    Shape(serde_json::Error),
    #[error("the lesson has no title")]
    NoTitle,
    #[error("the lesson has no steps")]
    NoSteps,
    /// Step `number` (from 1) cannot be run.
    #[error("step {number}: {problem}")]
    Step { number: usize, problem: StepProblem },
}

/// Why a lesson's step cannot be run.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum StepProblem {
    #[error("it has no question")]
    NoQuestion,
    #[error("it compares {0} retrievers; name 1 to {MOST_COMPARED}")]
    Compared(usize),
    #[error("it names `{0}` twice")]
    Twice(String),
    /// A retriever or a fusion that is none of the known ones.
    #[error(transparent)]
    Unknown(UnknownName),
}

impl Lesson {
    /// A lesson from JSON or YAML text, every step checked; the error names the step.
    pub fn parse(text: &str) -> Result<Lesson, LessonError> {
        let value = if text.trim_start().starts_with('{') {
            serde_json::from_str(text).map_err(LessonError::Json)?
        } else {
            yaml_to_json(text)?
        };
        let lesson: Lesson = serde_json::from_value(value).map_err(LessonError::Shape)?;
        if lesson.title.trim().is_empty() {
            return Err(LessonError::NoTitle);
        }
        if lesson.steps.is_empty() {
            return Err(LessonError::NoSteps);
        }
        for (number, step) in lesson.steps.iter().enumerate() {
            step.check().map_err(|problem| LessonError::Step { number: number + 1, problem })?;
        }
        Ok(lesson)
    }
}

impl LessonStep {
    fn check(&self) -> Result<(), StepProblem> {
        if self.question.trim().is_empty() {
            return Err(StepProblem::NoQuestion);
        }
        if self.compare.is_empty() || self.compare.len() > MOST_COMPARED {
            return Err(StepProblem::Compared(self.compare.len()));
        }
        let mut named = std::collections::HashSet::new();
        for name in &self.compare {
            if !named.insert(name.trim().to_ascii_lowercase()) {
                return Err(StepProblem::Twice(name.clone()));
            }
            Retriever::parse(name).ok_or_else(|| {
                let known: Vec<&str> = Retriever::all().map(Retriever::name).collect();
                let known = format!("known: {}", known.join(", "));
                StepProblem::Unknown(UnknownName { kind: "retriever", name: name.clone(), known })
            })?;
        }
        self.fused_by().map_err(StepProblem::Unknown)?;
        Ok(())
    }

    fn fused_by(&self) -> Result<Fusion, UnknownName> {
        match self.fusion.as_deref().map(str::trim) {
            None | Some("zsum") => Ok(Fusion::Zsum),
            Some("rrf") => Ok(Fusion::Rrf),
            Some(other) => {
                Err(UnknownName { kind: "fusion", name: other.to_string(), known: "known: zsum, rrf".into() })
            }
        }
    }

    /// How it fuses the compared lists (a checked step names a known fusion).
    pub fn fusion(&self) -> Fusion {
        self.fused_by().unwrap_or(Fusion::Zsum)
    }

    /// The retrievers it compares, in its order (a checked step's names are all known).
    pub fn retrievers(&self) -> Vec<Retriever> {
        self.compare.iter().filter_map(|name| Retriever::parse(name)).collect()
    }

    /// What the step runs: the compared retrievers fused (one alone when it names one).
    pub fn method(&self) -> Method {
        match self.retrievers().as_slice() {
            [one] => Method::Single(*one),
            many => Method::Fused {
                fusion: self.fusion(),
                inputs: many.iter().map(|&retriever| (retriever, 1.0)).collect(),
            },
        }
    }
}

/// A step's answer side by side: each compared retriever's first chunks (their labels), then the fused list
/// when there are several, each column under its name.
pub fn columns(trace: &Trace) -> Vec<(String, Vec<String>)> {
    let labels =
        |chunks: &[super::trace::TracedChunk]| chunks.iter().take(COLUMN_ROWS).map(|c| c.label.clone()).collect();
    let mut columns: Vec<(String, Vec<String>)> =
        trace.retrievers.iter().map(|r| (r.retriever.clone(), labels(&r.chunks))).collect();
    if trace.retrievers.len() > 1 {
        columns.push((format!("fused ({})", trace.method), labels(&trace.results)));
    }
    columns
}

/// YAML as the JSON value serde reads the lesson from (a teacher may write either).
fn yaml_to_json(text: &str) -> Result<serde_json::Value, LessonError> {
    use yaml_rust2::Yaml;
    fn convert(yaml: &Yaml) -> serde_json::Value {
        match yaml {
            Yaml::Hash(map) => serde_json::Value::Object(
                map.iter()
                    .map(|(key, value)| {
                        let key = key.as_str().map_or_else(|| format!("{key:?}"), str::to_string);
                        (key, convert(value))
                    })
                    .collect(),
            ),
            Yaml::Array(items) => serde_json::Value::Array(items.iter().map(convert).collect()),
            Yaml::String(text) => serde_json::Value::String(text.clone()),
            // A question such as `1969` or `yes` is still a question.
            Yaml::Integer(number) => serde_json::Value::String(number.to_string()),
            Yaml::Real(number) => serde_json::Value::String(number.clone()),
            Yaml::Boolean(flag) => serde_json::Value::String(flag.to_string()),
            // `note:` with nothing after it is an empty note.
            Yaml::Null => serde_json::Value::String(String::new()),
            _ => serde_json::Value::Null,
        }
    }
    let documents = crate::yaml::load(text).map_err(LessonError::Yaml)?;
    documents.first().map(convert).ok_or(LessonError::Empty)
}

#[cfg(test)]
mod tests {
    use super::*;

    use proptest::prelude::*;

    /// How every refusal begins: the format, the lesson as a whole, or the step at fault.
    const REASONS: [&str; 7] = [
        "not a lesson in JSON: ",
        "not a lesson in YAML: ",
        "not a lesson: ",
        "the lesson file is empty",
        "the lesson has no title",
        "the lesson has no steps",
        "step ",
    ];

    /// A step a teacher could write: a question, one to three known retrievers, maybe a fusion, a note.
    fn step() -> impl Strategy<Value = LessonStep> {
        let names: Vec<&'static str> = Retriever::all().map(Retriever::name).collect();
        let fusion = proptest::option::of(prop_oneof![Just("zsum"), Just("rrf")]);
        ("[A-Z][a-z0-9 ]{0,20}\\?", proptest::sample::subsequence(names, 1..=3).prop_shuffle(), fusion, "[a-z ]{0,12}")
            .prop_map(|(question, compare, fusion, note)| LessonStep {
                question,
                compare: compare.into_iter().map(String::from).collect(),
                fusion: fusion.map(String::from),
                note,
            })
    }

    /// One thing wrong with a step, and the reason the lesson must then give (after `step N: `).
    #[derive(Clone, Copy, Debug)]
    enum Defect {
        NoQuestion,
        NoRetriever,
        UnknownRetriever,
        NamedTwice,
        UnknownFusion,
    }

    impl Defect {
        fn spoil(self, step: &mut LessonStep) -> String {
            match self {
                Defect::NoQuestion => step.question = "  ".into(),
                Defect::NoRetriever => step.compare.clear(),
                Defect::UnknownRetriever => step.compare.push("magic".into()),
                Defect::NamedTwice => step.compare.push(step.compare[0].to_uppercase()),
                Defect::UnknownFusion => step.fusion = Some("max".into()),
            }
            match self {
                Defect::NoQuestion => "it has no question".into(),
                Defect::NoRetriever => format!("it compares 0 retrievers; name 1 to {MOST_COMPARED}"),
                Defect::UnknownRetriever => "unknown retriever `magic` (known: dense".into(),
                Defect::NamedTwice => format!("it names `{}` twice", step.compare[0].to_uppercase()),
                Defect::UnknownFusion => "unknown fusion `max` (known: zsum, rrf)".into(),
            }
        }
    }

    /// The step runs the retrievers it names, in its order, fused as it says when it names several.
    fn runs_as_written(step: &LessonStep) -> Result<(), TestCaseError> {
        let ran: Vec<Retriever> = match step.method() {
            Method::Single(retriever) => vec![retriever],
            Method::Fused { fusion, inputs } => {
                let named = if step.fusion.as_deref() == Some("rrf") { Fusion::Rrf } else { Fusion::Zsum };
                prop_assert_eq!(fusion, named);
                prop_assert!(inputs.len() > 1, "{:?}", inputs);
                inputs.into_iter().map(|(retriever, _)| retriever).collect()
            }
            other => return Err(TestCaseError::fail(format!("{other:?}"))),
        };
        let names: Vec<&str> = ran.iter().map(|r| r.name()).collect();
        prop_assert_eq!(names, step.compare.iter().map(String::as_str).collect::<Vec<_>>());
        Ok(())
    }

    fn defect() -> impl Strategy<Value = Defect> {
        prop_oneof![
            Just(Defect::NoQuestion),
            Just(Defect::NoRetriever),
            Just(Defect::UnknownRetriever),
            Just(Defect::NamedTwice),
            Just(Defect::UnknownFusion),
        ]
    }

    proptest! {
        /// Random text is (all but surely) no lesson: it must be refused with a reason that says why.
        #[test]
        fn any_text_is_a_lesson_or_a_reason(text in ".{0,400}") {
            match Lesson::parse(&text) {
                Ok(lesson) => {
                    prop_assert!(!lesson.title.trim().is_empty() && !lesson.steps.is_empty(), "{lesson:?}");
                    prop_assert!(lesson.steps.iter().all(|s| s.retrievers().len() == s.compare.len()), "{lesson:?}");
                }
                Err(reason) => {
                    let reason = reason.to_string();
                    prop_assert!(
                        REASONS.iter().any(|start| reason.starts_with(start)) && reason.len() > "step ".len(),
                        "{reason:?}"
                    )
                }
            }
        }

        /// A lesson written as JSON or YAML reads back as written, runs what its steps name, or, with one
        /// step spoilt, is refused naming that step and what is wrong with it.
        #[test]
        fn a_written_lesson_reads_back_or_names_its_faulty_step(
            title in "[A-Z][a-z ]{0,15}",
            steps in proptest::collection::vec(step(), 1..4),
            spoilt in proptest::option::of((any::<prop::sample::Index>(), defect())),
            yaml in any::<bool>(),
        ) {
            let mut lesson = Lesson { title, steps };
            let refusal = spoilt.map(|(at, defect)| {
                let at = at.index(lesson.steps.len());
                format!("step {}: {}", at + 1, defect.spoil(&mut lesson.steps[at]))
            });
            let json = serde_json::to_string_pretty(&lesson).unwrap();
            // A comment first sends it down the YAML path; JSON's syntax is YAML's flow syntax.
            let text = if yaml { format!("# lesson\n{json}") } else { json };
            match (Lesson::parse(&text), refusal) {
                (Ok(read), None) => {
                    prop_assert_eq!(&read, &lesson);
                    read.steps.iter().try_for_each(runs_as_written)?;
                }
                (Err(reason), Some(expected)) => {
                    let reason = reason.to_string();
                    prop_assert!(reason.starts_with(&expected), "{reason:?} vs {expected:?}")
                }
                (read, expected) => prop_assert!(false, "{read:?} where {expected:?} was expected"),
            }
        }
    }

    const YAML: &str = "title: Multi-hop questions\nsteps:\n  - question: Which agency launched Eagle?\n    compare: [dense, bm25, join]\n    note: The join follows the link.\n  - question: 1969\n    compare: [bm25]\n    fusion: rrf\n";

    #[test]
    fn a_lesson_reads_from_yaml_and_json_alike() {
        let lesson = Lesson::parse(YAML).unwrap();
        assert_eq!(lesson.title, "Multi-hop questions");
        assert_eq!(lesson.steps[0].retrievers(), [Retriever::Dense, Retriever::Bm25, Retriever::Join]);
        assert_eq!(lesson.steps[0].note, "The join follows the link.");
        assert_eq!(lesson.steps[1].question, "1969");
        assert_eq!(lesson.steps[1].method(), Method::Single(Retriever::Bm25));
        let json = serde_json::to_string(&lesson).unwrap();
        assert_eq!(Lesson::parse(&json).unwrap(), lesson);
        match lesson.steps[0].method() {
            Method::Fused { fusion, inputs } => {
                assert_eq!(fusion, Fusion::Zsum);
                assert_eq!(inputs.len(), 3);
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_bad_step_is_named_with_the_reason() {
        let unknown = YAML.replace("[dense, bm25, join]", "[dense, magic]");
        assert!(
            Lesson::parse(&unknown)
                .unwrap_err()
                .to_string()
                .starts_with("step 1: unknown retriever `magic` (known: dense")
        );
        let fusion = YAML.replace("fusion: rrf", "fusion: max");
        assert_eq!(Lesson::parse(&fusion).unwrap_err().to_string(), "step 2: unknown fusion `max` (known: zsum, rrf)");
        let twice = YAML.replace("[bm25]", "[bm25, BM25]");
        assert_eq!(Lesson::parse(&twice).unwrap_err().to_string(), "step 2: it names `BM25` twice");
        let bare_note = YAML.replace("note: The join follows the link.", "note:");
        assert_eq!(Lesson::parse(&bare_note).unwrap().steps[0].note, "");
        let empty = YAML.replace("[bm25]", "[]");
        assert!(Lesson::parse(&empty).unwrap_err().to_string().starts_with("step 2: it compares 0 retrievers"));
        assert_eq!(Lesson::parse(r#"{"title": "x", "steps": []}"#).unwrap_err().to_string(), "the lesson has no steps");
        assert!(Lesson::parse("title: [unclosed").unwrap_err().to_string().starts_with("not a lesson in YAML"));
        assert!(Lesson::parse("just words").unwrap_err().to_string().starts_with("not a lesson"));
        let laughs = format!("{YAML}a: &a [lol, lol]\nb: &b [*a, *a]\nc: [*b, *b]\n");
        assert!(
            Lesson::parse(&laughs).unwrap_err().to_string().contains("YAML aliases"),
            "an alias is refused before loading"
        );
        let deep = format!("title: x\nsteps: {}{}", "[".repeat(100_000), "]".repeat(100_000));
        assert!(Lesson::parse(&deep).unwrap_err().to_string().starts_with("not a lesson in YAML"));
    }
}
