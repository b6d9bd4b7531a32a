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
        _ => return None,
    })
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
