//! Labelled retrieval data in the BEIR layout: `queries.jsonl` (`{"_id", "text"}` per line) and
//! `qrels/<split>.tsv` (`query-id  corpus-id  score`, with a header). The corpus itself (`corpus.jsonl`) is
//! ingested like any other JSONL file; this module only reads the questions and their gold labels, from
//! text, so the browser can evaluate files the user drops just as the CLI evaluates a folder.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt;

use serde::Deserialize;

/// A problem that stops a dataset from being read, naming the file and (where there is one) the line.
#[derive(Clone, Debug, PartialEq)]
pub struct DatasetError {
    pub file: String,
    pub line: Option<usize>,
    pub reason: String,
}

impl fmt::Display for DatasetError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(f, "{}, line {line}: {}", self.file, self.reason),
            None => write!(f, "{}: {}", self.file, self.reason),
        }
    }
}

impl std::error::Error for DatasetError {}

impl DatasetError {
    /// A problem with a whole file, not one of its lines.
    fn of_file(file: &str, reason: String) -> Self {
        DatasetError { file: file.to_string(), line: None, reason }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Query {
    pub id: String,
    pub text: String,
}

/// One question to evaluate: its text and its graded gold documents (grade > 0 only).
#[derive(Clone, Debug, PartialEq)]
pub struct LabelledQuery {
    pub id: String,
    pub text: String,
    pub relevant: BTreeMap<String, u32>,
}

/// Questions with gold labels, ready to run, and what was skipped on the way (never silently).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Dataset {
    /// What the user calls it (the folder name), shown in reports.
    pub name: String,
    pub split: String,
    pub queries: Vec<LabelledQuery>,
    pub warnings: Vec<String>,
}

#[derive(Deserialize)]
struct QueryRecord {
    #[serde(rename = "_id")]
    id: serde_json::Value,
    text: String,
}

/// Reads `queries.jsonl`. Every line must be a query object: a malformed line is an error, since a
/// benchmark silently missing questions would report a wrong figure.
pub fn parse_queries(file: &str, text: &str) -> Result<Vec<Query>, DatasetError> {
    let mut queries = Vec::new();
    let mut seen = HashSet::new();
    for (index, line) in text.lines().enumerate() {
        let error = |reason: String| DatasetError { file: file.to_string(), line: Some(index + 1), reason };
        if line.trim().is_empty() {
            continue;
        }
        let record: QueryRecord = serde_json::from_str(line).map_err(|e| error(format!("not a query object: {e}")))?;
        let id = match &record.id {
            serde_json::Value::String(s) if !s.trim().is_empty() => s.trim().to_string(),
            serde_json::Value::Number(n) => n.to_string(),
            _ => return Err(error("`_id` must be a non-empty string or a number".into())),
        };
        if !seen.insert(id.clone()) {
            return Err(error(format!("query `{id}` appears twice")));
        }
        queries.push(Query { id, text: record.text });
    }
    if queries.is_empty() {
        return Err(DatasetError { file: file.to_string(), line: None, reason: "no queries".into() });
    }
    Ok(queries)
}

/// One qrels row.
#[derive(Clone, Debug, PartialEq)]
pub struct Judgement {
    pub query: String,
    pub document: String,
    pub grade: i32,
}

/// Reads a qrels TSV. The header line (`query-id corpus-id score`) is optional; TREC's four-column
/// `qid 0 docid grade` form is accepted too.
pub fn parse_qrels(file: &str, text: &str) -> Result<Vec<Judgement>, DatasetError> {
    let mut judgements = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let error = |reason: String| DatasetError { file: file.to_string(), line: Some(index + 1), reason };
        if line.trim().is_empty() {
            continue;
        }
        let fields: Vec<&str> =
            if line.contains('\t') { line.split('\t').collect() } else { line.split_whitespace().collect() };
        let (query, document, grade) = match fields.as_slice() {
            [q, d, g] => (*q, *d, *g),
            [q, _, d, g] => (*q, *d, *g),
            _ => {
                return Err(error(format!(
                    "expected `query-id<TAB>corpus-id<TAB>score`, found {} fields",
                    fields.len()
                )));
            }
        };
        let grade = match grade.trim().parse::<i32>() {
            Ok(grade) => grade,
            Err(_) if index == 0 => continue, // the header
            Err(_) => return Err(error(format!("score `{grade}` is not an integer"))),
        };
        judgements.push(Judgement { query: query.trim().to_string(), document: document.trim().to_string(), grade });
    }
    if judgements.is_empty() {
        return Err(DatasetError { file: file.to_string(), line: None, reason: "no judgements".into() });
    }
    Ok(judgements)
}

/// Joins queries and judgements. Judgements naming an unknown query or document are skipped and reported;
/// a query with no relevant document left is skipped and reported.
pub fn label(
    name: &str,
    split: &str,
    queries: &[Query],
    judgements: &[Judgement],
    known_documents: &HashSet<&str>,
) -> Dataset {
    let by_id: HashMap<&str, &Query> = queries.iter().map(|q| (q.id.as_str(), q)).collect();
    let mut relevant: BTreeMap<&str, BTreeMap<String, u32>> = BTreeMap::new();
    let mut unknown_queries = BTreeMap::new();
    let mut unknown_documents = BTreeMap::new();
    let mut order: Vec<&str> = Vec::new();
    for judgement in judgements {
        if !by_id.contains_key(judgement.query.as_str()) {
            *unknown_queries.entry(judgement.query.as_str()).or_insert(0) += 1;
            continue;
        }
        let gold = relevant.entry(judgement.query.as_str()).or_insert_with(|| {
            order.push(judgement.query.as_str());
            BTreeMap::new()
        });
        if !known_documents.contains(judgement.document.as_str()) {
            *unknown_documents.entry(judgement.document.as_str()).or_insert(0) += 1;
            continue;
        }
        if judgement.grade > 0 {
            gold.insert(judgement.document.clone(), judgement.grade as u32);
        }
    }
    let mut warnings = Vec::new();
    report_unknown(&mut warnings, "query id", "queries file", &unknown_queries);
    report_unknown(&mut warnings, "corpus id", "indexed corpus", &unknown_documents);
    let mut dataset = Dataset { name: name.to_string(), split: split.to_string(), ..Dataset::default() };
    for id in order {
        let gold = relevant.remove(id).unwrap_or_default();
        if gold.is_empty() {
            warnings.push(format!("query `{id}` skipped: no relevant document in the indexed corpus"));
            continue;
        }
        dataset.queries.push(LabelledQuery { id: id.to_string(), text: by_id[id].text.clone(), relevant: gold });
    }
    dataset.warnings = warnings;
    dataset
}

fn report_unknown(warnings: &mut Vec<String>, what: &str, place: &str, unknown: &BTreeMap<&str, usize>) {
    if unknown.is_empty() {
        return;
    }
    let rows: usize = unknown.values().sum();
    let mut names: Vec<String> = unknown.keys().take(5).map(|id| format!("`{id}`")).collect();
    if unknown.len() > 5 {
        names.push(format!("… ({} more)", unknown.len() - 5));
    }
    warnings.push(format!(
        "{rows} qrels rows skipped: {} {what}s not in the {place}: {}",
        unknown.len(),
        names.join(", ")
    ));
}

/// Bytes a gzipped dataset file may inflate to: gzip states no size, and a few megabytes of a crafted one
/// inflate without end (a 6 MB file filled 8 GiB). The labelled sets here inflate to 6 MB at most; a corpus
/// of 256 MiB is already more than an index on a laptop or in a tab holds.
const MAX_INFLATED_BYTES: u64 = 256 << 20;

/// A dataset file's bytes, ungzipped when its name ends in `.gz` (BEIR files ship either way).
pub fn file_bytes(name: &str, bytes: Vec<u8>) -> Result<Vec<u8>, DatasetError> {
    inflate(name, bytes, MAX_INFLATED_BYTES)
}

fn inflate(name: &str, bytes: Vec<u8>, limit: u64) -> Result<Vec<u8>, DatasetError> {
    if !name.ends_with(".gz") {
        return Ok(bytes);
    }
    let mut out = Vec::new();
    let decoder = flate2::read::GzDecoder::new(bytes.as_slice());
    std::io::Read::read_to_end(&mut std::io::Read::take(decoder, limit + 1), &mut out)
        .map_err(|e| DatasetError::of_file(name, format!("not a readable gzip file: {e}")))?;
    if out.len() as u64 > limit {
        let limit = match limit >= 1 << 20 {
            true => format!("{} MiB", limit >> 20),
            false => format!("{limit} bytes"),
        };
        return Err(DatasetError::of_file(name, format!("inflates past {limit}, the limit for a dataset file")));
    }
    Ok(out)
}

/// Bytes as UTF-8 text, or an error naming the file they came from.
fn utf8(name: &str, bytes: Vec<u8>) -> Result<String, DatasetError> {
    String::from_utf8(bytes).map_err(|e| DatasetError::of_file(name, format!("not UTF-8 text ({e})")))
}

/// Where a labelled folder's files are read from: a folder on disk (`quire eval`), or the files a user
/// picked in the browser (the evaluation view). Both find a file or its gzipped form alike, and say alike
/// what is missing.
pub trait DatasetFolder {
    /// How the file `name` (a path inside the folder) is named in messages.
    fn describe(&self, name: &str) -> String;

    /// The bytes of the file `name`, or `None` when the folder has none of that name.
    fn read(&self, name: &str) -> Result<Option<Vec<u8>>, DatasetError>;
}

/// A labelled folder on disk (`quire eval`, the examples).
#[cfg(not(target_arch = "wasm32"))]
pub struct DiskFolder<'a>(pub &'a std::path::Path);

#[cfg(not(target_arch = "wasm32"))]
impl DatasetFolder for DiskFolder<'_> {
    fn describe(&self, name: &str) -> String {
        self.0.join(name).display().to_string()
    }

    fn read(&self, name: &str) -> Result<Option<Vec<u8>>, DatasetError> {
        match std::fs::read(self.0.join(name)) {
            Ok(bytes) => Ok(Some(bytes)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(DatasetError::of_file(&self.describe(name), e.to_string())),
        }
    }
}

/// What a labelled folder holds, for the message naming a missing file.
const LAYOUT: &str = "not in the folder (a labelled folder holds queries.jsonl, qrels/<split>.tsv and its corpus: \
                      corpus.jsonl, or a corpus/ folder of files; each .jsonl and .tsv optionally gzipped)";

/// The file `name` of `folder`, or its gzipped form ungzipped, with the name it was found under.
pub fn read_file(folder: &dyn DatasetFolder, name: &str) -> Result<(String, Vec<u8>), DatasetError> {
    for candidate in [name.to_string(), format!("{name}.gz")] {
        if let Some(bytes) = folder.read(&candidate)? {
            let shown = folder.describe(&candidate);
            let bytes = file_bytes(&shown, bytes)?;
            return Ok((shown, bytes));
        }
    }
    Err(DatasetError::of_file(&folder.describe(name), LAYOUT.to_string()))
}

/// The questions and `split`'s judgements of `folder`, read before its corpus is indexed.
pub fn read_labels(folder: &dyn DatasetFolder, split: &str) -> Result<Labels, DatasetError> {
    let text = |name: &str| {
        let (shown, bytes) = read_file(folder, name)?;
        let text = utf8(&shown, bytes)?;
        Ok::<_, DatasetError>((shown, text))
    };
    let (queries, qrels) = (text("queries.jsonl")?, text(&format!("qrels/{split}.tsv"))?);
    Labels::parse((&queries.0, &queries.1), (&qrels.0, &qrels.1))
}

/// A BEIR folder's questions and one split's judgements, read before its corpus is indexed, so a bad file is
/// reported before any embedding.
pub struct Labels {
    queries: Vec<Query>,
    judgements: Vec<Judgement>,
    qrels_name: String,
}

impl Labels {
    /// `queries.jsonl` and `qrels/<split>.tsv` as (name, text); the names are what errors show.
    pub fn parse(
        (queries_name, queries): (&str, &str),
        (qrels_name, qrels): (&str, &str),
    ) -> Result<Labels, DatasetError> {
        Ok(Labels {
            queries: parse_queries(queries_name, queries)?,
            judgements: parse_qrels(qrels_name, qrels)?,
            qrels_name: qrels_name.to_string(),
        })
    }

    /// The questions labelled with the documents of the index; those with no relevant document there are
    /// dropped with a warning, and none left is an error.
    pub fn label(&self, dataset: &str, split: &str, indexed: &HashSet<&str>) -> Result<Dataset, DatasetError> {
        let labelled = label(dataset, split, &self.queries, &self.judgements, indexed);
        if labelled.queries.is_empty() {
            let reason = "no question has a relevant document in the index";
            return Err(DatasetError::of_file(&self.qrels_name, reason.to_string()));
        }
        Ok(labelled)
    }
}

#[cfg(test)]
mod tests {

    #[test]
    fn a_gzip_file_that_inflates_past_the_limit_is_refused_without_reading_on() {
        use std::io::Write;
        let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        encoder.write_all(&vec![b'{'; 1 << 20]).unwrap();
        let bomb = encoder.finish().unwrap();
        assert!(bomb.len() < 10_000, "a megabyte of one byte packs small");
        let refused = inflate("queries.jsonl.gz", bomb.clone(), 1 << 16).unwrap_err().to_string();
        assert!(refused.contains("queries.jsonl.gz") && refused.contains("inflates past 65536 bytes"), "{refused}");
        assert_eq!(inflate("queries.jsonl.gz", bomb, 1 << 20).unwrap().len(), 1 << 20);
    }
    use super::*;

    #[test]
    fn reads_beir_queries_and_qrels() {
        let queries = parse_queries(
            "queries.jsonl",
            "{\"_id\": \"1\", \"text\": \"What is up?\", \"metadata\": {}}\n{\"_id\": 7, \"text\": \"Seven\"}\n",
        )
        .unwrap();
        assert_eq!(queries[1], Query { id: "7".into(), text: "Seven".into() });
        let qrels = parse_qrels("test.tsv", "query-id\tcorpus-id\tscore\n1\td1\t2\n1\td2\t0\n7\td9\t1\n").unwrap();
        assert_eq!(qrels.len(), 3);
        let documents: HashSet<&str> = ["d1", "d2"].into_iter().collect();
        let dataset = label("tiny", "test", &queries, &qrels, &documents);
        assert_eq!(dataset.queries.len(), 1);
        assert_eq!(dataset.queries[0].relevant, BTreeMap::from([("d1".to_string(), 2)]));
        assert_eq!(dataset.warnings.len(), 2, "{:?}", dataset.warnings);
        assert!(dataset.warnings[0].contains("`d9`"), "{:?}", dataset.warnings);
        assert!(dataset.warnings[1].contains("query `7` skipped"), "{:?}", dataset.warnings);
    }

    #[test]
    fn errors_name_file_and_line() {
        let error = parse_queries("q.jsonl", "{\"_id\": \"1\", \"text\": \"a\"}\n{oops\n").unwrap_err();
        assert_eq!((error.file.as_str(), error.line), ("q.jsonl", Some(2)));
        let error = parse_qrels("test.tsv", "query-id\tcorpus-id\tscore\n1\td1\tmany\n").unwrap_err();
        assert_eq!(error.to_string(), "test.tsv, line 2: score `many` is not an integer");
        let error = parse_qrels("test.tsv", "1\td1\n").unwrap_err();
        assert!(error.to_string().contains("line 1"), "{error}");
        let error = parse_queries("q.jsonl", "{\"_id\": \"1\", \"text\": \"a\"}\n{\"_id\": \"1\", \"text\": \"b\"}\n");
        assert!(error.unwrap_err().reason.contains("twice"));
    }
}
