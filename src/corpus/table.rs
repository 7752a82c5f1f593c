//! CSV and TSV files, and the shape every format's tables take: the header row once, as a
//! [`BlockKind::TableHeader`] block, then one [`BlockKind::TableRow`] block of values per row. Rows merge
//! into chunks of the normal size and each chunk carries the header in its context (`corpus::chunking`),
//! so a table costs its own bytes: labelling every cell (seed 004 §6's row-level chunks) multiplied the
//! header by the rows.

use super::Malformed;
use super::document::{BlockKind, DocumentBuilder};

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
    builder.paragraph(BlockKind::TableHeader, &row_text(header.iter().map(String::as_str)));
    let mut warnings = Vec::new();
    for (index, record) in reader.records().enumerate() {
        match record {
            Ok(record) => builder.paragraph(BlockKind::TableRow, &row_text(record.iter())),
            Err(e) => warnings.push(format!("row {} skipped: {e}", index + 2)),
        }
    }
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
    builder.paragraph(BlockKind::TableHeader, &row_text(header.iter().map(String::as_str)));
    for row in rows {
        builder.paragraph(BlockKind::TableRow, &row_text(row.iter().map(String::as_str)));
    }
}

/// A row's cells as `value; value; ...`, empty cells left out: the shape every format's rows take.
pub fn row_text<'a>(cells: impl Iterator<Item = &'a str>) -> String {
    cells.filter(|value| !value.is_empty()).collect::<Vec<_>>().join("; ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::document::{Format, Metadata};

    #[test]
    fn the_header_is_one_block_and_each_row_its_values() {
        let mut builder = DocumentBuilder::new();
        let warnings =
            parse("name,moons\nMars,2\n\"Jupiter, giant\",95\nVenus,\n", b',', "planets.csv", &mut builder).unwrap();
        assert!(warnings.is_empty());
        let doc = builder.finish("planets.csv".into(), [0; 16], Format::Csv, Metadata::default(), "planets");
        let blocks: Vec<(BlockKind, &str)> = doc.blocks.iter().map(|b| (b.kind, doc.slice(b.span))).collect();
        assert_eq!(
            blocks,
            vec![
                (BlockKind::Heading { level: 1 }, "planets.csv"),
                (BlockKind::TableHeader, "name; moons"),
                (BlockKind::TableRow, "Mars; 2"),
                (BlockKind::TableRow, "Jupiter, giant; 95"),
                (BlockKind::TableRow, "Venus"),
            ]
        );
    }

    /// A 2 MB header row over 2,000 rows was 4 GB of text when every cell carried its label.
    #[test]
    fn a_huge_header_is_said_once() {
        let long = "h".repeat(2 * 1024 * 1024);
        let rows: String = (0..2_000).map(|n| format!("{n},x\n")).collect();
        let mut builder = DocumentBuilder::new();
        let warnings = parse(&format!("{long},kind\n{rows}"), b',', "t.csv", &mut builder).unwrap();
        assert!(warnings.is_empty());
        let doc = builder.finish("t.csv".into(), [0; 16], Format::Csv, Metadata::default(), "t");
        assert!(doc.text.len() < long.len() + 2 * rows.len(), "{} bytes", doc.text.len());
        assert_eq!(doc.slice(doc.blocks[2].span), "0; x");
    }
}
