//! `dropless model marking ...`: the Monte Carlo study of the marking
//! schemes' estimators (thesis §5.4) as a table or CSV. The CLI crate passes
//! the words after `model marking` to [`run`].

use std::fmt::Write;

use super::probe::Sequence;
use super::study::{self, Scheme};

/// Usage text.
pub const USAGE: &str = "\
usage: dropless model marking <STUDY> [--OPTION VALUE]... [--csv]

studies (thesis chapter 5; prices in [0, 1], errors in the same units):
  static  error after k packets for a static price: mean, MSE, 99th percentile, max
          --scheme S[,S...] (adpm-brc,adpm-random-brc,adpm-random,rem)
          --k K[,K...] (1,2,5,10,20,50,100,200,500,1000,2000,4096)
          --sequences N (256) --prices N (100) --seed N (1)
          schemes: adpm-brc, adpm-random-brc, adpm-random, rem, tpm-N (N bits), rpm-N (N levels)
  track   ADPM following a price rising by delta per packet: mean, MSE, share above sqrt(2 delta)
          --delta D[,D...] (1e-5,1e-6,1e-7,1e-8) --sequence Q (random) --runs N (100) --seed N (1)
  detect  packets until ADPM detects a step of a above its interval: mean, worst, share undetected
          --a A[,A...] (0.3,0.1,0.03,0.01,0.003) --sequence Q (random-brc) --trials N (20000) --seed N (1)
sequences: brc, random-brc, random";

struct Opts {
    vals: Vec<(String, String)>,
    csv: bool,
}

impl Opts {
    fn parse(words: &[String], allowed: &[&str]) -> Result<Opts, String> {
        let o = crate::options::parse(
            words,
            &["csv"],
            allowed,
            &[],
            "this study",
            " (see dropless model marking --help)",
        )?;
        let csv = o.flag("csv");
        Ok(Opts { vals: o.vals, csv })
    }

    fn get<'a>(&'a self, k: &str, default: &'a str) -> &'a str {
        self.vals
            .iter()
            .rev()
            .find(|(n, _)| n == k)
            .map_or(default, |(_, v)| v)
    }

    fn list<T>(
        &self,
        k: &str,
        default: &str,
        f: impl Fn(&str) -> Result<T, String>,
    ) -> Result<Vec<T>, String> {
        self.get(k, default)
            .split(',')
            .map(|s| f(s.trim()).map_err(|e| format!("--{k}: {e}")))
            .collect()
    }

    fn count(&self, k: &str, default: &str) -> Result<usize, String> {
        let v = self.get(k, default);
        v.parse::<usize>()
            .ok()
            .filter(|&n| (1..=study::MAX_TRIALS).contains(&n))
            .ok_or_else(|| {
                format!(
                    "--{k}: \"{v}\" is not a whole number in 1..={}",
                    study::MAX_TRIALS
                )
            })
    }

    fn seed(&self) -> Result<u64, String> {
        let v = self.get("seed", "1");
        v.parse()
            .map_err(|_| format!("--seed: \"{v}\" is not a whole number from 0 to 2^64-1"))
    }
}

fn number(s: &str) -> Result<f64, String> {
    s.parse::<f64>()
        .ok()
        .filter(|x| x.is_finite())
        .ok_or_else(|| format!("\"{s}\" is not a number"))
}

fn k_value(s: &str) -> Result<usize, String> {
    s.parse::<usize>()
        .ok()
        .filter(|&k| (1..=study::MAX_K).contains(&k))
        .ok_or_else(|| format!("\"{s}\" is not a packet count in 1..={}", study::MAX_K))
}

fn table(csv: bool, header: &[&str], rows: &[Vec<String>]) -> String {
    let mut s = String::new();
    if csv {
        let _ = writeln!(s, "{}", header.join(","));
        for r in rows {
            let _ = writeln!(s, "{}", r.join(","));
        }
    } else {
        let w = crate::options::column_widths(header, rows);
        let line = |cells: Vec<&str>| {
            cells
                .iter()
                .zip(&w)
                .map(|(c, w)| format!("{c:>w$}"))
                .collect::<Vec<_>>()
                .join("  ")
        };
        let _ = writeln!(s, "{}", line(header.to_vec()));
        for r in rows {
            let _ = writeln!(s, "{}", line(r.iter().map(String::as_str).collect()));
        }
    }
    s
}

fn g(x: f64) -> String {
    format!("{x:.4e}")
}

/// Runs `dropless model marking WORDS...`; returns the text to print.
pub fn run(words: &[String]) -> Result<String, String> {
    let Some(study) = words.first() else {
        return Err(format!("which study?\n\n{USAGE}"));
    };
    let rest = &words[1..];
    match study.as_str() {
        "--help" | "-h" | "help" => Ok(format!("{USAGE}\n")),
        "static" => {
            let o = Opts::parse(rest, &["scheme", "k", "sequences", "prices", "seed"])?;
            let schemes = o.list(
                "scheme",
                "adpm-brc,adpm-random-brc,adpm-random,rem",
                Scheme::parse,
            )?;
            let ks = o.list("k", "1,2,5,10,20,50,100,200,500,1000,2000,4096", k_value)?;
            let (n, m, seed) = (
                o.count("sequences", "256")?,
                o.count("prices", "100")?,
                o.seed()?,
            );
            let mut rows = Vec::new();
            for (name, s) in o
                .get("scheme", "adpm-brc,adpm-random-brc,adpm-random,rem")
                .split(',')
                .zip(schemes)
            {
                // Pure BRC has one sequence: its ensemble is the prices.
                let (n, m) = if s == Scheme::Adpm(Sequence::Brc) {
                    (1, n * m)
                } else {
                    (n, m)
                };
                for e in study::static_error(s, &ks, n, m, seed)? {
                    rows.push(vec![
                        name.trim().to_string(),
                        e.k.to_string(),
                        g(e.mean),
                        g(e.mse),
                        g(e.p99),
                        g(e.max),
                    ]);
                }
            }
            Ok(table(
                o.csv,
                &["scheme", "k", "mean", "mse", "p99", "max"],
                &rows,
            ))
        }
        "track" => {
            let o = Opts::parse(rest, &["delta", "sequence", "runs", "seed"])?;
            let ds = o.list("delta", "1e-5,1e-6,1e-7,1e-8", number)?;
            let seq = Sequence::parse(o.get("sequence", "random"))
                .map_err(|e| format!("--sequence: {e}"))?;
            let (runs, seed) = (o.count("runs", "100")?, o.seed()?);
            let mut rows = Vec::new();
            for d in ds {
                let t = study::track_ramp(d, seq, runs, seed).map_err(|e| format!("--{e}"))?;
                rows.push(vec![
                    format!("{d:e}"),
                    g(t.mean),
                    g((std::f64::consts::PI * d / 2.0).sqrt()),
                    g(t.mse),
                    format!("{:.4}", t.exceed),
                ]);
            }
            Ok(table(
                o.csv,
                &[
                    "delta",
                    "mean",
                    "sqrt(pi delta/2)",
                    "mse",
                    "above sqrt(2 delta)",
                ],
                &rows,
            ))
        }
        "detect" => {
            let o = Opts::parse(rest, &["a", "sequence", "trials", "seed"])?;
            let as_ = o.list("a", "0.3,0.1,0.03,0.01,0.003", number)?;
            let seq = Sequence::parse(o.get("sequence", "random-brc"))
                .map_err(|e| format!("--sequence: {e}"))?;
            let (trials, seed) = (o.count("trials", "20000")?, o.seed()?);
            let mut rows = Vec::new();
            for a in as_ {
                let ks = [(1.0 / a).round() as usize];
                let d =
                    study::detect_step(a, seq, trials, &ks, seed).map_err(|e| format!("--{e}"))?;
                rows.push(vec![
                    format!("{a}"),
                    format!("{:.2}", d.mean),
                    d.worst.to_string(),
                    format!("{:.4}", d.undetected[0]),
                ]);
            }
            Ok(table(
                o.csv,
                &["a", "mean", "worst", "undetected after 1/a"],
                &rows,
            ))
        }
        other => Err(format!(
            "unknown study \"{other}\" (allowed: static, track, detect)"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_string).collect()
    }

    #[test]
    fn csv_has_a_row_per_scheme_and_k() {
        let out = run(&w(
            "static --scheme adpm-random,rem --k 1,10 --sequences 2 --prices 3 --csv",
        ))
        .unwrap();
        assert_eq!(out.lines().count(), 5, "{out}");
        assert!(out.starts_with("scheme,k,mean,mse,p99,max\nadpm-random,1,"));
    }

    #[test]
    fn bad_input_is_one_line_naming_the_option() {
        for (args, key) in [
            ("static --scheme red", "--scheme"),
            ("static --k 0", "--k"),
            ("static --sequences x", "--sequences"),
            ("track --delta 2", "--delta"),
            ("detect --sequence zig", "--sequence"),
            ("static --bogus 1", "--bogus"),
            ("fig", "study"),
        ] {
            let e = run(&w(args)).unwrap_err();
            assert!(e.contains(key) && !e.contains('\n'), "{args}: {e}");
        }
    }
}
