//! How much work a page's nesting will cost the parser, counted before it is parsed. The HTML parser
//! (html5ever, as the standard says) checks whether a `p` is "in scope" by walking the stack of open
//! elements at the start tag of every block element (`div`, `section`, `ul`, a heading...): a page of
//! nested blocks costs the square of its depth (100,000 nested `div`s take 13 s, a million would take
//! hours), where inline elements nest at no such cost. The walks are counted, one step per open element,
//! in one pass of html5ever's own tokenizer (linear in the page); a page whose walks would pass
//! [`MAX_SCOPE_STEPS`] is refused before the parser sees it. A real page takes a few million.

use std::cell::Cell;

use html5ever::tendril::StrTendril;
use html5ever::tokenizer::states::RawKind;
use html5ever::tokenizer::{BufferQueue, Tag, TagKind, Token, TokenSink, TokenSinkResult, Tokenizer, TokenizerOpts};

/// Steps of the parser's scope walks a page may cost: about a second of parsing (30,000 nested `div`s cost
/// 450 million and took 1.7 s).
pub const MAX_SCOPE_STEPS: u64 = 200_000_000;

/// Elements a page may have: the parser keeps each as a node of its tree (a few hundred bytes each). The
/// largest real page here, the Rust Reference on one page (4.4 MB), has 89,487; a table of 3,000 columns
/// by 2,000 rows would have six million and take gigabytes.
pub const MAX_ELEMENTS: u64 = 1_000_000;

/// Elements whose start tag walks the open elements (those that close an open `p`, per the standard).
const SCOPE_CHECKING: &[&str] = &[
    "address",
    "article",
    "aside",
    "blockquote",
    "center",
    "details",
    "dialog",
    "dir",
    "div",
    "dl",
    "fieldset",
    "figcaption",
    "figure",
    "footer",
    "header",
    "hgroup",
    "main",
    "menu",
    "nav",
    "ol",
    "p",
    "search",
    "section",
    "summary",
    "ul",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "pre",
    "listing",
    "form",
    "li",
    "dd",
    "dt",
    "plaintext",
    "table",
    "hr",
    "xmp",
];

/// Elements with no content, and elements whose end tag may be left out (`<p>`, `<li>`, `<td>`...): neither
/// opens a level that a missing end tag would leave open, so neither is counted.
const NOT_NESTING: &[&str] = &[
    "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr", "p", "li",
    "dt", "dd", "tr", "td", "th", "thead", "tbody", "tfoot", "option", "optgroup", "rb", "rt", "rp", "rtc", "colgroup",
    "caption", "html", "head", "body",
];

/// Why a page is not parsed: the limit it would pass.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TooCostly {
    #[error("it has more than {MAX_ELEMENTS} elements (HTML tags): not read")]
    Elements,
    #[error(
        "it nests block elements so deep that parsing it would take hours (the parser's work grows with the \
         square of the depth, past {MAX_SCOPE_STEPS} steps): not read"
    )]
    Nesting,
}

/// `Err` naming the limit when parsing `html` would cost more than [`MAX_SCOPE_STEPS`].
pub fn check(html: &str) -> Result<(), TooCostly> {
    let tokenizer = Tokenizer::new(Depth::default(), TokenizerOpts::default());
    let input = BufferQueue::default();
    // Fed a piece at a time, so a page past a limit is refused as soon as it passes it.
    let mut rest = html;
    while !rest.is_empty() && !tokenizer.sink.past_limits() {
        let mut cut = rest.len().min(1 << 16);
        while !rest.is_char_boundary(cut) {
            cut += 1;
        }
        input.push_back(StrTendril::from(&rest[..cut]));
        let _ = tokenizer.feed(&input);
        rest = &rest[cut..];
    }
    tokenizer.end();
    let elements = tokenizer.sink.elements.get();
    if elements > MAX_ELEMENTS {
        return Err(TooCostly::Elements);
    }
    match tokenizer.sink.steps.get() {
        steps if steps > MAX_SCOPE_STEPS => Err(TooCostly::Nesting),
        _ => Ok(()),
    }
}

#[derive(Default)]
struct Depth {
    open: Cell<u64>,
    steps: Cell<u64>,
    elements: Cell<u64>,
}

impl Depth {
    fn past_limits(&self) -> bool {
        self.elements.get() > MAX_ELEMENTS || self.steps.get() > MAX_SCOPE_STEPS
    }
}

impl TokenSink for Depth {
    type Handle = ();

    fn process_token(&self, token: Token, _line: u64) -> TokenSinkResult<()> {
        let Token::TagToken(Tag { kind, name, self_closing, .. }) = token else { return TokenSinkResult::Continue };
        let name: &str = &name;
        if kind == TagKind::StartTag {
            // What the tree builder would read as text, the tokenizer must too, or a script's "<div>" counts.
            let raw = match name {
                "script" => Some(RawKind::ScriptData),
                "style" | "xmp" | "iframe" | "noembed" | "noframes" => Some(RawKind::Rawtext),
                "textarea" | "title" => Some(RawKind::Rcdata),
                _ => None,
            };
            if let Some(raw) = raw {
                return TokenSinkResult::RawData(raw);
            }
        }
        if kind == TagKind::StartTag {
            self.elements.set(self.elements.get() + 1);
        }
        if kind == TagKind::StartTag && SCOPE_CHECKING.contains(&name) {
            self.steps.set(self.steps.get().saturating_add(self.open.get()));
        }
        if self_closing || NOT_NESTING.contains(&name) {
            return TokenSinkResult::Continue;
        }
        match kind {
            TagKind::StartTag => self.open.set(self.open.get() + 1),
            TagKind::EndTag => self.open.set(self.open.get().saturating_sub(1)),
        }
        TokenSinkResult::Continue
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nested(depth: usize) -> String {
        format!("<html><body>{}<p>Deep.</p>{}</body></html>", "<div>".repeat(depth), "</div>".repeat(depth))
    }

    #[test]
    fn a_page_nested_beyond_the_limit_is_refused_and_real_pages_are_not() {
        assert!(check(&nested(10_000)).is_ok(), "50 million steps");
        let refused = check(&nested(30_000)).unwrap_err().to_string();
        assert!(refused.contains("past 200000000 steps"), "{refused}");
        // Inline elements nest without walks.
        assert!(check(&format!("{}Deep", "<span><b>".repeat(100_000))).is_ok());
        // Unclosed paragraphs and list items, void elements, and tags inside scripts open nothing.
        let sloppy = format!(
            "<ul>{}</ul>{}<script>{}</script><br><img src=x>",
            "<li>item".repeat(10_000),
            "<p>para".repeat(10_000),
            "document.write('<div>');".repeat(10_000)
        );
        assert!(check(&sloppy).is_ok());
    }

    #[test]
    fn a_page_of_more_elements_than_any_real_one_is_refused() {
        let row = format!("<tr>{}</tr>", "<td>1</td>".repeat(999));
        let table = |rows: usize| format!("<table>{}</table>", row.repeat(rows));
        assert!(check(&table(900)).is_ok());
        let refused = check(&table(1_100)).unwrap_err().to_string();
        assert!(refused.contains("more than 1000000 elements"), "{refused}");
    }
}
