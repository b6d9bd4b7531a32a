//! `dropless model fast ...`: the FAST/Vegas equilibria as printable tables
//! or JSON. The CLI crate passes the words after `model fast` to [`run`].
//!
//! ```text
//! dropless model fast persistent [--flows 10] [--alpha 200] [--capacity 12500] [--json]
//! dropless model fast vegas      [--flows 10] [--alpha-plus 2475] [--capacity 12500] [--rtt 0.04] [--json]
//! dropless model fast new-flow   [--max-flows 15] [--alpha 50] [--capacity 12019.2] [--rtt 0.2] [--r 0] [--json]
//! dropless model fast two-flow   [--alpha-plus 2500] [--capacity 125]
//! dropless model fast alpha      [--alpha0 800] [--alpha-s 400] [--k 0.1] [--until 40] [--step 4] [--json]
//! ```
//!
//! Capacities are in packets/s; `--rate-bps R --packet-bytes B` (default
//! 1040: the thesis's 1000-byte packets plus ns-2's 40-byte header) may be
//! given instead. Delays are in seconds.

use std::fmt::Write;

use serde_json::json;

use super::*;

/// Usage text.
pub const USAGE: &str = "\
usage: dropless model fast <MODEL> [--OPTION VALUE]... [--json]

models (thesis chapter 4 equilibria; rates in packets/s, delays in s):
  persistent  FAST under persistent congestion, eqs. (4.19)/(4.20)
              --flows N (10) --alpha A (200) --capacity C (12500)
  vegas       prose Vegas under persistent congestion, eqs. (4.10)/(4.12)
              --flows N (10) --alpha-plus A (2475) --capacity C (12500) --rtt D (0.04)
  new-flow    one new FAST flow joining N flows that know d: b1 (4.26), x0/x1,
              four-phase drain time T and whether T < RTT
              --max-flows N (15) --alpha A (50) --capacity C (12019.2) --rtt D (0.2) --r R (0: r -> inf)
  two-flow    two-flow closed forms (4.22), (4.23)
              --alpha-plus A (2500) --capacity C (125)
  alpha       alpha-adjusting recovery alpha(t) (4.33)
              --alpha0 A (800) --alpha-s S (400) --k K (0.1) --until T (40) --step DT (4)
capacity: --capacity in packets/s, or --rate-bps R [--packet-bytes B (1040)]";

struct Args {
    vals: Vec<(String, f64)>,
    json: bool,
}

impl Args {
    fn parse(words: &[String], allowed: &[&str]) -> Result<Args, String> {
        let o = crate::options::parse(
            words,
            &["json"],
            allowed,
            &["capacity", "rate-bps", "packet-bytes"],
            "this model",
            &format!("\n\n{USAGE}"),
        )?;
        let mut vals = Vec::with_capacity(o.vals.len());
        for (key, val) in o.vals {
            let v: f64 = val
                .parse()
                .map_err(|_| format!("--{key}: \"{val}\" is not a number"))?;
            if !v.is_finite() {
                return Err(format!("--{key}: must be finite"));
            }
            vals.push((key, v));
        }
        Ok(Args {
            vals,
            json: o.flags.contains(&"json"),
        })
    }

    fn get(&self, k: &str, default: f64) -> f64 {
        self.vals
            .iter()
            .rev()
            .find(|(n, _)| n == k)
            .map_or(default, |(_, v)| *v)
    }

    fn positive(&self, k: &str, default: f64) -> Result<f64, String> {
        let v = self.get(k, default);
        if v > 0.0 {
            Ok(v)
        } else {
            Err(format!("--{k} must be > 0, found {v}"))
        }
    }

    fn count(&self, k: &str, default: f64, max: f64) -> Result<usize, String> {
        let v = self.get(k, default);
        if v >= 1.0 && v.fract() == 0.0 && v <= max {
            Ok(v as usize)
        } else {
            Err(format!(
                "--{k} must be a whole number in 1..={max}, found {v}"
            ))
        }
    }

    fn capacity(&self, default: f64) -> Result<f64, String> {
        if self.vals.iter().any(|(k, _)| k == "rate-bps") {
            let r = self.positive("rate-bps", 0.0)?;
            let b = self.positive("packet-bytes", 1040.0)?;
            Ok(pkts_per_s(r, b))
        } else {
            self.positive("capacity", default)
        }
    }
}

fn persistent_text(title: &str, rows: &[PersistentRow]) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "{title}");
    let _ = writeln!(
        s,
        "{:>3} {:>10} {:>10} {:>9} {:>9} {:>9} {:>9} {:>8} {:>7} {:>8}",
        "n", "p(n) ms", "queue", "x1", "x2", "x6", "xn", "x1/fair", "Jain", "p/p(1)"
    );
    for r in rows {
        let x = |j: usize| {
            r.rates
                .get(j)
                .map_or("-".to_string(), |v| format!("{v:.1}"))
        };
        let _ = writeln!(
            s,
            "{:>3} {:>10.2} {:>10.1} {:>9} {:>9} {:>9} {:>9.1} {:>8.3} {:>7.3} {:>8.2}",
            r.n,
            r.p_s * 1000.0,
            r.queue_pkts,
            x(0),
            x(1),
            x(5),
            r.rates[r.n - 1],
            r.x1_over_fair,
            r.jain,
            r.p_over_p1
        );
    }
    s
}

/// Runs one model. `words` are the arguments after `model fast`. Returns
/// the text (or JSON) to print, or an error message (bad input).
pub fn run(words: &[String]) -> Result<String, String> {
    let Some((model, rest)) = words.split_first() else {
        return Err(USAGE.to_string());
    };
    match model.as_str() {
        "persistent" => {
            let a = Args::parse(rest, &["flows", "alpha"])?;
            let n = a.count("flows", 10.0, 10_000.0)?;
            let alpha = a.positive("alpha", 200.0)?;
            let c = a.capacity(12500.0)?;
            let rows = fast_persistent_table(n, alpha, c);
            Ok(if a.json {
                serde_json::to_string_pretty(&json!({
                    "model": "fast-persistent", "alpha": alpha, "capacity_pkts_per_s": c,
                    "equations": "thesis (4.19), (4.20)", "rows": rows
                }))
                .expect("serialisable")
            } else {
                persistent_text(
                    &format!(
                        "FAST persistent congestion, alpha = {alpha} pkts, c = {c:.1} pkt/s (thesis eqs. (4.19), (4.20); independent of d)"
                    ),
                    &rows,
                )
            })
        }
        "vegas" => {
            let a = Args::parse(rest, &["flows", "alpha-plus", "rtt"])?;
            let n = a.count("flows", 10.0, 10_000.0)?;
            let ap = a.positive("alpha-plus", 2475.0)?;
            let d = a.positive("rtt", 0.04)?;
            let c = a.capacity(12500.0)?;
            let rows = vegas_persistent_table(n, ap, c, d);
            Ok(if a.json {
                serde_json::to_string_pretty(&json!({
                    "model": "vegas-persistent", "alpha_plus": ap, "capacity_pkts_per_s": c,
                    "rtt_s": d, "equations": "thesis (4.10), (4.12)", "rows": rows
                }))
                .expect("serialisable")
            } else {
                persistent_text(
                    &format!(
                        "prose Vegas persistent congestion, alpha+ = {ap} pkt/s, c = {c:.1} pkt/s, d = {d} s (thesis eqs. (4.10), (4.12))"
                    ),
                    &rows,
                )
            })
        }
        "new-flow" => {
            let a = Args::parse(rest, &["max-flows", "alpha", "rtt", "r"])?;
            let n_max = a.count("max-flows", 15.0, 100_000.0)?;
            let alpha = a.positive("alpha", 50.0)?;
            let d = a.positive("rtt", 0.2)?;
            let r = a.get("r", 0.0);
            if r != 0.0 && r <= 1.0 {
                return Err(format!("--r must be > 1 (or 0 for r -> inf), found {r}"));
            }
            let c = a.capacity(pkts_per_s(100e6, 1040.0))?;
            let t = |n: usize| {
                if r == 0.0 {
                    drain_time_limit(n, alpha, c)
                } else {
                    drain_time(n, alpha, c, r)
                }
            };
            let rows: Vec<_> = (1..=n_max)
                .map(|n| {
                    let b1 = new_flow_b1(n, alpha);
                    json!({
                        "n": n, "b1_pkts": b1, "b1_over_alpha": b1 / alpha,
                        "ratio_x0_over_x1": new_flow_ratio(n),
                        "new_flow_rate": new_flow_rate(n, c),
                        "queue_before_pkts": n as f64 * alpha + b1,
                        "drain_time_s": t(n),
                        "drain_time_thesis_approx_s": drain_time_thesis_approx(n, alpha, c),
                        "drains": t(n) < d,
                    })
                })
                .collect();
            let th = drain_threshold(d, 100_000, t);
            let th_ap = drain_threshold(d, 100_000, |n| drain_time_thesis_approx(n, alpha, c));
            Ok(if a.json {
                serde_json::to_string_pretty(&json!({
                    "model": "fast-new-flow", "alpha": alpha, "capacity_pkts_per_s": c,
                    "rtt_s": d, "r": if r == 0.0 { None } else { Some(r) },
                    "threshold_exact": th, "threshold_thesis_approx": th_ap,
                    "equations": "thesis (4.26), (C.4), drain time of section 4.4.2",
                    "rows": rows
                }))
                .expect("serialisable")
            } else {
                let mut s = format!(
                    "one new FAST flow joining N flows that know d: alpha = {alpha}, c = {c:.1} pkt/s, smallest RTT {d} s, r = {}\n",
                    if r == 0.0 { "inf".to_string() } else { r.to_string() }
                );
                let _ = writeln!(
                    s,
                    "{:>4} {:>8} {:>9} {:>10} {:>10} {:>11} {:>7}",
                    "N", "b1/alpha", "x0/x1", "x_new", "T ms", "approx ms", "drains"
                );
                for row in &rows {
                    let _ = writeln!(
                        s,
                        "{:>4} {:>8.3} {:>9.3} {:>10.1} {:>10.1} {:>11.1} {:>7}",
                        row["n"],
                        row["b1_over_alpha"].as_f64().unwrap_or(0.0),
                        row["ratio_x0_over_x1"].as_f64().unwrap_or(0.0),
                        row["new_flow_rate"].as_f64().unwrap_or(0.0),
                        row["drain_time_s"].as_f64().unwrap_or(0.0) * 1e3,
                        row["drain_time_thesis_approx_s"].as_f64().unwrap_or(0.0) * 1e3,
                        if row["drains"].as_bool() == Some(true) {
                            "yes"
                        } else {
                            "no"
                        },
                    );
                }
                let _ = writeln!(
                    s,
                    "queue empties for N <= {th} (exact T), N <= {th_ap} (thesis approx alpha/c (N^1.5 + N)); scaling (4.31): (c d/alpha)^(2/3) = {:.2}",
                    drain_threshold_scaling(alpha, c, d)
                );
                s
            })
        }
        "two-flow" => {
            let a = Args::parse(rest, &["alpha-plus"])?;
            let ap = a.positive("alpha-plus", 2500.0)?;
            let c = a.capacity(125.0)?;
            let v = vegas_two_flow_share(ap / c);
            let f = fast_two_flow_share();
            Ok(if a.json {
                serde_json::to_string_pretty(&json!({
                    "model": "two-flow", "fast_older_share": f, "vegas_older_share": v,
                    "alpha_plus_over_c": ap / c, "equations": "thesis (4.22), (4.23)"
                }))
                .expect("serialisable")
            } else {
                format!(
                    "two flows, persistent congestion: older flow's share of c\n  FAST (4.23): 2/(3+sqrt 5) = {f:.5}\n  prose Vegas (4.22), alpha+/c = {:.4}: {v:.5}\n",
                    ap / c
                )
            })
        }
        "alpha" => {
            let a = Args::parse(rest, &["alpha0", "alpha-s", "k", "until", "step"])?;
            let a0 = a.positive("alpha0", 800.0)?;
            let s0 = a.positive("alpha-s", a0 / 2.0)?;
            let k = a.positive("k", 0.1)?;
            let until = a.positive("until", 40.0)?;
            let step = a.positive("step", 4.0)?;
            let n = (until / step).floor() as usize;
            let rows: Vec<_> = (0..=n)
                .map(|i| {
                    let t = i as f64 * step;
                    json!({"t_s": t, "alpha": alpha_recovery(a0, s0, k, t)})
                })
                .collect();
            Ok(if a.json {
                serde_json::to_string_pretty(&json!({
                    "model": "alpha-recovery", "alpha0": a0, "alpha_s": s0, "k": k,
                    "t90_s": alpha_recovery_time(a0, s0, k, 0.9),
                    "equations": "thesis (4.32)-(4.35)", "rows": rows
                }))
                .expect("serialisable")
            } else {
                let mut s = format!(
                    "alpha-adjusting recovery alpha(t) = alpha0 - (alpha0 - alpha_s) e^(-k t), alpha0 = {a0}, alpha_s = {s0}, k = {k}/s\n{:>8} {:>10}\n",
                    "t s", "alpha"
                );
                for r in &rows {
                    let _ = writeln!(
                        s,
                        "{:>8.1} {:>10.2}",
                        r["t_s"].as_f64().unwrap_or(0.0),
                        r["alpha"].as_f64().unwrap_or(0.0)
                    );
                }
                if s0 < 0.9 * a0 {
                    let _ = writeln!(
                        s,
                        "90% of alpha0 after {:.2} s",
                        alpha_recovery_time(a0, s0, k, 0.9)
                    );
                }
                s
            })
        }
        "help" | "--help" | "-h" => Ok(USAGE.to_string()),
        other => Err(format!("unknown model \"{other}\"\n\n{USAGE}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn tables_and_json() {
        let t = run(&w("persistent")).unwrap();
        assert!(t.contains("4727.4"), "{t}");
        assert!(t.contains("528.8") && t.contains("4040.5"));
        let j = run(&w("persistent --flows 3 --json")).unwrap();
        let v: serde_json::Value = serde_json::from_str(&j).unwrap();
        assert_eq!(v["rows"].as_array().unwrap().len(), 3);
        let t = run(&w("vegas --alpha-plus 250")).unwrap();
        assert!(t.contains("278.6"), "{t}");
        let t = run(&w("new-flow --max-flows 12")).unwrap();
        assert!(t.contains("N <= 9 (exact T), N <= 11"), "{t}");
        let t = run(&w("new-flow --max-flows 4 --rtt 0.04")).unwrap();
        assert!(t.contains("N <= 2 (exact T), N <= 3"), "{t}");
        let t = run(&w("two-flow")).unwrap();
        assert!(t.contains("0.38197") && t.contains("0.04356"), "{t}");
        let t = run(&w("alpha --until 20")).unwrap();
        assert!(t.contains("16.09"), "{t}");
        let t = run(&w(
            "persistent --rate-bps 100e6 --packet-bytes 1000 --flows 1",
        ))
        .unwrap();
        assert!(t.contains("12500.0"), "{t}");
    }

    #[test]
    fn errors() {
        assert!(run(&[]).unwrap_err().contains("usage"));
        assert!(run(&w("bogus")).unwrap_err().contains("unknown model"));
        assert!(run(&w("persistent --alhpa 3"))
            .unwrap_err()
            .contains("--alpha"));
        assert!(run(&w("persistent --alpha x"))
            .unwrap_err()
            .contains("not a number"));
        assert!(run(&w("persistent --flows 0")).is_err());
        assert!(run(&w("persistent --alpha"))
            .unwrap_err()
            .contains("needs a value"));
        assert!(run(&w("new-flow --r 1")).is_err());
    }
}
