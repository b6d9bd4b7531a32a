//! The one error type of scenario loading, and did-you-mean suggestions.

use std::fmt;

/// Why a scenario could not be loaded: the file, the field path inside it,
/// what was found there and what is allowed.
///
/// Displays as one line, for example
/// `scenarios/x.toml: flows[2].rtt: found "20 parsecs", expected a time like "20ms" (units: ns, us, ms, s, min, h)`.
#[derive(Clone, Debug, PartialEq)]
pub struct ScenarioError {
    /// The scenario file as given on the command line (or `--set` for an
    /// override that could not be applied, or `<built-in quickstart>`).
    pub file: String,
    /// Field path inside the file, like `flows[2].rtt` (empty for the whole file).
    pub path: String,
    /// What was found, quoted as written; `None` when the field is missing or
    /// the problem is not about one value.
    pub found: Option<String>,
    /// What is allowed.
    pub expected: String,
    /// Extra help: a did-you-mean, or which `--set` produced the value.
    pub hint: Option<String>,
    /// The error is about a required field that is absent.
    pub missing: bool,
}

impl ScenarioError {
    /// An error about the value at `path`.
    pub fn new(
        file: impl Into<String>,
        path: impl Into<String>,
        found: Option<String>,
        expected: impl Into<String>,
    ) -> Self {
        ScenarioError {
            file: file.into(),
            path: path.into(),
            found,
            expected: expected.into(),
            hint: None,
            missing: false,
        }
    }

    /// An error about the whole file (unreadable, not TOML, ...).
    pub fn file(file: impl Into<String>, message: impl Into<String>) -> Self {
        ScenarioError::new(file, "", None, message)
    }

    /// Adds a hint (joined to any earlier hint).
    pub fn with_hint(mut self, hint: impl Into<String>) -> Self {
        let h = hint.into();
        self.hint = Some(match self.hint.take() {
            Some(old) => format!("{old}; {h}"),
            None => h,
        });
        self
    }
}

/// Writes through to `f` with control characters escaped (`\n`,
/// `\u{1b}`): an error is one line, and a key or value from a file (a TOML
/// key may hold a newline or a terminal escape) cannot break it or reach the
/// terminal raw. Found by the `scenario` fuzz target (`"\ns" = 1`).
struct OneLine<'a, 'b>(&'a mut fmt::Formatter<'b>);

impl fmt::Write for OneLine<'_, '_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        for c in s.chars() {
            if c.is_control() {
                write!(self.0, "{}", c.escape_default())?;
            } else {
                fmt::Write::write_char(self.0, c)?;
            }
        }
        Ok(())
    }
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use fmt::Write as _;
        let f = &mut OneLine(f);
        write!(f, "{}", self.file)?;
        if !self.path.is_empty() {
            write!(f, ": {}", self.path)?;
        }
        match (&self.found, self.missing) {
            (_, true) => write!(f, ": missing required field, expected {}", self.expected)?,
            (Some(found), false) => write!(f, ": found {found}, expected {}", self.expected)?,
            (None, false) => write!(f, ": {}", self.expected)?,
        }
        if let Some(h) = &self.hint {
            write!(f, "; {h}")?;
        }
        Ok(())
    }
}

impl std::error::Error for ScenarioError {}

/// The candidate closest to `input`, if one is close enough to be a likely
/// typo (edit distance, Jaro-Winkler similarity, or one containing the other).
pub fn did_you_mean<'a>(
    input: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    let lower = input.to_ascii_lowercase();
    let mut best: Option<(f64, &str)> = None;
    for c in candidates {
        let cl = c.to_ascii_lowercase();
        let lev = strsim::levenshtein(&lower, &cl);
        let jw = strsim::jaro_winkler(&lower, &cl);
        let contains = lower.len() >= 3 && (cl.contains(&lower) || lower.contains(&cl));
        let close = lev <= (cl.len().max(lower.len()) / 3).max(1) || jw >= 0.85 || contains;
        if !close {
            continue;
        }
        let score = jw - lev as f64 * 0.01 + if contains { 0.05 } else { 0.0 };
        if best.is_none_or(|(s, _)| score > s) {
            best = Some((score, c));
        }
    }
    best.map(|(_, c)| c)
}

/// `"a", "b" or "c"` style list of quoted names.
pub fn quoted_list(items: &[&str]) -> String {
    let q: Vec<String> = items.iter().map(|s| format!("\"{s}\"")).collect();
    match q.len() {
        0 => String::new(),
        1 => q[0].clone(),
        n => format!("{} or {}", q[..n - 1].join(", "), q[n - 1]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The `scenario` fuzz target's find: a key with a newline (and one
    /// with a terminal escape) made a two-line error printed raw.
    #[test]
    fn errors_stay_on_one_line_whatever_the_file_holds() {
        for text in [
            "\"\\ns\" = 1\n",
            "\"\\u001b[2J\" = 1\n",
            "name = \"a\\nb\"\nduration = 1\n",
        ] {
            let e = crate::from_str(text, "x.toml", &[])
                .unwrap_err()
                .to_string();
            assert!(!e.chars().any(char::is_control), "{e:?}");
        }
    }

    #[test]
    fn suggestions() {
        let keys = ["cc", "params", "rtt", "start", "stop", "size", "count"];
        assert_eq!(did_you_mean("rt", keys), Some("rtt"));
        assert_eq!(did_you_mean("strat", keys), Some("start"));
        assert_eq!(did_you_mean("cont", keys), Some("count"));
        assert_eq!(did_you_mean("xyzzy", keys), None);
        let cc = ["newreno", "highspeed", "cubic", "vegas", "fast"];
        assert_eq!(did_you_mean("reno", cc), Some("newreno"));
        assert_eq!(did_you_mean("fats", cc), Some("fast"));
        assert_eq!(did_you_mean("Cubic", cc), Some("cubic"));
    }

    #[test]
    fn display() {
        let e = ScenarioError::new(
            "x.toml",
            "flows[2].rtt",
            Some("\"20 parsecs\"".into()),
            "a time like \"20ms\"",
        );
        assert_eq!(
            e.to_string(),
            "x.toml: flows[2].rtt: found \"20 parsecs\", expected a time like \"20ms\""
        );
        let mut e = ScenarioError::new("x.toml", "flows[0].cc", None, "a controller name");
        e.missing = true;
        assert_eq!(
            e.to_string(),
            "x.toml: flows[0].cc: missing required field, expected a controller name"
        );
        assert_eq!(quoted_list(&["a", "b", "c"]), "\"a\", \"b\" or \"c\"");
    }
}
