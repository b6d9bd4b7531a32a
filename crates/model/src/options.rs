//! The `--name value` options shared by the model commands
//! (`dropless model fast|marking|buffer|loss|closed-loop|tables`).

/// Options as given on the command line.
pub(crate) struct Words {
    /// `--key value` and `--key=value` pairs, in order (a later one wins).
    pub vals: Vec<(String, String)>,
    /// The flags (`--csv`, `--json`, ...) given.
    pub flags: Vec<&'static str>,
}

impl Words {
    /// Whether the flag `f` was given.
    pub fn flag(&self, f: &str) -> bool {
        self.flags.contains(&f)
    }
}

/// Reads `words`: the `flags` stand alone; every other word is `--key value`
/// or `--key=value` with `key` in `allowed` (listed in the error) or in
/// `also` (accepted, not listed). `what` names the command in errors
/// ("this model"); `stray` follows the message for a word that is not an
/// option.
pub(crate) fn parse(
    words: &[String],
    flags: &[&'static str],
    allowed: &[&str],
    also: &[&str],
    what: &str,
    stray: &str,
) -> Result<Words, String> {
    let mut out = Words {
        vals: Vec::new(),
        flags: Vec::new(),
    };
    let mut i = 0;
    while i < words.len() {
        let w = &words[i];
        i += 1;
        if let Some(f) = flags.iter().find(|f| w.strip_prefix("--") == Some(**f)) {
            out.flags.push(f);
            continue;
        }
        let Some(key) = w.strip_prefix("--") else {
            return Err(format!("unexpected argument \"{w}\"{stray}"));
        };
        let (key, val) = match key.split_once('=') {
            Some((k, v)) => (k.to_string(), v.to_string()),
            None => {
                let v = words
                    .get(i)
                    .ok_or_else(|| format!("--{key} needs a value"))?;
                i += 1;
                (key.to_string(), v.clone())
            }
        };
        if !allowed.contains(&key.as_str()) && !also.contains(&key.as_str()) {
            return Err(format!(
                "unknown option --{key}; {what} takes: {}",
                allowed
                    .iter()
                    .map(|a| format!("--{a}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        out.vals.push((key, val));
    }
    Ok(out)
}

/// Width of each column of a text table: its longest cell or header.
pub(crate) fn column_widths(header: &[&str], rows: &[Vec<String>]) -> Vec<usize> {
    (0..header.len())
        .map(|c| {
            rows.iter()
                .map(|r| r[c].len())
                .chain([header[c].len()])
                .max()
                .unwrap_or(0)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::parse;

    fn w(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn pairs_flags_and_errors() {
        let o = parse(
            &w("--a 1 --csv --b=2 --a 3"),
            &["csv"],
            &["a", "b"],
            &[],
            "x",
            "",
        )
        .unwrap();
        let v: Vec<(&str, &str)> = o
            .vals
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        assert_eq!(v, [("a", "1"), ("b", "2"), ("a", "3")]);
        assert!(o.flag("csv") && !o.flag("json"));
        let e = parse(&w("--c 1"), &[], &["a"], &[], "this model", "")
            .err()
            .unwrap();
        assert_eq!(e, "unknown option --c; this model takes: --a");
        assert!(parse(&w("--c 1"), &[], &["a"], &["c"], "x", "").is_ok());
        assert_eq!(
            parse(&w("--a"), &[], &["a"], &[], "x", "").err().unwrap(),
            "--a needs a value"
        );
        assert_eq!(
            parse(&w("a"), &[], &["a"], &[], "x", " (see --help)")
                .err()
                .unwrap(),
            "unexpected argument \"a\" (see --help)"
        );
    }
}
