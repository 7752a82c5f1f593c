//! JSONL corpora in the BEIR layout: one `{"_id", "title", "text"}` object per line, each a document.

use serde::Deserialize;

#[derive(Deserialize)]
struct Record {
    #[serde(rename = "_id")]
    id: serde_json::Value,
    #[serde(default)]
    title: String,
    text: String,
}

pub struct JsonlRecord {
    pub id: String,
    pub title: String,
    pub text: String,
    pub line: String,
}

/// Reads every well-formed record; malformed lines become warnings naming the line.
pub fn records(text: &str) -> (Vec<JsonlRecord>, Vec<String>) {
    let mut records = Vec::new();
    let mut warnings = Vec::new();
    for (index, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        match serde_json::from_str::<Record>(line) {
            Ok(record) => match id_text(&record.id) {
                Some(id) => {
                    records.push(JsonlRecord { id, title: record.title, text: record.text, line: line.to_string() })
                }
                None => warnings.push(format!("line {}: `_id` must be a string or a number", index + 1)),
            },
            Err(e) => warnings.push(format!("line {}: {e}", index + 1)),
        }
    }
    (records, warnings)
}

fn id_text(id: &serde_json::Value) -> Option<String> {
    match id {
        serde_json::Value::String(s) if !s.trim().is_empty() => Some(s.trim().to_string()),
        serde_json::Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}
