//! PDF: the text of each page, laid out like plain text, every block keeping its 1-based page number.

use super::document::DocumentBuilder;

pub fn parse(bytes: &[u8], builder: &mut DocumentBuilder) -> Result<(), String> {
    let pages = extract_pages(bytes)?;
    for (index, page) in pages.iter().enumerate() {
        super::text::parse(page, Some(index as u32 + 1), builder);
    }
    Ok(())
}

fn extract_pages(bytes: &[u8]) -> Result<Vec<String>, String> {
    let extract = || pdf_extract::extract_text_from_mem_by_pages(bytes).map_err(|e| format!("unreadable PDF: {e}"));
    // pdf-extract panics on some malformed files instead of returning an error. Natively the unwind is
    // caught here, so one bad PDF cannot take the others down; the process-wide panic hook is left alone
    // (swapping it would race with every other thread). In the browser a panic aborts the module: there,
    // containment needs parsing in a worker whose loss the page survives.
    #[cfg(not(target_arch = "wasm32"))]
    {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(extract))
            .unwrap_or_else(|_| Err("unreadable PDF: the file is malformed".into()))
    }
    #[cfg(target_arch = "wasm32")]
    {
        extract()
    }
}
