//! Recorded values of known misses (`record_ci`, `record_full` on an
//! `[[expect]]` with `known_miss`; `docs/verify.md`): what the miss
//! measured, per scale, at which commit, and how far it may drift. A
//! known miss whose measurement leaves its record fails the verification,
//! so that a declared miss cannot hide a change in either direction.
//! `--update-records` rewrites only these keys, in place ([`rewrite`]).

use std::path::Path;

use toml::{Table, Value as T};

use crate::expr::{fmt_num, Value};
use crate::spec::Scale;

/// The record keys of an `[[expect]]`, by scale.
pub fn key(scale: Scale) -> &'static str {
    match scale {
        Scale::Ci => "record_ci",
        Scale::Full => "record_full",
    }
}

/// How the recorded measurement is kept.
#[derive(Clone, Debug, PartialEq)]
pub enum Recorded {
    /// The value at each point (`""` without a grid), with a drift
    /// tolerance: relative (`"1%"`) or absolute.
    Values {
        /// (grid point label, value).
        values: Vec<(String, Value)>,
        /// Relative drift (true) or absolute.
        rel: bool,
        /// The drift allowed.
        drift: f64,
    },
    /// Every point's value within `[min, max]`.
    Range {
        /// Lower bound.
        min: f64,
        /// Upper bound.
        max: f64,
    },
    /// Not recorded at this scale, with the reason (full scale only).
    Unrecorded(String),
}

/// One scale's record of a known miss.
#[derive(Clone, Debug, PartialEq)]
pub struct Record {
    /// The commit checked out when it was recorded.
    pub commit: String,
    /// What was recorded.
    pub recorded: Recorded,
}

impl Record {
    /// The record in words, for reports (`3.2 ±1% (ci, abc123)`).
    pub fn describe(&self, point: &str, scale: Scale) -> String {
        let at = format!("{} scale, recorded at {}", scale.name(), self.commit);
        match &self.recorded {
            Recorded::Values { values, rel, drift } => {
                match values.iter().find(|(p, _)| p == point) {
                    Some((_, v)) => format!("{} ±{} ({at})", v, drift_text(*rel, *drift)),
                    None => format!("no value at this point ({at})"),
                }
            }
            Recorded::Range { min, max } => {
                format!("{} to {} ({at})", fmt_num(*min), fmt_num(*max))
            }
            Recorded::Unrecorded(why) => format!("not recorded at {} scale: {why}", scale.name()),
        }
    }

    /// Whether `measured` at `point` stays within the record: `Ok(true)`
    /// within, `Ok(false)` outside, `Err` when the record has nothing for
    /// the point.
    pub fn holds(&self, point: &str, measured: &Value) -> Result<bool, String> {
        match &self.recorded {
            Recorded::Values { values, rel, drift } => {
                let (_, v) = values.iter().find(|(p, _)| p == point).ok_or_else(|| {
                    format!(
                        "the record has no value at grid point \"{point}\" (recorded points: {})",
                        values
                            .iter()
                            .map(|(p, _)| format!("\"{p}\""))
                            .collect::<Vec<_>>()
                            .join(", ")
                    )
                })?;
                Ok(match (v, measured) {
                    (Value::Num(r), Value::Num(m)) => {
                        let room = if *rel { drift * r.abs() } else { *drift };
                        m.is_finite() && (m - r).abs() <= room
                    }
                    (r, m) => r == m,
                })
            }
            Recorded::Range { min, max } => {
                let m = measured.num()?;
                Ok(m.is_finite() && m >= *min && m <= *max)
            }
            Recorded::Unrecorded(_) => Ok(true),
        }
    }

    /// The recorded value at `point` as a number, if there is one (the
    /// range's nearer end is used by the caller).
    pub fn number_at(&self, point: &str) -> Option<f64> {
        match &self.recorded {
            Recorded::Values { values, .. } => values
                .iter()
                .find(|(p, _)| p == point)
                .and_then(|(_, v)| v.num().ok()),
            _ => None,
        }
    }
}

fn drift_text(rel: bool, drift: f64) -> String {
    if rel {
        format!("{}%", fmt_num(drift * 100.0))
    } else {
        fmt_num(drift)
    }
}

/// Parses `record_ci` / `record_full` of an `[[expect]]` table. `field`
/// names the key in messages (`expect[3].record_ci`).
pub fn parse(t: &T, scale: Scale) -> Result<Record, String> {
    let forms = "expected { commit = \"...\", value = X, drift = \"1%\" }, { commit = \"...\", at = { \"point\" = X, ... }, drift = \"1%\" }, { commit = \"...\", min = A, max = B }";
    let t = t.as_table().ok_or_else(|| {
        if scale == Scale::Full {
            format!("{forms} or {{ unrecorded = \"why\" }}")
        } else {
            forms.to_string()
        }
    })?;
    if let Some(u) = t.get("unrecorded") {
        if scale == Scale::Ci {
            return Err(
                "unrecorded: every known miss must be recorded at CI scale (run dropless verify DIR --scale ci --update-records)"
                    .into(),
            );
        }
        if t.len() != 1 {
            return Err("unrecorded: goes alone (a record or a reason, not both)".into());
        }
        let why = u
            .as_str()
            .filter(|s| !s.trim().is_empty())
            .ok_or("unrecorded: expected the reason as text")?;
        return Ok(Record {
            commit: String::new(),
            recorded: Recorded::Unrecorded(why.to_string()),
        });
    }
    for k in t.keys() {
        if !["commit", "value", "at", "drift", "min", "max"].contains(&k.as_str()) {
            return Err(format!(
                "unknown key \"{k}\"; allowed: commit, value, at, drift, min, max{}",
                if scale == Scale::Full {
                    ", unrecorded"
                } else {
                    ""
                }
            ));
        }
    }
    let commit = t
        .get("commit")
        .and_then(T::as_str)
        .filter(|s| !s.trim().is_empty())
        .ok_or("commit: missing: the commit the value was recorded at")?
        .to_string();
    let num = |k: &str| -> Result<Option<f64>, String> {
        match t.get(k) {
            None => Ok(None),
            Some(T::Integer(i)) => Ok(Some(*i as f64)),
            Some(T::Float(f)) if f.is_finite() => Ok(Some(*f)),
            Some(_) => Err(format!("{k}: expected a finite number")),
        }
    };
    let value_of = |v: &T, k: &str| -> Result<Value, String> {
        match v {
            T::Integer(i) => Ok(Value::Num(*i as f64)),
            T::Float(f) if f.is_finite() => Ok(Value::Num(*f)),
            T::Boolean(b) => Ok(Value::Bool(*b)),
            T::String(s) => Ok(Value::Str(s.clone())),
            _ => Err(format!(
                "{k}: expected a finite number, true/false or a string"
            )),
        }
    };
    let has_values = t.contains_key("value") || t.contains_key("at");
    let has_range = t.contains_key("min") || t.contains_key("max");
    match (has_values, has_range) {
        (true, true) => Err("give value/at with drift, or min and max, not both".into()),
        (false, false) => Err(format!("missing the recorded value: {forms}")),
        (false, true) => {
            let min = num("min")?.ok_or("min: missing (a range needs min and max)")?;
            let max = num("max")?.ok_or("max: missing (a range needs min and max)")?;
            if min > max {
                return Err(format!(
                    "min {} is above max {}: a range is min <= max",
                    fmt_num(min),
                    fmt_num(max)
                ));
            }
            if t.contains_key("drift") {
                return Err("drift: goes with value/at, not with min/max".into());
            }
            Ok(Record {
                commit,
                recorded: Recorded::Range { min, max },
            })
        }
        (true, false) => {
            let mut values = Vec::new();
            match (t.get("value"), t.get("at")) {
                (Some(_), Some(_)) => {
                    return Err("give value (one point) or at (per grid point), not both".into())
                }
                (Some(v), None) => values.push((String::new(), value_of(v, "value")?)),
                (None, Some(a)) => {
                    let a = a
                        .as_table()
                        .filter(|a| !a.is_empty())
                        .ok_or("at: expected a table { \"grid point\" = value, ... }")?;
                    for (p, v) in a {
                        values.push((p.clone(), value_of(v, &format!("at.\"{p}\""))?));
                    }
                }
                (None, None) => unreachable!("has_values"),
            }
            let (rel, drift) = match t.get("drift") {
                None => return Err("drift: missing: how far the value may move, like \"1%\" or 0.01 (0: exactly)".into()),
                Some(T::Integer(i)) if *i >= 0 => (false, *i as f64),
                Some(T::Float(f)) if f.is_finite() && *f >= 0.0 => (false, *f),
                Some(T::String(s)) => match s.trim().strip_suffix('%') {
                    Some(p) => (
                        true,
                        p.trim()
                            .parse::<f64>()
                            .ok()
                            .filter(|x| x.is_finite() && *x >= 0.0)
                            .ok_or("drift: expected a relative drift like \"1%\" or an absolute one like 0.01 (non-negative)")?
                            / 100.0,
                    ),
                    None => return Err("drift: expected a relative drift like \"1%\" or an absolute one like 0.01 (non-negative)".into()),
                },
                Some(_) => return Err("drift: expected a relative drift like \"1%\" or an absolute one like 0.01 (non-negative)".into()),
            };
            Ok(Record {
                commit,
                recorded: Recorded::Values { values, rel, drift },
            })
        }
    }
}

/// A new record to write: the expectation's index in the file and the
/// measured value at every point it was judged.
#[derive(Clone, Debug)]
pub struct Update {
    /// Index of the `[[expect]]`.
    pub expect: usize,
    /// (grid point label, measured value).
    pub values: Vec<(String, Value)>,
}

/// Rounds to 6 significant digits, enough for a drift of 0.01%.
fn round6(x: f64) -> f64 {
    if x == 0.0 || !x.is_finite() {
        return x;
    }
    let mag = x.abs().log10().floor() as i32;
    let scale = 10f64.powi(5 - mag);
    (x * scale).round() / scale
}

fn edit_value(v: &Value) -> toml_edit::Value {
    match v {
        Value::Num(x) => {
            let r = round6(*x);
            if r.fract() == 0.0 && r.abs() < 1e15 {
                toml_edit::Value::from(r as i64)
            } else {
                toml_edit::Value::from(r)
            }
        }
        Value::Bool(b) => toml_edit::Value::from(*b),
        other => toml_edit::Value::from(other.to_string()),
    }
}

/// Rewrites the `record_<scale>` keys of the expectations in `updates`
/// of the file at `path`, leaving everything else of the file (formatting,
/// comments) as it was. Keeps an existing record's drift (`"1%"` for a
/// new one). Returns one line per change, `file: expect[i].record_ci: old
/// -> new`.
pub fn rewrite(
    path: &Path,
    scale: Scale,
    commit: &str,
    updates: &[Update],
) -> Result<Vec<String>, String> {
    let file = path.display().to_string();
    let text =
        std::fs::read_to_string(path).map_err(|e| format!("{file}: cannot read the file: {e}"))?;
    let mut doc: toml_edit::DocumentMut = text
        .parse()
        .map_err(|e| format!("{file}: not valid TOML: {e}"))?;
    let plain: Table = text
        .parse()
        .map_err(|e: toml::de::Error| format!("{file}: not valid TOML: {}", e.message()))?;
    let k = key(scale);
    let arr = doc
        .get_mut("expect")
        .and_then(|x| x.as_array_of_tables_mut())
        .ok_or_else(|| format!("{file}: expect: --update-records needs [[expect]] tables"))?;
    let mut lines = Vec::new();
    for u in updates {
        let old_plain = plain
            .get("expect")
            .and_then(T::as_array)
            .and_then(|a| a.get(u.expect))
            .and_then(|e| e.get(k));
        let old = old_plain.and_then(|o| parse(o, scale).ok());
        let drift = match &old {
            Some(Record {
                recorded: Recorded::Values { rel, drift, .. },
                ..
            }) => {
                if *rel {
                    toml_edit::Value::from(format!("{}%", fmt_num(drift * 100.0)))
                } else {
                    toml_edit::Value::from(*drift)
                }
            }
            _ => toml_edit::Value::from("1%"),
        };
        let build = |commit: &str| {
            let mut it = toml_edit::InlineTable::new();
            it.insert("commit", toml_edit::Value::from(commit));
            match u.values.as_slice() {
                [(p, v)] if p.is_empty() => {
                    it.insert("value", edit_value(v));
                }
                vs => {
                    let mut at = toml_edit::InlineTable::new();
                    for (p, v) in vs {
                        at.insert(p, edit_value(v));
                    }
                    it.insert("at", toml_edit::Value::InlineTable(at));
                }
            }
            it.insert("drift", drift.clone());
            it
        };
        let it = build(commit);
        let new_text = it.to_string().trim().to_string();
        let table = arr
            .get_mut(u.expect)
            .ok_or_else(|| format!("{file}: expect[{}]: no such [[expect]] to record", u.expect))?;
        let old_text = table
            .get(k)
            .and_then(|x| x.as_value())
            .map(|v| v.to_string().trim().to_string());
        // The same values under the old commit: nothing changed, and the
        // record keeps naming the commit it was first measured at.
        let unchanged = old
            .as_ref()
            .is_some_and(|o| old_text.as_deref() == Some(build(&o.commit).to_string().trim()));
        if unchanged || old_text.as_deref() == Some(new_text.as_str()) {
            continue;
        }
        match table.get_mut(k).and_then(|x| x.as_value_mut()) {
            Some(slot) => {
                let decor = slot.decor().clone();
                *slot = toml_edit::Value::InlineTable(it);
                *slot.decor_mut() = decor;
            }
            None => {
                table.insert(k, toml_edit::value(toml_edit::Value::InlineTable(it)));
            }
        }
        lines.push(format!(
            "{file}: expect[{}].{k}: {} -> {new_text}",
            u.expect,
            old_text.unwrap_or_else(|| "(none)".into())
        ));
    }
    if !lines.is_empty() {
        let tmp = path.with_extension("toml.part");
        std::fs::write(&tmp, doc.to_string())
            .and_then(|_| std::fs::rename(&tmp, path))
            .map_err(|e| {
                let _ = std::fs::remove_file(&tmp);
                format!("{file}: cannot write: {e}")
            })?;
    }
    Ok(lines)
}
