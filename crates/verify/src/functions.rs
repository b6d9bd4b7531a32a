//! Functions of values alone: arithmetic over lists, fairness, closed-form
//! models. They need no run; the run's own measures are in
//! [`crate::measure`].

use crate::expr::{fmt_num, Value};
use dropless_model::fast as model;

type R = Result<Value, String>;

/// Names and one-line help of every function here (for errors and docs).
pub const HELP: &[(&str, &str)] = &[
    ("sum(list)", "sum"),
    ("mean(list)", "arithmetic mean"),
    ("median(list)", "median"),
    ("min(list) | min(a, b, ...)", "smallest"),
    ("max(list) | max(a, b, ...)", "largest"),
    ("len(list)", "number of elements"),
    ("abs(x), sqrt(x), ln(x), exp(x), round(x), floor(x), ceil(x)", "arithmetic"),
    ("jain(list)", "Jain's fairness index (sum x)^2 / (n sum x^2)"),
    ("range(a, b)", "the integers a, a+1, ..., b-1"),
    ("all(list), any(list)", "every / some element true"),
    ("count(list)", "number of true elements"),
    ("prefix_len(list)", "number of leading true elements"),
    ("increasing(list), decreasing(list)", "strictly monotone"),
    ("argmax(list), argmin(list)", "index of the largest / smallest element"),
    ("fmt(x, digits)", "x as text with that many decimals"),
    ("join(list, sep)", "elements as text, separated by sep"),
    ("hstcp_a(w)", "HighSpeed TCP's increase a(w) at window w (RFC 3649)"),
    ("fast_single_window(alpha, c, d)", "thesis eq. (4.3): alpha + c d"),
    ("fast_persistent(n, alpha, c)", "thesis eqs. (4.19)/(4.20): rows for 1..n flows: n, p_s, queue_pkts, rates, x1_over_fair, jain, p_over_p1"),
    ("vegas_persistent(n, alpha_plus, c, d)", "thesis eqs. (4.10)/(4.12): rows as fast_persistent"),
    ("fast_two_flow_share()", "thesis eq. (4.23): 1/(1 + phi_g)"),
    ("vegas_two_flow_share(a)", "thesis eq. (4.22), a = alpha+/c"),
    ("new_flow_ratio(n)", "thesis eq. (4.26): x_old/x_new = b1/(N alpha + b1)"),
    ("new_flow_rate(n, c)", "note §4.8: 2c/(1 + sqrt(1 + 4N))"),
    ("drain_time_limit(n, alpha, c)", "four-phase drain time for r -> inf, seconds"),
    ("drain_time_thesis_approx(n, alpha, c)", "alpha/c (N^1.5 + N), seconds"),
    ("adpm_threshold(ipid)", "thesis §5.2: the probe type bitrev16(ipid) / 2^16"),
    ("adpm_forward(ecn, prices, i)", "ECN codepoint (0-3) after ADPM routers of these prices see probe type i"),
    ("adpm_decode(pairs, start)", "the ADPM estimate after each [i, marked] pair, from start"),
    ("marking_error(scheme, ks, sequences, prices, seed)", "Monte Carlo: rows k, mean, mse, p99, max for a static price (schemes as dropless model marking static)"),
    ("adpm_track(delta, sequence, runs, seed)", "Monte Carlo: ADPM on a ramp of delta per packet: mean, mse, exceed"),
    ("adpm_detect(a, sequence, trials, ks, seed)", "Monte Carlo: packets to detect a step of a: mean, worst, undetected (after each k)"),
    ("ipid_map_error(map, swapped, k, sequences, prices, seed)", "Monte Carlo: ADPM's mean error after k sequential IPids through map (bitrev, printed, swapped, xor8)"),
    ("rcp_levels(r_min, r_max, g)", "thesis L7204: ceil(log_(1+g)(r_max / r_min))"),
    ("rcp_rate_error(k, links, trials, seed)", "Monte Carlo: worst relative error of RCP's slowest rate after k pure-BRC packets"),
    ("maxnet_level(p, q), maxnet_cost(m, q)", "thesis L7178: ceil(log_q(max(1, p + q))) and its inverse q^m - q"),
    ("ram_mean(prices, packets, seed)", "Monte Carlo: RAM's mean mark bit"),
    ("rem_probability(p, phi), rem_decode(q, phi)", "thesis eq. (2.6) 1 - phi^-p and its inverse over a path"),
    ("rem_fraction(prices, phi, packets, seed)", "Monte Carlo: the fraction REM marks over a path"),
    ("rem_price(p, gamma, alpha, b, b_star, x, c)", "thesis eq. (2.5): the price update"),
    ("red_operating_point(n, c, r0, min_th, max_th, max_p, gentle)", "Firoiu and Borden 2000: RED's law meets NewReno's sqrt(3/(2p)): record queue (packets), rate (per packet)"),
    ("red_rate(q, min_th, max_th, max_p, gentle)", "RED's per-packet mark/drop rate at average queue q: 2 p_b (the count correction)"),
    ("brc_cells(start, count, j)", "probes per cell of width 2^-j among count consecutive IPids from start"),
    ("adpm_worst_gap(sequence, k, sequences, seed)", "Monte Carlo: the largest gap between the first k probes (the sup of ADPM's error), over sequences"),
    ("adpm_path_mismatches(trials, seed)", "Monte Carlo: random paths where the ADPM mark differs from 1{max price > i}"),
    ("pow2_floor(x)", "the largest power of 2 not above x (x >= 1)"),
    ("tpm_single_bit_types(bits)", "probe types of single-bit TPM: 30 n"),
    ("adpm_probe_types(levels), tpm_probe_types(bits, hops)", "n - 1 and 2 b ceil(h / 6) (thesis L6904, eq. (2.9))"),
    ("harmonic_rtt(lo, hi)", "thesis L2153: harmonic mean of RTTs uniform on [lo, hi], (hi - lo)/ln(hi/lo)"),
    ("pkt_rate(bps, bytes)", "packets/s of a bps link with bytes-byte packets"),
    ("buffer_bdp(k, mu, rtt)", "bandwidth-delay product K mu RTT, packets (unrounded)"),
    ("buffer_rule(m, k, mu, n, rtt, u)", "thesis eq. (3.23): buffer per trunk, packets (mu per link in packets/s)"),
    ("buffer_rule_exponent(m, k, mu, n, rtt, u)", "thesis eq. (3.23) before the ceiling: log_F1 F2"),
    ("buffer_switch(m, k, b)", "thesis eq. (3.24): whole-switch buffer M B / K"),
    ("buffer_rule_single(mu, n, rtt, u)", "thesis eq. (3.27): single-link (non-DWDM) buffer, packets"),
    ("buffer_enachescu(k, mu, n, rtt, u, varrho)", "thesis eq. (3.25): Enachescu's log_(1/varrho)(W^2/(2(1-theta))), unrounded"),
    ("buffer_appenzeller_util(x, n)", "thesis eq. (2.3)/(3.26): erf(3 sqrt3/(2 sqrt2) x/(1 + x/sqrt N))"),
    ("buffer_appenzeller(k, mu, rtt, n, u)", "thesis (3.26): smallest x K mu RTT/sqrt(N) reaching U, packets (rounded up)"),
    ("buffer_loss(model, m, k, b, rho)", "thesis §3.6: open-loop loss of g1dm, ebd, ebi, eb or mmkkb at load rho"),
    ("detailed_loss_exact(m, k, rho)", "thesis §3.6.1: exact loss of the detailed model without buffer"),
    ("detailed_loss_mc(m, k, b, rho, arrivals, seed)", "Monte Carlo of the detailed model: record pb, ci95 (95 % half-width)"),
    ("closed_loop(model, m, k, b, mu, n, rtt)", "thesis §3.7: Mathis meets an open-loop model: record pb, rho, utilization (rho (1-PB)), carried"),
    ("mathis_util(pb, n, c, rtt)", "thesis eq. (3.4): sqrt(1.5/PB)(1-PB)/(RTT C/N), C in packets/s"),
    ("hyperbola_fit(xs, ys)", "thesis §3.3: least-squares y = a + b/(x - c): record a, b, c"),
    ("extrapolate(xs, ys, at)", "thesis §3.3 (as `dropless model extrapolate`): the hyperbola, or a flat line (b = c = 0) unless the hyperbola beats it by an F-test at 5 %: record shape ('hyperbola' or 'flat'), a, b, c, std_err, f_stat and f_crit (the F-test; NaN if not made), value (the fit at `at`)"),
    ("parking_lot_rates(phase, alpha, c, delta2)", "thesis eqs. (4.13)-(4.16), Appendix B2: the FAST flows' rates in phase 0, 1 or 2 with flow 2's baseRTT error delta2 (s)"),
];

fn one(args: &[Value], f: &str) -> Result<f64, String> {
    match args {
        [a] => a.num(),
        _ => Err(format!("{f} takes one number")),
    }
}

fn list_or_args(args: &[Value]) -> Result<Vec<f64>, String> {
    match args {
        [Value::List(_)] => args[0].nums(),
        [] => Err("needs a list or at least one number".into()),
        _ => args.iter().map(Value::num).collect(),
    }
}

fn list_arg(args: &[Value]) -> Result<&[Value], String> {
    match args {
        [v] => v.list(),
        _ => Err("takes one list".into()),
    }
}

fn usize_arg(v: &Value, what: &str) -> Result<usize, String> {
    let x = v.num()?;
    if x.fract() != 0.0 || !(1.0..=10_000.0).contains(&x) {
        return Err(format!(
            "{what} must be a whole number from 1 to 10000, not {}",
            fmt_num(x)
        ));
    }
    Ok(x as usize)
}

fn nums(args: &[Value], n: usize, f: &str) -> Result<Vec<f64>, String> {
    if args.len() != n {
        return Err(format!("{f} takes {n} numbers, given {}", args.len()));
    }
    args.iter().map(Value::num).collect()
}

fn rows(t: Vec<model::PersistentRow>) -> Value {
    Value::List(
        t.into_iter()
            .map(|r| {
                Value::Map(vec![
                    ("n".into(), Value::Num(r.n as f64)),
                    ("p_s".into(), Value::Num(r.p_s)),
                    ("queue_pkts".into(), Value::Num(r.queue_pkts)),
                    (
                        "rates".into(),
                        Value::List(r.rates.iter().map(|x| Value::Num(*x)).collect()),
                    ),
                    ("x1_over_fair".into(), Value::Num(r.x1_over_fair)),
                    ("jain".into(), Value::Num(r.jain)),
                    ("p_over_p1".into(), Value::Num(r.p_over_p1)),
                ])
            })
            .collect(),
    )
}

fn median(mut v: Vec<f64>) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// Calls the function `name`, if it is one of these.
pub fn call(name: &str, args: &[Value]) -> Option<R> {
    let num = |x: f64| Ok(Value::Num(x));
    Some(match name {
        "sum" => list_or_args(args).and_then(|v| num(v.iter().sum())),
        "mean" => list_or_args(args).and_then(|v| num(v.iter().sum::<f64>() / v.len() as f64)),
        "median" => list_or_args(args).and_then(|v| num(median(v))),
        "min" => list_or_args(args).and_then(|v| num(v.into_iter().fold(f64::INFINITY, f64::min))),
        "max" => {
            list_or_args(args).and_then(|v| num(v.into_iter().fold(f64::NEG_INFINITY, f64::max)))
        }
        "len" => list_arg(args).and_then(|v| num(v.len() as f64)),
        "abs" => one(args, name).and_then(|x| num(x.abs())),
        "sqrt" => one(args, name).and_then(|x| num(x.sqrt())),
        "ln" => one(args, name).and_then(|x| num(x.ln())),
        "exp" => one(args, name).and_then(|x| num(x.exp())),
        "round" => one(args, name).and_then(|x| num(x.round())),
        "floor" => one(args, name).and_then(|x| num(x.floor())),
        "ceil" => one(args, name).and_then(|x| num(x.ceil())),
        "jain" => list_or_args(args).and_then(|v| num(dropless_sim::jain(&v))),
        "range" => nums(args, 2, name).and_then(|v| {
            let (a, b) = (v[0], v[1]);
            if a.fract() != 0.0 || b.fract() != 0.0 || b - a > 100_000.0 {
                return Err("takes two whole numbers at most 100000 apart".into());
            }
            let mut out = Vec::new();
            let mut k = a;
            while k < b {
                out.push(Value::Num(k));
                k += 1.0;
            }
            Ok(Value::List(out))
        }),
        "all" | "any" | "count" | "prefix_len" => list_arg(args).and_then(|v| {
            if name == "all" && v.is_empty() {
                // all([]) is true of nothing: a check over an empty set.
                return Err(
                    "all() of an empty list holds of nothing: the check is over an empty set"
                        .into(),
                );
            }
            let b: Vec<bool> = v.iter().map(Value::truth).collect::<Result<_, _>>()?;
            Ok(match name {
                "all" => Value::Bool(b.iter().all(|x| *x)),
                "any" => Value::Bool(b.iter().any(|x| *x)),
                "count" => Value::Num(b.iter().filter(|x| **x).count() as f64),
                _ => Value::Num(b.iter().take_while(|x| **x).count() as f64),
            })
        }),
        "increasing" | "decreasing" => list_arg(args).and_then(|_| {
            let v = args[0].nums()?;
            let inc = name == "increasing";
            Ok(Value::Bool(v.windows(2).all(|w| {
                if inc {
                    w[1] > w[0]
                } else {
                    w[1] < w[0]
                }
            })))
        }),
        "argmax" | "argmin" => list_arg(args).and_then(|_| {
            let v = args[0].nums()?;
            if v.is_empty() {
                return Err("empty list".into());
            }
            let mut best = 0;
            for (i, x) in v.iter().enumerate() {
                let better = if name == "argmax" {
                    *x > v[best]
                } else {
                    *x < v[best]
                };
                if better {
                    best = i;
                }
            }
            num(best as f64)
        }),
        "fmt" => match args {
            [x, d] => (|| {
                let d = d.num()?;
                if !(0.0..=12.0).contains(&d) || d.fract() != 0.0 {
                    return Err("digits must be a whole number from 0 to 12".to_string());
                }
                x.num().map(|x| Value::Str(format!("{x:.*}", d as usize)))
            })(),
            _ => Err("takes a number and a digit count".into()),
        },
        "join" => match args {
            [Value::List(v), Value::Str(sep)] => Ok(Value::Str(
                v.iter()
                    .map(|x| x.to_string())
                    .collect::<Vec<_>>()
                    .join(sep),
            )),
            _ => Err("takes a list and a separator string".into()),
        },
        "hstcp_a" => one(args, name).and_then(|w| num(dropless_cc::highspeed::hstcp_a(w))),
        "fast_single_window" => {
            nums(args, 3, name).and_then(|v| num(model::fast_single_window(v[0], v[1], v[2])))
        }
        "fast_persistent" => (|| {
            if args.len() != 3 {
                return Err("takes n, alpha and c".to_string());
            }
            let n = usize_arg(&args[0], "n")?;
            Ok(rows(model::fast_persistent_table(
                n,
                args[1].num()?,
                args[2].num()?,
            )))
        })(),
        "vegas_persistent" => (|| {
            if args.len() != 4 {
                return Err("takes n, alpha_plus, c and d".to_string());
            }
            let n = usize_arg(&args[0], "n")?;
            Ok(rows(model::vegas_persistent_table(
                n,
                args[1].num()?,
                args[2].num()?,
                args[3].num()?,
            )))
        })(),
        "fast_two_flow_share" => {
            nums(args, 0, name).and_then(|_| num(model::fast_two_flow_share()))
        }
        "vegas_two_flow_share" => {
            nums(args, 1, name).and_then(|v| num(model::vegas_two_flow_share(v[0])))
        }
        "new_flow_ratio" => match args {
            [n] => usize_arg(n, "n").and_then(|n| num(model::new_flow_ratio(n))),
            _ => Err("takes n".into()),
        },
        "new_flow_rate" => match args {
            [n, c] => usize_arg(n, "n").and_then(|n| num(model::new_flow_rate(n, c.num()?))),
            _ => Err("takes n and c".into()),
        },
        "parking_lot_rates" => (|| {
            let v = nums(args, 4, name)?;
            if ![0.0, 1.0, 2.0].contains(&v[0]) {
                return Err("phase must be 0, 1 or 2".to_string());
            }
            if !(v[1] > 0.0 && v[2] > 0.0 && v[3] >= 0.0 && v[3] < v[1] / v[2] * 10.0) {
                return Err("alpha and c must be positive, delta2 non-negative".to_string());
            }
            Ok(Value::List(
                model::parking_lot_rates(v[0] as usize, v[1], v[2], v[3])
                    .into_iter()
                    .map(Value::Num)
                    .collect(),
            ))
        })(),
        "drain_time_limit" | "drain_time_thesis_approx" => match args {
            [n, a, c] => usize_arg(n, "n").and_then(|n| {
                let (a, c) = (a.num()?, c.num()?);
                num(if name == "drain_time_limit" {
                    model::drain_time_limit(n, a, c)
                } else {
                    model::drain_time_thesis_approx(n, a, c)
                })
            }),
            _ => Err("takes n, alpha and c".into()),
        },
        _ => return marking(name, args),
    })
}

fn whole(v: &Value, what: &str, max: f64) -> Result<u64, String> {
    let x = v.num()?;
    if x.fract() != 0.0 || !(0.0..=max).contains(&x) {
        return Err(format!(
            "{what} must be a whole number from 0 to {}, not {}",
            fmt_num(max),
            fmt_num(x)
        ));
    }
    Ok(x as u64)
}

fn text<'a>(v: &'a Value, what: &str) -> Result<&'a str, String> {
    match v {
        Value::Str(s) => Ok(s),
        _ => Err(format!("{what} must be a name in quotes")),
    }
}

fn truth(v: &Value) -> Result<bool, String> {
    match v {
        Value::Bool(b) => Ok(*b),
        Value::Num(x) if *x == 0.0 || *x == 1.0 => Ok(*x == 1.0),
        _ => Err("expected true, false, 0 or 1".into()),
    }
}

fn record(fields: Vec<(&str, Value)>) -> Value {
    Value::Map(
        fields
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect(),
    )
}

/// The packet-marking functions (thesis chapter 5, `dropless_model::marking`).
fn marking(name: &str, args: &[Value]) -> Option<R> {
    use dropless_model::marking::{adpm, mapping, probe, rem, study, tpm};
    const SEED: f64 = 9.007_199_254_740_991e15;
    let n = Value::Num;
    Some(match name {
        "adpm_threshold" => match args {
            [v] => whole(v, "ipid", 65535.0).map(|v| n(probe::threshold(v as u16))),
            _ => Err("takes an IPid".into()),
        },
        "adpm_forward" => match args {
            [e, ps, i] => (|| {
                let e = whole(e, "ecn", 3.0)? as u8;
                let i = i.num()?;
                Ok(n(f64::from(
                    ps.nums()?.iter().fold(e, |e, &p| adpm::forward(e, p, i)),
                )))
            })(),
            _ => Err("takes an ECN codepoint, a list of prices and a probe type".into()),
        },
        "adpm_decode" => match args {
            [pairs, start] => (|| {
                let mut d = adpm::Decoder::new(start.num()?);
                let mut out = Vec::new();
                for p in pairs.list()? {
                    match p.list()? {
                        [i, m] => {
                            d.observe(i.num()?, truth(m)?);
                            out.push(n(d.estimate));
                        }
                        _ => return Err("each pair is [probe type, marked]".to_string()),
                    }
                }
                Ok(Value::List(out))
            })(),
            _ => Err("takes a list of [i, marked] pairs and a start".into()),
        },
        "marking_error" => match args {
            [s, ks, seqs, prices, seed] => (|| {
                let scheme = study::Scheme::parse(text(s, "scheme")?)?;
                let ks = ks
                    .list()?
                    .iter()
                    .map(|k| whole(k, "k", study::MAX_K as f64).map(|k| k as usize))
                    .collect::<Result<Vec<_>, _>>()?;
                let seqs = whole(seqs, "sequences", study::MAX_TRIALS as f64)? as usize;
                let prices = whole(prices, "prices", study::MAX_TRIALS as f64)? as usize;
                let rows =
                    study::static_error(scheme, &ks, seqs, prices, whole(seed, "seed", SEED)?)?;
                Ok(Value::List(
                    rows.into_iter()
                        .map(|r| {
                            record(vec![
                                ("k", n(r.k as f64)),
                                ("mean", n(r.mean)),
                                ("mse", n(r.mse)),
                                ("p99", n(r.p99)),
                                ("max", n(r.max)),
                            ])
                        })
                        .collect(),
                ))
            })(),
            _ => Err("takes a scheme, a list of k, sequences, prices and a seed".into()),
        },
        "adpm_track" => match args {
            [d, q, runs, seed] => (|| {
                let seq = probe::Sequence::parse(text(q, "sequence")?)?;
                let runs = whole(runs, "runs", study::MAX_TRIALS as f64)? as usize;
                let t = study::track_ramp(d.num()?, seq, runs, whole(seed, "seed", SEED)?)?;
                Ok(record(vec![
                    ("mean", n(t.mean)),
                    ("mse", n(t.mse)),
                    ("exceed", n(t.exceed)),
                ]))
            })(),
            _ => Err("takes delta, a sequence, runs and a seed".into()),
        },
        "adpm_detect" => match args {
            [a, q, trials, ks, seed] => (|| {
                let seq = probe::Sequence::parse(text(q, "sequence")?)?;
                let trials = whole(trials, "trials", study::MAX_TRIALS as f64)? as usize;
                let ks = ks
                    .list()?
                    .iter()
                    .map(|k| whole(k, "k", 1e12).map(|k| k as usize))
                    .collect::<Result<Vec<_>, _>>()?;
                let d = study::detect_step(a.num()?, seq, trials, &ks, whole(seed, "seed", SEED)?)?;
                Ok(record(vec![
                    ("mean", n(d.mean)),
                    ("worst", n(d.worst as f64)),
                    (
                        "undetected",
                        Value::List(d.undetected.into_iter().map(n).collect()),
                    ),
                ]))
            })(),
            _ => Err("takes a, a sequence, trials, a list of k and a seed".into()),
        },
        "ipid_map_error" => match args {
            [m, sw, k, seqs, prices, seed] => (|| {
                let map = probe::IpidMap::parse(text(m, "map")?)?;
                let e = study::ipid_map_error(
                    map,
                    truth(sw)?,
                    whole(k, "k", study::MAX_K as f64)? as usize,
                    whole(seqs, "sequences", study::MAX_TRIALS as f64)? as usize,
                    whole(prices, "prices", study::MAX_TRIALS as f64)? as usize,
                    whole(seed, "seed", SEED)?,
                )?;
                Ok(n(e))
            })(),
            _ => Err("takes a map, swapped, k, sequences, prices and a seed".into()),
        },
        "rcp_levels" => nums(args, 3, name).and_then(|v| {
            if v[0] > 0.0 && v[1] > v[0] && v[2] > 0.0 && v[1].is_finite() {
                Ok(n(mapping::rcp_levels(v[0], v[1], v[2]) as f64))
            } else {
                Err("needs 0 < r_min < r_max and g > 0".into())
            }
        }),
        "rcp_rate_error" => match args {
            [k, l, t, seed] => (|| {
                Ok(n(study::rcp_rate_error(
                    whole(k, "k", study::MAX_K as f64)? as usize,
                    whole(l, "links", 100.0)? as usize,
                    whole(t, "trials", study::MAX_TRIALS as f64)? as usize,
                    whole(seed, "seed", SEED)?,
                )?))
            })(),
            _ => Err("takes k, links, trials and a seed".into()),
        },
        "maxnet_level" | "maxnet_cost" => nums(args, 2, name).and_then(|v| {
            if !(v[1] > 1.0 && v[1] < 2.0) {
                return Err("q must be between 1 and 2".into());
            }
            if name == "maxnet_level" {
                Ok(n(mapping::maxnet_level(v[0], v[1]) as f64))
            } else {
                whole(&args[0], "m", 1e6).map(|m| n(mapping::maxnet_cost(m, v[1])))
            }
        }),
        "ram_mean" => match args {
            [ps, k, seed] => (|| {
                Ok(n(study::ram_mean(
                    &ps.nums()?,
                    whole(k, "packets", 1e7)?,
                    whole(seed, "seed", SEED)?,
                )?))
            })(),
            _ => Err("takes a list of prices, packets and a seed".into()),
        },
        "rem_fraction" => match args {
            [ps, phi, k, seed] => (|| {
                Ok(n(study::rem_fraction(
                    &ps.nums()?,
                    phi.num()?,
                    whole(k, "packets", 1e7)?,
                    whole(seed, "seed", SEED)?,
                )?))
            })(),
            _ => Err("takes a list of prices, phi, packets and a seed".into()),
        },
        "rem_probability" | "rem_decode" => nums(args, 2, name).and_then(|v| {
            if v[1].is_nan() || v[1] <= 1.0 {
                return Err("phi must be above 1".into());
            }
            Ok(n(if name == "rem_probability" {
                rem::mark_probability(v[0], v[1])
            } else {
                rem::decode(v[0], v[1])
            }))
        }),
        "rem_price" => nums(args, 7, name)
            .map(|v| n(rem::price_update(v[0], v[1], v[2], v[3], v[4], v[5], v[6]))),
        "red_operating_point" => match args {
            [n_, c, r0, lo, hi, mp, g] => (|| {
                let (q, p) = dropless_model::red_equilibrium::operating_point(
                    n_.num()?,
                    c.num()?,
                    r0.num()?,
                    lo.num()?,
                    hi.num()?,
                    mp.num()?,
                    truth(g)?,
                )?;
                Ok(record(vec![("queue", n(q)), ("rate", n(p))]))
            })(),
            _ => Err("takes n, c, r0, min_th, max_th, max_p and gentle".into()),
        },
        "red_rate" => match args {
            [q, lo, hi, mp, g] => (|| {
                Ok(n(dropless_model::red_equilibrium::red_rate(
                    q.num()?,
                    lo.num()?,
                    hi.num()?,
                    mp.num()?,
                    truth(g)?,
                )))
            })(),
            _ => Err("takes q, min_th, max_th, max_p and gentle".into()),
        },
        "brc_cells" => match args {
            [d, c, j] => (|| {
                let cells = study::cell_counts(
                    whole(d, "start", 65535.0)? as u16,
                    whole(c, "count", 131072.0)? as usize,
                    whole(j, "j", 16.0)? as u32,
                )?;
                Ok(Value::List(
                    cells.into_iter().map(|c| n(f64::from(c))).collect(),
                ))
            })(),
            _ => Err("takes a start, a count and j".into()),
        },
        "adpm_worst_gap" => match args {
            [q, k, seqs, seed] => (|| {
                let seq = probe::Sequence::parse(text(q, "sequence")?)?;
                Ok(n(study::worst_gap(
                    seq,
                    whole(k, "k", study::MAX_K as f64)? as usize,
                    whole(seqs, "sequences", study::MAX_TRIALS as f64)? as usize,
                    whole(seed, "seed", SEED)?,
                )?))
            })(),
            _ => Err("takes a sequence, k, sequences and a seed".into()),
        },
        "adpm_path_mismatches" => match args {
            [t, seed] => (|| {
                Ok(n(study::path_mismatches(
                    whole(t, "trials", study::MAX_TRIALS as f64)? as usize,
                    whole(seed, "seed", SEED)?,
                )? as f64))
            })(),
            _ => Err("takes trials and a seed".into()),
        },
        "pow2_floor" => one(args, name).and_then(|x| {
            if (1.0..=1e300).contains(&x) {
                // log2 may round across a power of two: correct by one step.
                let mut p = 2f64.powi(x.log2().floor() as i32);
                if p > x {
                    p /= 2.0;
                } else if p * 2.0 <= x {
                    p *= 2.0;
                }
                Ok(n(p))
            } else {
                Err("x must be from 1 to 1e300".into())
            }
        }),
        "tpm_single_bit_types" => match args {
            [b] => whole(b, "bits", 16.0).map(|b| n((tpm::HOPS as u64 * b) as f64)),
            _ => Err("takes bits".into()),
        },
        "adpm_probe_types" => match args {
            [l] => whole(l, "levels", 1e15).map(|l| n(adpm::probe_types(l) as f64)),
            _ => Err("takes a number of levels".into()),
        },
        "tpm_probe_types" => match args {
            [b, h] => (|| {
                Ok(n(
                    tpm::sum_probe_types(whole(b, "bits", 64.0)?, whole(h, "hops", 255.0)?) as f64,
                ))
            })(),
            _ => Err("takes bits and hops".into()),
        },
        _ => return buffer(name, args),
    })
}

/// The chapter 3 buffer-sizing functions (`dropless_model::buffer`).
fn buffer(name: &str, args: &[Value]) -> Option<R> {
    use dropless_model::buffer::{self as bm, closed_loop, detailed, extrapolation, rules};
    let n = Value::Num;
    let trunk = |m: &Value, k: &Value, b: &Value| -> Result<bm::Trunk, String> {
        bm::Trunk::new(
            whole(m, "m", bm::chain::MAX_M as f64)? as usize,
            whole(k, "k", bm::chain::MAX_K as f64)? as usize,
            whole(b, "b", bm::chain::MAX_B as f64)? as usize,
        )
    };
    let rule = |v: &[f64]| -> Result<rules::RuleInput, String> {
        if v[1].fract() != 0.0 || !(0.0..=1e5).contains(&v[1]) {
            return Err(format!("k must be a whole number, not {}", fmt_num(v[1])));
        }
        Ok(rules::RuleInput {
            m: v[0],
            k: v[1] as usize,
            mu: v[2],
            n: v[3],
            rtt: v[4],
            u: v[5],
        })
    };
    Some(match name {
        "harmonic_rtt" => {
            nums(args, 2, name).and_then(|v| n_ok(rules::harmonic_mean_uniform(v[0], v[1])))
        }
        "pkt_rate" => nums(args, 2, name).and_then(|v| n_ok(rules::packets_per_second(v[0], v[1]))),
        "buffer_bdp" => nums(args, 3, name).and_then(|v| {
            let k = whole(&args[0], "k", 1e5)? as usize;
            n_ok(rules::bdp(k, v[1], v[2]))
        }),
        "buffer_rule" => {
            nums(args, 6, name).and_then(|v| rules::dwdm_buffer(&rule(&v)?).map(|b| n(b as f64)))
        }
        "buffer_rule_exponent" => {
            nums(args, 6, name).and_then(|v| rules::dwdm_exponent(&rule(&v)?).map(n))
        }
        "buffer_switch" => nums(args, 3, name).and_then(|v| {
            let k = whole(&args[1], "k", 1e5)? as usize;
            let b = whole(&args[2], "b", 1e12)?;
            n_ok(rules::switch_buffer(v[0], k.max(1), b))
        }),
        "buffer_rule_single" => nums(args, 4, name)
            .and_then(|v| rules::single_link_buffer(v[0], v[1], v[2], v[3]).map(|b| n(b as f64))),
        "buffer_enachescu" => nums(args, 6, name).and_then(|v| {
            let r = rule(&[v[0], v[0], v[1], v[2], v[3], v[4]])?;
            rules::enachescu_exponent(&rules::RuleInput { m: r.k as f64, ..r }, v[5]).map(n)
        }),
        "buffer_appenzeller_util" => {
            nums(args, 2, name).and_then(|v| n_ok(rules::appenzeller_utilization(v[0], v[1])))
        }
        "buffer_appenzeller" => nums(args, 5, name).and_then(|v| {
            let k = whole(&args[0], "k", 1e5)? as usize;
            rules::appenzeller_buffer(k, v[1], v[2], v[3], v[4]).map(|b| n(b as f64))
        }),
        "buffer_loss" => match args {
            [model, m, k, b, rho] => (|| {
                let model = bm::Model::parse(text(model, "model")?)?;
                Ok(n(bm::open_loop(model, trunk(m, k, b)?, rho.num()?)?.pb))
            })(),
            _ => Err("takes a model name, m, k, b and rho".into()),
        },
        "detailed_loss_exact" => match args {
            [m, k, rho] => (|| {
                let t = trunk(m, k, &Value::Num(0.0))?;
                Ok(n(detailed::exact_bufferless(t, rho.num()?)?))
            })(),
            _ => Err("takes m, k and rho".into()),
        },
        "detailed_loss_mc" => match args {
            [m, k, b, rho, arrivals, seed] => (|| {
                let t = trunk(m, k, b)?;
                let a = whole(arrivals, "arrivals", detailed::MAX_ARRIVALS as f64)?;
                let e = detailed::monte_carlo(t, rho.num()?, a, whole(seed, "seed", 9.0e15)?)?;
                Ok(record(vec![("pb", n(e.pb)), ("ci95", n(e.ci95))]))
            })(),
            _ => Err("takes m, k, b, rho, arrivals and a seed".into()),
        },
        "closed_loop" => match args {
            [model, m, k, b, mu, flows, rtt] => (|| {
                let model = bm::Model::parse(text(model, "model")?)?;
                let f = closed_loop::Flows {
                    mu: mu.num()?,
                    n: flows.num()?,
                    rtt: rtt.num()?,
                };
                let o = closed_loop::solve(model, trunk(m, k, b)?, &f)?;
                Ok(record(vec![
                    ("pb", n(o.pb)),
                    ("rho", n(o.rho)),
                    ("utilization", n(o.utilization)),
                    ("carried", n(o.carried)),
                ]))
            })(),
            _ => Err("takes a model name, m, k, b, mu, n and rtt".into()),
        },
        "mathis_util" => nums(args, 4, name)
            .and_then(|v| n_ok(closed_loop::mathis_utilization(v[0], v[1], v[2], v[3]))),
        "hyperbola_fit" => match args {
            [xs, ys] => (|| {
                let h = extrapolation::fit_hyperbola(&xs.nums()?, &ys.nums()?)?;
                Ok(record(vec![("a", n(h.a)), ("b", n(h.b)), ("c", n(h.c))]))
            })(),
            _ => Err("takes a list of x and a list of y".into()),
        },
        "extrapolate" => match args {
            [xs, ys, at] => (|| {
                let f = extrapolation::fit(&xs.nums()?, &ys.nums()?, extrapolation::Choice::Auto)?;
                let v = f.eval(at.num()?);
                if !v.is_finite() {
                    return Err("the fit is not finite at the target".into());
                }
                Ok(record(vec![
                    ("shape", Value::Str(f.shape.name().into())),
                    ("a", n(f.curve.a)),
                    ("b", n(f.curve.b)),
                    ("c", n(f.curve.c)),
                    ("std_err", n(f.std_err)),
                    ("f_stat", n(f.f_stat)),
                    ("f_crit", n(f.f_crit)),
                    ("value", n(v)),
                ]))
            })(),
            _ => Err("takes a list of x, a list of y and the target x".into()),
        },
        _ => return None,
    })
}

fn n_ok(x: f64) -> R {
    Ok(Value::Num(x))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn l(v: &[f64]) -> Value {
        Value::List(v.iter().map(|x| Value::Num(*x)).collect())
    }

    #[test]
    fn list_functions() {
        assert_eq!(
            call("median", &[l(&[3.0, 1.0, 2.0, 10.0])]),
            Some(Ok(Value::Num(2.5)))
        );
        assert_eq!(
            call("max", &[Value::Num(1.0), Value::Num(4.0)]),
            Some(Ok(Value::Num(4.0)))
        );
        assert_eq!(
            call("decreasing", &[l(&[3.0, 2.0, 2.0])]),
            Some(Ok(Value::Bool(false)))
        );
        assert_eq!(
            call("argmax", &[l(&[3.0, 7.0, 2.0])]),
            Some(Ok(Value::Num(1.0)))
        );
        let b = Value::List(vec![
            Value::Bool(true),
            Value::Bool(true),
            Value::Bool(false),
        ]);
        assert_eq!(call("prefix_len", &[b]), Some(Ok(Value::Num(2.0))));
        assert!(call("range", &[Value::Num(0.0), Value::Num(1e9)])
            .unwrap()
            .is_err());
        assert!(call("nosuch", &[]).is_none());
    }

    #[test]
    fn hstcp_a_matches_rfc_3649_and_seed_004() {
        let at = |f: &str, w: f64| call(f, &[Value::Num(w)]).unwrap().unwrap().num().unwrap();
        // RFC 3649: a(w) = 1 up to Low_Window 38; seed 004 §3.2: a(8400) = 26.
        assert_eq!(at("hstcp_a", 38.0), 1.0);
        assert!((at("hstcp_a", 8400.0) - 26.0).abs() < 1.0);
        assert_eq!(
            at("hstcp_a", 1000.0),
            dropless_cc::highspeed::hstcp_a(1000.0)
        );
        assert!(call("hstcp_a", &[]).unwrap().is_err());
    }

    #[test]
    fn buffer_functions_call_the_model() {
        let num = |f: &str, a: Vec<Value>| call(f, &a).unwrap().unwrap().num().unwrap();
        let v = |x: &[f64]| x.iter().map(|x| Value::Num(*x)).collect::<Vec<_>>();
        let mu = 40e9 / 8320.0;
        assert_eq!(
            num("buffer_rule", v(&[8.0, 1.0, mu, 400.0, 0.05, 0.9])),
            97.0
        );
        let mut a = vec![Value::Str("g1dm".into())];
        a.extend(v(&[2.0, 1.0, 0.0, 0.5]));
        assert!((num("buffer_loss", a) - (5f64.sqrt() - 2.0)).abs() < 1e-9);
        assert!((num("detailed_loss_exact", v(&[2.0, 1.0, 0.5])) - 0.21875).abs() < 1e-12);
        let e = call("buffer_rule", &v(&[8.0, 1.0, mu, 400.0, 0.05, 1.0]))
            .unwrap()
            .unwrap_err();
        assert!(e.contains("utilization"), "{e}");
        assert!(call("buffer_loss", &v(&[1.0])).unwrap().is_err());
    }

    #[test]
    fn model_rows_match_the_model_crate() {
        let v = call(
            "fast_persistent",
            &[Value::Num(2.0), Value::Num(200.0), Value::Num(12500.0)],
        )
        .unwrap()
        .unwrap();
        let q = v.list().unwrap()[1]
            .field("queue_pkts")
            .unwrap()
            .num()
            .unwrap();
        assert_eq!(
            q,
            model::fast_persistent_table(2, 200.0, 12500.0)[1].queue_pkts
        );
    }
}
