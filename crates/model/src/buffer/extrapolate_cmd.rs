//! `dropless model extrapolate RESULTS --x COLUMN --y COLUMN --at X`: the
//! extrapolation method (thesis §3.3, L2107-2269; note §3.4) on a sweep's
//! `results.csv`: fit y = a + b/(x - c), or a flat line when the points are
//! flat, and evaluate it at the target x.

use std::fmt::Write;
use std::path::{Path, PathBuf};

use serde_json::json;

use super::cli::parse_rate;
use super::extrapolation::{self, Choice, Shape};

/// Runs `dropless model extrapolate WORDS...` (`words` after the command).
pub fn run(words: &[String]) -> Result<String, String> {
    // RESULTS: the words before the first option.
    let files = words.iter().take_while(|w| !w.starts_with("--")).count();
    if files == 0 {
        return Err("which results? dropless model extrapolate RESULTS... --x COLUMN --y COLUMN --at X (RESULTS: a sweep's results.csv or its output directory, one or more)".into());
    }
    let w = crate::options::parse(
        &words[files..],
        &["csv", "json", "log10"],
        &["x", "y", "at", "fit", "where"],
        &[],
        "extrapolate",
        " (RESULTS come first; options are --name value)",
    )?;
    if w.flag("csv") && w.flag("json") {
        return Err("--csv and --json: choose one".into());
    }
    let get = |k: &str| {
        w.vals
            .iter()
            .rev()
            .find(|(n, _)| n == k)
            .map(|(_, v)| v.as_str())
    };
    let need = |k: &str, what: &str| get(k).ok_or_else(|| format!("--{k} is required ({what})"));
    let xcol = need("x", "the column of the bit-rate, e.g. topology.trunk.rate")?;
    let ycol = need("y", "the column fitted, e.g. utilization")?;
    let at_s = need("at", "the target x, e.g. 40Gbps or 40")?;
    let at = quantity(at_s)
        .ok_or_else(|| format!("--at must be a number or a bit-rate (40Gbps), found \"{at_s}\""))?;
    let choice = Choice::parse(get("fit").unwrap_or("auto")).map_err(|e| format!("--fit: {e}"))?;
    let mut filters = Vec::new();
    for (_, v) in w.vals.iter().filter(|(k, _)| k == "where") {
        let (c, val) = v
            .split_once('=')
            .ok_or_else(|| format!("--where must be COLUMN=VALUE, found \"{v}\""))?;
        filters.push((c.to_string(), val.to_string()));
    }
    let log10 = w.flag("log10");

    // One point per distinct x: the mean of y over the rows at that x (a
    // sweep has a row per flow, and the run columns repeat on each), pooled
    // over the files (e.g. one sweep per rate, since a sweep's grid is a
    // product and the flow count must scale with the rate).
    let mut points: Vec<(f64, f64, usize)> = Vec::new();
    let mut units: Option<bool> = None;
    let names: Vec<String> = words[..files]
        .iter()
        .map(|f| results_file(Path::new(f)).display().to_string())
        .collect();
    for shown in &names {
        read_points(shown, (xcol, ycol), &filters, &mut units, &mut points)?;
    }
    let shown = if names.len() == 1 {
        names[0].clone()
    } else {
        format!("{} files", names.len())
    };
    let shown = shown.as_str();
    if let Some(rate) = units {
        if rate != at.1 {
            return Err(format!(
                "--at \"{at_s}\" and the --x column \"{xcol}\" must both be bit-rates or both bare numbers"
            ));
        }
    }
    points.sort_by(|a, b| a.0.total_cmp(&b.0));
    let xs: Vec<f64> = points.iter().map(|p| p.0).collect();
    let mut ys: Vec<f64> = points.iter().map(|p| p.1 / p.2 as f64).collect();
    if log10 {
        if let Some((x, y)) = xs.iter().zip(&ys).find(|(_, y)| **y <= 0.0) {
            return Err(format!(
                "{shown}: --log10: \"{ycol}\" is {y} at x = {x}; every point needs y > 0 (a run without losses has no log10 PB: run it longer)"
            ));
        }
        ys = ys.iter().map(|y| y.log10()).collect();
    }
    if xs.len() < 3 {
        let why = if filters.is_empty() {
            String::new()
        } else {
            " matching --where".to_string()
        };
        return Err(format!(
            "{shown}: {} distinct x in column \"{xcol}\"{why}; the fit needs at least 3",
            xs.len()
        ));
    }
    let f = extrapolation::fit(&xs, &ys, choice).map_err(|e| format!("{shown}: {e}"))?;
    let value = f.eval(at.0);
    if !value.is_finite() {
        return Err(format!("{shown}: the fit is not finite at --at {at_s}"));
    }
    let unit = if at.1 { " (Gb/s)" } else { "" };
    let yname = if log10 {
        format!("log10 {ycol}")
    } else {
        ycol.to_string()
    };
    let is_h = f.shape == Shape::Hyperbola;
    let opt = |v: f64| if is_h { json!(v) } else { json!(null) };
    if w.flag("json") {
        let pts: Vec<_> = xs
            .iter()
            .zip(&ys)
            .map(|(x, y)| json!({"x": x, "y": y, "fitted": f.eval(*x)}))
            .collect();
        let v = json!({
            "file": shown, "x": xcol, "y": yname, "x_unit": if at.1 { "Gb/s" } else { "" },
            "fit": f.shape.name(), "a": f.curve.a, "b": opt(f.curve.b), "c": opt(f.curve.c),
            "std_err": f.std_err, "r": opt(f.r), "points": pts,
            "f_stat": if f.f_stat.is_finite() { json!(f.f_stat) } else { json!(null) },
            "f_crit": if f.f_crit.is_finite() { json!(f.f_crit) } else { json!(null) },
            "at": at.0, "value": value,
            "value_10": if log10 { json!(10f64.powf(value)) } else { json!(null) },
        });
        return Ok(format!(
            "{}\n",
            serde_json::to_string_pretty(&v).unwrap_or_default()
        ));
    }
    let mut kv: Vec<(String, String)> = vec![
        ("fit".into(), f.shape.name().into()),
        ("a".into(), format!("{:.6}", f.curve.a)),
    ];
    if is_h {
        kv.push(("b".into(), format!("{:.6}", f.curve.b)));
        kv.push(("c".into(), format!("{:.6}", f.curve.c)));
    }
    kv.push(("std_err".into(), format!("{:.6}", f.std_err)));
    if is_h {
        kv.push(("r".into(), format!("{:.6}", f.r)));
    }
    if f.f_stat.is_finite() || f.f_stat == f64::INFINITY {
        kv.push(("f_stat".into(), format!("{:.3}", f.f_stat)));
        kv.push(("f_crit".into(), format!("{:.3}", f.f_crit)));
    }
    kv.push(("at".into(), format!("{}", at.0)));
    kv.push(("value".into(), format!("{value:.6}")));
    if log10 {
        kv.push(("value_10".into(), format!("{:.4e}", 10f64.powf(value))));
    }
    let mut s = String::new();
    if w.flag("csv") {
        let _ = writeln!(s, "quantity,value");
        for (k, v) in kv {
            let _ = writeln!(s, "{k},{v}");
        }
        return Ok(s);
    }
    let _ = writeln!(
        s,
        "extrapolation of {yname} against {xcol}{unit}: {} points of {shown}",
        xs.len()
    );
    match f.shape {
        Shape::Hyperbola => {
            let _ = writeln!(
                s,
                "hyperbola y = a + b/(x - c): a = {:.6}, b = {:.6}, c = {:.6}",
                f.curve.a, f.curve.b, f.curve.c
            );
            let _ = writeln!(
                s,
                "standard error {:.6} (n - 3 = {} degrees of freedom), correlation {:.6}",
                f.std_err,
                f.n - 3,
                f.r
            );
        }
        Shape::Flat => {
            let _ = writeln!(s, "flat line y = a: a = {:.6}", f.curve.a);
            let _ = writeln!(
                s,
                "standard error {:.6} (n - 1 = {} degrees of freedom)",
                f.std_err,
                f.n - 1
            );
        }
    }
    if !f.f_crit.is_nan() {
        let _ = writeln!(
            s,
            "hyperbola against flat: F = {:.3}, F_0.95(2, {}) = {:.3}{}",
            f.f_stat,
            f.n - 3,
            f.f_crit,
            if choice == Choice::Auto {
                if is_h {
                    ": the hyperbola fits significantly better"
                } else {
                    ": flat within the scatter"
                }
            } else {
                " (--fit given)"
            }
        );
    }
    let _ = writeln!(
        s,
        "{:>12}  {:>12}  {:>12}",
        format!("x{unit}"),
        yname,
        "fitted"
    );
    for (x, y) in xs.iter().zip(&ys) {
        let _ = writeln!(s, "{x:>12}  {y:>12.6}  {:>12.6}", f.eval(*x));
    }
    let _ = write!(s, "at x = {}: {yname} = {value:.6}", at.0);
    if log10 {
        let _ = write!(s, " ({ycol} = {:.4e})", 10f64.powf(value));
    }
    s.push('\n');
    Ok(s)
}

/// Adds the rows of one results file to `points` (x, sum of y, rows);
/// `units` records whether x is a bit-rate.
fn read_points(
    shown: &str,
    (xcol, ycol): (&str, &str),
    filters: &[(String, String)],
    units: &mut Option<bool>,
    points: &mut Vec<(f64, f64, usize)>,
) -> Result<(), String> {
    let text = std::fs::read_to_string(shown).map_err(|e| format!("{shown}: {e}"))?;
    let table =
        crate::results_table::ResultsTable::parse(&text).map_err(|e| format!("{shown}: {e}"))?;
    let col = |name: &str, opt: &str| {
        table.column(name).ok_or_else(|| {
            format!(
                "{shown}: no column \"{name}\" ({opt}); its columns: {}",
                table.header.join(", ")
            )
        })
    };
    let (xi, yi) = (col(xcol, "--x")?, col(ycol, "--y")?);
    let mut fi = Vec::new();
    for (c, v) in filters {
        fi.push((col(c, "--where")?, v.as_str()));
    }
    for (line, row) in table.rows.iter().enumerate() {
        if fi.iter().any(|(c, v)| row[*c] != *v) {
            continue;
        }
        let line = line + 2;
        let (x, rate) = quantity(&row[xi]).ok_or_else(|| {
            format!(
                "{shown}: line {line}: --x column \"{xcol}\" holds \"{}\", not a number or a bit-rate",
                row[xi]
            )
        })?;
        if *units.get_or_insert(rate) != rate {
            return Err(format!(
                "{shown}: line {line}: --x column \"{xcol}\" mixes bare numbers and bit-rates (\"{}\")",
                row[xi]
            ));
        }
        let y = row[yi]
            .parse::<f64>()
            .ok()
            .filter(|y| y.is_finite())
            .ok_or_else(|| {
                format!(
                    "{shown}: line {line}: --y column \"{ycol}\" holds \"{}\", not a finite number",
                    row[yi]
                )
            })?;
        if !x.is_finite() {
            return Err(format!(
                "{shown}: line {line}: --x column \"{xcol}\" holds \"{}\", not finite",
                row[xi]
            ));
        }
        match points.iter_mut().find(|p| p.0 == x) {
            Some(p) => {
                p.1 += y;
                p.2 += 1;
            }
            None => points.push((x, y, 1)),
        }
    }
    Ok(())
}

/// A directory means its `results.csv` (a sweep's output directory).
fn results_file(p: &Path) -> PathBuf {
    if p.is_dir() {
        p.join("results.csv")
    } else {
        p.to_path_buf()
    }
}

/// A bare number as it is, or a bit-rate ("0.4Gbps", "400M") in Gb/s; the
/// flag says which.
fn quantity(s: &str) -> Option<(f64, bool)> {
    let t = s.trim();
    match t.parse::<f64>() {
        Ok(v) => Some((v, false)),
        Err(_) => parse_rate(t).map(|v| (v / 1e9, true)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::buffer::extrapolation::THESIS_U_B10;

    fn words(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    fn write(name: &str, text: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!(
            "dropless-extrapolate-{}-{name}",
            std::process::id()
        ));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("results.csv");
        std::fs::write(&p, text).unwrap();
        dir
    }

    /// A sweep-like file: two flows per run, rates as text, B = 2 and 10.
    fn sweep_csv() -> String {
        let mut s =
            String::from("run,topology.trunk.buffer,topology.trunk.rate,flow,utilization,loss\n");
        let xs = [0.4, 0.8, 1.6, 2.4, 4.0, 6.0, 8.0, 10.0];
        let mut run = 0;
        for b in ["2pkt", "10pkt"] {
            for x in xs {
                let u = if b == "2pkt" {
                    0.317
                } else {
                    THESIS_U_B10.eval(x)
                };
                for flow in 0..2 {
                    let _ = writeln!(s, "{run},{b},{x}Gbps,{flow},{u},\"1e-3\"");
                }
                run += 1;
            }
        }
        s
    }

    #[test]
    fn recovers_a_known_hyperbola_from_a_sweep_directory() {
        let dir = write("ok", &sweep_csv());
        let d = dir.display();
        let out = run(&words(&format!(
            "{d} --x topology.trunk.rate --y utilization --at 40Gbps --where topology.trunk.buffer=10pkt --json"
        )))
        .unwrap();
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["fit"], "hyperbola");
        assert_eq!(v["points"].as_array().unwrap().len(), 8);
        assert!((v["a"].as_f64().unwrap() - 0.7022).abs() < 1e-6, "{v}");
        assert!((v["c"].as_f64().unwrap() - 0.125893).abs() < 1e-5, "{v}");
        assert!((v["value"].as_f64().unwrap() - 0.7034).abs() < 5e-5, "{v}");
        // B = 2 is flat; --log10 of a constant loss is flat too.
        let out = run(&words(&format!(
            "{d}/results.csv --x topology.trunk.rate --y loss --at 40Gbps --log10 --where topology.trunk.buffer=2pkt"
        )))
        .unwrap();
        assert!(out.contains("flat line y = a: a = -3.000000"), "{out}");
        assert!(
            out.contains("at x = 40: log10 loss = -3.000000 (loss = 1.0000e-3)"),
            "{out}"
        );
    }

    #[test]
    fn pools_several_files() {
        // One sweep per rate (a sweep's grid is a product; N must scale with x).
        let dirs: Vec<String> = [0.4, 0.8, 1.6, 4.0, 10.0]
            .iter()
            .map(|&x| {
                let u = THESIS_U_B10.eval(x);
                let text = format!("run,topology.trunk.rate,utilization\n0,{x}Gbps,{u}\n");
                write(&format!("multi{x}"), &text).display().to_string()
            })
            .collect();
        let out = run(&words(&format!(
            "{} --x topology.trunk.rate --y utilization --at 40Gbps --csv",
            dirs.join(" ")
        )))
        .unwrap();
        assert!(
            out.starts_with("quantity,value\nfit,hyperbola\na,0.7022"),
            "{out}"
        );
        assert!(out.contains("value,0.7034"), "{out}");
    }

    #[test]
    fn one_line_errors() {
        let dir = write("err", &sweep_csv());
        let d = dir.display();
        let e = |s: &str| run(&words(&format!("{d} {s}"))).unwrap_err();
        let x = e("--x rate --y utilization --at 40Gbps");
        assert!(
            x.contains("no column \"rate\" (--x); its columns: run, topology.trunk.buffer"),
            "{x}"
        );
        let x = e("--x topology.trunk.rate --at 40Gbps");
        assert!(x.starts_with("--y is required"), "{x}");
        let x = e("--x topology.trunk.rate --y utilization --at 40");
        assert!(x.contains("both be bit-rates or both bare numbers"), "{x}");
        let x = e("--x topology.trunk.rate --y utilization --at 40Gbps --fit line");
        assert!(
            x.contains("--fit: unknown fit \"line\" (allowed: auto, hyperbola, flat)"),
            "{x}"
        );
        let x = e("--x topology.trunk.rate --y utilization --at 40Gbps --where topology.trunk.buffer=3pkt");
        assert!(
            x.contains("0 distinct x") && x.contains("at least 3"),
            "{x}"
        );
        let x = e("--x topology.trunk.rate --y run --at 40Gbps --log10 --where topology.trunk.buffer=2pkt");
        assert!(x.contains("--log10: \"run\" is 0 at x = 0.4"), "{x}");
        let x = e("--x topology.trunk.rate --y utilization --at 40Gbps --bogus 1");
        assert!(
            x.contains("unknown option --bogus; extrapolate takes: --x, --y, --at, --fit, --where"),
            "{x}"
        );
        assert!(run(&words("--x a"))
            .unwrap_err()
            .starts_with("which results?"));
        let x = run(&words("/nonexistent/r.csv --x a --y b --at 1")).unwrap_err();
        assert!(x.starts_with("/nonexistent/r.csv: "), "{x}");
        // Non-finite values and a sloped line (no converged hyperbola).
        let dir = write("nan", "x,y\n1,0.5\n2,NaN\n3,0.4\n4,0.3\n");
        let x = run(&words(&format!("{} --x x --y y --at 40", dir.display()))).unwrap_err();
        assert!(
            x.contains("line 3: --y column \"y\" holds \"NaN\", not a finite number"),
            "{x}"
        );
        let dir = write("line", "x,y\n1,0.1\n2,0.2\n3,0.3\n4,0.4\n5,0.5\n");
        let x = run(&words(&format!("{} --x x --y y --at 40", dir.display()))).unwrap_err();
        assert!(x.contains("did not converge"), "{x}");
        let x = run(&words(&format!(
            "{} --x x --y y --at 40 --fit hyperbola",
            dir.display()
        )))
        .unwrap_err();
        assert!(x.contains("did not converge"), "{x}");
    }
}
