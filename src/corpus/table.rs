//! CSV and TSV files: the table is one section, each row one chunk rendered as `header: value; ...`
//! (row-level chunking, seed 004 §6).

use super::Malformed;
use super::document::{BlockKind, DocumentBuilder};

/// Characters a header cell may have and still label the values under it: a label is repeated in every
/// row, and a real one is a few words.
pub const MAX_LABEL_CHARS: usize = 100;
/// Bytes of labels one table may repeat in all. Labels multiply the header by the rows: a 2 MB header row
/// over 2,000 rows would be 4 GB of text. Past this, rows are laid out with their values alone.
pub const MAX_LABEL_BYTES: usize = 8 * 1024 * 1024;

/// What a table has spent of [`MAX_LABEL_BYTES`]: every format's tables label their rows through one.
#[derive(Default)]
pub struct LabelBudget {
    spent: usize,
}

impl LabelBudget {
    /// Whether `label` may label a value: it is short enough, and the table's budget lasts.
    pub fn allows(&mut self, label: &str) -> bool {
        if label.is_empty() || label.len() > MAX_LABEL_CHARS * 4 || label.chars().count() > MAX_LABEL_CHARS {
            return false;
        }
        self.spent += label.len();
        self.spent <= MAX_LABEL_BYTES
    }

    /// The warning for a table whose labels ran out, if they did.
    pub fn warning(&self) -> Option<String> {
        (self.spent > MAX_LABEL_BYTES).then(|| {
            format!(
                "the table's header labels would repeat more than {} MB of text: later rows are read without them",
                MAX_LABEL_BYTES / (1024 * 1024)
            )
        })
    }
}

/// Lays out the rows; returns warnings for rows that could not be read.
pub fn parse(
    text: &str,
    delimiter: u8,
    section_title: &str,
    builder: &mut DocumentBuilder,
) -> Result<Vec<String>, Malformed> {
    let mut reader =
        csv::ReaderBuilder::new().delimiter(delimiter).flexible(true).trim(csv::Trim::All).from_reader(text.as_bytes());
    let header: Vec<String> =
        reader.headers().map_err(|e| format!("unreadable header row: {e}"))?.iter().map(str::to_string).collect();
    if header.iter().all(String::is_empty) {
        return Err("the header row is empty".into());
    }
    builder.heading(1, section_title);
    let mut warnings = Vec::new();
    let mut budget = LabelBudget::default();
    for (index, record) in reader.records().enumerate() {
        match record {
            Ok(record) => builder.paragraph(BlockKind::TableRow, &row_text(&header, record.iter(), &mut budget)),
            Err(e) => warnings.push(format!("row {} skipped: {e}", index + 2)),
        }
    }
    warnings.extend(budget.warning());
    Ok(warnings)
}

/// A document's table as one `TableRow` block per row, under `marked_header` (the header row the document
/// marks as one), else under the first row when the table has more rows and columns than one.
pub fn table_rows(marked_header: Option<Vec<String>>, mut rows: Vec<Vec<String>>, builder: &mut DocumentBuilder) {
    builder.end_block();
    let header = match marked_header {
        Some(header) => header,
        None if rows.len() > 1 && rows[0].len() > 1 => rows.remove(0),
        None => Vec::new(),
    };
    let mut budget = LabelBudget::default();
    for row in rows {
        builder.paragraph(BlockKind::TableRow, &row_text(&header, row.iter().map(String::as_str), &mut budget));
    }
}

/// A table row as `header: value; ...` (cells without a header, or past the table's `budget`, stand
/// alone; empty cells are left out): the shape every format's table rows take.
pub fn row_text<'a>(header: &[String], cells: impl Iterator<Item = &'a str>, budget: &mut LabelBudget) -> String {
    cells
        .enumerate()
        .filter(|(_, value)| !value.is_empty())
        .map(|(i, value)| match header.get(i).filter(|h| budget.allows(h)) {
            Some(h) => format!("{h}: {value}"),
            None => value.to_string(),
        })
        .collect::<Vec<_>>()
        .join("; ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::document::{Format, Metadata};

    #[test]
    fn rows_become_labelled_blocks() {
        let mut builder = DocumentBuilder::new();
        let warnings =
            parse("name,moons\nMars,2\n\"Jupiter, giant\",95\nVenus,\n", b',', "planets.csv", &mut builder).unwrap();
        assert!(warnings.is_empty());
        let doc = builder.finish("planets.csv".into(), [0; 16], Format::Csv, Metadata::default(), "planets");
        let blocks: Vec<&str> = doc.blocks.iter().map(|b| doc.slice(b.span)).collect();
        assert_eq!(
            blocks,
            vec!["planets.csv", "name: Mars; moons: 2", "name: Jupiter, giant; moons: 95", "name: Venus"]
        );
    }

    #[test]
    fn a_huge_header_labels_no_row_and_labels_stop_at_the_table_s_budget() {
        let long = "h".repeat(2 * 1024 * 1024);
        let rows: String = (0..2_000).map(|n| format!("{n},x\n")).collect();
        let mut builder = DocumentBuilder::new();
        let warnings = parse(&format!("{long},kind\n{rows}"), b',', "t.csv", &mut builder).unwrap();
        assert!(warnings.is_empty());
        let doc = builder.finish("t.csv".into(), [0; 16], Format::Csv, Metadata::default(), "t");
        assert!(doc.text.len() < 100_000, "{} bytes", doc.text.len());
        assert_eq!(doc.slice(doc.blocks[1].span), "0; kind: x");

        let label = "l".repeat(MAX_LABEL_CHARS);
        let header = vec![label.clone(); 1_000].join(",");
        let row = vec!["v"; 1_000].join(",");
        let text = format!("{header}\n{}", format!("{row}\n").repeat(200));
        let mut builder = DocumentBuilder::new();
        let warnings = parse(&text, b',', "wide.csv", &mut builder).unwrap();
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(warnings[0].contains("more than 8 MB"), "{warnings:?}");
        let doc = builder.finish("wide.csv".into(), [0; 16], Format::Csv, Metadata::default(), "wide");
        assert!(doc.text.len() < MAX_LABEL_BYTES + 4 * text.len(), "{} bytes", doc.text.len());
        assert!(doc.slice(doc.blocks.last().unwrap().span).starts_with("v; v; v"), "the last rows are values alone");
    }
}
