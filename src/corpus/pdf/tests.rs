//! Unit tests of `pdf`, beside it so the module itself reads in one sitting.

use pdf_extract::{MediaBox, OutputDev, Transform};

use super::headings::numbering_depth;
use super::*;

#[test]
fn numbered_section_titles_are_headings_and_table_rows_are_not() {
    assert_eq!(numbering_depth("2.10. Storing the MIME type"), Some(2));
    assert_eq!(numbering_depth("3. Results"), Some(1));
    assert_eq!(numbering_depth("4 CARD32 FIRST_MATCHLET_OFFSET"), None);
    assert_eq!(numbering_depth("12 January 2020"), None);
    assert_eq!(numbering_depth("2.1 Methods"), Some(2));
}

#[test]
fn hyphenated_words_are_rejoined_at_line_ends() {
    let mut paragraph = String::from("the speci-");
    join_line(&mut paragraph, "fication says");
    assert_eq!(paragraph, "the specification says");
    join_line(&mut paragraph, "X-");
    join_line(&mut paragraph, "Ray");
    assert_eq!(paragraph, "the specification says X- Ray");
}

#[test]
fn fake_bold_glyphs_printed_twice_are_read_once() {
    let mut lines = LineCollector::default();
    let media = MediaBox { llx: 0.0, lly: 0.0, urx: 600.0, ury: 800.0 };
    lines.begin_page(1, &media, None).unwrap();
    lines.begin_word().unwrap();
    // "SA" set in 12-point type, each glyph printed again 0.3 points to the right.
    for (glyph, x) in [("S", 100.0), ("S", 100.3), ("A", 108.0), ("A", 108.3)] {
        lines.output_character(&Transform::row_major(1.0, 0.0, 0.0, 1.0, x, 700.0), 0.6, 0.0, 12.0, glyph).unwrap();
    }
    lines.end_page().unwrap();
    assert_eq!(lines.pages[0][0].text, "SA");
}

fn line(text: &str) -> Line {
    Line { text: text.into(), size: 10.0, ..Line::default() }
}

#[test]
fn running_headers_and_page_numbers_are_dropped() {
    let mut pages: Vec<Vec<Line>> = (1..=4)
        .map(|p| {
            vec![
                line("Shared MIME-info Database"),
                line(&format!("Body text of page {p} goes here.")),
                line("More body."),
                line(&format!("{p}")),
            ]
        })
        .collect();
    drop_running_lines(&mut pages);
    for (p, page) in pages.iter().enumerate() {
        let texts: Vec<&str> = page.iter().map(|l| l.text.as_str()).collect();
        assert_eq!(texts, vec![format!("Body text of page {} goes here.", p + 1).as_str(), "More body."]);
    }
}
