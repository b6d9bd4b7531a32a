//! `dropless model buffer|loss|closed-loop|tables ...`: the chapter 3
//! buffer-sizing rules and loss models as tables, CSV or JSON. The CLI crate
//! passes the words after `model` (starting with the command name) to
//! [`run`].
//!
//! ```text
//! dropless model buffer --channels 16 --inputs 32 --rate 40Gbps --flows 64000 --rtt-min 60ms --rtt-max 180ms --utilization 0.7
//! dropless model loss --channels 2 --inputs 16 --buffer 10 --load 0.3,0.6,0.9
//! dropless model closed-loop --channels 1 --inputs 2 --buffer 10 --rate 40Gbps --flows 4000 --rtt 109.1ms
//! dropless model tables
//! dropless model extrapolate out/s2-sweep --x topology.trunk.rate --y utilization --at 40Gbps
//! ```

use std::fmt::Write;

use serde_json::{json, Value};

use super::chain::{Trunk, MAX_B, MAX_K, MAX_M};
use super::closed_loop::{self, Flows};
use super::rules::{self, RuleInput};
use super::{detailed, open_loop, tables, Model};

/// Usage text (also the `--help` output).
pub const USAGE: &str = "\
usage: dropless model <COMMAND> [--OPTION VALUE]... [--csv | --json]

commands (thesis chapter 3, buffer sizing for core DWDM switches):
  buffer       how much buffer for utilization U: every rule side by side, with the
               closed-loop (G1DM) utilization each buffer gives
               --channels K --inputs M --rate R --flows N --utilization U[,U...]
               (--rtt T | --rtt-min T --rtt-max T)
  loss         open-loop loss probability of G1DM, EBD, EBI, EB, M/M/K/(K+B)
               --channels K --inputs M --buffer B --load RHO[,RHO...]
               [--model all|g1dm,ebd,ebi,eb,mmkkb] [--mc ARRIVALS [--seed S]]
  closed-loop  TCP (Mathis's law) meets an open-loop model: loss, utilization, throughput
               --channels K --inputs M --buffer B --rate R --flows N
               (--rtt T | --rtt-min T --rtt-max T) [--model all|g1dm,...]
  tables       Tables 3.1-3.4 regenerated beside the thesis's printed values
  extrapolate  the extrapolation method (thesis §3.3): fit y = a + b/(x - c), or a flat
               line, to a sweep's results and evaluate it at the target x
               RESULTS... --x COLUMN --y COLUMN --at X [--log10] [--fit auto|hyperbola|flat]
               [--where COLUMN=VALUE]...

options:
  --channels K       output links (wavelengths) per trunk, 1..=100000
  --inputs M         input links feeding the trunk, K..=1000000
  --buffer B         shared buffer slots (packets), 0..=1000000
  --rate R           bit-rate of one link: 40Gbps, 2.5G, 1e9 (b/s)
  --flows N          long-lived TCP flows through the trunk
  --rtt T            harmonic-mean round-trip propagation delay: 100ms, 0.1 (s)
  --rtt-min/--rtt-max  RTTs uniform on [min, max]: RTT_H = (max-min)/ln(max/min)
  --utilization U    target, strictly between 0 and 1
  --load RHO         normalized load M lambda/(K (lambda+mu)), in (0, M/K)
  --packet-bytes P   bytes per packet on the wire (1040: 1000 B payload + 40 B headers)
  --conversion C     full (default): any packet may use any of the K channels;
                     none: the K = F x L channels are F fibres (--fibres F, default 1)
                     of L wavelengths, and each wavelength is a separate network:
                     K -> F, M -> M/L, N -> N/L (thesis L2364-2384)
  --csv, --json      machine-readable output

extrapolate (RESULTS: a sweep's results.csv or its output directory; several are pooled,
e.g. one sweep per rate, since a sweep's grid is a product and N must scale with the rate):
  --x COLUMN         the bit-rate column: bit-rates (0.4Gbps) are read in Gb/s, bare numbers as they are
  --y COLUMN         the column fitted; one point per distinct x, the mean of y over its rows
  --at X             the target, in the units of --x (40Gbps)
  --log10            fit log10 y (the thesis always fits log10 PB); every y must be > 0
  --fit F            auto (default): the hyperbola only if it beats the flat line (the mean)
                     by an F-test at 5 %: ((SSE_flat - SSE_hyp)/2) / (SSE_hyp/(n-3)) > F(2, n-3);
                     hyperbola or flat: that curve. The hyperbola needs 4 points, flat 3; a
                     hyperbola whose pole runs to the end of its range (a sloped line) is refused
  --where COL=VALUE  only rows whose COL is VALUE (repeatable)";

struct Opts {
    vals: Vec<(String, String)>,
    csv: bool,
    json: bool,
}

impl Opts {
    fn parse(words: &[String], allowed: &[&str]) -> Result<Opts, String> {
        let w = crate::options::parse(
            words,
            &["csv", "json"],
            allowed,
            &[],
            "this command",
            " (options are --name value)",
        )?;
        let o = Opts {
            csv: w.flag("csv"),
            json: w.flag("json"),
            vals: w.vals,
        };
        if o.csv && o.json {
            return Err("--csv and --json: choose one".into());
        }
        Ok(o)
    }

    fn get(&self, k: &str) -> Option<&str> {
        self.vals
            .iter()
            .rev()
            .find(|(n, _)| n == k)
            .map(|(_, v)| v.as_str())
    }

    fn need(&self, k: &str) -> Result<&str, String> {
        self.get(k).ok_or_else(|| format!("--{k} is required"))
    }

    fn whole(
        &self,
        k: &str,
        min: usize,
        max: usize,
        default: Option<usize>,
    ) -> Result<usize, String> {
        let s = match (self.get(k), default) {
            (Some(s), _) => s,
            (None, Some(d)) => return Ok(d),
            (None, None) => {
                return Err(format!(
                    "--{k} is required (a whole number in {min}..={max})"
                ))
            }
        };
        s.parse::<usize>()
            .ok()
            .filter(|v| (min..=max).contains(v))
            .ok_or_else(|| format!("--{k} must be a whole number in {min}..={max}, found \"{s}\""))
    }

    fn positive(&self, k: &str, s: &str, parse: fn(&str) -> Option<f64>) -> Result<f64, String> {
        parse(s)
            .filter(|v| v.is_finite() && *v > 0.0)
            .ok_or_else(|| format!("--{k} must be a positive number, found \"{s}\""))
    }
}

/// "40Gbps", "40G", "2.5e9", "100Mbps" -> b/s.
pub(super) fn parse_rate(s: &str) -> Option<f64> {
    let t = s.trim().trim_end_matches("bps").trim_end_matches("b/s");
    let (num, mult) = match t.chars().last()? {
        'k' | 'K' => (&t[..t.len() - 1], 1e3),
        'M' => (&t[..t.len() - 1], 1e6),
        'G' => (&t[..t.len() - 1], 1e9),
        'T' => (&t[..t.len() - 1], 1e12),
        _ => (t, 1.0),
    };
    num.parse::<f64>().ok().map(|v| v * mult)
}

/// "60ms", "0.06s", "0.06", "500us" -> s.
fn parse_time(s: &str) -> Option<f64> {
    let t = s.trim();
    for (suf, mult) in [("ms", 1e-3), ("us", 1e-6), ("s", 1.0)] {
        if let Some(n) = t.strip_suffix(suf) {
            return n.parse::<f64>().ok().map(|v| v * mult);
        }
    }
    t.parse::<f64>().ok()
}

fn plain(s: &str) -> Option<f64> {
    s.parse::<f64>().ok()
}

/// The trunk as the models see it after wavelength conversion is applied.
struct Setup {
    m: usize,
    k: usize,
    /// L: wavelength planes (1 with full conversion).
    planes: usize,
    /// N per plane.
    n: Option<f64>,
}

fn setup(o: &Opts) -> Result<Setup, String> {
    let k = o.whole("channels", 1, MAX_K, None)?;
    let m = o.whole("inputs", 1, MAX_M, None)?;
    if m < k {
        return Err(format!(
            "--inputs must be >= --channels = {k} (M >= K; with fewer inputs than channels nothing contends), found {m}"
        ));
    }
    let n = match o.get("flows") {
        Some(s) => Some(o.positive("flows", s, plain)?),
        None => None,
    };
    match o.get("conversion").unwrap_or("full") {
        "full" => {
            if o.get("fibres").is_some() {
                return Err("--fibres applies only with --conversion none".into());
            }
            Ok(Setup { m, k, planes: 1, n })
        }
        "none" => {
            // Thesis L2364-2384: without conversion the trunk of F fibres x
            // L wavelengths is L separate networks with F links per trunk
            // and 1/L of the inputs and flows (note §1.2).
            let f = o.whole("fibres", 1, k, Some(1))?;
            if k % f != 0 {
                return Err(format!(
                    "--fibres must divide --channels = {k} (K = F L), found {f}"
                ));
            }
            let l = k / f;
            if m % l != 0 {
                return Err(format!(
                    "--inputs must be a multiple of the L = {l} wavelengths per fibre with --conversion none, found {m}"
                ));
            }
            Ok(Setup {
                m: m / l,
                k: f,
                planes: l,
                n: n.map(|n| n / l as f64),
            })
        }
        other => Err(format!(
            "--conversion must be full or none, found \"{other}\""
        )),
    }
}

/// RTT_H and the largest RTT.
fn rtts(o: &Opts) -> Result<(f64, f64), String> {
    match (o.get("rtt"), o.get("rtt-min"), o.get("rtt-max")) {
        (Some(r), None, None) => {
            let r = o.positive("rtt", r, parse_time)?;
            Ok((r, r))
        }
        (None, Some(a), Some(b)) => {
            let (a, b) = (
                o.positive("rtt-min", a, parse_time)?,
                o.positive("rtt-max", b, parse_time)?,
            );
            if b < a {
                return Err(format!("--rtt-max must be >= --rtt-min, found {b} < {a}"));
            }
            Ok((rules::harmonic_mean_uniform(a, b), b))
        }
        _ => Err("give either --rtt T (harmonic mean) or both --rtt-min and --rtt-max".into()),
    }
}

fn mu(o: &Opts) -> Result<f64, String> {
    let r = o.positive("rate", o.need("rate")?, parse_rate)?;
    let p = match o.get("packet-bytes") {
        Some(s) => o.positive("packet-bytes", s, plain)?,
        None => 1040.0,
    };
    Ok(rules::packets_per_second(r, p))
}

fn list(o: &Opts, k: &str, check: impl Fn(f64) -> Result<(), String>) -> Result<Vec<f64>, String> {
    o.need(k)?
        .split(',')
        .map(|s| {
            let v = s
                .trim()
                .parse::<f64>()
                .map_err(|_| format!("--{k}: \"{s}\" is not a number"))?;
            check(v).map_err(|e| format!("--{k}: {e}"))?;
            Ok(v)
        })
        .collect()
}

fn models(o: &Opts) -> Result<Vec<Model>, String> {
    match o.get("model").unwrap_or("all") {
        "all" => Ok(Model::ALL.to_vec()),
        s => s
            .split(',')
            .map(|x| Model::parse(x.trim()).map_err(|e| format!("--model: {e}")))
            .collect(),
    }
}

fn render(o: &Opts, title: &str, header: &[&str], rows: &[Vec<String>], json: Value) -> String {
    if o.json {
        return format!(
            "{}\n",
            serde_json::to_string_pretty(&json).unwrap_or_default()
        );
    }
    let mut s = String::new();
    if o.csv {
        let quote = |c: &str| {
            if c.contains(',') || c.contains('"') {
                format!("\"{}\"", c.replace('"', "\"\""))
            } else {
                c.to_string()
            }
        };
        let _ = writeln!(s, "{}", header.join(","));
        for r in rows {
            let _ = writeln!(
                s,
                "{}",
                r.iter().map(|c| quote(c)).collect::<Vec<_>>().join(",")
            );
        }
        return s;
    }
    let w = crate::options::column_widths(header, rows);
    let line = |cells: Vec<&str>| {
        cells
            .iter()
            .zip(&w)
            .enumerate()
            .map(|(i, (c, w))| {
                if i == 0 {
                    format!("{c:<w$}")
                } else {
                    format!("{c:>w$}")
                }
            })
            .collect::<Vec<_>>()
            .join("  ")
    };
    let _ = writeln!(s, "{title}");
    let _ = writeln!(s, "{}", line(header.to_vec()));
    for r in rows {
        let _ = writeln!(s, "{}", line(r.iter().map(String::as_str).collect()));
    }
    s
}

fn e(x: f64) -> String {
    format!("{x:.4e}")
}

fn f3(x: f64) -> String {
    format!("{x:.3}")
}

/// Runs `dropless model COMMAND WORDS...` for the chapter 3 commands
/// (`buffer`, `loss`, `closed-loop`, `tables`); `words[0]` is the command.
/// Returns the text to print, or a one-line error naming the bad option.
pub fn run(words: &[String]) -> Result<String, String> {
    let Some(cmd) = words.first() else {
        return Err(
            "which command? (buffer, loss, closed-loop, tables, extrapolate; --help lists the options)"
                .into(),
        );
    };
    let rest = &words[1..];
    if rest.iter().any(|w| w == "--help" || w == "-h") {
        return Ok(format!("{USAGE}\n"));
    }
    match cmd.as_str() {
        "--help" | "-h" | "help" => Ok(format!("{USAGE}\n")),
        "buffer" => buffer(rest),
        "loss" => loss(rest),
        "closed-loop" => closed(rest),
        "tables" => tables_cmd(rest),
        "extrapolate" => super::extrapolate_cmd::run(rest),
        other => Err(format!(
            "unknown command \"{other}\" (allowed: buffer, loss, closed-loop, tables, extrapolate)"
        )),
    }
}

fn buffer(words: &[String]) -> Result<String, String> {
    let o = Opts::parse(
        words,
        &[
            "channels",
            "inputs",
            "rate",
            "flows",
            "rtt",
            "rtt-min",
            "rtt-max",
            "utilization",
            "packet-bytes",
            "conversion",
            "fibres",
        ],
    )?;
    let s = setup(&o)?;
    let n = s.n.ok_or("--flows is required")?;
    let (rtt, max_rtt) = rtts(&o)?;
    let mu = mu(&o)?;
    let us = list(&o, "utilization", |u| {
        rules::check_utilization(u)
            .map_err(|_| format!("must be strictly between 0 and 1, found {u}"))
    })?;
    let trunk_m = s.m as f64;
    let mut rows = Vec::new();
    let mut out = Vec::new();
    for u in us {
        let r = RuleInput {
            m: trunk_m,
            k: s.k,
            mu,
            n,
            rtt,
            u,
        };
        r.validate()?;
        let ours = rules::dwdm_buffer(&r)?;
        let mut cands: Vec<(&str, Option<f64>, String)> = vec![
            (
                "thesis (3.23) per trunk",
                Some(ours as f64),
                format!("log_F1 F2 = {:.2}", rules::dwdm_exponent(&r)?),
            ),
            (
                "thesis (3.24) whole switch",
                Some(rules::switch_buffer(trunk_m, s.k, ours)),
                format!("M/K = {} trunks", trunk_m / s.k as f64),
            ),
        ];
        let single = rules::single_link_buffer(s.k as f64 * mu, n, rtt, u)?;
        cands.push((
            "single link (3.27)",
            Some(single as f64),
            "trunk as one link of K mu; M -> inf".into(),
        ));
        let bdp = rules::bdp(s.k, mu, rtt);
        cands.push(("BDP K mu RTT_H", Some(bdp.ceil()), "rule of thumb".into()));
        cands.push((
            "BDP/sqrt(N)",
            Some((bdp / n.sqrt()).ceil()),
            "Appenzeller with x = 1".into(),
        ));
        match rules::appenzeller_x(u, n) {
            Ok(x) => cands.push((
                "Appenzeller erf (3.26)",
                Some((x * bdp / n.sqrt()).ceil()),
                format!("x = {x:.4}"),
            )),
            Err(e) => cands.push(("Appenzeller erf (3.26)", None, e)),
        }
        match rules::enachescu_exponent(&r, 0.95) {
            Ok(v) => cands.push((
                "Enachescu O(log W)",
                Some(v.max(0.0).ceil()),
                "varrho = 0.95".into(),
            )),
            Err(e) => cands.push(("Enachescu O(log W)", None, e)),
        }
        cands.push((
            "Gorinsky 2M",
            Some(rules::gorinsky_buffer(trunk_m)),
            String::new(),
        ));
        let c = s.k as f64 * mu;
        cands.push((
            "full utilization B > K mu max RTT",
            Some(rules::full_utilization_buffer(c, max_rtt) as f64),
            format!("(3.29), max RTT {:.1} ms", max_rtt * 1e3),
        ));
        for (name, b, note) in cands {
            // Closed-loop G1DM at this buffer (per trunk rules only).
            let cl = match b {
                Some(b) if b <= MAX_B as f64 && !name.contains("whole switch") => {
                    let t = Trunk::new(s.m, s.k, b as usize)?;
                    closed_loop::solve(Model::G1dm, t, &Flows { mu, n, rtt })
                        .ok()
                        .map(|op| op.carried)
                }
                _ => None,
            };
            rows.push(vec![
                format!("{u}"),
                name.to_string(),
                b.map_or("-".into(), |b| format!("{b}")),
                cl.map_or("-".into(), f3),
                note.clone(),
            ]);
            out.push(json!({"utilization": u, "rule": name, "buffer": b, "closed_loop_utilization": cl, "note": note}));
        }
    }
    let title = format!(
        "buffer for M = {} inputs, K = {} channels{}, mu = {:.1} pkt/s per link, N = {} flows, RTT_H = {:.2} ms (per trunk, packets)",
        s.m,
        s.k,
        if s.planes > 1 { format!(" (no conversion: one of {} wavelength planes)", s.planes) } else { String::new() },
        mu,
        n,
        rtt * 1e3
    );
    Ok(render(
        &o,
        &title,
        &["U", "rule", "buffer", "closed-loop U", "note"],
        &rows,
        json!({"inputs": s.m, "channels": s.k, "planes": s.planes, "mu": mu, "flows": n, "rtt_h": rtt, "rows": out}),
    ))
}

fn loss(words: &[String]) -> Result<String, String> {
    let o = Opts::parse(
        words,
        &[
            "channels",
            "inputs",
            "buffer",
            "load",
            "model",
            "mc",
            "seed",
            "conversion",
            "fibres",
        ],
    )?;
    let s = setup(&o)?;
    let b = o.whole("buffer", 0, MAX_B, None)?;
    let t = Trunk::new(s.m, s.k, b)?;
    let loads = list(&o, "load", |r| t.inv_lambda(r).map(|_| ()))?;
    let ms = models(&o)?;
    let mc = match o.get("mc") {
        Some(_) => Some(o.whole("mc", 1000, detailed::MAX_ARRIVALS as usize, None)? as u64),
        None => None,
    };
    let seed = o.whole("seed", 0, usize::MAX, Some(1))? as u64;
    let mut rows = Vec::new();
    let mut out = Vec::new();
    for rho in loads {
        for &m in &ms {
            let l = open_loop(m, t, rho)?;
            rows.push(vec![
                format!("{rho}"),
                m.name().into(),
                e(l.pb),
                f3(l.utilization),
                f3(l.carried),
                String::new(),
            ]);
            out.push(json!({"load": rho, "model": m.name(), "pb": l.pb, "utilization": l.utilization, "carried": l.carried}));
        }
        if let Some(n) = mc {
            let x = detailed::monte_carlo(t, rho, n, seed)?;
            rows.push(vec![
                format!("{rho}"),
                "detailed (MC)".into(),
                e(x.pb),
                "-".into(),
                "-".into(),
                format!("+-{}", e(x.ci95)),
            ]);
            out.push(json!({"load": rho, "model": "detailed-mc", "pb": x.pb, "ci95": x.ci95, "arrivals": x.arrivals}));
        } else if b == 0 && detailed::exact_bufferless(t, rho).is_ok() {
            let x = detailed::exact_bufferless(t, rho)?;
            rows.push(vec![
                format!("{rho}"),
                "detailed (exact)".into(),
                e(x),
                "-".into(),
                "-".into(),
                String::new(),
            ]);
            out.push(json!({"load": rho, "model": "detailed-exact", "pb": x}));
        }
    }
    Ok(render(
        &o,
        &format!("open-loop loss, M = {}, K = {}, B = {b}", s.m, s.k),
        &["load", "model", "PB", "rho(1-PB)", "carried", "95% CI"],
        &rows,
        json!({"inputs": s.m, "channels": s.k, "buffer": b, "rows": out}),
    ))
}

fn closed(words: &[String]) -> Result<String, String> {
    let o = Opts::parse(
        words,
        &[
            "channels",
            "inputs",
            "buffer",
            "rate",
            "flows",
            "rtt",
            "rtt-min",
            "rtt-max",
            "model",
            "packet-bytes",
            "conversion",
            "fibres",
        ],
    )?;
    let s = setup(&o)?;
    let b = o.whole("buffer", 0, MAX_B, None)?;
    let t = Trunk::new(s.m, s.k, b)?;
    let n = s.n.ok_or("--flows is required")?;
    let (rtt, _) = rtts(&o)?;
    let mu = mu(&o)?;
    let f = Flows { mu, n, rtt };
    let mut rows = Vec::new();
    let mut out = Vec::new();
    for m in models(&o)? {
        let op = closed_loop::solve(m, t, &f)?;
        let gbps = op.throughput
            * s.planes as f64
            * 8.0
            * o.get("packet-bytes").and_then(plain).unwrap_or(1040.0)
            / 1e9;
        rows.push(vec![
            m.name().into(),
            e(op.pb),
            format!("{:.3}", op.pb.log10()),
            f3(op.rho),
            f3(op.utilization),
            f3(op.carried),
            format!("{gbps:.3}"),
        ]);
        out.push(json!({"model": m.name(), "pb": op.pb, "rho": op.rho, "utilization": op.utilization, "carried": op.carried, "throughput_gbps": gbps}));
    }
    Ok(render(
        &o,
        &format!(
            "closed loop, M = {}, K = {}, B = {b}, N = {n}, mu = {mu:.1} pkt/s, RTT_H = {:.2} ms",
            s.m,
            s.k,
            rtt * 1e3
        ),
        &[
            "model",
            "PB",
            "log10 PB",
            "rho",
            "rho(1-PB)",
            "carried",
            "Gb/s",
        ],
        &rows,
        json!({"inputs": s.m, "channels": s.k, "buffer": b, "flows": n, "rtt_h": rtt, "rows": out}),
    ))
}

fn tables_cmd(words: &[String]) -> Result<String, String> {
    let o = Opts::parse(words, &[])?;
    let mut rows = Vec::new();
    let mut out = Vec::new();
    let join = |v: &[u64]| v.iter().map(u64::to_string).collect::<Vec<_>>().join(" ");
    for r in tables::regenerate_all()? {
        let s = &r.scenario;
        let pair = |ours: &[u64], theirs: &[u64]| {
            if ours == theirs {
                join(ours)
            } else {
                format!("{} [thesis {}]", join(ours), join(theirs))
            }
        };
        rows.push(vec![
            format!("{} {}", s.table, s.label),
            pair(&r.rule, &s.thesis_rule),
            pair(&r.enachescu, &s.thesis_enachescu),
            pair(&r.appenzeller, &s.thesis_appenzeller),
            pair(&[r.two_m as u64], &[s.thesis_2m]),
            pair(&[r.bdp as u64], &[s.thesis_bdp]),
        ]);
        out.push(json!({
            "table": s.table, "scenario": s.label, "m": s.m, "k": s.k, "n": s.n, "rtt_h": s.rtt,
            "rule": r.rule, "thesis_rule": s.thesis_rule,
            "enachescu": r.enachescu, "thesis_enachescu": s.thesis_enachescu,
            "appenzeller": r.appenzeller, "thesis_appenzeller": s.thesis_appenzeller,
            "two_m": r.two_m, "thesis_2m": s.thesis_2m, "bdp": r.bdp, "thesis_bdp": s.thesis_bdp,
        }));
    }
    Ok(render(
        &o,
        "Tables 3.1-3.4 (40 Gb/s links, 1040-byte packets; U = 60/70/80/90 %): ours, with the thesis's value where it differs",
        &["scenario", "our rule (3.23)", "O(log W)", "Appenzeller erf", "2M", "BDP"],
        &rows,
        Value::Array(out),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_string).collect()
    }

    #[test]
    fn buffer_example_from_the_brief() {
        let out = run(&w("buffer --channels 16 --inputs 32 --rate 40Gbps --flows 64000 --rtt 100ms --utilization 0.7")).unwrap();
        assert!(out.contains("thesis (3.23) per trunk"), "{out}");
        let line = out
            .lines()
            .find(|l| l.contains("(3.23) per trunk"))
            .unwrap();
        assert!(line.split_whitespace().any(|x| x == "9"), "{line}");
        let out = run(&w("buffer --channels 16 --inputs 16 --rate 40Gbps --flows 6400 --rtt-min 60ms --rtt-max 180ms --utilization 0.8 --csv")).unwrap();
        assert!(
            out.starts_with("U,rule,buffer,closed-loop U,note\n"),
            "{out}"
        );
        let out = run(&w("buffer --channels 16 --inputs 32 --rate 40Gbps --flows 64000 --rtt 0.1 --utilization 0.6,0.9 --json")).unwrap();
        let v: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["rows"].as_array().unwrap().len(), 18);
    }

    #[test]
    fn no_conversion_splits_into_planes() {
        // 4 fibres x 16 wavelengths, 128 inputs, 256000 flows: each plane is
        // K = 4, M = 8, N = 16000 (Table 3.2's M = 8 row at 100 ms: 19 at 80 %).
        let out = run(&w("buffer --channels 64 --inputs 128 --rate 40Gbps --flows 256000 --rtt 0.1 --utilization 0.8 --conversion none --fibres 4 --csv")).unwrap();
        let line = out
            .lines()
            .find(|l| l.contains("(3.23) per trunk"))
            .unwrap();
        assert_eq!(line.split(',').nth(2), Some("19"), "{out}");
    }

    #[test]
    fn loss_and_closed_loop() {
        let out = run(&w(
            "loss --channels 1 --inputs 2 --buffer 0 --load 0.5 --csv",
        ))
        .unwrap();
        assert!(out.contains("g1dm,2.3607e-1"), "{out}");
        assert!(out.contains("detailed (exact),2.1875e-1"), "{out}");
        let out = run(&w("closed-loop --channels 1 --inputs 2 --buffer 10 --rate 40Gbps --flows 4000 --rtt 109.1ms --model g1dm --json")).unwrap();
        let v: Value = serde_json::from_str(&out).unwrap();
        let u = v["rows"][0]["utilization"].as_f64().unwrap();
        assert!((u - 0.742).abs() < 1e-3, "{u}");
        let out = run(&w("tables")).unwrap();
        assert!(
            out.contains("19 28 45 97") && out.contains("254 261 270 292 [thesis 254 260 270 292]"),
            "{out}"
        );
    }

    #[test]
    fn bad_input_is_one_line_naming_the_option() {
        let base = "--inputs 8 --rate 40G --flows 400 --rtt 0.1";
        for (args, key) in [
            (
                format!("buffer --channels 0 {base} --utilization 0.5"),
                "--channels",
            ),
            (
                format!("buffer --channels 1 {base} --utilization 1"),
                "--utilization",
            ),
            (
                format!("buffer --channels 1 {base} --utilization 0"),
                "--utilization",
            ),
            (
                format!("buffer --channels 1 {base} --utilization -0.2"),
                "--utilization",
            ),
            (
                format!("buffer --channels 16 {base} --utilization 0.5"),
                "--inputs",
            ),
            (
                "loss --channels 2 --inputs 16 --buffer -1 --load 0.5".into(),
                "--buffer",
            ),
            (
                "loss --channels 2 --inputs 16 --buffer 1 --load 9".into(),
                "--load",
            ),
            (
                "loss --channels 2 --inputs 16 --buffer 1 --load 0.5 --model red".into(),
                "--model",
            ),
            (
                "loss --channels 2 --inputs 16 --buffer 1 --load 0.5 --conversion half".into(),
                "--conversion",
            ),
            (
                "closed-loop --channels 2 --inputs 16 --buffer 1 --rate x --flows 10 --rtt 0.1"
                    .into(),
                "--rate",
            ),
            (
                "closed-loop --channels 2 --inputs 16 --buffer 1 --rate 1G --flows 10".into(),
                "--rtt",
            ),
            (
                "loss --channels 2 --inputs 16 --buffer 1 --load 0.5 --bogus 1".into(),
                "--bogus",
            ),
            ("figs".into(), "command"),
        ] {
            let e = run(&w(&args)).unwrap_err();
            assert!(e.contains(key) && !e.contains('\n'), "{args}: {e}");
        }
    }

    #[test]
    fn units() {
        assert_eq!(parse_rate("40Gbps"), Some(40e9));
        assert_eq!(parse_rate("2.5G"), Some(2.5e9));
        assert_eq!(parse_rate("100Mbps"), Some(1e8));
        assert_eq!(parse_time("60ms"), Some(0.06));
        assert_eq!(parse_time("0.1"), Some(0.1));
        assert_eq!(parse_time("500us"), Some(5e-4));
    }
}
