//! `--set KEY=VALUE` overrides, applied to the TOML tree before validation.
//!
//! KEY is a dotted path with array indices: `duration`, `seed`,
//! `topology.bottleneck.rate`, `topology.links[1].buffer`, `flows[0].cc`,
//! `flows[0].params.alpha`, or `flows[*].rtt` for every `[[flows]]` entry.
//! VALUE is read as a TOML value if it is one (`42`, `0.5`, `true`,
//! `"text"`, `[0, 2]`, `{ alpha = 200 }`) and as a string otherwise, so
//! `duration=5s` and `flows[0].cc=fast` need no quotes.
//! Missing tables on the way are created; array entries are not.

use toml::{Table, Value};

use crate::error::ScenarioError;

/// One applied override.
#[derive(Clone, Debug, PartialEq)]
pub struct Override {
    /// As given: `KEY=VALUE`.
    pub text: String,
    /// Concrete field paths it set (several for a `[*]` wildcard).
    pub paths: Vec<String>,
}

#[derive(Debug, PartialEq)]
enum Seg {
    Key(String),
    Index(usize),
    All,
}

fn set_err(text: &str, found: Option<String>, expected: impl Into<String>) -> ScenarioError {
    ScenarioError::new(format!("--set {text}"), "", found, expected)
}

fn parse_key(text: &str, key: &str) -> Result<Vec<Seg>, ScenarioError> {
    let bad = || {
        set_err(
            text,
            Some(format!("key \"{key}\"")),
            "a dotted key path like duration, topology.bottleneck.rate, flows[0].cc or flows[*].rtt",
        )
    };
    let mut segs = Vec::new();
    for part in key.split('.') {
        let (name, mut rest) = match part.find('[') {
            Some(i) => (&part[..i], &part[i..]),
            None => (part, ""),
        };
        if name.is_empty()
            || !name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        {
            return Err(bad());
        }
        segs.push(Seg::Key(name.to_string()));
        while !rest.is_empty() {
            let close = rest.find(']').ok_or_else(bad)?;
            if !rest.starts_with('[') {
                return Err(bad());
            }
            let inner = &rest[1..close];
            segs.push(if inner == "*" {
                Seg::All
            } else {
                Seg::Index(inner.parse().map_err(|_| bad())?)
            });
            rest = &rest[close + 1..];
        }
    }
    Ok(segs)
}

/// Reads VALUE as TOML if it is a TOML value, else as a string.
fn parse_value(v: &str) -> Value {
    let doc = format!("v = {v}");
    match doc.parse::<Table>() {
        Ok(mut t) => t
            .remove("v")
            .unwrap_or_else(|| Value::String(v.to_string())),
        Err(_) => Value::String(v.to_string()),
    }
}

fn path_string(prefix: &str, seg: &Seg) -> String {
    match seg {
        Seg::Key(k) if prefix.is_empty() => k.clone(),
        Seg::Key(k) => format!("{prefix}.{k}"),
        Seg::Index(i) => format!("{prefix}[{i}]"),
        Seg::All => format!("{prefix}[*]"),
    }
}

fn apply_at(
    text: &str,
    node: &mut Value,
    segs: &[Seg],
    prefix: &str,
    value: &Value,
    out: &mut Vec<String>,
) -> Result<(), ScenarioError> {
    let Some((seg, rest)) = segs.split_first() else {
        *node = value.clone();
        out.push(prefix.to_string());
        return Ok(());
    };
    let here = path_string(prefix, seg);
    match seg {
        Seg::Key(k) => {
            let Value::Table(t) = node else {
                return Err(set_err(
                    text,
                    Some(format!("{prefix} is not a table")),
                    format!("a key path that follows the file's structure (cannot set {here})"),
                ));
            };
            if rest.is_empty() {
                t.insert(k.clone(), value.clone());
                out.push(here);
                return Ok(());
            }
            let child = t.entry(k.clone()).or_insert_with(|| match rest[0] {
                Seg::Key(_) => Value::Table(Table::new()),
                _ => Value::Array(Vec::new()),
            });
            apply_at(text, child, rest, &here, value, out)
        }
        Seg::Index(i) => {
            let Value::Array(a) = node else {
                return Err(set_err(
                    text,
                    Some(format!("{prefix} is not a list")),
                    format!("an index only after a list such as flows (cannot set {here})"),
                ));
            };
            let n = a.len();
            let child = a.get_mut(*i).ok_or_else(|| {
                set_err(
                    text,
                    Some(format!("index {i}")),
                    format!("an index below {n} ({prefix} has {n} entries)"),
                )
            })?;
            apply_at(text, child, rest, &here, value, out)
        }
        Seg::All => {
            let Value::Array(a) = node else {
                return Err(set_err(
                    text,
                    Some(format!("{prefix} is not a list")),
                    "[*] only after a list such as flows",
                ));
            };
            if a.is_empty() {
                return Err(set_err(
                    text,
                    Some(format!("{prefix} with no entries")),
                    "[*] over a list with at least one entry",
                ));
            }
            for (i, child) in a.iter_mut().enumerate() {
                apply_at(text, child, rest, &format!("{prefix}[{i}]"), value, out)?;
            }
            Ok(())
        }
    }
}

/// Applies `KEY=VALUE` overrides in order.
pub fn apply(table: &mut Table, sets: &[String]) -> Result<Vec<Override>, ScenarioError> {
    let mut applied = Vec::new();
    for text in sets {
        let Some((key, val)) = text.split_once('=') else {
            return Err(set_err(
                text,
                Some(format!("\"{text}\"")),
                "KEY=VALUE, like duration=5s or flows[0].cc=fast",
            ));
        };
        let key = key.trim();
        let segs = parse_key(text, key)?;
        if !matches!(segs.first(), Some(Seg::Key(_))) {
            return Err(set_err(
                text,
                Some(format!("key \"{key}\"")),
                "a path starting with a name",
            ));
        }
        let value = parse_value(val.trim());
        let mut root = Value::Table(std::mem::take(table));
        let mut paths = Vec::new();
        let r = apply_at(text, &mut root, &segs, "", &value, &mut paths);
        if let Value::Table(t) = root {
            *table = t;
        }
        r?;
        applied.push(Override {
            text: text.clone(),
            paths,
        });
    }
    Ok(applied)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc() -> Table {
        r#"
            name = "x"
            duration = "10s"
            [topology]
            kind = "dumbbell"
            [topology.bottleneck]
            rate = "100Mbps"
            [[flows]]
            cc = "newreno"
            [[flows]]
            cc = "cubic"
        "#
        .parse()
        .unwrap()
    }

    #[test]
    fn sets_values() {
        let mut t = doc();
        let o = apply(
            &mut t,
            &[
                "duration=5s".into(),
                "seed=7".into(),
                "flows[1].cc=fast".into(),
                "flows[1].params.alpha=200".into(),
                "topology.bottleneck.rate = 1Gbps".into(),
                "flows[*].rtt=30ms".into(),
                "name=\"quoted name\"".into(),
            ],
        )
        .unwrap();
        assert_eq!(t["duration"].as_str(), Some("5s"));
        assert_eq!(t["seed"].as_integer(), Some(7));
        assert_eq!(t["name"].as_str(), Some("quoted name"));
        let flows = t["flows"].as_array().unwrap();
        assert_eq!(flows[1]["cc"].as_str(), Some("fast"));
        assert_eq!(flows[1]["params"]["alpha"].as_integer(), Some(200));
        assert_eq!(flows[0]["rtt"].as_str(), Some("30ms"));
        assert_eq!(flows[1]["rtt"].as_str(), Some("30ms"));
        assert_eq!(t["topology"]["bottleneck"]["rate"].as_str(), Some("1Gbps"));
        assert_eq!(o[5].paths, vec!["flows[0].rtt", "flows[1].rtt"]);
        assert_eq!(o[3].paths, vec!["flows[1].params.alpha"]);
    }

    #[test]
    fn rejects_bad_overrides() {
        let mut t = doc();
        let e = apply(&mut t, &["duration".into()]).unwrap_err();
        assert!(e.to_string().contains("KEY=VALUE"), "{e}");
        let e = apply(&mut t, &["flows[5].cc=fast".into()]).unwrap_err();
        assert!(e.to_string().contains("below 2"), "{e}");
        let e = apply(&mut t, &["flows[x].cc=fast".into()]).unwrap_err();
        assert!(e.to_string().contains("dotted key path"), "{e}");
        let e = apply(&mut t, &["duration.x=1".into()]).unwrap_err();
        assert!(e.to_string().contains("not a table"), "{e}");
        let e = apply(&mut t, &["name[0]=1".into()]).unwrap_err();
        assert!(e.to_string().contains("not a list"), "{e}");
    }
}
