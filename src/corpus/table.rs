//! CSV and TSV files: the table is one section, each row one chunk rendered as `header: value; ...`
//! (row-level chunking, seed 004 §6).

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
    let mut warnings = Vec::new();
    for (index, record) in reader.records().enumerate() {
        match record {
            Ok(record) => builder.paragraph(BlockKind::TableRow, &row_text(&header, record.iter())),
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
    for row in rows {
        builder.paragraph(BlockKind::TableRow, &row_text(&header, row.iter().map(String::as_str)));
    }
}

/// A table row as `header: value; ...` (cells without a header stand alone, empty cells are left out): the
/// shape every format's table rows take.
pub fn row_text<'a>(header: &[String], cells: impl Iterator<Item = &'a str>) -> String {
    cells
        .enumerate()
        .filter(|(_, value)| !value.is_empty())
        .map(|(i, value)| match header.get(i).filter(|h| !h.is_empty()) {
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
}
