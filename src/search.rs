//! The `quire-search` binary: the search a built site adds (`quire site --built`), built for wasm32 by
//! Trunk. It hands `site_search` to the site's script (www/search/quire-search-ui.js) as one class.

#[cfg(target_arch = "wasm32")]
mod exported {
    use std::rc::Rc;

    use quire::site_search::SiteIndex;
    use quire::site_search::browser::BrowserFetcher;
    use wasm_bindgen::prelude::*;
    use wasm_bindgen_futures::future_to_promise;

    /// A site's index, opened from the folder of its fragments.
    #[wasm_bindgen]
    pub struct QuireSearch(Rc<SiteIndex<BrowserFetcher>>);

    #[wasm_bindgen]
    impl QuireSearch {
        /// Opens the index whose fragments lie in `folder` (a URL).
        pub async fn open(folder: String) -> Result<QuireSearch, JsError> {
            let index = SiteIndex::open(BrowserFetcher, &folder).await.map_err(|e| JsError::new(&e.to_string()))?;
            Ok(QuireSearch(Rc::new(index)))
        }

        /// The `pages` best pages for `question`, as JSON (`site_search::Found`).
        pub fn search(&self, question: String, pages: usize) -> js_sys::Promise {
            let index = Rc::clone(&self.0);
            future_to_promise(async move {
                let found = index.search(&question, pages).await.map_err(|e| JsError::new(&e.to_string()))?;
                let json = serde_json::to_string(&found).map_err(|e| JsError::new(&e.to_string()))?;
                Ok(JsValue::from_str(&json))
            })
        }
    }
}

fn main() {
    #[cfg(not(target_arch = "wasm32"))]
    {
        eprintln!("quire-search is a built site's search module: build it with Trunk; the CLI is `quire`");
        std::process::exit(2);
    }
}
