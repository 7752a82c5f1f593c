//! A site's files fetched by the browser.

use super::Fetcher;
use crate::web::browser::{fetch_bytes, fetch_bytes_revalidated};

/// Fetches with the browser's `fetch`, through its HTTP cache.
pub struct BrowserFetcher;

impl Fetcher for BrowserFetcher {
    async fn bytes(&self, url: &str, revalidated: bool) -> Result<Vec<u8>, String> {
        let fetched = match revalidated {
            true => fetch_bytes_revalidated(url).await,
            false => fetch_bytes(url).await,
        };
        fetched.map_err(|error| error.to_string())
    }
}
