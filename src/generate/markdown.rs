//! An answer as HTML the page can show: the model's Markdown rendered by pulldown-cmark with everything
//! that could run or load something taken out. Raw HTML in the answer is shown as text, links keep only
//! `http`, `https` and `mailto` targets (and open in a new tab), images become their alt text, and each
//! citation `[n]` becomes a button naming its passages. An answer comes from a server the page does not
//! control, so the output holds no markup but what this module writes.

use pulldown_cmark::{CowStr, Event, LinkType, Options, Parser, Tag, TagEnd};
use pulldown_cmark_escape::escape_href;

use super::citations::{Piece, pieces};

/// Link targets an answer may keep: ones that leave the app for the web or a mail client, never a script.
const SAFE_SCHEMES: [&str; 3] = ["http://", "https://", "mailto:"];

fn safe_target(url: &str) -> bool {
    let url = url.trim().to_ascii_lowercase();
    SAFE_SCHEMES.iter().any(|scheme| url.starts_with(scheme))
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Link {
    Kept,
    /// An unsafe target: the link's text stays, unlinked.
    Dropped,
    /// A reference-style link, shown as its bracketed text.
    Bracketed,
}

/// `answer` as HTML; citations name passages `1..=passages`.
pub fn answer_html(answer: &str, passages: usize) -> String {
    let mut events: Vec<Event<'_>> = Vec::new();
    // What became of each open link, so that its end goes the same way.
    let mut links: Vec<Link> = Vec::new();
    let mut in_code_block = false;
    let mut text = String::new();
    for event in Parser::new_ext(answer, Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH) {
        // Text arrives in pieces (a `[` starts its own event): citations are found in the whole run.
        if let Event::Text(piece) | Event::Html(piece) | Event::InlineHtml(piece) = &event
            && !in_code_block
        {
            text.push_str(piece);
            continue;
        }
        // A reference-style link (`[1]` with a definition `[1]: https://…` somewhere in the answer) stays the
        // bracketed text it was written as: otherwise a definition would turn the citations into links.
        match &event {
            Event::Start(Tag::Link {
                link_type: LinkType::Reference | LinkType::Collapsed | LinkType::Shortcut,
                ..
            }) => {
                links.push(Link::Bracketed);
                text.push('[');
                continue;
            }
            Event::End(TagEnd::Link) if links.last() == Some(&Link::Bracketed) => {
                links.pop();
                text.push(']');
                continue;
            }
            _ => {}
        }
        flush_text(&mut text, passages, &mut events);
        match event {
            Event::Start(Tag::CodeBlock(_)) => {
                in_code_block = true;
                events.push(event);
            }
            Event::End(TagEnd::CodeBlock) => {
                in_code_block = false;
                events.push(event);
            }
            Event::Start(Tag::Link { link_type, dest_url, .. }) => {
                let target = match link_type {
                    LinkType::Email => format!("mailto:{dest_url}"),
                    _ => dest_url.to_string(),
                };
                let kept = Some(target).filter(|t| safe_target(t));
                links.push(if kept.is_some() { Link::Kept } else { Link::Dropped });
                if let Some(target) = kept {
                    let mut anchor = String::from("<a href=\"");
                    let _ = escape_href(&mut anchor, &target);
                    anchor.push_str("\" target=\"_blank\" rel=\"noopener noreferrer\">");
                    events.push(Event::Html(anchor.into()));
                }
            }
            Event::End(TagEnd::Link) => {
                if links.pop() == Some(Link::Kept) {
                    events.push(Event::Html("</a>".into()));
                }
            }
            // The alt text (the events between) stays; nothing is fetched.
            Event::Start(Tag::Image { .. }) | Event::End(TagEnd::Image) => {}
            Event::Html(raw) | Event::InlineHtml(raw) => events.push(Event::Text(raw)),
            other => events.push(other),
        }
    }
    flush_text(&mut text, passages, &mut events);
    let mut html = String::new();
    pulldown_cmark::html::push_html(&mut html, events.into_iter());
    html
}

/// The text gathered so far, as text events and citation buttons.
fn flush_text(text: &mut String, passages: usize, events: &mut Vec<Event<'_>>) {
    if text.is_empty() {
        return;
    }
    for piece in pieces(text, passages) {
        events.push(match piece {
            Piece::Text(plain) => Event::Text(CowStr::from(plain.to_string())),
            Piece::Citation { text, passages } => {
                let numbers: Vec<String> = passages.iter().map(usize::to_string).collect();
                // Digits, commas, spaces and dashes only: nothing to escape.
                Event::Html(
                    format!(
                        "<button type=\"button\" class=\"cite\" data-passages=\"{}\" title=\"Open passage {}\">{text}</button>",
                        numbers.join(" "),
                        numbers.join(", ")
                    )
                    .into(),
                )
            }
        });
    }
    text.clear();
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const HOSTILE: &str = "**Bold** claim [1]. <script>window.pwned = 1</script> \
        [a link](javascript:alert(1)) [b](JaVaScRiPt:alert(1)) <img src=x onerror=\"alert(1)\"> \
        ![alt text](http://evil.example/x.png) <a href=\"#\" onclick=\"alert(1)\">click</a> \
        <javascript:alert(1)> [fine](https://example.org/a?b=\"c\")";

    #[test]
    fn a_hostile_answer_keeps_no_markup_of_its_own() {
        let html = answer_html(HOSTILE, 3);
        assert!(!html.contains("<script"), "{html}");
        assert!(!html.contains("<img"), "{html}");
        assert!(!html.contains("<a href=\"#\""), "{html}");
        assert!(!html.to_lowercase().contains("href=\"javascript"), "{html}");
        assert!(html.contains("&lt;script&gt;"), "{html}");
        assert!(html.contains("<strong>Bold</strong>"), "{html}");
        assert!(html.contains("alt text") && !html.contains("evil.example"), "{html}");
        assert!(
            html.contains(
                "<a href=\"https://example.org/a?b=%22c%22\" target=\"_blank\" rel=\"noopener noreferrer\">fine</a>"
            ),
            "{html}"
        );
        assert!(html.contains("data-passages=\"1\""), "{html}");
    }

    #[test]
    fn reference_definitions_cannot_turn_citations_into_links_and_mail_addresses_stay_links() {
        let html = answer_html("It landed [1].\n\n[1]: https://evil.example\n\nWrite to <ask@example.org>.", 3);
        assert!(!html.contains("evil.example") && html.contains("data-passages=\"1\""), "{html}");
        assert!(html.contains("<a href=\"mailto:ask@example.org\""), "{html}");
    }

    #[test]
    fn citations_become_buttons_outside_code_only() {
        let html = answer_html("Landed in 1969 [2], walked [1, 3]. Not [7].\n\n```\nx[1]\n```\n`a[2]`", 3);
        assert!(html.contains("data-passages=\"2\""), "{html}");
        assert!(html.contains("data-passages=\"1 3\""), "{html}");
        assert!(html.contains("Not [7]."), "{html}");
        assert_eq!(html.matches("class=\"cite\"").count(), 2, "{html}");
    }

    /// Every element of `html` with its attribute names: the only markup it holds, since text is escaped.
    fn elements(html: &str) -> Vec<(String, Vec<String>)> {
        html.split('<')
            .skip(1)
            .map(|tag| {
                let tag = &tag[..tag.find('>').unwrap_or(tag.len())];
                let mut words = tag.trim_start_matches('/').split_whitespace();
                let name = words.next().unwrap_or_default().to_string();
                let attributes = tag
                    .split('"')
                    .step_by(2)
                    .flat_map(|outside| outside.split_whitespace())
                    .filter_map(|word| word.strip_suffix('='))
                    .map(str::to_string)
                    .collect();
                (name, attributes)
            })
            .collect()
    }

    proptest! {
        /// Whatever the model sends, the only elements in the output are the ones Markdown and this module
        /// write, with no attribute that can run script or load anything.
        #[test]
        fn no_answer_produces_script(answer in "([<>\"'=/a-z \\[\\]()!:*`#0-9\n-]|<script>|onerror=|javascript:|<img |<a |http://x){0,60}") {
            let html = answer_html(&answer, 5);
            for (name, attributes) in elements(&html) {
                prop_assert!(
                    ["p", "a", "em", "strong", "code", "pre", "button", "ul", "ol", "li", "h1", "h2", "h3", "h4",
                     "h5", "h6", "blockquote", "hr", "br", "table", "thead", "tbody", "tr", "th", "td", "del"]
                        .contains(&name.as_str()),
                    "unexpected element <{}> in {}", name, html
                );
                for attribute in attributes {
                    prop_assert!(
                        ["href", "target", "rel", "type", "class", "data-passages", "title", "start", "style"].contains(&attribute.as_str()),
                        "unexpected attribute {} in {}", attribute, html
                    );
                }
            }
            prop_assert!(!html.to_lowercase().contains("href=\"javascript"));
        }
    }
}
