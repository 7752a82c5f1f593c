//! The `quire` command line end to end: index a folder (with a bad file in it), stats, query, add, remove.

mod common;

use std::process::{Command, Output};

fn quire(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_quire"))
        .args(args)
        .env("QUIRE_MODEL_DIR", common::model_dir())
        .output()
        .expect("the quire binary runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn index_stats_query_add_remove() {
    let dir = tempfile::tempdir().unwrap();
    let docs = dir.path().join("docs");
    std::fs::create_dir(&docs).unwrap();
    for file in common::demo_files() {
        std::fs::write(docs.join(&file.path), &file.bytes).unwrap();
    }
    std::fs::write(docs.join("broken.csv"), [0xff, 0xfe, 0x00, 0x01]).unwrap();
    std::fs::write(docs.join("notes.bin"), [1, 2, 3]).unwrap();
    let snapshot = dir.path().join("demo.quire");
    let snapshot = snapshot.to_str().unwrap();

    let out = quire(&["index", docs.to_str().unwrap(), "-o", snapshot]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("broken.csv: binary content where CSV text was expected"),
        "{}",
        text(&out.stderr)
    );
    assert!(!text(&out.stderr).contains("notes.bin"), "unsupported files inside folders are skipped silently");
    assert!(text(&out.stdout).contains("parsed 6 documents (1 files failed)"), "{}", text(&out.stdout));

    let out = quire(&["stats", snapshot, "--json"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stats: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(stats["documents"], 6);
    assert_eq!(stats["graph"]["nodes"]["page"], 6);
    assert!(stats["graph"]["edges"]["semantic_rel"].as_u64().unwrap() > 0);

    let out = quire(&["query", snapshot, "When did Eagle land in the Sea of Tranquility?", "-k", "3"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let printed = text(&out.stdout);
    for heading in ["Dense (cosine)", "BM25", "RRF (k = 60)"] {
        assert!(printed.contains(heading), "{printed}");
    }
    let rrf = printed.split("RRF (k = 60)").nth(1).unwrap();
    assert!(rrf.contains("  1. ") && rrf.lines().nth(1).unwrap().contains("Apollo 11 › Landing › #1"), "{printed}");

    let extra = dir.path().join("venus.md");
    std::fs::write(
        &extra,
        "# Venus\n\nVenus has a thick carbon dioxide atmosphere and surface temperatures above 450 degrees.\n",
    )
    .unwrap();
    let out = quire(&["add", snapshot, extra.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("reused"), "{}", text(&out.stdout));
    let out = quire(&["stats", snapshot, "--json"]);
    let stats: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(stats["documents"], 7);

    let removed = docs.join("sun.txt");
    let out = quire(&["remove", snapshot, removed.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let out = quire(&["stats", snapshot, "--json"]);
    let stats: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(stats["documents"], 6);

    let out = quire(&["remove", snapshot, "nope.md"]);
    assert!(!out.status.success());
    assert!(text(&out.stderr).contains("not in the snapshot: nope.md"));
}

#[test]
fn clear_errors_for_bad_snapshots_and_missing_models() {
    let dir = tempfile::tempdir().unwrap();
    let bogus = dir.path().join("bogus.quire");
    std::fs::write(&bogus, b"QUIRESNP\x01\x00\x00\x00").unwrap();
    let out = quire(&["stats", bogus.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("bogus.quire: the snapshot is truncated"), "{}", text(&out.stderr));

    let doc = dir.path().join("a.md");
    std::fs::write(&doc, "# A\n\ntext").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_quire"))
        .args([
            "--model-dir",
            "/nonexistent",
            "index",
            doc.to_str().unwrap(),
            "-o",
            dir.path().join("x.quire").to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("model file /nonexistent/model.onnx is missing or unreadable"),
        "{}",
        text(&out.stderr)
    );
    assert!(text(&out.stderr).contains("bash models/fetch.sh"));
}
