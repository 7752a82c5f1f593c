//! `quire site --built`: search added to a site another generator built (mdBook, Sphinx, Hugo, …), as
//! Pagefind adds it: one command after the site's build writes a bundle into the site's folder (`quire/`
//! by default): the index's fragments (`store::fragments`, the query table's rows in the term buckets), the
//! site search module (`quire-search`, from the app's build) with its script and style, and a ready search
//! page. A page of the site gets the search box with a `<div>` and a `<script>`.
//!
//! The bundle is written beside its place and moved in whole: a failed run leaves the previous bundle, or
//! none, never half of one. It keeps the whole index too (`index.quire`), so that the next run, after the
//! site is built again, embeds only the texts that changed.

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use quire::embed::EmbeddingModel;
use quire::store::fragments::{self, LEXICON, Sizes};
use quire::store::pipeline::Base;
use quire::store::{IndexSettings, IndexedCorpus, Vectors};

use super::compressed::{Gzip, compressed_sizes, sibling};
use super::files::{collect_files, read_file};
use super::indexing;
use super::shared::{CliResult, Models, load_snapshot, named};
use super::staging::{is_empty_folder, remove_if_present, replace, write_squeezed, write_with_copies};

/// The bundle's folder inside the site, unless `--output` names another.
pub const BUNDLE: &str = "quire";
/// Marks a folder as a bundle this command wrote, which a later run may replace.
const MARKER: &str = "quire-search.json";
/// The fragments, inside the bundle.
const INDEX: &str = "index";
/// The whole index, whose vectors the next run reuses.
const WHOLE_INDEX: &str = "index.quire";
/// The search module's files in the app's build (www/index.html: the module at the root, its script and
/// style under `search/`), and where they lie in the bundle.
const MODULE_FILES: [(&str, &str); 4] = [
    ("quire-search.js", "quire-search.js"),
    ("quire-search_bg.wasm", "quire-search_bg.wasm"),
    ("search/quire-search-ui.js", "quire-search-ui.js"),
    ("search/quire-search.css", "quire-search.css"),
];
const SEARCH_PAGE: &str = "search.html";
const SEARCH_PAGE_TEMPLATE: &str = include_str!("../../www/search-page.html");

/// Indexes the pages of the site built in `site` and writes its search bundle into `output` (the site's
/// `quire/` folder by default).
pub fn run(model: &Option<PathBuf>, site: &Path, output: Option<&Path>, app: &Path, title: Option<&str>) -> CliResult {
    if !site.is_dir() {
        bail!("{}: not a folder (name the folder the site generator wrote, e.g. book/ or public/)", site.display());
    }
    let module = read_module(app)?;
    let output = output.map_or_else(|| site.join(BUNDLE), Path::to_path_buf);
    check_target(&output)?;
    let mut models = Models::new(model);
    let previous = previous_index(&output);
    let index = index_pages(&mut models, site, &output, previous.as_ref())?;
    let snapshot = index.to_snapshot()?;
    let title = title.map(String::from).unwrap_or_else(|| folder_name(site));
    let staging = sibling(&output, "partial");
    remove_if_present(&staging)?;
    let written = write_bundle(&staging, &index, &snapshot, &module, &title).and_then(|_| replace(&staging, &output));
    if let Err(failure) = written {
        let _ = std::fs::remove_dir_all(&staging);
        return Err(failure);
    }
    print_bundle(&output, site, &index);
    Ok(())
}

/// The search module's files from the app's build, by their names in the bundle.
fn read_module(app: &Path) -> anyhow::Result<Vec<(&'static str, Vec<u8>)>> {
    let read = |(from, to): (&str, &'static str)| {
        let path = app.join(from);
        let bytes = std::fs::read(&path).with_context(|| {
            format!(
                "{}: not in the app's build: run `trunk build --release` first, or name the build with --app",
                path.display()
            )
        })?;
        Ok((to, bytes))
    };
    MODULE_FILES.into_iter().map(read).collect()
}

/// Refuses to replace a folder that holds anything but a bundle this command wrote.
fn check_target(output: &Path) -> CliResult {
    if output.exists() && !output.join(MARKER).is_file() && !is_empty_folder(output) {
        bail!(
            "{}: exists and is not a search bundle `quire site --built` wrote; name another with --output",
            output.display()
        );
    }
    Ok(())
}

/// The whole index the bundle in `output` keeps from the run before, if it has one that can be read; one
/// that cannot is only not reused.
fn previous_index(output: &Path) -> Option<IndexedCorpus> {
    let path = output.join(WHOLE_INDEX);
    if !output.join(MARKER).is_file() || !path.is_file() {
        return None;
    }
    load_snapshot(&path)
        .inspect_err(|failure| eprintln!("note: {failure:#}: not reused, every page is embedded again"))
        .ok()
}

/// The index of the site's pages: its HTML files, each named by its path inside the site, the bundle's
/// own folder left out (a site generator's other outputs, its sources copied as text, its search index
/// in JSON or JavaScript, are not pages); the texts `previous` embedded are not embedded again.
fn index_pages(
    models: &mut Models,
    site: &Path,
    output: &Path,
    previous: Option<&IndexedCorpus>,
) -> anyhow::Result<IndexedCorpus> {
    let bundle = std::path::absolute(output).unwrap_or_else(|_| output.to_path_buf());
    let is_page = |path: &PathBuf| {
        let html = path.extension().is_some_and(|e| e.eq_ignore_ascii_case("html") || e.eq_ignore_ascii_case("htm"));
        let in_bundle = std::path::absolute(path)
            .is_ok_and(|p| p.starts_with(&bundle) || p.starts_with(sibling(&bundle, "partial")));
        html && !in_bundle
    };
    let files: Vec<_> =
        collect_files(&[site.to_path_buf()]).into_iter().filter(|file| file.as_ref().map_or(true, is_page)).collect();
    if !files.iter().any(Result::is_ok) {
        bail!("{}: holds no HTML page to index (is it the folder the site generator wrote?)", site.display());
    }
    let limit = IndexSettings::default().corpus.max_file_bytes;
    let count = files.len();
    let inputs = files.into_iter().map(|file| file.and_then(|path| read_file(&path, Some(site), limit)));
    // The site search embeds no question: its vectors are the query table's, trained toward MiniLM's.
    let (settings, model) = (IndexSettings::default(), Some(EmbeddingModel::MiniLm));
    let base = Base::Fresh { settings, reuse_vectors_of: previous, vectors: Vectors::Chunks, model };
    let outcome = indexing::run_on(models, base, inputs, count)?;
    outcome.index.context("no page of the site could be indexed")
}

fn write_bundle(
    dir: &Path,
    index: &IndexedCorpus,
    snapshot: &[u8],
    module: &[(&str, Vec<u8>)],
    title: &str,
) -> CliResult {
    for (path, bytes) in fragments::split(index, snapshot, Sizes::SEARCH)? {
        write_with_copies(dir, &format!("{INDEX}/{path}"), &bytes)?;
    }
    // Every visitor fetches these before a first answer.
    for (name, bytes) in module {
        write_squeezed(dir, name, bytes, Gzip::Smallest)?;
    }
    // Not a visitor's download (no compressed copies): the next run's vectors.
    let whole = dir.join(WHOLE_INDEX);
    std::fs::write(&whole, snapshot).with_context(named(&whole))?;
    let page = SEARCH_PAGE_TEMPLATE.replace("__QUIRE_SITE_TITLE__", &escape_html(title));
    write_with_copies(dir, SEARCH_PAGE, page.as_bytes())?;
    let marker = serde_json::json!({ "written_by": "quire site --built", "pages": index.corpus().documents.len() });
    let path = dir.join(MARKER);
    std::fs::write(&path, serde_json::to_vec_pretty(&marker)?).with_context(named(&path))
}

fn escape_html(text: &str) -> String {
    let mut escaped = String::new();
    pulldown_cmark_escape::escape_html(&mut escaped, text).expect("writing to a String cannot fail");
    escaped
}

fn folder_name(site: &Path) -> String {
    let absolute = std::path::absolute(site).unwrap_or_else(|_| site.to_path_buf());
    absolute.file_name().map_or_else(|| "this site".into(), |name| name.to_string_lossy().into_owned())
}

/// What was written, what a first question fetches, and the lines to add to a page.
fn print_bundle(output: &Path, site: &Path, index: &IndexedCorpus) {
    let kb = |name: &str| compressed_sizes(output, name)[0] * 1e3;
    // The script fetches the module's gzipped copy (www/search/quire-search-ui.js), the rest as they are.
    let fetched = |name: &str| match name.ends_with(".wasm") {
        true => compressed_sizes(output, name)[1] * 1e3,
        false => kb(name),
    };
    let module: f64 = MODULE_FILES.iter().map(|(_, name)| fetched(name)).sum();
    let pages = index.corpus().documents.len();
    let table = index.query_table().map_or(0, |table| table.len());
    println!(
        "wrote {}: the search of {pages} pages ({} chunks, a query table of {table} terms): the module {module:.0} kB as a visitor fetches it (its wasm gzipped), the index's lexicon {:.0} kB, then the fragments each question needs",
        output.display(),
        index.corpus().chunks.len(),
        kb(&format!("{INDEX}/{LEXICON}")),
    );
    let relative = output.strip_prefix(site).map_or_else(|_| output.display().to_string(), |p| p.display().to_string());
    println!("a search page: {relative}/{SEARCH_PAGE}; to add the search box to a page of the site, put in it:");
    println!("  <link rel=\"stylesheet\" href=\"/{relative}/quire-search.css\">");
    println!("  <div id=\"quire-search\"></div>");
    println!("  <script type=\"module\" src=\"/{relative}/quire-search-ui.js\"></script>");
    println!("(paths from the site's root; relative paths work too)");
}
