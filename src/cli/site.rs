//! `quire site`: a user's corpus as a static site. The app's build (`--app`, `dist/` by default), the
//! corpus's prebuilt index as the one the page opens, the site's title and sample questions, a service
//! worker that keeps all of it for offline use, and every file also precompressed (`.gz`, `.br`) for
//! servers that serve those as they are. Visitors embed nothing but their questions.
//!
//! The site is written into a folder beside the target and moved into place whole: a failed run leaves
//! the previous site, or nothing, never half of one.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use quire::embed::{Embedder, EmbeddingModel};
use quire::retrieve::lesson::Lesson;
use quire::store::fragments::{self, CENTROIDS, GRAPH, LEXICON, PROBED_VECTORS, Sizes};
use quire::store::pipeline::Base;
use quire::store::published::{self, MANIFEST, Published, PublishedCorpus, SampleQuestion};
use quire::store::{IndexSettings, IndexedCorpus, Vectors};

use super::compressed::{compressed_sizes, sibling};
use super::shared::{CliResult, Models, load_snapshot, named};
use super::staging::{is_empty_folder, remove_if_present, replace, write_with_copies};
use super::{handout, indexing, site_search};

/// A file written into the site, and the hash of its bytes.
struct Written {
    name: String,
    hash: blake3::Hash,
}

/// What a site holds besides the app and the index.
struct Extras<'a> {
    questions: Option<&'a [SampleQuestion]>,
    lesson: Option<&'a Lesson>,
    embedder: &'a Embedder,
}

/// The service worker's source, with the placeholders `scripts/finish_build.py` fills in a build.
const SERVICE_WORKER_TEMPLATE: &str = include_str!("../../www/sw.js");
const SERVICE_WORKER: &str = "sw.js";
/// Where the site's own corpus lies inside it.
const SNAPSHOT: &str = "corpus/index.quire";
/// The index split for answering by words, then by meaning, before the whole index has loaded
/// (`store::fragments`).
const FRAGMENTS: &str = "corpus/fragments";
const QUESTIONS: &str = "corpus/questions.json";
const LESSON: &str = "corpus/lesson.json";
/// The key of the one corpus a site publishes, by which a later run knows the folder for a site.
const SITE_KEY: &str = "site";
/// The lesson's printable page, at the site's root.
const HANDOUT: &str = "handout.html";

#[derive(clap::Args)]
pub struct SiteArgs {
    /// Files and folders to index into the site (or `--snapshot`, or `--built`).
    #[arg(required_unless_present_any = ["snapshot", "built"])]
    paths: Vec<PathBuf>,
    /// An index `quire index` wrote, published as it is.
    #[arg(long, conflicts_with = "paths")]
    snapshot: Option<PathBuf>,
    /// A site another generator built (mdBook's book/, Sphinx's _build/html, Hugo's public/): adds search to
    /// it, a bundle written into its `quire/` folder (or `--output`) with the index of its pages, a search
    /// module of a few hundred kB and a ready search page.
    #[arg(long, conflicts_with_all = ["paths", "snapshot", "questions", "lesson"])]
    built: Option<PathBuf>,
    /// The folder to write (replaced whole if it holds a site `quire site` wrote, or with `--built` a bundle).
    #[arg(short, long, required_unless_present = "built")]
    output: Option<PathBuf>,
    /// The site's title, shown in the page and its tab.
    #[arg(long)]
    title: Option<String>,
    /// Sample questions: a JSON list (strings, or {"text", "note"}), or one question per line.
    #[arg(long)]
    questions: Option<PathBuf>,
    /// A lesson (JSON or YAML: a title and steps, each a question, the retrievers to compare and a note):
    /// the site walks through it, and a printable handout.html shows each step's results and trace.
    #[arg(long)]
    lesson: Option<PathBuf>,
    /// The app's build to publish (`trunk build --release` writes it to dist/).
    #[arg(long, default_value = "dist")]
    app: PathBuf,
}

pub fn run(model: &Option<PathBuf>, args: SiteArgs) -> CliResult {
    if let Some(built) = &args.built {
        return site_search::run(model, built, args.output.as_deref(), &args.app, args.title.as_deref());
    }
    let output = args.output.clone().context("name the site's folder with --output")?;
    let app_published = read_app(&args.app)?;
    let questions = args.questions.as_deref().map(|path| read_parsed(path, published::parse_questions)).transpose()?;
    let lesson = args.lesson.as_deref().map(|path| read_parsed(path, Lesson::parse)).transpose()?;
    check_target(&output, &args.app)?;
    let mut models = Models::new(model);
    let index = match &args.snapshot {
        Some(path) => load_snapshot(path)?,
        None => {
            // The page embeds questions with MiniLM only: another model's index would answer by words there.
            let (settings, model) = (IndexSettings::default(), Some(EmbeddingModel::MiniLm));
            let base = Base::Fresh { settings, reuse_vectors_of: None, vectors: Vectors::Chunks, model };
            indexing::run_pipeline(&mut models, base, &args.paths)?.index.context("no document could be indexed")?
        }
    };
    let source = args.snapshot.as_ref().map_or_else(|| "the index".to_string(), |p| p.display().to_string());
    let embedder = models.for_index(&index).context(source.clone())?;
    // A lesson's retrievers that search pages, sections, entities or relations find their vectors in the
    // site's index, not embedded again by every visitor.
    let node_vectors = lesson.as_ref().is_some_and(|l| l.steps.iter().any(|step| step.method().reads_node_vectors()));
    let index = indexing::with_vectors_for(&mut models, index, node_vectors, None)?;
    // An index written before the query table (snapshot version 8) gets one: its fragments carry the rows.
    let index = match index.query_table() {
        Some(_) => index,
        None => {
            eprintln!("{source}: has no query table (written by an earlier Quire); training one for the site");
            index.with_query_table()
        }
    };

    let staging = sibling(&output, "partial");
    remove_if_present(&staging)?;
    let extras = Extras { questions: questions.as_deref(), lesson: lesson.as_ref(), embedder: &embedder };
    let written = write_site(&staging, &output, &args, &app_published, &index, extras);
    let files = match written {
        Ok(files) => files,
        Err(failure) => {
            let _ = std::fs::remove_dir_all(&staging);
            return Err(failure);
        }
    };
    if let Err(failure) = replace(&staging, &output) {
        let _ = std::fs::remove_dir_all(&staging);
        return Err(failure);
    }
    print_first_visit(&output, &files);
    Ok(())
}

/// The app's build at `app`, and the corpora it publishes (left out of the site, which publishes its own).
fn read_app(app: &Path) -> anyhow::Result<Published> {
    let not_a_build = |what: &str| {
        format!(
            "{}: not a build of the app ({what}): run `trunk build --release` first, or name the build with --app",
            app.display()
        )
    };
    if !app.join("index.html").is_file() {
        bail!(not_a_build("no index.html"));
    }
    let listed = std::fs::read(app.join(MANIFEST)).ok().with_context(|| not_a_build(&format!("no {MANIFEST}")))?;
    Published::from_json(&listed).with_context(named(app))
}

/// A file the user names, parsed by `parse`; either failure names the file.
fn read_parsed<T, E>(path: &Path, parse: impl Fn(&str) -> Result<T, E>) -> anyhow::Result<T>
where
    E: std::error::Error + Send + Sync + 'static,
{
    let text = std::fs::read_to_string(path).with_context(named(path))?;
    parse(&text).with_context(named(path))
}

/// Refuses to replace a folder that holds anything but a site this command wrote (a user's documents, the
/// app's own build), or to write one inside the app's build (it would copy itself).
fn check_target(output: &Path, app: &Path) -> CliResult {
    let full = |path: &Path| std::path::absolute(path).map(|p| p.components().collect::<PathBuf>());
    if let (Ok(output), Ok(app)) = (full(output), full(app))
        && output.starts_with(&app)
    {
        bail!("{}: is inside the app's build {}; name a folder outside it", output.display(), app.display());
    }
    if output.exists() && !is_a_site(output) && !is_empty_folder(output) {
        bail!("{}: exists and is not a site `quire site` wrote; name another folder", output.display());
    }
    Ok(())
}

/// Whether `dir` holds a site this command wrote: its list publishes the one corpus it names [`SITE_KEY`].
fn is_a_site(dir: &Path) -> bool {
    let listed = std::fs::read(dir.join(MANIFEST)).ok().and_then(|bytes| Published::from_json(&bytes).ok());
    dir.join(SERVICE_WORKER).is_file()
        && listed.is_some_and(|published| matches!(published.corpora.as_slice(), [only] if only.key == SITE_KEY))
}

/// Writes the whole site into `dir`.
fn write_site(
    dir: &Path,
    output: &Path,
    args: &SiteArgs,
    app_published: &Published,
    index: &IndexedCorpus,
    Extras { questions, lesson, embedder }: Extras<'_>,
) -> anyhow::Result<SiteFiles> {
    // The files of the models the site's index was not embedded by (the multilingual model, 77 MB, beside
    // an index of MiniLM's), under `models/` where the app's build serves them (www/index.html).
    let other_models: Vec<String> = EmbeddingModel::ALL
        .into_iter()
        .filter(|model| EmbeddingModel::of(index.model()) != Some(*model))
        .flat_map(|model| [model.spec().model_file, model.spec().tokenizer_file])
        .map(|file| format!("models/{file}"))
        .collect();
    let left_out: HashSet<&str> = app_published
        .corpora
        .iter()
        .flat_map(|corpus| std::iter::once(&corpus.snapshot).chain(&corpus.questions).chain(&corpus.lesson))
        .map(String::as_str)
        .chain([MANIFEST, SERVICE_WORKER])
        .chain(other_models.iter().map(String::as_str))
        .collect();
    let mut files = Vec::new();
    copy_app(&args.app, dir, &left_out, &mut files)?;

    let snapshot = index.to_snapshot()?;
    write(dir, SNAPSHOT, &snapshot, &mut files)?;
    // Not listed for the service worker: a site kept offline opens the whole snapshot, and a first visit
    // downloads the fragments its questions need, not all of them.
    let mut fragment_names = Vec::new();
    for (path, bytes) in fragments::split(index, &snapshot, Sizes::default())? {
        let name = format!("{FRAGMENTS}/{path}");
        write_with_copies(dir, &name, &bytes)?;
        fragment_names.push(name);
    }
    if let Some(questions) = questions {
        write(dir, QUESTIONS, &serde_json::to_vec_pretty(questions)?, &mut files)?;
    }
    if let Some(lesson) = lesson {
        write(dir, LESSON, &serde_json::to_vec_pretty(lesson)?, &mut files)?;
    }
    let folder_name = || output.file_name().map_or_else(|| "Documents".into(), |n| n.to_string_lossy().into_owned());
    let title = args.title.clone().unwrap_or_else(folder_name);
    let site = Published {
        title: args.title.clone(),
        corpora: vec![PublishedCorpus {
            key: SITE_KEY.into(),
            title,
            snapshot: SNAPSHOT.into(),
            fragments: Some(FRAGMENTS.into()),
            questions: questions.map(|_| QUESTIONS.into()),
            lesson: lesson.map(|_| LESSON.into()),
        }],
    };
    if let Some(lesson) = lesson {
        let handout = handout::write(lesson, &site.corpora[0].title, index, embedder)?;
        write(dir, HANDOUT, handout.as_bytes(), &mut files)?;
    }
    write(dir, MANIFEST, &serde_json::to_vec_pretty(&site)?, &mut files)?;
    files.sort_by(|a, b| a.name.cmp(&b.name));
    write_service_worker(dir, &files)?;
    Ok(SiteFiles { listed: files.into_iter().map(|file| file.name).collect(), fragments: fragment_names })
}

/// The files of a site, as paths inside it.
struct SiteFiles {
    /// What a first visit downloads, and the service worker keeps: every file but the precompressed copies,
    /// the service worker and the fragments.
    listed: Vec<String>,
    /// The index's fragments (`store::fragments`), fetched as questions need them.
    fragments: Vec<String>,
}

/// Copies the app's files under `from` into `to`, except `left_out` and precompressed copies (written
/// anew), naming each copied file in `files`.
fn copy_app(from: &Path, to: &Path, left_out: &HashSet<&str>, files: &mut Vec<Written>) -> CliResult {
    for entry in walkdir::WalkDir::new(from).sort_by_file_name() {
        let entry = entry?;
        if !entry.file_type().is_file() {
            continue;
        }
        let relative = entry.path().strip_prefix(from)?;
        let name = relative.to_string_lossy().replace('\\', "/");
        if left_out.contains(name.as_str()) || name.ends_with(".gz") || name.ends_with(".br") {
            continue;
        }
        let bytes = std::fs::read(entry.path()).with_context(named(entry.path()))?;
        write(to, &name, &bytes, files)?;
    }
    Ok(())
}

/// Writes `bytes` as `name` inside `dir`, with its precompressed copies, and lists it in `files` with its
/// hash (the service worker's version is drawn from them), so that no file is read back.
fn write(dir: &Path, name: &str, bytes: &[u8], files: &mut Vec<Written>) -> CliResult {
    write_with_copies(dir, name, bytes)?;
    files.push(Written { name: name.to_string(), hash: blake3::hash(bytes) });
    Ok(())
}

/// The service worker with this site's files and a version drawn from their contents, as
/// `scripts/finish_build.py` writes it into a build: a changed site is a new worker, which caches anew.
fn write_service_worker(dir: &Path, files: &[Written]) -> CliResult {
    let mut version = blake3::Hasher::new();
    for file in files {
        version.update(file.name.as_bytes()).update(&[0]).update(file.hash.as_bytes());
    }
    let version = version.finalize().to_hex();
    let names: Vec<&str> = files.iter().map(|file| file.name.as_str()).collect();
    let listed = serde_json::to_string(&names)?;
    let worker = SERVICE_WORKER_TEMPLATE
        .replace("\"__QUIRE_BUILD_VERSION__\"", &format!("\"{}\"", &version[..16]))
        .replace("__QUIRE_BUILD_FILES__", &listed);
    write_with_copies(dir, SERVICE_WORKER, worker.as_bytes())
}

/// What a first visit downloads: the service worker fetches every file of the site at install. And what
/// the first answer (by words and through the graph) waits for: the page, its module and the index's
/// lexicon and graph, then the fragments a question needs; the engine's module, the whole index and the model come behind it.
fn print_first_visit(output: &Path, SiteFiles { listed: files, fragments }: &SiteFiles) {
    let sizes = |names: &mut dyn Iterator<Item = &str>| {
        names.map(|name| compressed_sizes(output, name)).fold([0.0; 3], |sum, one| [0, 1, 2].map(|i| sum[i] + one[i]))
    };
    let [raw, gzip, brotli] = sizes(&mut files.iter().map(String::as_str).chain([SERVICE_WORKER]));
    let mut first = files.iter().chain(fragments).map(String::as_str).filter(|f| before_first_answer(f));
    let [_, first_gzip, first_brotli] = sizes(&mut first);
    let graph = compressed_sizes(output, &format!("{FRAGMENTS}/{GRAPH}"))[1] * 1e3;
    println!(
        "wrote {}: {} files and {} fragments of the index; a first visit downloads {raw:.1} MB ({gzip:.1} MB where the server sends the .gz copies, {brotli:.1} MB the .br) and the fragments its questions need",
        output.display(),
        files.len() + 1,
        fragments.len(),
    );
    let median = |kind: &str| {
        let mut sizes: Vec<f64> = fragments
            .iter()
            .filter(|f| f.starts_with(&format!("{FRAGMENTS}/{kind}")) && !f.ends_with(CENTROIDS))
            .map(|f| compressed_sizes(output, f)[1])
            .collect();
        sizes.sort_by(f64::total_cmp);
        sizes.get(sizes.len() / 2).map_or(0.0, |mb| mb * 1e3)
    };
    println!(
        "the first answer, by words and through the graph, comes after {first_gzip:.1} MB of it ({first_brotli:.1} MB the .br): the page, its module and the index's lexicon and graph ({graph:.0} kB gzipped), then the bucket of each of the question's terms ({:.1} kB each, median, gzipped) and of the community summaries' ({:.1} kB each), and the text runs of its results ({:.1} kB each); the engine's module and the embedding model follow",
        median("terms/"),
        median("summaries/"),
        median("texts/"),
    );
    let centroids = compressed_sizes(output, &format!("{FRAGMENTS}/{CENTROIDS}"))[1] * 1e3;
    println!(
        "answers by meaning come, once the engine's module and the model have loaded, from the groups' centroids ({centroids:.0} kB gzipped), the centroids of each question's nearest groups ({:.1} kB each, median, gzipped) and the partitions of its nearest centroids ({:.1} kB each; about {PROBED_VECTORS} vectors scanned), before the whole index ({:.1} MB gzipped) has loaded",
        median("centroids/"),
        median("vectors/"),
        compressed_sizes(output, SNAPSHOT)[1],
    );
    println!("serve it from any static server, e.g. python3 -m http.server -d {} -b 127.0.0.1", output.display());
}

/// Whether a first visit fetches `file` before its first answer: the page and what it links, the page's
/// module (`quire-page`, www/index.html) and its engine's start, the published list, the questions, the
/// lesson and the index's lexicon and graph.
fn before_first_answer(file: &str) -> bool {
    const PAGE: [&str; 7] =
        ["index.html", "engine-worker.js", "icon.svg", "manifest.webmanifest", MANIFEST, QUESTIONS, LESSON];
    PAGE.contains(&file)
        || file
            .strip_prefix(FRAGMENTS)
            .and_then(|rest| rest.strip_prefix('/'))
            .is_some_and(|f| [LEXICON, GRAPH].contains(&f))
        || ["quire-page-", "style-"].iter().any(|prefix| file.starts_with(prefix))
}
