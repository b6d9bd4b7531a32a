//! One reader for the CSV tables dropless writes (`results.csv` of a sweep,
//! the time series of a run): the header and the rows, every field as text.
//!
//! Built on the `csv` crate (RFC 4180 quoting) rather than by hand, so that
//! `dropless model extrapolate` and `dropless report` read a file the same
//! way and agree on what a malformed one is.

/// A CSV file read whole: its header and its rows, each row as long as the
/// header (blank lines are skipped).
#[derive(Debug, Clone, PartialEq)]
pub struct ResultsTable {
    /// The first record: the column names.
    pub header: Vec<String>,
    /// Every following record, each with one field per column.
    pub rows: Vec<Vec<String>>,
}

impl ResultsTable {
    /// Reads `text`. The error names the line (1-based, counting the
    /// header as line 1) of a record whose field count differs from the
    /// header's, or says the file is empty or not UTF-8 CSV.
    pub fn parse(text: &str) -> Result<ResultsTable, String> {
        let mut reader = csv::ReaderBuilder::new()
            .has_headers(false)
            .flexible(true)
            .from_reader(text.as_bytes());
        let mut records = reader.records();
        let header: Vec<String> = match records.next() {
            Some(r) => r.map_err(describe)?.iter().map(String::from).collect(),
            None => return Err("empty file (no header)".into()),
        };
        let mut rows = Vec::new();
        for r in records {
            let r = r.map_err(describe)?;
            if r.len() == 1 && r[0].is_empty() {
                continue;
            }
            if r.len() != header.len() {
                let line = r.position().map_or(0, |p| p.line());
                return Err(format!(
                    "line {line}: {} fields, the header has {}",
                    r.len(),
                    header.len()
                ));
            }
            rows.push(r.iter().map(String::from).collect());
        }
        Ok(ResultsTable { header, rows })
    }

    /// The index of the column named `name`, if there is one.
    pub fn column(&self, name: &str) -> Option<usize> {
        self.header.iter().position(|h| h == name)
    }
}

fn describe(e: csv::Error) -> String {
    let what = match e.kind() {
        csv::ErrorKind::Utf8 { .. } => "not UTF-8 text".to_string(),
        _ => e.to_string(),
    };
    match e.position() {
        Some(p) => format!("line {}: {what}", p.line()),
        None => what,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoted_fields_keep_commas_quotes_and_newlines() {
        let t = ResultsTable::parse("a,b\n1,\"x,\"\"y\"\"\nz\"\n2,\n").unwrap();
        assert_eq!(t.header, vec!["a", "b"]);
        assert_eq!(
            t.rows,
            vec![
                vec!["1".to_string(), "x,\"y\"\nz".into()],
                vec!["2".to_string(), "".into()],
            ]
        );
        assert_eq!(t.column("b"), Some(1));
        assert_eq!(t.column("c"), None);
    }

    #[test]
    fn a_short_row_is_named_by_its_line() {
        let e = ResultsTable::parse("a,b\n1,2\n3\n").unwrap_err();
        assert_eq!(e, "line 3: 1 fields, the header has 2");
    }

    #[test]
    fn blank_lines_and_crlf_are_tolerated() {
        let t = ResultsTable::parse("a,b\r\n1,2\r\n\r\n3,4\r\n").unwrap();
        assert_eq!(t.rows.len(), 2);
        assert_eq!(t.rows[1], vec!["3", "4"]);
    }

    #[test]
    fn an_empty_file_has_no_header() {
        assert_eq!(
            ResultsTable::parse("").unwrap_err(),
            "empty file (no header)"
        );
    }
}
