//! `quire eval` end to end on real cuts of SciFact (tests/fixtures/scifact-subset, 300 documents) and of
//! HotpotQA dev 500 (datasets/hotpotqa-demo, 400 paragraphs of 60 multi-hop questions), both made by
//! `scripts/make_eval_fixture.py`: it indexes once, caches the index, and reproduces the figures the full
//! pipeline computed for these subsets when the fixtures were made. Bad dataset folders get errors naming the
//! file.

use crate::common;

use std::path::Path;
use std::process::{Command, Output};

fn quire_eval(cache: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_quire"))
        .arg("eval")
        .args(args)
        .env("QUIRE_MODEL_DIR", common::model_dir())
        .env("XDG_CACHE_HOME", cache)
        .output()
        .expect("the quire binary runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// nDCG@10 and Recall@10 per retriever, as the full pipeline computed them on this subset when the fixture was
/// made (`quire eval tests/fixtures/scifact-subset -k 10`).
const EXPECTED: [(&str, f64, f64); 4] =
    [("dense", 0.8076, 0.9774), ("bm25", BM25_NDCG, 0.9264), ("rrf", 0.8331, 0.9585), ("zsum", 0.8333, 0.9774)];
const BM25_NDCG: f64 = 0.7831;
const EXPECTED_QUESTIONS: usize = 53;
/// Thread scheduling never changes results, but int8 rounding may differ across CPUs by a tie or two.
const TOLERANCE: f64 = 0.01;

#[test]
fn reproduces_subset_figures_and_caches_the_index() {
    let cache = tempfile::tempdir().unwrap();
    let fixture = common::root().join("tests/fixtures/scifact-subset");
    let fixture = fixture.to_str().unwrap();
    let out = quire_eval(cache.path(), &[fixture, "--json", "-k", "10", "--metrics", "ndcg,recall"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    // Status lines go to stderr, so `--json` output is JSON and nothing else.
    let report: quire::eval::EvalReport = serde_json::from_slice(&out.stdout).expect("stdout is one JSON report");
    assert_eq!(report.queries.len(), EXPECTED_QUESTIONS);
    for (method, ndcg, recall) in EXPECTED {
        let result = report.result(method).unwrap_or_else(|| panic!("no {method} row"));
        assert!((result.means[0] - ndcg).abs() < TOLERANCE, "{method} nDCG@10 {} vs {ndcg}", result.means[0]);
        assert!((result.means[1] - recall).abs() < TOLERANCE, "{method} R@10 {} vs {recall}", result.means[1]);
        assert_eq!(result.per_query.len(), report.queries.len());
    }

    let again = quire_eval(cache.path(), &[fixture, "--retrievers", "bm25", "--baseline", "bm25"]);
    assert!(again.status.success(), "{}", text(&again.stderr));
    let stdout = text(&again.stdout);
    assert!(text(&again.stderr).contains("using the cached index"), "{}", text(&again.stderr));
    assert!(stdout.contains("document score = best score of its chunks"), "{stdout}");
    assert!(stdout.lines().any(|l| l.starts_with("bm25 ") && l.contains(&format!("{BM25_NDCG:.3}"))), "{stdout}");

    // An index cached under another key (an earlier revision of the pipeline) lends its vectors.
    let folder = cache.path().join("quire/eval");
    let cached: Vec<_> = std::fs::read_dir(&folder).unwrap().flatten().map(|e| e.path()).collect();
    assert_eq!(cached.len(), 1, "{cached:?}");
    std::fs::rename(&cached[0], folder.join("scifact-subset-0123456789abcdef.quire")).unwrap();
    let rebuilt = quire_eval(cache.path(), &[fixture, "--retrievers", "bm25", "--baseline", "bm25"]);
    let stderr = text(&rebuilt.stderr);
    assert!(rebuilt.status.success() && stderr.contains("reusing the vectors of"), "{stderr}");
    assert!(stderr.contains("embedded 0 new texts"), "{stderr}");
    assert!(text(&rebuilt.stdout).contains(&format!("{BM25_NDCG:.3}")), "{}", text(&rebuilt.stdout));

    // The search a built site adds, ranked over the index's fragments by the query table's vectors: one row,
    // as good as BM25 within what scanning a few partitions and the table cost.
    let site = quire_eval(cache.path(), &[fixture, "--site-search", "--json", "-k", "10", "--metrics", "ndcg"]);
    assert!(site.status.success(), "{}", text(&site.stderr));
    let report: quire::eval::EvalReport = serde_json::from_slice(&site.stdout).unwrap();
    assert_eq!(report.results.len(), 1);
    let ndcg = report.result("site-search").expect("a site-search row").means[0];
    assert!(ndcg > BM25_NDCG - 0.1 && ndcg <= 1.0, "site search nDCG@10 {ndcg} against BM25's {BM25_NDCG}");

    train_and_evaluate_learned_fusion(cache.path(), fixture);
}

/// `quire train-fusion` on the cached index writes a model that `quire eval --fusion-model` runs. The subset
/// has one labelled split, so this checks the plumbing, not generalisation (docs/QUALITY.md measures that).
fn train_and_evaluate_learned_fusion(cache: &Path, fixture: &str) {
    let model = cache.join("fusion.safetensors");
    let model = model.to_str().unwrap();
    let trained = Command::new(env!("CARGO_BIN_EXE_quire"))
        .args(["train-fusion", fixture, "--split", "test", "--retrievers", "dense,bm25,page", "-o", model])
        .env("QUIRE_MODEL_DIR", common::model_dir())
        .env("XDG_CACHE_HOME", cache)
        .output()
        .expect("the quire binary runs");
    assert!(trained.status.success(), "{}", text(&trained.stderr));
    let stdout = text(&trained.stdout);
    assert!(stdout.contains("53 questions of scifact-subset (test split)"), "{stdout}");
    assert!(stdout.contains("permutation importance on the 11 validation questions"), "{stdout}");
    assert!(stdout.contains("hard negatives:"), "{stdout}");

    let out = quire_eval(cache, &[fixture, "--retrievers", "learned", "--fusion-model", model, "--json", "-k", "10"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let report: quire::eval::EvalReport = serde_json::from_slice(&out.stdout).expect("stdout is one JSON report");
    let learned = report.result("learned").expect("a learned row");
    assert!(learned.means[0] > 0.6, "learned nDCG@10 {}", learned.means[0]);

    let bad = quire_eval(cache, &[fixture, "--retrievers", "learned", "--fusion-model", fixture]);
    assert!(!bad.status.success());
    assert!(text(&bad.stderr).contains(fixture), "{}", text(&bad.stderr));
}

/// Set Coverage@2 and @5 (both gold paragraphs among the top k) on the multi-hop subset, as the full pipeline
/// computed them (`quire eval datasets/hotpotqa-demo -k 2,5 --metrics coverage --retrievers
/// zsum,onehop,join`). The node-set join, following title mentions from the anchors, finds both paragraphs of
/// a bridge question where dense + BM25 find one; the demo's sample questions are such questions.
const MULTI_HOP_EXPECTED: [(&str, f64, f64); 3] =
    [("zsum", 0.233, 0.617), ("onehop", 0.517, 0.833), ("join", 0.550, 0.883)];
/// Two questions of sixty.
const MULTI_HOP_TOLERANCE: f64 = 0.034;

#[test]
fn graph_retrieval_finds_both_hops_of_multi_hop_questions() {
    let cache = tempfile::tempdir().unwrap();
    let fixture = common::root().join("datasets/hotpotqa-demo");
    let args = ["-k", "2,5", "--metrics", "coverage", "--retrievers", "dense,zsum,onehop,join", "--json"];
    let out = quire_eval(cache.path(), &[&[fixture.to_str().unwrap()][..], &args].concat());
    assert!(out.status.success(), "{}", text(&out.stderr));
    let report: quire::eval::EvalReport = serde_json::from_slice(&out.stdout).expect("stdout is one JSON report");
    assert_eq!(report.queries.len(), 60);
    let coverage = |method: &str| report.result(method).unwrap_or_else(|| panic!("no {method} row")).means.clone();
    for (method, at2, at5) in MULTI_HOP_EXPECTED {
        let got = coverage(method);
        assert!((got[0] - at2).abs() < MULTI_HOP_TOLERANCE, "{method} Cov@2 {} vs {at2}", got[0]);
        assert!((got[1] - at5).abs() < MULTI_HOP_TOLERANCE, "{method} Cov@5 {} vs {at5}", got[1]);
    }
    let (join, zsum) = (coverage("join"), coverage("zsum"));
    assert!(join[0] > zsum[0] + 0.2 && join[1] > zsum[1] + 0.15, "join {join:?} vs zsum {zsum:?}");

    // The app's multi-hop demo offers these questions as ones the graph answers and dense search misses.
    let samples: Vec<serde_json::Value> =
        serde_json::from_slice(&std::fs::read(fixture.join("questions.json")).unwrap()).unwrap();
    assert!(samples.len() >= 5);
    let at5 = |method: &str, position: usize| report.result(method).unwrap().per_query[position][1];
    for sample in &samples {
        let id = sample["id"].as_str().unwrap();
        let position = report.queries.iter().position(|q| q == id).unwrap_or_else(|| panic!("{id} not asked"));
        assert_eq!((at5("join", position), at5("dense", position)), (1.0, 0.0), "{sample}");
    }
}

#[test]
fn bad_dataset_folders_are_named() {
    let cache = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().to_str().unwrap();
    let out = quire_eval(cache.path(), &[path]);
    assert!(!out.status.success());
    assert!(text(&out.stderr).contains("queries.jsonl: not in the folder"), "{}", text(&out.stderr));

    std::fs::write(dir.path().join("queries.jsonl"), "{\"_id\": \"1\", \"text\": \"a claim\"}\nnot json\n").unwrap();
    std::fs::create_dir(dir.path().join("qrels")).unwrap();
    std::fs::write(dir.path().join("qrels/test.tsv"), "query-id\tcorpus-id\tscore\n1\td1\t1\n").unwrap();
    let out = quire_eval(cache.path(), &[path]);
    assert!(text(&out.stderr).contains("queries.jsonl, line 2: not a query object"), "{}", text(&out.stderr));

    let out = quire_eval(cache.path(), &[path, "--split", "dev"]);
    assert!(text(&out.stderr).contains("qrels/dev.tsv: not in the folder"), "{}", text(&out.stderr));
    let out = quire_eval(cache.path(), &[path, "--retrievers", "dense,graph"]);
    assert!(text(&out.stderr).contains("unknown retriever `graph`"), "{}", text(&out.stderr));
}
