//! What an expectation can measure in one simulated run: rates, queues,
//! congestion events, the loss-event analysis, path estimates against
//! ground truth, and the run's configuration.
//!
//! Flows are named by index (0-based, in file order after `count`
//! expansion) or by label (`"f1"`); links by index. Time windows are
//! `(t0, t1]` in seconds and average the time-series samples that fall in
//! them, so `sample` in the scenario sets their resolution.

use dropless_cc::secs;
use dropless_sim::loss_events::{analyze, window_stats};
use dropless_sim::path_report::path_report;
use dropless_sim::{Buffer, LossOptions, SimConfig, SimResult};

use crate::expr::{fmt_num, Value};

type R = Result<Value, String>;

/// Names and one-line help of every run function (for errors and docs).
pub const HELP: &[(&str, &str)] = &[
    ("rate(f, t0, t1)", "mean goodput of flow f over (t0, t1], payload packets/s"),
    ("goodput(f) | goodput(f, t0, t1)", "goodput, bit/s: the summary's, or the mean over the window"),
    ("queue(l) | queue(l, t0, t1)", "time-averaged packets waiting at link l"),
    ("max_queue(l, t0, t1)", "most packets waiting at a sample time in the window"),
    ("min_queue(l, t0, t1)", "fewest packets waiting at a sample time in the window (an upper bound on the true minimum between samples)"),
    ("util(l) | util(l, t0, t1)", "link utilization (0..1)"),
    ("series(f, name, t0, t1)", "mean of a flow's series over the window: cwnd, rtt, pacing, in_flight, link_bps or a controller trace variable (alpha, base_rtt, ...)"),
    ("last(f, name)", "last finite sample of that series"),
    ("xy(f, name, bin, t0, t1)", "that series over (t0, t1] as [time, mean] points over bins of `bin` seconds (for [[plot]] lines)"),
    ("binned(f, name, bin, t0, t1)", "that series over (t0, t1] as means over consecutive bins of `bin` seconds (a list)"),
    ("events(f) | events(f, t0, t1)", "congestion events (loss, ECN, timeouts) detected in the window"),
    ("event_list(f)", "every congestion event: records with t, lost, rto, cwnd"),
    ("flow(f)", "the flow's summary (summary.json fields: goodput_bps, packets_lost, timeouts, lost_per_event, mean_rtt_s, min_rtt_s, ...)"),
    ("link_window(l, t0, t1)", "the link over (t0, t1]: arrivals, departed, drops, aqm_drops, marks (counts), mark_rate ((marks + aqm_drops) / arrivals), queue (mean packets waiting), red_avg (mean of RED's average at the samples)"),
    ("link(l)", "the link's summary (utilization, avg_queue_pkts, max_queue_pkts, drops, random_drops, aqm_drops, marks, packets; interarrival: intervals, mean_s, std_s, cv if the link records them)"),
    ("loss(f, t0, t1)", "loss-event analysis of flow f over [t0, t1): loss_events, drops, drops_per_event, timeouts, mean_gap, cwnd_mean, synchronised_fraction, ..."),
    ("loss_events(f, t0, t1)", "every congestion event of flow f detected in [t0, t1): records with time_s, cwnd, lost, rto, mean_gap, gaps, recorded, back_to_back"),
    ("loss_all(t0, t1)", "the run's loss episodes over [t0, t1): episodes, sync_ratio, mean_flows_per_episode"),
    ("window(f, t0, t1)", "flow f over (t0, t1]: goodput_bps, utilization, delivered_pkts, lost_pkts, queue_drops, loss_rate, events, timeouts"),
    ("path(f, from)", "the flow's path estimates against ground truth from fraction `from` of its active time: a record per quantity (RTT_min, C, U, ...) with est, truth, error; plus buffer_filled, active_flows"),
    ("start(f), stop(f)", "when the flow starts, and the end of its measured interval, seconds"),
    ("rtt(f), mss(f), wire(f), size(f)", "base RTT (s), payload and wire bytes per packet, transfer size in bytes (NaN for a bulk flow)"),
    ("param(f, name)", "a controller parameter as run (given or default)"),
    ("capacity(l), delay(l), buffer(l)", "link rate (bit/s), one-way delay (s), buffer (packets; bytes / the first flow's wire size for byte buffers)"),
];

/// One finished run and its configuration.
pub struct Run<'a> {
    /// The configuration simulated.
    pub cfg: &'a SimConfig,
    /// The result.
    pub res: &'a SimResult,
    /// Flow labels.
    pub labels: &'a [String],
}

fn window_mean(t: &[f64], v: &[f64], t0: f64, t1: f64) -> f64 {
    let (mut s, mut n) = (0.0, 0usize);
    for (x, y) in t.iter().zip(v) {
        if *x > t0 && *x <= t1 && y.is_finite() {
            s += y;
            n += 1;
        }
    }
    if n == 0 {
        f64::NAN
    } else {
        s / n as f64
    }
}

/// A time in seconds from integer nanoseconds, exact where the decimal is
/// (`secs(30 s)` is 30.000000000000004; windows like `duration / 2` must
/// not miss the sample at 15 s by that).
pub fn exact_secs(t: dropless_cc::Time) -> f64 {
    t as f64 / 1e9
}

/// [`exact_secs`] of a time already converted with `secs`.
pub fn exact(x: f64) -> f64 {
    (x * 1e9).round() / 1e9
}

fn json<T: serde::Serialize>(v: &T) -> Value {
    Value::from_json(&serde_json::to_value(v).unwrap_or(serde_json::Value::Null))
}

impl Run<'_> {
    fn flow(&self, v: &Value) -> Result<usize, String> {
        match v {
            Value::Str(s) => self.labels.iter().position(|l| l == s).ok_or_else(|| {
                format!(
                    "no flow labelled \"{s}\"; labels: {}",
                    self.labels.join(", ")
                )
            }),
            _ => {
                let x = v.num()?;
                let n = self.res.flows.len();
                if x.fract() != 0.0 || x < 0.0 || x as usize >= n {
                    return Err(format!(
                        "flow {} does not exist: the run has flows 0 to {}",
                        fmt_num(x),
                        n.saturating_sub(1)
                    ));
                }
                Ok(x as usize)
            }
        }
    }

    fn link(&self, v: &Value) -> Result<usize, String> {
        let x = v.num()?;
        let n = self.res.links.len();
        if x.fract() != 0.0 || x < 0.0 || x as usize >= n {
            return Err(format!(
                "link {} does not exist: the run has links 0 to {}",
                fmt_num(x),
                n.saturating_sub(1)
            ));
        }
        Ok(x as usize)
    }

    fn series(&self, f: usize, name: &str) -> Result<&[f64], String> {
        let fs = self
            .res
            .series
            .flows
            .get(f)
            .ok_or("the run has no per-flow series (flow_series = false)")?;
        Ok(match name {
            "goodput" => &fs.goodput_bps,
            "cwnd" => &fs.cwnd,
            "rtt" => &fs.rtt_s,
            "pacing" => &fs.pacing_bps,
            "in_flight" => &fs.in_flight,
            "link_bps" => &fs.link_bps,
            "drops" => &fs.drops,
            _ => fs.var(name).ok_or_else(|| {
                format!(
                    "flow {f} ({}) has no series \"{name}\"; it has goodput, cwnd, rtt, pacing, in_flight, link_bps, drops{}",
                    self.cfg.flows[f].cc,
                    fs.vars.iter().map(|(n, _)| format!(", {n}")).collect::<String>()
                )
            })?,
        })
    }

    fn win(&self, a: &[Value]) -> Result<(f64, f64), String> {
        let (t0, t1) = (a[0].num()?, a[1].num()?);
        if t0.partial_cmp(&t1) != Some(std::cmp::Ordering::Less) {
            return Err(format!("empty window ({}, {}]", fmt_num(t0), fmt_num(t1)));
        }
        Ok((t0, t1))
    }

    /// Calls the run function `name`, if it is one.
    pub fn call(&self, name: &str, a: &[Value]) -> Option<R> {
        let r = self.res;
        let t = &r.series.t;
        let num = |x: f64| Ok(Value::Num(x));
        let arity = |n: &[usize]| -> Result<(), String> {
            if n.contains(&a.len()) {
                Ok(())
            } else {
                Err(format!(
                    "takes {} arguments, given {}",
                    n.iter()
                        .map(|x| x.to_string())
                        .collect::<Vec<_>>()
                        .join(" or "),
                    a.len()
                ))
            }
        };
        Some((|| match name {
            "rate" => {
                arity(&[3])?;
                let f = self.flow(&a[0])?;
                let (t0, t1) = self.win(&a[1..])?;
                num(window_mean(t, self.series(f, "goodput")?, t0, t1)
                    / (8.0 * self.cfg.flows[f].mss as f64))
            }
            "goodput" => {
                arity(&[1, 3])?;
                let f = self.flow(&a[0])?;
                if a.len() == 1 {
                    return num(r.flows[f].goodput_bps);
                }
                let (t0, t1) = self.win(&a[1..])?;
                num(window_mean(t, self.series(f, "goodput")?, t0, t1))
            }
            "queue" | "util" => {
                arity(&[1, 3])?;
                let l = self.link(&a[0])?;
                let ls = &r.series.links[l];
                if a.len() == 1 {
                    return num(if name == "queue" {
                        r.links[l].avg_queue_pkts
                    } else {
                        r.links[l].utilization
                    });
                }
                let (t0, t1) = self.win(&a[1..])?;
                let col = if name == "queue" {
                    &ls.avg_queue_pkts
                } else {
                    &ls.utilization
                };
                num(window_mean(t, col, t0, t1))
            }
            "link_window" => {
                arity(&[3])?;
                let l = self.link(&a[0])?;
                let (t0, t1) = self.win(&a[1..])?;
                let ls = &r.series.links[l];
                // Cumulative counters at the last sample at or before t.
                let at = |col: &[f64], t: f64| -> f64 {
                    let n = r.series.t.partition_point(|&x| x <= t);
                    if n == 0 {
                        0.0
                    } else {
                        col[n - 1]
                    }
                };
                let d = |col: &[f64]| at(col, t1) - at(col, t0);
                let (dep, drops, aqm, marks) = (
                    d(&ls.departed),
                    d(&ls.drops),
                    d(&ls.aqm_drops),
                    d(&ls.marks),
                );
                let arrivals = dep + drops + aqm;
                Ok(Value::Map(vec![
                    ("arrivals".into(), Value::Num(arrivals)),
                    ("departed".into(), Value::Num(dep)),
                    ("drops".into(), Value::Num(drops)),
                    ("aqm_drops".into(), Value::Num(aqm)),
                    ("marks".into(), Value::Num(marks)),
                    (
                        "mark_rate".into(),
                        Value::Num(if arrivals > 0.0 {
                            (marks + aqm) / arrivals
                        } else {
                            f64::NAN
                        }),
                    ),
                    (
                        "queue".into(),
                        Value::Num(window_mean(t, &ls.avg_queue_pkts, t0, t1)),
                    ),
                    (
                        "red_avg".into(),
                        Value::Num(window_mean(t, &ls.red_avg, t0, t1)),
                    ),
                ]))
            }
            "max_queue" | "min_queue" => {
                arity(&[3])?;
                let l = self.link(&a[0])?;
                let (t0, t1) = self.win(&a[1..])?;
                let q = &r.series.links[l].queue_pkts;
                let sampled = t
                    .iter()
                    .zip(q)
                    .filter(|(x, _)| **x >= t0 && **x <= t1)
                    .map(|(_, y)| *y);
                num(if name == "max_queue" {
                    sampled.fold(0.0, f64::max)
                } else {
                    sampled.fold(f64::INFINITY, f64::min)
                })
            }
            "series" => {
                arity(&[4])?;
                let f = self.flow(&a[0])?;
                let (t0, t1) = self.win(&a[2..])?;
                num(window_mean(t, self.series(f, a[1].str()?)?, t0, t1))
            }
            "binned" | "xy" => {
                arity(&[5])?;
                let f = self.flow(&a[0])?;
                let col = self.series(f, a[1].str()?)?;
                let bin = a[2].num()?;
                let (t0, t1) = self.win(&a[3..])?;
                if bin.is_nan() || bin <= 0.0 || (t1 - t0) / bin > 1e6 {
                    return Err(format!(
                        "bin must be positive and at most a millionth of the window, not {}",
                        fmt_num(bin)
                    ));
                }
                let n = ((t1 - t0) / bin).ceil() as usize;
                let (mut sum, mut cnt) = (vec![0.0; n], vec![0usize; n]);
                for (x, y) in t.iter().zip(col) {
                    if *x > t0 && *x <= t1 && y.is_finite() {
                        let k = (((x - t0) / bin).ceil() as usize).clamp(1, n) - 1;
                        sum[k] += y;
                        cnt[k] += 1;
                    }
                }
                Ok(Value::List(
                    sum.iter()
                        .zip(&cnt)
                        .enumerate()
                        .filter(|(_, (_, c))| **c > 0)
                        .map(|(k, (s, c))| {
                            let m = Value::Num(s / *c as f64);
                            if name == "xy" {
                                let mid = t0 + (k as f64 + 0.5) * bin;
                                Value::List(vec![Value::Num(mid), m])
                            } else {
                                m
                            }
                        })
                        .collect(),
                ))
            }
            "last" => {
                arity(&[2])?;
                let f = self.flow(&a[0])?;
                let s = self.series(f, a[1].str()?)?;
                num(s
                    .iter()
                    .rev()
                    .find(|x| x.is_finite())
                    .copied()
                    .unwrap_or(f64::NAN))
            }
            "events" => {
                arity(&[1, 3])?;
                let f = self.flow(&a[0])?;
                let ev = &r.flows[f].events;
                if a.len() == 1 {
                    return num(ev.len() as f64);
                }
                let (t0, t1) = self.win(&a[1..])?;
                num(ev
                    .iter()
                    .filter(|e| {
                        let x = secs(e.time);
                        x > t0 && x <= t1
                    })
                    .count() as f64)
            }
            "event_list" => {
                arity(&[1])?;
                let f = self.flow(&a[0])?;
                Ok(Value::List(
                    r.flows[f]
                        .events
                        .iter()
                        .map(|e| {
                            Value::Map(vec![
                                ("t".into(), Value::Num(exact_secs(e.time))),
                                ("lost".into(), Value::Num(e.lost as f64)),
                                ("rto".into(), Value::Bool(e.rto)),
                                ("cwnd".into(), Value::Num(e.cwnd)),
                            ])
                        })
                        .collect(),
                ))
            }
            "flow" => {
                arity(&[1])?;
                let f = self.flow(&a[0])?;
                let mut v = json(&r.flows[f]);
                if let Value::Map(m) = &mut v {
                    m.push(("label".into(), Value::Str(self.labels[f].clone())));
                }
                Ok(v)
            }
            "link" => {
                arity(&[1])?;
                Ok(json(&r.links[self.link(&a[0])?]))
            }
            "loss" => {
                arity(&[3])?;
                let f = self.flow(&a[0])?;
                let (t0, t1) = self.win(&a[1..])?;
                let an = analyze(self.cfg, r, &LossOptions::window(t0, t1));
                Ok(json(&an.flows[f]))
            }
            "loss_events" => {
                arity(&[3])?;
                let f = self.flow(&a[0])?;
                let (t0, t1) = self.win(&a[1..])?;
                let an = analyze(self.cfg, r, &LossOptions::window(t0, t1));
                Ok(Value::List(
                    an.events.iter().filter(|e| e.flow == f).map(json).collect(),
                ))
            }
            "loss_all" => {
                arity(&[2])?;
                let (t0, t1) = self.win(a)?;
                let an = analyze(self.cfg, r, &LossOptions::window(t0, t1));
                Ok(Value::Map(vec![
                    ("episodes".into(), Value::Num(an.episodes.len() as f64)),
                    ("sync_ratio".into(), Value::Num(an.sync_ratio)),
                    (
                        "mean_flows_per_episode".into(),
                        Value::Num(an.mean_flows_per_episode),
                    ),
                ]))
            }
            "window" => {
                arity(&[3])?;
                let f = self.flow(&a[0])?;
                let (t0, t1) = self.win(&a[1..])?;
                if r.series.flows.is_empty() {
                    return Err("the run has no per-flow series (flow_series = false)".into());
                }
                Ok(json(&window_stats(self.cfg, r, t0, t1)[f]))
            }
            "path" => {
                arity(&[2])?;
                let f = self.flow(&a[0])?;
                let from = a[1].num()?;
                if !(0.0..1.0).contains(&from) {
                    return Err(format!("from must be in [0, 1), not {}", fmt_num(from)));
                }
                let p = path_report(self.cfg, r, f, from).ok_or_else(|| {
                    format!(
                        "flow {f} ({}) exports no path estimates",
                        self.cfg.flows[f].cc
                    )
                })?;
                let mut m = vec![
                    ("buffer_filled".into(), Value::Bool(p.buffer_filled)),
                    ("active_flows".into(), Value::Num(p.active_flows)),
                ];
                for q in &p.quantities {
                    m.push((q.name.to_string(), json(q)));
                }
                Ok(Value::Map(m))
            }
            "start" | "stop" | "rtt" | "mss" | "wire" | "size" => {
                arity(&[1])?;
                let f = self.flow(&a[0])?;
                let fr = &r.flows[f];
                let fs = &self.cfg.flows[f];
                num(match name {
                    "start" => exact(fr.start_s),
                    "stop" => exact(fr.end_s),
                    "rtt" => exact(fr.rtt_s),
                    "mss" => fs.mss as f64,
                    "size" => fs.size.map_or(f64::NAN, |b| b as f64),
                    _ => fs.wire_size() as f64,
                })
            }
            "param" => {
                arity(&[2])?;
                let f = self.flow(&a[0])?;
                let p = a[1].str()?;
                let fs = &self.cfg.flows[f];
                if let Some((_, v)) = fs.params.iter().rev().find(|(k, _)| k == p) {
                    return num(*v);
                }
                let spec = dropless_cc::registry::find(&fs.cc)
                    .ok_or_else(|| format!("unknown controller {}", fs.cc))?;
                spec.param(p)
                    .map(|d| Value::Num(d.default))
                    .ok_or_else(|| format!("{} has no parameter \"{p}\"", fs.cc))
            }
            "capacity" | "delay" | "buffer" => {
                arity(&[1])?;
                let l = self.link(&a[0])?;
                let spec = &self.cfg.topology.links()[l];
                num(match name {
                    "capacity" => spec.rate_bps,
                    "delay" => exact_secs(spec.delay),
                    _ => match spec.buffer {
                        Buffer::Packets(p) => p as f64,
                        Buffer::Bytes(b) => {
                            b as f64 / self.cfg.flows.first().map_or(1500, |f| f.wire_size()) as f64
                        }
                    },
                })
            }
            _ => Err(String::new()),
        })())
        .and_then(|r| match r {
            Err(e) if e.is_empty() => None,
            x => Some(x),
        })
    }
}
