//! One readable report of a batch of files. A dropped folder holds much that is routinely left out
//! (stylesheets, scripts and fonts of a generated site, redirect pages, copies of the same file); listed
//! file by file, those buried the real problems (a folder of the toolchain's books gave 203 lines, the Rust
//! book's 262 pages of older editions one each). Real problems keep a line each; each routine kind becomes
//! one line, with its files behind it.

use std::collections::{BTreeMap, HashSet};

use serde::{Deserialize, Serialize};

use super::{IngestError, IngestFailure, IngestReport};
use crate::language::Language;

/// One line of the report: a problem with one file, a note, or a kind of file left out with its files.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReportLine {
    pub text: String,
    /// A file that could not be read as it should have been, as opposed to a note or something routinely
    /// left out.
    pub problem: bool,
    /// The files a summary line stands for (empty for a line about one file, which names it).
    pub files: Vec<String>,
}

impl ReportLine {
    fn single(text: String, problem: bool) -> Self {
        ReportLine { text, problem, files: Vec::new() }
    }
}

impl IngestReport {
    /// The report: problems first, then notes, then one line per kind of file routinely left out (a kind
    /// with one file keeps that file's own line).
    pub fn summary(&self) -> Vec<ReportLine> {
        let mut unsupported: BTreeMap<&str, Vec<&IngestError>> = BTreeMap::new();
        let (mut problems, mut redirects) = (Vec::new(), Vec::new());
        for error in &self.errors {
            match &error.failure {
                IngestFailure::Unsupported { extension } => unsupported.entry(extension).or_default().push(error),
                IngestFailure::Redirect { target } => {
                    redirects.push((error.to_string(), format!("{} → {target}", error.file)))
                }
                _ => problems.push(ReportLine::single(error.to_string(), true)),
            }
        }
        let duplicates: HashSet<&str> = self.duplicates.iter().map(|(file, _)| file.as_str()).collect();
        let (stubs, notes): (Vec<_>, Vec<_>) = self
            .warnings
            .iter()
            .filter(|(file, _)| !duplicates.contains(file.as_str()))
            .partition(|(_, warning)| super::containment::is_stub_note(warning));
        let notes = notes.into_iter().map(|(file, warning)| ReportLine::single(format!("{file}: {warning}"), false));
        let mut lines: Vec<ReportLine> = problems.into_iter().chain(notes).collect();
        lines.extend(unsupported_line(&unsupported));
        let copies = self
            .duplicates
            .iter()
            .map(|(copy, kept)| {
                (format!("{copy}: {}", super::ingest::duplicate_note(kept)), format!("{copy} = {kept}"))
            })
            .collect();
        lines.extend(group(copies, |n| format!("{n} files repeat another file's content: each indexed once")));
        lines.extend(group(redirects, |n| format!("{n} redirect pages not indexed: the pages they lead to are")));
        let stubs = stubs.into_iter().map(|(file, warning)| (format!("{file}: {warning}"), file.clone())).collect();
        lines.extend(group(stubs, |n| {
            format!("{n} pages hold only text that other documents repeat (stubs or navigation pages): not indexed")
        }));
        lines.extend(languages_line(&self.languages));
        lines
    }
}

/// `Languages: German 14, English 1`, where any document is in another language than English, with the
/// documents outside the most common language beneath: what their words are stemmed by, and where a
/// mislabelled file shows.
fn languages_line(documents: &[(String, Language)]) -> Option<ReportLine> {
    if documents.iter().all(|(_, language)| *language == Language::English) {
        return None;
    }
    let counts = crate::language::tally(documents.iter().map(|&(_, language)| language));
    let most = counts[0].0;
    let files = documents.iter().filter(|(_, language)| *language != most);
    let files = files.map(|(source, language)| format!("{source} ({})", language.name())).collect();
    let counts: Vec<String> = counts.iter().map(|(language, n)| format!("{} {n}", language.name())).collect();
    Some(ReportLine { text: format!("Languages: {}", counts.join(", ")), problem: false, files })
}

/// `43 files of types Quire does not read, skipped: css 12, js 9, woff2 8, …`.
fn unsupported_line(by_type: &BTreeMap<&str, Vec<&IngestError>>) -> Option<ReportLine> {
    let count: usize = by_type.values().map(Vec::len).sum();
    if count < 2 {
        let error = by_type.values().flatten().next()?;
        return Some(ReportLine::single(error.to_string(), false));
    }
    let mut kinds: Vec<(&str, usize)> = by_type.iter().map(|(kind, files)| (*kind, files.len())).collect();
    kinds.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    let kinds: Vec<String> = kinds.iter().map(|(kind, n)| format!("{kind} {n}")).collect();
    let text = format!("{count} files of types Quire does not read, skipped: {}", kinds.join(", "));
    Some(ReportLine { text, problem: false, files: by_type.values().flatten().map(|e| e.file.clone()).collect() })
}

/// One line for `items` (each its own line, and its entry in a group's list), or the item's own line when
/// there is one.
fn group(items: Vec<(String, String)>, line: impl Fn(usize) -> String) -> Option<ReportLine> {
    match items.len() {
        0 => None,
        1 => items.into_iter().next().map(|(own, _)| ReportLine::single(own, false)),
        n => Some(ReportLine {
            text: line(n),
            problem: false,
            files: items.into_iter().map(|(_, entry)| entry).collect(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use crate::corpus::{CorpusSettings, SourceFile, ingest};

    #[test]
    fn names_the_languages_of_a_folder_that_is_not_all_english() {
        let german = "<html lang=\"de\"><body><main><h1>Pakete</h1><p>Die Paketverwaltung installiert \
            Programme aus den Archiven und löst ihre Abhängigkeiten auf, ohne dass jemand eingreifen muss.</p></main></body></html>";
        let english = "# Packages\n\nThe package manager installs programs from the archives and resolves \
            their dependencies without anyone having to step in.\n";
        let files =
            [SourceFile::new("pakete.html", german.as_bytes()), SourceFile::new("packages.md", english.as_bytes())];
        let report = ingest(&files, &CorpusSettings::default());
        let line = report.summary().into_iter().find(|line| line.text.starts_with("Languages")).expect("a line");
        assert_eq!(line.text, "Languages: English 1, German 1");
        assert_eq!(line.files, vec!["pakete.html (German)"]);
        let only_english = ingest(&files[1..], &CorpusSettings::default());
        assert!(only_english.summary().iter().all(|line| !line.text.starts_with("Languages")));
    }

    #[test]
    fn a_generated_site_s_folder_reads_as_a_few_lines() {
        let page = |title: &str| {
            format!(
                "<html><head><title>{title}</title></head><body><main><h1>{title}</h1><p>What {title} is about, at some length.</p></main></body></html>"
            )
        };
        let stub =
            "<html><head><meta http-equiv=\"refresh\" content=\"0; URL=a.html\"></head><body>Redirecting</body></html>";
        let mut files = vec![
            SourceFile::new("a.html", page("Alpha")),
            SourceFile::new("b.html", page("Beta")),
            SourceFile::new("copy/a.html", page("Alpha")),
            SourceFile::new("copy/b.html", page("Beta")),
            SourceFile::new("old-a.html", stub),
            SourceFile::new("old-b.html", stub),
            SourceFile::new("broken.pdf", "%PDF-1.7 not really"),
            SourceFile::new("notes.txt", "caf\u{e9}".as_bytes().to_vec()),
        ];
        for (i, kind) in ["css", "css", "js", "woff2"].iter().enumerate() {
            files.push(SourceFile::new(format!("theme/{i}.{kind}"), "x"));
        }
        let report = ingest(&files, &CorpusSettings::default());
        let lines = report.summary();
        let texts: Vec<&str> = lines.iter().map(|l| l.text.as_str()).collect();
        assert!(lines[0].problem && texts[0].starts_with("broken.pdf: "), "{texts:?}");
        assert_eq!(lines.iter().filter(|l| l.problem).count(), 1, "{texts:?}");
        assert!(texts.contains(&"4 files of types Quire does not read, skipped: css 2, js 1, woff2 1"), "{texts:?}");
        assert!(texts.contains(&"2 files repeat another file's content: each indexed once"), "{texts:?}");
        assert!(texts.contains(&"2 redirect pages not indexed: the pages they lead to are"), "{texts:?}");
        let redirects = lines.iter().find(|l| l.text.starts_with("2 redirect")).unwrap();
        assert_eq!(redirects.files, ["old-a.html → a.html", "old-b.html → a.html"]);
        let copies = lines.iter().find(|l| l.text.starts_with("2 files repeat")).unwrap();
        assert_eq!(copies.files, ["copy/a.html = a.html", "copy/b.html = b.html"]);
        assert_eq!(lines.len(), 4, "{texts:?}");
    }

    #[test]
    fn pages_that_only_repeat_others_are_one_line_with_their_files() {
        use crate::corpus::IngestReport;
        use crate::corpus::containment::stub_note;
        // The Rust book's folder has 262 of them, one note each before.
        let mut report = IngestReport::default();
        for file in ["first-edition/ch01.html", "second-edition/ch01.html", "second-edition/ch02.html"] {
            report.warnings.push((file.to_string(), stub_note(262)));
        }
        report.warnings.push(("notes.txt".to_string(), "its encoding was guessed".to_string()));
        let lines = report.summary();
        let texts: Vec<&str> = lines.iter().map(|l| l.text.as_str()).collect();
        assert_eq!(
            texts,
            [
                "notes.txt: its encoding was guessed",
                "3 pages hold only text that other documents repeat (stubs or navigation pages): not indexed",
            ]
        );
        assert_eq!(lines[1].files, ["first-edition/ch01.html", "second-edition/ch01.html", "second-edition/ch02.html"]);
        report.warnings.truncate(1);
        assert_eq!(
            report.summary()[0].text,
            format!("first-edition/ch01.html: {}", stub_note(262)),
            "one stays its own line"
        );
    }
}
