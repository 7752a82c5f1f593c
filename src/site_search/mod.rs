//! The search a built site adds with `quire site --built`: a front end as small as Pagefind's, without the
//! page, the model's runtime or the parsers. It opens the index's fragments beside the site
//! (`store::fragments`), and answers each question by words and by meaning from the fragments alone: the
//! term buckets of the question's words carry their rows of the index's query table
//! (`index::query_table`), whose mean is the question's vector, so no model is fetched; that vector scans
//! the partitions of the nearest centroids, and the standardised sum of dense and BM25 ranks the chunks
//! (`retrieve::over_fragments::hybrid`), as the whole index would over those partitions. It reads no part
//! of the graph, so the module links none of the graph retrievers (the site's full page has them). Only
//! the text runs of the results shown are fetched, and every fragment is kept for the next questions. The
//! `quire-search` binary hands it to the site's script, which draws the results; it fetches through the
//! browser (`browser`, wasm32 only), a test from a folder of files.

#[cfg(target_arch = "wasm32")]
pub mod browser;
mod found;

use std::cell::{Cell, RefCell};
use std::future::Future;

pub use found::{Found, FoundPage};

use crate::retrieve::Query;
use crate::retrieve::over_fragments;
use crate::store::fragments::{Fragment, FragmentError, FragmentedIndex, LEXICON, SEARCH_PROBED_VECTORS};

/// Where a site's files come from: a URL's bytes, or why not (the URL and the reason, in words).
pub trait Fetcher {
    /// `url`'s bytes; `revalidated`, from the server or from a copy the cache has confirmed with it.
    fn bytes(&self, url: &str, revalidated: bool) -> impl Future<Output = Result<Vec<u8>, String>>;

    /// `url`'s bytes as [`Self::bytes`] gives them, and how many bytes crossed the network for them: where
    /// it can, from the gzipped copy beside it (`quire site` writes one), inflated.
    fn inflated(&self, url: &str, revalidated: bool) -> impl Future<Output = Result<(Vec<u8>, usize), String>> {
        async move { self.bytes(url, revalidated).await.map(counted) }
    }
}

/// Bytes fetched as they are, and their count.
pub fn counted(bytes: Vec<u8>) -> (Vec<u8>, usize) {
    let count = bytes.len();
    (bytes, count)
}

/// Whether a fragment is fetched from its gzipped copy: the text runs and the lexicon, half their size
/// gzipped, and the centroids; not the term buckets and partitions, whose codes gzip hardly shrinks (and
/// whose small files may have no copy).
fn fetched_gzipped(fragment: Fragment) -> bool {
    matches!(fragment, Fragment::Texts(_) | Fragment::Centroids | Fragment::CentroidGroup(_))
}

#[derive(Debug, thiserror::Error)]
pub enum SearchError {
    #[error("{0}")]
    Fetch(String),
    #[error("{url}: {reason}")]
    Fragment { url: String, reason: FragmentError },
    /// A part the question needs was not there once fetched (only a site changed meanwhile does that).
    #[error("the site's index lacks a part this question needs (was the site rebuilt meanwhile?): ask again")]
    Incomplete,
}

/// A site's index, known by the fragments fetched so far.
pub struct SiteIndex<F> {
    fetcher: F,
    folder: String,
    index: RefCell<FragmentedIndex>,
    fetched_bytes: Cell<usize>,
}

impl<F: Fetcher> SiteIndex<F> {
    /// The index whose fragments lie in `folder` (a URL), from its lexicon, fetched by `fetcher`.
    pub async fn open(fetcher: F, folder: &str) -> Result<Self, SearchError> {
        let url = format!("{folder}/{LEXICON}");
        // The lexicon names the index every other part must belong to: never a copy the browser's cache
        // kept from an earlier build of the site.
        let (lexicon, transferred) = fetcher.inflated(&url, true).await.map_err(SearchError::Fetch)?;
        let mut index = FragmentedIndex::open(&lexicon).map_err(|reason| SearchError::Fragment { url, reason })?;
        index.probe(SEARCH_PROBED_VECTORS);
        let (folder, index, fetched_bytes) = (folder.to_string(), RefCell::new(index), Cell::new(transferred));
        Ok(Self { fetcher, folder, index, fetched_bytes })
    }

    /// The `pages` best pages for `question`: by words and meaning where the index has a query table, by
    /// BM25 alone where it has none.
    pub async fn search(&self, question: &str, pages: usize) -> Result<Found, SearchError> {
        self.fetch(|index| index.missing_for_query(question)).await?;
        let vector = self.index.borrow().table_vector(question).ok_or(SearchError::Incomplete)?;
        let has_table = self.index.borrow().has_query_table();
        let vector = match vector {
            Some(vector) => vector,
            // No word of the question is in the index: nothing can be found, by words or by meaning.
            None if has_table => return Ok(Found::nothing(question, self.fetched_bytes.get())),
            None => Vec::new(),
        };
        let query = Query::new(question, &vector);
        if query.has_vector() {
            // The groups' centroids, then the groups they point the question to, then those groups'
            // partitions it is nearest.
            for _ in 0..3 {
                self.fetch(|index| index.missing_for_meaning(query.vector)).await?;
            }
        }
        let hits = over_fragments::hybrid(&self.index.borrow(), query, pages).ok_or(SearchError::Incomplete)?;
        self.fetch(|index| index.missing_for_chunks(hits.iter().map(|hit| hit.best.chunk))).await?;
        let index = self.index.borrow();
        let views = hits.iter().map(|hit| index.chunk_view(hit.best.chunk));
        let views: Vec<_> = views.collect::<Option<_>>().ok_or(SearchError::Incomplete)?;
        Ok(Found::of(question, &views, query.has_vector(), self.fetched_bytes.get()))
    }

    /// Fetches, all at once, the fragments `missing` names, and takes them in.
    async fn fetch(&self, missing: impl FnOnce(&FragmentedIndex) -> Vec<Fragment>) -> Result<(), SearchError> {
        let wanted = missing(&self.index.borrow());
        let urls: Vec<String> = wanted.iter().map(|fragment| format!("{}/{}", self.folder, fragment.path())).collect();
        let fetched = futures_util::future::join_all(wanted.iter().zip(&urls).map(|(&fragment, url)| async move {
            if fetched_gzipped(fragment) {
                self.fetcher.inflated(url, false).await
            } else {
                self.fetcher.bytes(url, false).await.map(counted)
            }
        }))
        .await;
        for ((fragment, url), fetched) in wanted.into_iter().zip(urls).zip(fetched) {
            let (bytes, transferred) = fetched.map_err(SearchError::Fetch)?;
            self.fetched_bytes.set(self.fetched_bytes.get() + transferred);
            self.take_in(fragment, bytes, url).await?;
        }
        Ok(())
    }

    /// Takes `bytes` of `fragment` in; a part of another index (a copy a cache kept from an earlier build of
    /// the site) is fetched again, confirmed with the server.
    async fn take_in(&self, fragment: Fragment, bytes: Vec<u8>, url: String) -> Result<(), SearchError> {
        // Each borrow ends with its statement: never held across the fetch, while other questions run.
        let added = self.index.borrow_mut().add_except_graph(fragment, &bytes);
        let added = match added {
            Err(FragmentError::OtherIndex) => {
                let bytes = self.fetcher.bytes(&url, true).await.map_err(SearchError::Fetch)?;
                self.fetched_bytes.set(self.fetched_bytes.get() + bytes.len());
                self.index.borrow_mut().add_except_graph(fragment, &bytes)
            }
            added => added,
        };
        added.map_err(|reason| SearchError::Fragment { url, reason })
    }
}
