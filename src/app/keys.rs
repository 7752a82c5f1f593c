//! The page's keyboard shortcuts share two rules: a key typed into a field is the field's, never a shortcut,
//! and space on a control presses it rather than stepping a lesson or the teaching view.

use wasm_bindgen::JsCast;

/// Whether `event` was typed into a text field, a list or an editable element.
pub fn typing(event: &web_sys::KeyboardEvent) -> bool {
    let element = event.target().and_then(|target| target.dyn_into::<web_sys::HtmlElement>().ok());
    element.is_some_and(|element| {
        matches!(element.tag_name().as_str(), "INPUT" | "TEXTAREA" | "SELECT") || element.is_content_editable()
    })
}

/// Whether a modifier is held (Alt+← goes back in the history; Ctrl+/ is the browser's).
pub fn modified(event: &web_sys::KeyboardEvent) -> bool {
    event.alt_key() || event.ctrl_key() || event.meta_key()
}

/// Whether `event` (space) would press a control: a button, a disclosure's summary or a link.
pub fn presses_a_control(event: &web_sys::KeyboardEvent) -> bool {
    let element = event.target().and_then(|target| target.dyn_into::<web_sys::Element>().ok());
    element.is_some_and(|element| element.closest("button, summary, a").ok().flatten().is_some())
}
