//! Search added to a built site (`quire site --built`): the command indexes the site's pages only (not its
//! sources copied as text, its own search index or a bundle it wrote before) into a bundle beside them,
//! and the site search (`site_search`, the module the bundle serves) answers from the bundle's fragments
//! alone, by words and meaning with the query table's rows, with links to the site's own pages; a later
//! question fetches only what it adds; a damaged fragment is an error that names it; the next run embeds
//! only what changed.

use crate::common::{self, quire};

use std::path::{Path, PathBuf};

use futures_executor::block_on;
use quire::site_search::{Fetcher, SearchError, SiteIndex};

/// Reads "URLs" as paths under a folder; the graph's, which the site search never needs, it refuses.
struct FolderFetcher {
    root: PathBuf,
}

impl Fetcher for FolderFetcher {
    async fn bytes(&self, url: &str, _revalidated: bool) -> Result<Vec<u8>, String> {
        assert!(!url.ends_with("graph.bin") && !url.contains("/summaries/"), "{url}: the graph was fetched");
        std::fs::read(self.root.join(url)).map_err(|e| format!("{url}: {e}"))
    }
}

fn page(title: &str, body: &str) -> String {
    format!(
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>{title}</title></head><body>\
         <nav><a href=\"index.html\">Home</a></nav><main><h1>{title}</h1>{body}</main></body></html>"
    )
}

/// A site as a generator writes it: pages in folders, an all-in-one page, its sources copied as text and its
/// own search index.
fn built_site(dir: &Path) -> PathBuf {
    let site = dir.join("book");
    std::fs::create_dir_all(site.join("moons")).unwrap();
    std::fs::create_dir_all(site.join("_sources")).unwrap();
    let jupiter = std::fs::read_to_string(common::root().join("public/demo/jupiter.html")).unwrap();
    std::fs::write(site.join("jupiter.html"), &jupiter).unwrap();
    let moon = "<p>The Moon is Earth's only natural satellite. Its pull raises the tides of the oceans, and its \
                phases repeat every 29.5 days.</p><h2>Landings</h2><p>Apollo 11 landed on the Moon in July 1969; \
                Neil Armstrong and Buzz Aldrin walked on its surface.</p>";
    std::fs::write(site.join("moons/the-moon.html"), page("The Moon", moon)).unwrap();
    let sun = "<p>The Sun is the star at the centre of the Solar System, a hot ball of hydrogen and helium whose \
               fusion lights and warms the planets.</p>";
    std::fs::write(site.join("sun.html"), page("The Sun", sun)).unwrap();
    std::fs::write(site.join("_sources/sun.txt"), "Quokkas are the only word of this source.").unwrap();
    std::fs::write(site.join("searchindex.json"), r#"{"quokka": [1]}"#).unwrap();
    site
}

/// The app's build as `quire site --built` reads it: the search module and its script and style.
fn fake_app(dir: &Path) -> PathBuf {
    let app = dir.join("app");
    std::fs::create_dir_all(app.join("search")).unwrap();
    std::fs::write(app.join("quire-search.js"), "export default function init() {}\n").unwrap();
    std::fs::write(app.join("quire-search_bg.wasm"), b"\0asm\x01\0\0\0").unwrap();
    std::fs::write(app.join("search/quire-search-ui.js"), "import init from \"./quire-search.js\";\n").unwrap();
    std::fs::write(app.join("search/quire-search.css"), ".quire-search {}\n").unwrap();
    app
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn a_built_site_gets_a_search_that_answers_by_meaning_from_its_fragments() {
    let dir = tempfile::tempdir().unwrap();
    let site = built_site(dir.path());
    let app = fake_app(dir.path());
    let (site_arg, app_arg) = (site.to_str().unwrap(), app.to_str().unwrap());
    let out = quire(&["site", "--built", site_arg, "--app", app_arg, "--title", "Space <notes>"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let said = text(&out.stdout);
    assert!(said.contains("the search of 3 pages") && said.contains("<div id=\"quire-search\"></div>"), "{said}");
    let bundle = site.join("quire");
    for file in
        ["quire-search.js", "quire-search_bg.wasm", "quire-search-ui.js", "quire-search.css", "index/lexicon.bin"]
    {
        assert!(bundle.join(file).is_file(), "{file} missing from the bundle");
    }
    let search_page = std::fs::read_to_string(bundle.join("search.html")).unwrap();
    assert!(search_page.contains("Search Space &lt;notes&gt;") && !search_page.contains("__QUIRE"), "{search_page}");

    // The lexicon every visitor fetches grows by a few bytes a page: the pages' sources and titles travel
    // with their texts.
    let lexicon = std::fs::read(bundle.join("index/lexicon.bin")).unwrap();
    assert!(!lexicon.windows(b"the-moon.html".len()).any(|w| w == b"the-moon.html"), "a source in the lexicon");

    let fetcher = FolderFetcher { root: dir.path().to_path_buf() };
    let index = block_on(SiteIndex::open(fetcher, "book/quire/index")).unwrap();
    let found = block_on(index.search("Which planet has a storm bigger than the Earth?", 10)).unwrap();
    assert!(found.by_meaning, "the query table's rows came with the buckets: {found:?}");
    assert_eq!(found.pages[0].source, "jupiter.html", "{found:?}");
    assert_eq!(found.pages[0].section, "Atmosphere");
    assert!(found.pages[0].excerpt.iter().any(|piece| piece.marked && piece.text == "storm"), "{found:?}");
    let mut sources: Vec<&str> = found.pages.iter().map(|page| page.source.as_str()).collect();
    sources.sort();
    assert_eq!(sources, ["jupiter.html", "moons/the-moon.html", "sun.html"], "pages only, each once");
    let first = found.fetched_bytes;

    let found = block_on(index.search("When did people walk on the Moon?", 3)).unwrap();
    assert_eq!(found.pages[0].source, "moons/the-moon.html", "{found:?}");
    assert!(found.fetched_bytes > first, "a new question fetches its buckets");
    let read = found.fetched_bytes - first;
    assert!(read < first, "a later question fetches less than the first: {read} of {first}");
    let asked_again = block_on(index.search("When did people walk on the Moon?", 3)).unwrap();
    assert_eq!(asked_again.fetched_bytes, found.fetched_bytes, "a question asked again fetches nothing");
    let nothing = block_on(index.search("quokka", 10)).unwrap();
    assert!(nothing.pages.is_empty(), "the sources copied as text and the site's own search index are not pages");
    assert!(!nothing.by_meaning);

    // A second run replaces the bundle whole; a folder it did not write is never replaced.
    let out = quire(&["site", "--built", site_arg, "--app", app_arg]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("the search of 3 pages"), "the old bundle was not indexed");
    assert!(
        text(&out.stderr).contains("embedded 0 new texts"),
        "the kept index's vectors are reused: {}",
        text(&out.stderr)
    );
    assert!(!site.join("quire.partial").exists() && !site.join("quire.old").exists());
    let out = quire(&["site", "--built", site_arg, "--app", app_arg, "-o", site.join("moons").to_str().unwrap()]);
    assert!(text(&out.stderr).contains("is not a search bundle"), "{}", text(&out.stderr));
    assert!(site.join("moons/the-moon.html").is_file());
    let out = quire(&["site", "--built", site_arg, "--app", site_arg]);
    assert!(text(&out.stderr).contains("quire-search.js: not in the app's build"), "{}", text(&out.stderr));

    // A damaged bucket is an error naming it, and the index answers again once the bucket is whole.
    let buckets: Vec<PathBuf> =
        std::fs::read_dir(bundle.join("index/terms")).unwrap().map(|entry| entry.unwrap().path()).collect();
    let kept: Vec<Vec<u8>> = buckets.iter().map(|bucket| std::fs::read(bucket).unwrap()).collect();
    // The lexicon every visitor fetches grows by a few bytes a page: the pages' sources and titles travel
    // with their texts.
    let lexicon = std::fs::read(bundle.join("index/lexicon.bin")).unwrap();
    assert!(!lexicon.windows(b"the-moon.html".len()).any(|w| w == b"the-moon.html"), "a source in the lexicon");

    let fetcher = FolderFetcher { root: dir.path().to_path_buf() };
    let index = block_on(SiteIndex::open(fetcher, "book/quire/index")).unwrap();
    for (bucket, bytes) in buckets.iter().zip(&kept) {
        let mut damaged = bytes.clone();
        *damaged.last_mut().unwrap() ^= 1;
        std::fs::write(bucket, damaged).unwrap();
    }
    match block_on(index.search("Jupiter storm", 3)) {
        Err(SearchError::Fragment { url, reason }) => {
            assert!(url.starts_with("book/quire/index/terms/"), "{url}");
            assert!(reason.to_string().contains("checksum"), "{reason}");
        }
        other => panic!("a damaged bucket was taken in: {other:?}"),
    }
    buckets.iter().zip(&kept).for_each(|(bucket, bytes)| std::fs::write(bucket, bytes).unwrap());
    let found = block_on(index.search("Jupiter storm", 3)).unwrap();
    assert_eq!(found.pages[0].source, "jupiter.html");
}
