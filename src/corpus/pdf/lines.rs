//! What pdf-extract hands over, glyph by glyph, collected into lines with their size and position, one list
//! per page; and a PDF text string decoded.

use pdf_extract::{MediaBox, OutputDev, OutputError, Transform};

use crate::corpus::document::collapse_whitespace;

/// A PDF text string: UTF-16BE after its byte order mark, else PDFDocEncoding (Latin-1 for what titles use).
pub(super) fn decode_text_string(bytes: &[u8]) -> String {
    match bytes.strip_prefix(&[0xFE, 0xFF]) {
        Some(utf16) => encoding_rs::UTF_16BE.decode_without_bom_handling(utf16).0.into_owned(),
        None => encoding_rs::WINDOWS_1252.decode_without_bom_handling(bytes).0.into_owned(),
    }
}

/// One line of text as laid out on its page.
#[derive(Clone, Debug, Default)]
pub(super) struct Line {
    pub(super) text: String,
    /// The largest glyph on the line, in points.
    pub(super) size: f32,
    /// Distance from the top of the page to the baseline.
    pub(super) y: f32,
    /// Gaps wider than two spaces between runs of words: columns, as in a table row.
    pub(super) column_gaps: usize,
}

/// Collects glyphs into lines, one list per page (pdf-extract's own text output keeps no sizes).
#[derive(Default)]
pub(super) struct LineCollector {
    pub(super) pages: Vec<Vec<Line>>,
    pub(super) line: Option<Line>,
    pub(super) page_height: f64,
    pub(super) last_end: f64,
    pub(super) word_start: bool,
    /// The last glyph and where it started: fake bold prints each glyph twice, a hair apart.
    pub(super) last_glyph: (String, f64, f64),
}

impl LineCollector {
    fn end_line(&mut self) {
        if let Some(line) = self.line.take().filter(|l| !l.text.trim().is_empty())
            && let Some(page) = self.pages.last_mut()
        {
            page.push(Line { text: collapse_whitespace(&line.text), ..line });
        }
    }
}

impl OutputDev for LineCollector {
    fn begin_page(&mut self, _: u32, media_box: &MediaBox, _: Option<(f64, f64, f64, f64)>) -> Result<(), OutputError> {
        self.end_line();
        self.pages.push(Vec::new());
        self.page_height = media_box.ury - media_box.lly;
        Ok(())
    }

    fn end_page(&mut self) -> Result<(), OutputError> {
        self.end_line();
        Ok(())
    }

    fn output_character(
        &mut self,
        trm: &Transform,
        width: f64,
        _: f64,
        font_size: f64,
        glyph: &str,
    ) -> Result<(), OutputError> {
        // The glyph's size on the page: the text matrix scales the font's nominal size.
        let (sx, sy) = (font_size * (trm.m11 + trm.m21), font_size * (trm.m12 + trm.m22));
        let size = (sx * sy).abs().sqrt();
        let (x, y) = (trm.m31, self.page_height - trm.m32);
        let (last, last_x, last_y) = &self.last_glyph;
        if last == glyph && (x - last_x).abs() < size * 0.2 && (y - last_y).abs() < size * 0.2 {
            return Ok(());
        }
        self.last_glyph = (glyph.to_string(), x, y);
        let same_line = self.line.as_ref().is_some_and(|l| (y - l.y as f64).abs() <= size * 0.5);
        if !same_line || (self.word_start && x + size < self.last_end) {
            self.end_line();
            self.line = Some(Line { y: y as f32, ..Line::default() });
        } else if self.word_start && x > self.last_end + size * 0.1 {
            let line = self.line.as_mut().expect("a line is open");
            line.text.push(' ');
            if x > self.last_end + size * 2.0 {
                line.column_gaps += 1;
            }
        }
        let line = self.line.as_mut().expect("a line is open");
        line.text.push_str(glyph);
        line.size = line.size.max(size as f32);
        self.word_start = false;
        self.last_end = x + width * size;
        Ok(())
    }

    fn begin_word(&mut self) -> Result<(), OutputError> {
        self.word_start = true;
        Ok(())
    }

    fn end_word(&mut self) -> Result<(), OutputError> {
        Ok(())
    }

    fn end_line(&mut self) -> Result<(), OutputError> {
        Ok(())
    }
}
