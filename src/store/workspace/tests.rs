//! Unit tests of `workspace`, beside it so the module itself reads in one sitting.

use super::*;
use crate::corpus::document::{DocumentBuilder, Format, Metadata};

fn document(source: &str, text: &str) -> Document {
    let mut builder = DocumentBuilder::new();
    builder.paragraph(crate::corpus::document::BlockKind::Paragraph, text);
    builder.finish(source.into(), [0; 16], Format::Text, Metadata::default(), source)
}

#[test]
fn merging_replaces_appends_and_removes_records_of_a_file() {
    let current = vec![document("a.txt", "old a"), document("c.jsonl#1", "one"), document("c.jsonl#2", "two")];
    let added = vec![document("b.txt", "new b"), document("a.txt", "new a")];
    let merged = merge_documents(&current, added, &["c.jsonl".to_string()]);
    let shown: Vec<(&str, &str)> = merged.iter().map(|d| (d.source.as_str(), d.text.as_str())).collect();
    assert_eq!(shown, vec![("a.txt", "new a"), ("b.txt", "new b")]);
}

#[test]
fn merging_many_documents_takes_linear_time() {
    // A search per document made this 60,000 x 60,000 string comparisons, hundreds of times the cost of
    // copying the documents once; a map makes it a small multiple of that copy. Timed against the copy
    // on the same machine, so a slow or busy machine slows both sides alike.
    let current: Vec<Document> = (0..60_000).map(|i| document(&format!("notes/{i}.md"), "text")).collect();
    let added: Vec<Document> = (0..60_000).rev().map(|i| document(&format!("notes/{i}.md"), "new")).collect();
    let removed: Vec<String> = (0..60_000).step_by(2).map(|i| format!("gone/{i}.md")).collect();
    // The fastest of three of each, so a pause of the machine in one run does not decide.
    let fastest = |run: &dyn Fn() -> Vec<Document>| {
        (0..3)
            .map(|_| {
                let started = std::time::Instant::now();
                let out = run();
                (started.elapsed(), out)
            })
            .min_by_key(|(time, _)| *time)
            .expect("three runs")
    };
    let (copy_time, _) = fastest(&|| current.iter().chain(&added).cloned().collect());
    let (merge_time, merged) = fastest(&|| merge_documents(&current, added.clone(), &removed));
    assert!(merge_time < copy_time * 40, "merging took {merge_time:?}, copying the documents {copy_time:?}");
    assert_eq!(merged.len(), 60_000);
    assert!(merged.iter().all(|d| d.text == "new"));
}
