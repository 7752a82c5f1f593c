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
    // pdf-extract panics on some malformed files instead of returning an error; natively the panic is
    // contained so one bad PDF cannot take the others down.
    #[cfg(not(target_arch = "wasm32"))]
    {
        let previous_hook = std::panic::take_hook();
        std::panic::set_hook(Box::new(|_| {}));
        let outcome = std::panic::catch_unwind(extract);
        std::panic::set_hook(previous_hook);
        outcome.unwrap_or_else(|_| Err("unreadable PDF: the file is malformed".into()))
    }
    #[cfg(target_arch = "wasm32")]
    {
        extract()
    }
}
