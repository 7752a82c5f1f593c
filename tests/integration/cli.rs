//! The `quire` command line end to end: index a folder (with a bad file in it), stats, query, add, remove.

use crate::common;

use common::quire;

use std::process::Command;

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn index_stats_query_add_remove() {
    let dir = tempfile::tempdir().unwrap();
    let docs = common::write_demo_folder(dir.path());
    // A PNG's first bytes under a .csv name. (`FF FE …` would be a UTF-16 file, and is read as one.)
    std::fs::write(docs.join("broken.csv"), b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR").unwrap();
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
    assert!(text(&out.stderr).contains("parsed 6 documents (1 files failed)"), "{}", text(&out.stderr));

    let out = quire(&["stats", snapshot, "--json"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stats: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(stats["documents"], 6);
    assert_eq!(stats["node_vectors"], false, "an index embeds its chunks only");
    // A reader that leaves before the output is written (`quire stats … | head -0`) ends it without a panic.
    let mut reader_gone = Command::new(env!("CARGO_BIN_EXE_quire"))
        .args(["stats", snapshot, "--documents"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(reader_gone.stdout.take());
    let out = reader_gone.wait_with_output().unwrap();
    assert!(!text(&out.stderr).contains("panicked"), "{}", text(&out.stderr));
    assert_ne!(out.status.code(), Some(101), "{}", text(&out.stderr));
    assert_eq!(stats["graph"]["nodes"]["page"], 6);
    assert!(stats["graph"]["edges"]["semantic_rel"].as_u64().unwrap() > 0);
    let communities = |stats: &serde_json::Value| stats["chunk_graph"]["communities"].as_u64().unwrap();
    let indexed_communities = communities(&stats);
    assert!(indexed_communities >= 6, "every document is at least one community: {stats}");

    let out = quire(&["query", snapshot, "When did Eagle land in the Sea of Tranquility?", "-k", "3"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let printed = text(&out.stdout);
    for heading in ["\ndense\n", "\nbm25\n", "\ncommunity\n", "\njoin\n", "\ndefault — the default: "] {
        assert!(printed.contains(heading), "{printed}");
    }
    let default = printed.split("default — ").nth(1).unwrap();
    assert!(default.lines().nth(1).unwrap().contains("Apollo 11 › Landing › #1"), "{printed}");
    // Results are documents: none is listed twice.
    let sources: Vec<&str> =
        default.lines().filter(|l| l.contains(" chars ")).map(|l| l.split_whitespace().next().unwrap()).collect();
    assert_eq!(sources.len(), 3, "{printed}");
    assert_eq!(sources.iter().collect::<std::collections::HashSet<_>>().len(), 3, "{printed}");

    // The path retriever's trace names its seeds and the subgraph it kept; --json carries the same trace.
    let question = "Which agency launched the mission that landed Eagle?";
    let out = quire(&["query", snapshot, question, "-k", "3", "--method", "rrf-all", "--trace"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    // rrf-all reads the path retriever, which searches entity vectors: they are embedded now, and kept.
    let adding = "holds chunk vectors only: embedding its pages, sections, entities and relations";
    assert!(text(&out.stderr).contains(adding), "{}", text(&out.stderr));
    let stats: serde_json::Value = serde_json::from_slice(&quire(&["stats", snapshot, "--json"]).stdout).unwrap();
    assert_eq!(stats["node_vectors"], true);
    let printed = text(&out.stdout);
    for part in ["[path] weight 1", "seeds — entities nearest the query", "keep — subgraph", "[fusion: rrf]"] {
        assert!(printed.contains(part), "{part} missing from\n{printed}");
    }
    let out = quire(&["query", snapshot, question, "-k", "3", "--method", "zsum:dense+path*2", "--json"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(!text(&out.stderr).contains(adding), "once is enough: {}", text(&out.stderr));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["method"], "zsum:dense+path*2");
    assert_eq!(json["trace"]["retrievers"][1]["weight"], 2.0);
    assert_eq!(json["trace"]["fusion"]["rows"][0]["features"].as_array().unwrap().len(), 2);
    assert_eq!(json["results"].as_array().unwrap().len(), 3);
    let out = quire(&["query", snapshot, question, "-k", "3", "--method", "community", "--trace"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let printed = text(&out.stdout);
    assert!(
        printed.contains("seeds — communities nearest the query") && printed.contains("community 0 ("),
        "{printed}"
    );
    // By the query table, without the model: its model folder is one that holds none.
    let by_table = |question: &str| {
        let out = Command::new(env!("CARGO_BIN_EXE_quire"))
            .args(["query", snapshot, question, "-k", "1", "--method", "dense", "--query-table", "--json"])
            .env("QUIRE_MODEL_DIR", dir.path())
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", text(&out.stderr));
        let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        json["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["chunk"]["label"].as_str().unwrap().to_string())
            .collect::<Vec<_>>()
    };
    assert!(by_table("When did Eagle land in the Sea of Tranquility?")[0].contains("Apollo 11"));
    assert_eq!(by_table("carbon dioxide"), Vec::<String>::new(), "no term of it is in the index");
    let out = quire(&["query", snapshot, question, "--method", "rrf:dense+nothing"]);
    assert!(!out.status.success() && text(&out.stderr).contains("unknown retriever `nothing`"));

    let extra = dir.path().join("venus.md");
    std::fs::write(
        &extra,
        "# Venus\n\nVenus has a thick carbon dioxide atmosphere and surface temperatures above 450 degrees.\n",
    )
    .unwrap();
    let out = quire(&["add", snapshot, extra.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    // Only Venus's own texts (page, chunk, entity) are new; everything else comes from the snapshot.
    let (embedded, reused) = embedding_counts(&text(&out.stderr));
    assert!((1..=4).contains(&embedded), "{}", text(&out.stderr));
    assert!(reused > 20, "{}", text(&out.stderr));
    let out = quire(&["stats", snapshot, "--json"]);
    let stats: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(stats["documents"], 7);
    assert!(communities(&stats) > indexed_communities, "the chunk graph is rebuilt on add: {stats}");
    let (terms, _) = (stats["query_table"][0].as_u64().unwrap(), stats["query_table"][1].as_u64().unwrap());
    assert!(by_table("carbon dioxide")[0].contains("Venus"), "the table is trained again on add");

    let removed = docs.join("sun.txt");
    let out = quire(&["remove", snapshot, removed.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let out = quire(&["stats", snapshot, "--json"]);
    let stats: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(stats["documents"], 6);
    assert!(communities(&stats) >= 6 && stats["chunk_graph"]["communities"] != serde_json::Value::Null, "{stats}");
    assert!(stats["query_table"][0].as_u64().unwrap() < terms, "and again on remove: {stats}");

    let out = quire(&["remove", snapshot, "nope.md"]);
    assert!(!out.status.success());
    assert!(text(&out.stderr).contains("not in the index: nope.md"), "{}", text(&out.stderr));
}

#[test]
fn one_file_named_three_ways_is_one_document() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("notes")).unwrap();
    let file = dir.path().join("notes/moon.md");
    std::fs::write(&file, "# Moon\n\nThe Moon orbits the Earth.\n").unwrap();
    let run = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_quire"))
            .args(args)
            .current_dir(dir.path())
            .env("QUIRE_MODEL_DIR", common::model_dir())
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", text(&out.stderr));
        out
    };
    run(&["index", "notes/moon.md", "-o", "s.quire"]);
    run(&["add", "s.quire", "./notes/../notes/moon.md"]);
    run(&["add", "s.quire", file.to_str().unwrap()]);
    let out = run(&["stats", "s.quire", "--documents"]);
    let listed: Vec<String> = text(&out.stdout).lines().filter(|l| l.contains("\"Moon\"")).map(String::from).collect();
    assert_eq!(listed, vec!["  en  notes/moon.md  \"Moon\"".to_string()]);
}

#[test]
fn a_snapshot_with_a_short_model_hash_is_shown_not_a_crash() {
    let documents = quire::corpus::ingest(&common::demo_files(), &Default::default()).documents;
    let mut identity = quire::embed::TextEmbedder::identity(common::embedder()).clone();
    identity.model_hash = "abc".into();
    let mut builder = quire::store::IndexBuilder::new(
        documents,
        common::embedder(),
        identity,
        Default::default(),
        None,
        quire::store::Vectors::All,
    );
    builder.embed_all(common::embedder()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("short.quire");
    std::fs::write(&path, builder.finish().to_snapshot().unwrap()).unwrap();
    let out = quire(&["stats", path.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("[abc]"), "{}", text(&out.stdout));
}

/// `embedded N new texts (P word pieces), reused M in …` as the CLI prints it after an update.
fn embedding_counts(stderr: &str) -> (usize, usize) {
    let line = stderr.lines().find(|l| l.starts_with("embedded ")).expect("an embedding summary line");
    let numbers: Vec<usize> = line.split_whitespace().filter_map(|w| w.trim_end_matches(',').parse().ok()).collect();
    (numbers[0], numbers[1])
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

/// A folder with a FIFO and a link to `/dev/zero` named like documents, a link back to itself and a link to
/// a document outside it: the run ends, indexes the good file and names each of the others (it blocked
/// forever, or read without end, or read a file from outside the folder).
#[cfg(unix)]
#[test]
fn pipes_devices_and_link_loops_in_a_folder_are_named_not_read() {
    let dir = tempfile::tempdir().unwrap();
    let docs = dir.path().join("docs");
    std::fs::create_dir(&docs).unwrap();
    std::fs::write(docs.join("moon.md"), "# Moon\n\nThe Moon is Earth's only natural satellite.\n").unwrap();
    let fifo = std::ffi::CString::new(docs.join("pipe.md").to_str().unwrap()).unwrap();
    // SAFETY: a NUL-terminated path and a mode; mkfifo touches nothing else.
    assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o644) }, 0);
    std::os::unix::fs::symlink("/dev/zero", docs.join("zero.txt")).unwrap();
    std::os::unix::fs::symlink(&docs, docs.join("again")).unwrap();
    std::fs::write(dir.path().join("diary.md"), "# Diary\n\nNot in the folder.\n").unwrap();
    std::os::unix::fs::symlink(dir.path().join("diary.md"), docs.join("diary.md")).unwrap();
    let snapshot = dir.path().join("out.quire");
    let out = quire(&["index", docs.to_str().unwrap(), "-o", snapshot.to_str().unwrap()]);
    let stderr = text(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("parsed 1 documents (4 files failed)"), "{stderr}");
    assert!(stderr.contains("pipe.md: not a regular file"), "{stderr}");
    assert!(stderr.contains("zero.txt: a link out of the folder, not followed"), "{stderr}");
    assert!(stderr.contains("diary.md: a link out of the folder, not followed"), "{stderr}");
    assert!(stderr.contains("again: a link back to"), "{stderr}");
}

/// A stand-in for the app's build: the files `quire site` copies, and the demos it leaves out.
fn fake_app(dir: &std::path::Path) -> std::path::PathBuf {
    let app = dir.join("app");
    std::fs::create_dir_all(app.join("snapshots")).unwrap();
    std::fs::write(app.join("index.html"), "<!doctype html><title>Quire</title>".repeat(20)).unwrap();
    std::fs::write(app.join("quire.js"), "export function start() {}\n".repeat(50)).unwrap();
    std::fs::write(app.join("snapshots/demo.quire"), b"demo").unwrap();
    std::fs::write(app.join("snapshots/scifact-subset.quire"), b"evaluation").unwrap();
    std::fs::write(app.join("sw.js"), "stale").unwrap();
    std::fs::create_dir_all(app.join("models")).unwrap();
    std::fs::write(app.join("models/model.onnx"), b"minilm").unwrap();
    std::fs::write(app.join("models/e5-small.onnx"), b"e5").unwrap();
    std::fs::write(app.join("models/e5-tokenizer.json"), b"{}").unwrap();
    let listed = r#"{"corpora": [{"key": "demo", "title": "Demo", "snapshot": "snapshots/demo.quire"}]}"#;
    std::fs::write(app.join("corpora.json"), listed).unwrap();
    app
}

#[test]
fn site_publishes_an_index_with_the_app_and_replaces_only_a_site() {
    let dir = tempfile::tempdir().unwrap();
    let docs = common::write_demo_folder(dir.path());
    let app = fake_app(dir.path());
    let questions = dir.path().join("questions.txt");
    std::fs::write(&questions, "Who walked on the Moon first?\n\nHow big is Jupiter?\n").unwrap();
    let site = dir.path().join("site");
    let (site_arg, app_arg) = (site.to_str().unwrap(), app.to_str().unwrap());

    let out = quire(&[
        "site",
        docs.to_str().unwrap(),
        "-o",
        site_arg,
        "--app",
        app_arg,
        "--title",
        "Space notes",
        "--questions",
        questions.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("a first visit downloads"), "{}", text(&out.stdout));
    let listed: serde_json::Value = serde_json::from_slice(&std::fs::read(site.join("corpora.json")).unwrap()).unwrap();
    assert_eq!(listed["title"], "Space notes");
    assert_eq!(listed["corpora"].as_array().unwrap().len(), 1, "{listed}");
    assert_eq!(listed["corpora"][0]["snapshot"], "corpus/index.quire");
    let asked: serde_json::Value =
        serde_json::from_slice(&std::fs::read(site.join("corpus/questions.json")).unwrap()).unwrap();
    assert_eq!(asked[1]["text"], "How big is Jupiter?");
    assert!(!site.join("snapshots/demo.quire").exists(), "the app's demos are not the site's");
    assert!(site.join("models/model.onnx").exists(), "the model of the site's index is served");
    assert!(!site.join("models/e5-small.onnx").exists(), "a model the site's index does not use is not");
    assert!(!site.join("models/e5-tokenizer.json").exists());
    assert!(site.join("snapshots/scifact-subset.quire").exists(), "the evaluation view keeps its data");
    let out = quire(&["stats", site.join("corpus/index.quire").to_str().unwrap(), "--json"]);
    let stats: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(stats["documents"], 6);
    // The service worker lists every file the site serves (and nothing of the app's demos) under a version.
    let worker = std::fs::read_to_string(site.join("sw.js")).unwrap();
    assert!(!worker.contains("__QUIRE_BUILD"), "{worker}");
    for file in ["\"corpus/index.quire\"", "\"corpora.json\"", "\"quire.js\"", "\"index.html\""] {
        assert!(worker.contains(file), "{file} missing from {worker}");
    }
    assert!(!worker.contains("demo.quire") && !worker.contains(".gz\""), "{worker}");
    // Precompressed copies hold the same bytes.
    let mut unzipped = Vec::new();
    std::io::Read::read_to_end(
        &mut flate2::read::GzDecoder::new(std::fs::File::open(site.join("quire.js.gz")).unwrap()),
        &mut unzipped,
    )
    .unwrap();
    assert_eq!(unzipped, std::fs::read(site.join("quire.js")).unwrap());
    let mut unbrotlied = Vec::new();
    brotli::BrotliDecompress(&mut std::fs::File::open(site.join("index.html.br")).unwrap(), &mut unbrotlied).unwrap();
    assert_eq!(unbrotlied, std::fs::read(site.join("index.html")).unwrap());

    // From the snapshot, a second run replaces the site whole.
    let snapshot = site.join("corpus/index.quire");
    let kept = dir.path().join("kept.quire");
    std::fs::copy(&snapshot, &kept).unwrap();
    let out = quire(&["site", "--snapshot", kept.to_str().unwrap(), "-o", site_arg, "--app", app_arg]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(!site.join("corpus/questions.json").exists(), "the old site's questions outlived it");
    assert!(!dir.path().join("site.partial").exists() && !dir.path().join("site.old").exists());

    // Publishing the kept index again into the site, with more arguments.
    let republish = |more: &[&str]| {
        quire(
            &[["site", "--snapshot", kept.to_str().unwrap(), "-o", site_arg, "--app", app_arg].as_slice(), more]
                .concat(),
        )
    };

    // A folder that is not a site is never replaced; a bad questions file and a missing build are named.
    let out = quire(&["site", "--snapshot", kept.to_str().unwrap(), "-o", docs.to_str().unwrap(), "--app", app_arg]);
    assert!(!out.status.success());
    assert!(text(&out.stderr).contains("exists and is not a site"), "{}", text(&out.stderr));
    assert_eq!(std::fs::read_dir(&docs).unwrap().count(), common::demo_files().len());
    std::fs::write(&questions, "\n \n").unwrap();
    let out = republish(&["--questions", questions.to_str().unwrap()]);
    assert!(text(&out.stderr).contains("questions.txt: it holds no question"), "{}", text(&out.stderr));
    let out = quire(&["site", "--snapshot", kept.to_str().unwrap(), "-o", site_arg, "--app", docs.to_str().unwrap()]);
    assert!(text(&out.stderr).contains("not a build of the app (no index.html)"), "{}", text(&out.stderr));
    assert!(site.join("corpus/index.quire").exists(), "a failed run left the site as it was");

    // A lesson is published with a printable handout; a bad step is named and nothing is written.
    let lesson = dir.path().join("lesson.yaml");
    let steps = "title: The Moon\nsteps:\n  - question: Who walked on the Moon first?\n    compare: [dense, bm25]\n";
    std::fs::write(&lesson, steps).unwrap();
    let out = republish(&["--lesson", lesson.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let listed: serde_json::Value = serde_json::from_slice(&std::fs::read(site.join("corpora.json")).unwrap()).unwrap();
    assert_eq!(listed["corpora"][0]["lesson"], "corpus/lesson.json");
    let handout = std::fs::read_to_string(site.join("handout.html")).unwrap();
    assert!(handout.contains("Step 1: Who walked on the Moon first?") && handout.contains("<svg "), "{handout}");
    assert!(handout.contains("Apollo 11"), "the step's results are in the handout: {handout}");
    std::fs::write(&lesson, steps.replace("[dense, bm25]", "[dense, telepathy]")).unwrap();
    let out = republish(&["--lesson", lesson.to_str().unwrap()]);
    assert!(text(&out.stderr).contains("lesson.yaml: step 1: unknown retriever `telepathy`"), "{}", text(&out.stderr));
    assert!(site.join("handout.html").exists(), "a refused lesson left the site as it was");
}

/// Every file under `dir`, as its path inside it and its bytes.
fn files_under(dir: &std::path::Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .map(Result::unwrap)
        .filter(|entry| entry.file_type().is_file())
        .map(|entry| {
            let name = entry.path().strip_prefix(dir).unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(entry.path()).unwrap())
        })
        .collect()
}

#[test]
fn a_site_that_fails_partway_through_writing_leaves_the_published_one_whole() {
    let dir = tempfile::tempdir().unwrap();
    let app = fake_app(dir.path());
    let site = dir.path().join("site");
    let snapshot = common::root().join("tests/fixtures/golden-snapshot.bin");
    let publish = || {
        quire(&[
            "site",
            "--snapshot",
            snapshot.to_str().unwrap(),
            "-o",
            site.to_str().unwrap(),
            "--app",
            app.to_str().unwrap(),
        ])
    };
    let out = publish();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let published = files_under(&site);
    assert!(published.contains_key("quire.js.gz"), "{:?}", published.keys());

    // The app now holds a folder where the site writes quire.js's compressed copy: the run fails after it
    // has written the files before it.
    std::fs::create_dir(app.join("quire.js.gz")).unwrap();
    std::fs::write(app.join("quire.js.gz/notes.txt"), "in the way").unwrap();
    let out = publish();
    assert!(!out.status.success());
    assert!(text(&out.stderr).contains("quire.js.gz"), "{}", text(&out.stderr));
    assert!(files_under(&site) == published, "the published site changed");
    for left in ["site.partial", "site.old"] {
        assert!(!dir.path().join(left).exists(), "{left} was left behind");
    }
}

/// With stderr not a terminal (a log), indexing says each stage as it starts and, while one runs, where it
/// is at least every `QUIRE_PROGRESS_SECONDS` (10 s unless set): a long stage never looks like a hang.
#[test]
fn indexing_into_a_log_prints_each_stage_and_where_it_is() {
    let dir = tempfile::tempdir().unwrap();
    let docs = common::write_demo_folder(dir.path());
    let snapshot = dir.path().join("demo.quire");
    let out = Command::new(env!("CARGO_BIN_EXE_quire"))
        .args(["index", docs.to_str().unwrap(), "-o", snapshot.to_str().unwrap()])
        .env("QUIRE_MODEL_DIR", common::model_dir())
        .env("QUIRE_PROGRESS_SECONDS", "0.05")
        .output()
        .expect("the quire binary runs");
    let log = text(&out.stderr);
    assert!(out.status.success(), "{log}");
    let stages = ["parsing: 6 files", "structuring…", "embedding: ", "building the graph and the indexes…"];
    let at: Vec<usize> =
        stages.iter().map(|stage| log.find(stage).unwrap_or_else(|| panic!("{stage} in {log}"))).collect();
    assert!(at.windows(2).all(|pair| pair[0] < pair[1]), "stages out of order: {log}");
    let periodic = |line: &&str| line.contains("/s)") || line.contains(": still working after ");
    assert!(log.lines().any(|line| periodic(&line)), "a line while a stage runs: {log}");
}

/// An index written before the query table (version 8) is published with one: the site's term buckets carry
/// its rows, so the site's fragments answer by meaning without the model.
#[test]
fn site_trains_the_query_table_an_older_snapshot_lacks() {
    let dir = tempfile::tempdir().unwrap();
    let app = fake_app(dir.path());
    let site = dir.path().join("site");
    let old = common::root().join("tests/fixtures/golden-snapshot-v8.bin");
    let out = quire(&[
        "site",
        "--snapshot",
        old.to_str().unwrap(),
        "-o",
        site.to_str().unwrap(),
        "--app",
        app.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("has no query table (written by an earlier Quire); training one"),
        "{}",
        text(&out.stderr)
    );
    let lexicon = std::fs::read(site.join("corpus/fragments/lexicon.bin")).unwrap();
    assert!(quire::store::fragments::FragmentedIndex::open(&lexicon).unwrap().has_query_table());
}
