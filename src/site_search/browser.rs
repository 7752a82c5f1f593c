//! A site's files fetched by the browser.

use super::{Fetcher, counted};
use crate::web::browser::{fetch_bytes, fetch_bytes_revalidated, gunzipped};

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

    /// From `url.gz` where there is one and the browser can inflate it (DecompressionStream); else from
    /// `url` itself.
    async fn inflated(&self, url: &str, revalidated: bool) -> Result<(Vec<u8>, usize), String> {
        if let Ok(compressed) = self.bytes(&format!("{url}.gz"), revalidated).await {
            let transferred = compressed.len();
            if let Ok(bytes) = gunzipped(compressed).await {
                return Ok((bytes, transferred));
            }
        }
        self.bytes(url, revalidated).await.map(counted)
    }
}
