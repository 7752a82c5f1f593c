//! From chunk rankings to document rankings, and TREC run files of them so anyone can re-score a run with
//! trec_eval. Gold labels name documents while Quire retrieves chunks: a document's score is the best score of
//! its chunks. Ties are ordered as trec_eval orders them (document id descending), so re-scoring a written
//! run gives exactly the figures Quire printed.

use std::collections::{BTreeMap, HashMap};

use crate::corpus::Corpus;
use crate::retrieve::ScoredChunk;

/// A document's id in a BEIR corpus: what follows `#` in a JSONL record's source (`corpus.jsonl#4983`), or
/// the whole source for documents read from single files.
pub fn corpus_id(source: &str) -> &str {
    source.split_once('#').map_or(source, |(_, id)| id)
}

/// Best chunk score per document, best first, at most `depth` documents.
pub fn rank_documents<'c>(corpus: &'c Corpus, chunks: &[ScoredChunk], depth: usize) -> Vec<(&'c str, f32)> {
    let mut best: HashMap<u32, f32> = HashMap::new();
    for hit in chunks {
        let document = corpus.chunks[hit.chunk as usize].document;
        let score = best.entry(document).or_insert(f32::NEG_INFINITY);
        *score = score.max(hit.score);
    }
    let mut ranked: Vec<(&str, f32)> =
        best.into_iter().map(|(doc, score)| (corpus_id(&corpus.documents[doc as usize].source), score)).collect();
    ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| b.0.cmp(a.0)));
    ranked.truncate(depth);
    ranked
}

/// trec_eval splits lines on whitespace, so ids are written with whitespace and `%` percent-encoded
/// (`Kiss and Tell (1945 film)` → `Kiss%20and%20Tell%20(1945%20film)`), the same way in runs and qrels.
pub fn trec_id(id: &str) -> String {
    let mut out = String::with_capacity(id.len());
    for c in id.chars() {
        match c {
            '%' => out.push_str("%25"),
            c if c.is_whitespace() => {
                let mut buffer = [0u8; 4];
                for byte in c.encode_utf8(&mut buffer).bytes() {
                    out.push_str(&format!("%{byte:02X}"));
                }
            }
            c => out.push(c),
        }
    }
    out
}

/// `qid Q0 docid rank score tag` lines. Scores are written in full (shortest round-trip form).
pub fn trec_run<'a>(tag: &str, rankings: impl IntoIterator<Item = (&'a str, &'a [(String, f32)])>) -> String {
    let mut out = String::new();
    for (query, ranking) in rankings {
        for (position, (document, score)) in ranking.iter().enumerate() {
            out.push_str(&format!("{} Q0 {} {} {score} {tag}\n", trec_id(query), trec_id(document), position + 1));
        }
    }
    out
}

/// `qid 0 docid grade` lines, the qrels format trec_eval reads.
pub fn trec_qrels<'a>(labels: impl IntoIterator<Item = (&'a str, &'a BTreeMap<String, u32>)>) -> String {
    let mut out = String::new();
    for (query, relevant) in labels {
        for (document, grade) in relevant {
            out.push_str(&format!("{} 0 {} {grade}\n", trec_id(query), trec_id(document)));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_survive_whitespace_splitting() {
        assert_eq!(corpus_id("data/corpus.jsonl#Kiss and Tell (1945 film)"), "Kiss and Tell (1945 film)");
        assert_eq!(corpus_id("notes/moon.md"), "notes/moon.md");
        assert_eq!(trec_id("Kiss and Tell (1945 film)"), "Kiss%20and%20Tell%20(1945%20film)");
        assert_eq!(trec_id("100%\tsure"), "100%25%09sure");
        let ranking = vec![("d 1".to_string(), 0.5f32), ("d2".to_string(), 0.25)];
        let run = trec_run("dense", [("q1", ranking.as_slice())]);
        assert_eq!(run, "q1 Q0 d%201 1 0.5 dense\nq1 Q0 d2 2 0.25 dense\n");
        let gold = BTreeMap::from([("d 1".to_string(), 2)]);
        assert_eq!(trec_qrels([("q1", &gold)]), "q1 0 d%201 2\n");
    }
}
