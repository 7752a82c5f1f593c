//! Ingest at growing sizes: parse and structure (sections, chunks, entities, relations; no embedding)
//! 1, 10 and 50 MB of every format, with wall time and peak memory. Time per MB that grows with the size
//! is a quadratic path showing up as a number.
//! Run: cargo bench --bench ingest_scaling --features bench [-- SIZE_MB ... FORMAT ...]   (default: sizes 1 10 50, every format)
//!
//! Each case runs in a child process of this binary, so its peak resident memory (VmHWM) is its own. The
//! inputs are generated deterministically: English-like sentences from a fixed vocabulary, with the
//! structure each format carries (headings and links, nested HTML sections, table rows, records, pages),
//! plus one plain-text file that is a single paragraph without sentence punctuation.

use std::process::Command;
use std::time::Instant;

use quire::bench::Xorshift;
use quire::corpus::{self, Corpus, CorpusSettings, SourceFile};
use quire::embed::{Embedder, EmbeddingModel};

const WORDS: &[&str] = &[
    "orbit", "moon", "planet", "signal", "archive", "river", "mountain", "treaty", "engine", "harvest", "language",
    "melody", "crystal", "library", "bridge", "comet", "harbour", "garden", "theory", "circuit", "voyage", "lantern",
    "meadow", "spiral", "canyon", "the", "of", "and", "with", "from", "beneath", "towards", "during",
];
const FORMATS: &[&str] = &["md", "html", "txt", "txt-one-paragraph", "csv", "jsonl", "pdf"];

/// Deterministic words: quality does not matter here.
struct Words(Xorshift);

impl Words {
    fn next(&mut self) -> &'static str {
        WORDS[(self.0.next_u64() >> 33) as usize % WORDS.len()]
    }
    fn sentence(&mut self) -> String {
        let mut words: Vec<&str> = (0..12).map(|_| self.next()).collect();
        let capital = words[0][..1].to_uppercase() + &words[0][1..];
        words[0] = &capital;
        words.join(" ") + "."
    }
    fn paragraph(&mut self) -> String {
        (0..5).map(|_| self.sentence()).collect::<Vec<_>>().join(" ")
    }
}

/// `bytes` of input in `format`, named so the format is detected.
fn generate(format: &str, bytes: usize) -> SourceFile {
    let mut words = Words(Xorshift(0x9E37_79B9_7F4A_7C15));
    let mut out = String::new();
    let mut n = 0;
    let (name, data) = match format {
        "md" => {
            while out.len() < bytes {
                n += 1;
                out += &format!("## Part {n}\n\n{} See [[Part {}]].\n\n", words.paragraph(), n / 2 + 1);
            }
            ("scale.md", out.into_bytes())
        }
        "html" => {
            while out.len() < bytes {
                n += 1;
                out += &format!(
                    "<section><h2>Part {n}</h2><div><p>{} <a href=\"p{}.html\">more</a></p></div></section>\n",
                    words.paragraph(),
                    n / 2
                );
            }
            ("scale.html", format!("<html><body><h1>Scale</h1>{out}</body></html>").into_bytes())
        }
        "txt" => {
            while out.len() < bytes {
                out += &words.paragraph();
                out += "\n\n";
            }
            ("scale.txt", out.into_bytes())
        }
        "txt-one-paragraph" => {
            while out.len() < bytes {
                out += words.next();
                out += " ";
            }
            ("paragraph.txt", out.into_bytes())
        }
        "csv" => {
            out += "id,name,notes\n";
            while out.len() < bytes {
                n += 1;
                out += &format!("{n},{},\"{}\"\n", words.next(), words.sentence());
            }
            ("scale.csv", out.into_bytes())
        }
        "jsonl" => {
            while out.len() < bytes {
                n += 1;
                let record =
                    serde_json::json!({"_id": n.to_string(), "title": words.sentence(), "text": words.paragraph()});
                out += &format!("{record}\n");
            }
            ("scale.jsonl", out.into_bytes())
        }
        "pdf" => ("scale.pdf", pdf_of(&mut words, bytes)),
        other => panic!("unknown format {other}"),
    };
    SourceFile::new(name, data)
}

/// A PDF of about `bytes`, one page per few paragraphs, written with lopdf.
fn pdf_of(words: &mut Words, bytes: usize) -> Vec<u8> {
    use lopdf::content::{Content, Operation};
    use lopdf::{Document, Object, Stream, dictionary};
    let mut doc = Document::with_version("1.5");
    let pages_id = doc.new_object_id();
    let font_id = doc.add_object(dictionary! {"Type" => "Font", "Subtype" => "Type1", "BaseFont" => "Helvetica"});
    let resources_id = doc.add_object(dictionary! {"Font" => dictionary! {"F1" => font_id}});
    let mut kids = Vec::new();
    let mut written = 0;
    while written < bytes {
        let mut operations = vec![Operation::new("BT", vec![]), Operation::new("Tf", vec!["F1".into(), 10.into()])];
        for line in 0..40 {
            let text = (0..10).map(|_| words.next()).collect::<Vec<_>>().join(" ") + ".";
            written += text.len() + 30;
            let y = 800 - line * 18;
            operations.push(Operation::new("Td", vec![40.into(), y.into()]));
            operations.push(Operation::new("Tj", vec![Object::string_literal(text)]));
            operations.push(Operation::new("Td", vec![(-40).into(), (-y).into()]));
        }
        operations.push(Operation::new("ET", vec![]));
        let content = Content { operations }.encode().expect("content encodes");
        let content_id = doc.add_object(Stream::new(dictionary! {}, content));
        kids.push(Object::Reference(doc.add_object(dictionary! {
            "Type" => "Page", "Parent" => pages_id, "Contents" => content_id,
            "MediaBox" => vec![0.into(), 0.into(), 595.into(), 842.into()],
        })));
    }
    let count = kids.len() as i64;
    doc.objects.insert(
        pages_id,
        Object::Dictionary(
            dictionary! {"Type" => "Pages", "Kids" => kids, "Count" => count, "Resources" => resources_id},
        ),
    );
    let catalog_id = doc.add_object(dictionary! {"Type" => "Catalog", "Pages" => pages_id});
    doc.trailer.set("Root", catalog_id);
    let mut out = Vec::new();
    doc.save_to(&mut out).expect("the PDF is written");
    out
}

fn peak_rss_mib() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let kib: f64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(f64::NAN);
    kib / 1024.0
}

/// One case, in this (child) process: prints `format|MB|parse s|structure s|documents|chunks|peak MiB`.
fn run_case(format: &str, megabytes: usize) {
    let counter = Embedder::from_dir(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("models").as_path(),
        EmbeddingModel::MiniLm,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let file = generate(format, megabytes << 20);
    let size = file.bytes.len() as f64 / (1 << 20) as f64;
    let settings = CorpusSettings { max_file_bytes: usize::MAX, ..CorpusSettings::default() };
    let started = Instant::now();
    let report = corpus::ingest(&[file], &settings);
    let parsed = started.elapsed().as_secs_f64();
    assert!(report.errors.is_empty(), "{:?}", report.errors);
    let documents = report.documents.len();
    let started = Instant::now();
    let corpus = Corpus::build(report.documents, &counter, &settings);
    let structured = started.elapsed().as_secs_f64();
    println!(
        "{format}|{size:.1}|{parsed:.2}|{structured:.2}|{documents}|{}|{:.0}",
        corpus.chunks.len(),
        peak_rss_mib()
    );
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with("--bench")).collect();
    if args.first().map(String::as_str) == Some("case") {
        return run_case(&args[1], args[2].parse().expect("a size in MB"));
    }
    let sizes: Vec<usize> = args.iter().filter_map(|a| a.parse().ok()).collect();
    let sizes = if sizes.is_empty() { vec![1, 10, 50] } else { sizes };
    let named: Vec<&str> = args.iter().map(String::as_str).filter(|a| FORMATS.contains(a)).collect();
    let formats = if named.is_empty() { FORMATS.to_vec() } else { named };
    let me = std::env::current_exe().expect("this benchmark's path");
    println!("| format | MB | parse s | structure s | s per MB | documents | chunks | peak MiB |");
    println!("|---|---|---|---|---|---|---|---|");
    for format in formats {
        for &size in &sizes {
            let out = Command::new(&me).args(["case", format, &size.to_string()]).output().expect("the case runs");
            let line = String::from_utf8_lossy(&out.stdout);
            let fields: Vec<&str> = line.trim().split('|').collect();
            if !out.status.success() || fields.len() != 7 {
                println!("| {format} | {size} | failed: {} |", String::from_utf8_lossy(&out.stderr).trim());
                continue;
            }
            let total: f64 = fields[2].parse::<f64>().unwrap_or(0.0) + fields[3].parse::<f64>().unwrap_or(0.0);
            let per_mb = total / fields[1].parse::<f64>().unwrap_or(1.0);
            println!(
                "| {} | {} | {} | {} | {per_mb:.2} | {} | {} | {} |",
                fields[0], fields[1], fields[2], fields[3], fields[4], fields[5], fields[6]
            );
        }
    }
}
