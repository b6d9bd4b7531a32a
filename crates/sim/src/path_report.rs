//! Path reports: a flow's end-host estimates of its bottleneck (the
//! TCP-Madison measures of seed 002 §3.3, exported by the controller as
//! `est_*` trace variables — see `dropless_cc::estimator`) next to the
//! simulator's ground truth for the same quantities.
//!
//! Ground truth at each sample time, for flow `f` and its bottleneck `l`
//! (the shared link on its path with the largest mean queue):
//!
//! | quantity | estimate | truth |
//! |---|---|---|
//! | `RTT_min` (ms) | `est_rtt_min_ms` | base RTT + one packet's transmission time on every link of the path |
//! | `RTT_avg` (ms) | `est_rtt_avg_ms` | `RTT_min` + time-averaged queue × packet service time |
//! | `C` (Mb/s) | `est_c_mbps` | link rate |
//! | `B` (packets) | `est_B_pkts` | time-averaged packets waiting at `l` |
//! | `B_size` (packets) | `est_b_size_pkts` (largest `B` seen) | buffer of `l` in packets of the flow's wire size |
//! | `U` | `est_u` | fraction of `l`'s capacity used |
//! | `X_xt` (Mb/s) | `est_x_xt_mbps` | `l`'s throughput minus this flow's share of it |
//! | `n` | `est_n` | eq. (11) with true values: `U C / (this flow's rate at l)` |
//! | `p` | `est_p` | this flow's buffer-overflow drops / its packets offered to `l` |
//!
//! `n` is Madison's "equivalent flows" (total backlog over the flow's
//! backlog), not a head count; the head count of flows sending through the
//! link is reported alongside (`active_flows`). `p` is a loss-*event* rate
//! estimator with a prior (§4.3 (2b)); the truth is the packet loss rate.

use serde::Serialize;

use crate::config::{Buffer, SimConfig};
use crate::metrics::SimResult;

/// One estimated quantity over the report window.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Quantity {
    /// Name (`"U"`, `"C"`, ...).
    pub name: &'static str,
    /// Unit.
    pub unit: &'static str,
    /// Mean estimate over the window (for `B_size`: the final estimate).
    pub est: f64,
    /// Mean ground truth over the window.
    pub truth: f64,
    /// `est - truth` for `U`, `(est - truth) / truth` otherwise.
    pub error: f64,
    /// True when `error` is relative.
    pub relative: bool,
}

/// A flow's estimates against ground truth.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PathReport {
    /// Flow index.
    pub flow: usize,
    /// Controller.
    pub cc: String,
    /// The bottleneck link compared against.
    pub link: usize,
    /// Report window, seconds.
    pub from_s: f64,
    /// End of the report window, seconds.
    pub to_s: f64,
    /// The bottleneck buffer filled while the flow was active: it was
    /// (nearly, 95%) full at some time and it overflowed (its drop count
    /// grew) between the flow's start and the end of the window. A flow
    /// cannot see an overflow from before it started (Fig. 6: the buffer
    /// filled only at the second flow's start, 27 s before the third
    /// flow's).
    pub buffer_filled: bool,
    /// Mean number of flows sending through the link during the window.
    pub active_flows: f64,
    /// The quantities.
    pub quantities: Vec<Quantity>,
}

impl PathReport {
    /// The quantity called `name`.
    pub fn get(&self, name: &str) -> Option<&Quantity> {
        self.quantities.iter().find(|q| q.name == name)
    }
}

/// Time series of estimates and truths for one flow (aligned with `t`).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct PathSeries {
    /// Sample times, seconds.
    pub t: Vec<f64>,
    /// (name, estimate column, truth column).
    pub columns: Vec<(&'static str, Vec<f64>, Vec<f64>)>,
}

const NAMES: [(&str, &str, &str); 9] = [
    ("RTT_min", "ms", "est_rtt_min_ms"),
    ("RTT_avg", "ms", "est_rtt_avg_ms"),
    ("C", "Mb/s", "est_c_mbps"),
    ("B", "packets", "est_B_pkts"),
    ("B_size", "packets", "est_b_size_pkts"),
    ("U", "", "est_u"),
    ("X_xt", "Mb/s", "est_x_xt_mbps"),
    ("n", "flows", "est_n"),
    ("p", "", "est_p"),
];

fn bottleneck(cfg: &SimConfig, r: &SimResult, f: usize) -> usize {
    let (a, b) = cfg.flows[f].path;
    (a..=b)
        .max_by(|&x, &y| {
            r.links[x]
                .avg_queue_pkts
                .total_cmp(&r.links[y].avg_queue_pkts)
        })
        .unwrap_or(a)
}

/// Ground-truth and estimate series for flow `f`, or `None` if the flow
/// exported no estimates (or per-flow series were off).
pub fn path_series(cfg: &SimConfig, r: &SimResult, f: usize) -> Option<PathSeries> {
    let fs = r.series.flows.get(f)?;
    fs.var("est_c_mbps")?;
    let spec = &cfg.flows[f];
    let l = bottleneck(cfg, r, f);
    let ls = &r.series.links[l];
    let links = cfg.topology.links();
    let wire = spec.wire_size() as f64;
    let c_bps = links[l].rate_bps;
    let c = c_bps / 1e6;
    let svc_ms = wire * 8.0 / c_bps * 1e3;
    let (a, b) = spec.path;
    let tx_ms: f64 = links[a..=b]
        .iter()
        .map(|k| wire * 8.0 / k.rate_bps * 1e3)
        .sum::<f64>()
        + wire * 8.0 / cfg.topology.access_rate_bps() * 1e3;
    let rtt_min = r.flows[f].rtt_s * 1e3 + tx_ms;
    let b_size = match links[l].buffer {
        Buffer::Packets(n) => n as f64,
        Buffer::Bytes(by) => by as f64 / wire,
    };
    let n = r.series.t.len();
    let dt = if n >= 2 {
        r.series.t[1] - r.series.t[0]
    } else {
        r.series.t.first().copied().unwrap_or(1.0)
    };
    let mut cols = Vec::new();
    for (name, _, var) in NAMES {
        let est = fs
            .var(var)
            .map_or_else(|| vec![f64::NAN; n], |v| v.to_vec());
        let truth: Vec<f64> = (0..n)
            .map(|i| {
                let u = ls.utilization[i];
                let q = ls.avg_queue_pkts[i];
                let mine = fs.link_bps[i] / 1e6;
                match name {
                    "RTT_min" => rtt_min,
                    "RTT_avg" => rtt_min + q * svc_ms,
                    "C" => c,
                    "B" => q,
                    "B_size" => b_size,
                    "U" => u,
                    "X_xt" => (u * c - mine).max(0.0),
                    "n" => {
                        if mine > 0.0 {
                            u * c / mine
                        } else {
                            f64::NAN
                        }
                    }
                    _ => {
                        // p over the last interval: drops / offered.
                        let d = fs.drops[i] - if i > 0 { fs.drops[i - 1] } else { 0.0 };
                        let ok = fs.link_bps[i] * dt / 8.0 / wire;
                        if d + ok > 0.0 {
                            d / (d + ok)
                        } else {
                            f64::NAN
                        }
                    }
                }
            })
            .collect();
        cols.push((name, est, truth));
    }
    Some(PathSeries {
        t: r.series.t.clone(),
        columns: cols,
    })
}

/// True if link `l` dropped a packet in a sample interval that ends after
/// `from` and no later than one interval after `to` (seconds).
fn overflowed_between(r: &SimResult, l: usize, from: f64, to: f64) -> bool {
    let t = &r.series.t;
    let drops = &r.series.links[l].drops;
    let dt = if t.len() >= 2 { t[1] - t[0] } else { 0.0 };
    (0..t.len()).any(|i| {
        let before = if i > 0 { drops[i - 1] } else { 0.0 };
        t[i] > from && t[i] <= to + dt && drops[i] > before
    })
}

/// Reports for every flow that exported estimates, comparing means over
/// the last `1 - from_frac` of each flow's active interval.
pub fn path_reports(cfg: &SimConfig, r: &SimResult, from_frac: f64) -> Vec<PathReport> {
    (0..r.flows.len())
        .filter_map(|f| path_report(cfg, r, f, from_frac))
        .collect()
}

/// The report for flow `f` (see [`path_reports`]).
pub fn path_report(cfg: &SimConfig, r: &SimResult, f: usize, from_frac: f64) -> Option<PathReport> {
    let s = path_series(cfg, r, f)?;
    let fr = &r.flows[f];
    let from = fr.start_s + from_frac * (fr.end_s - fr.start_s);
    let to = fr.end_s;
    let l = bottleneck(cfg, r, f);
    let idx: Vec<usize> = (0..s.t.len())
        .filter(|&i| s.t[i] > from && s.t[i] <= to)
        .collect();
    let wire = cfg.flows[f].wire_size() as f64;
    let buffer = match cfg.topology.links()[l].buffer {
        Buffer::Packets(n) => n as f64,
        Buffer::Bytes(b) => b as f64 / wire,
    };
    let mut qs = Vec::new();
    for (name, unit, _) in NAMES {
        let (_, est, truth) = s.columns.iter().find(|c| c.0 == name)?;
        let mean = |v: &Vec<f64>| {
            let x: Vec<f64> = idx
                .iter()
                .map(|&i| v[i])
                .filter(|x| x.is_finite())
                .collect();
            if x.is_empty() {
                f64::NAN
            } else {
                x.iter().sum::<f64>() / x.len() as f64
            }
        };
        let (e, t) = match name {
            // The estimate is the largest B seen: take its final value.
            "B_size" => (
                idx.iter()
                    .rev()
                    .map(|&i| est[i])
                    .find(|x| x.is_finite())
                    .unwrap_or(f64::NAN),
                buffer,
            ),
            // The loss rate over the whole window: drops / offered.
            "p" => {
                let fs = &r.series.flows[f];
                let (i0, i1) = (idx.first().copied()?, idx.last().copied()?);
                let d = fs.drops[i1] - if i0 > 0 { fs.drops[i0 - 1] } else { 0.0 };
                let dt = if s.t.len() >= 2 { s.t[1] - s.t[0] } else { 1.0 };
                let ok: f64 = idx.iter().map(|&i| fs.link_bps[i] * dt / 8.0 / wire).sum();
                (
                    mean(est),
                    if d + ok > 0.0 { d / (d + ok) } else { f64::NAN },
                )
            }
            _ => (mean(est), mean(truth)),
        };
        let relative = name != "U";
        let error = if relative { (e - t) / t } else { e - t };
        qs.push(Quantity {
            name,
            unit,
            est: e,
            truth: t,
            error,
            relative,
        });
    }
    let ls = &r.series.links[l];
    let active = if idx.is_empty() {
        f64::NAN
    } else {
        idx.iter().map(|&i| ls.active_flows[i]).sum::<f64>() / idx.len() as f64
    };
    Some(PathReport {
        flow: f,
        cc: fr.cc.clone(),
        link: l,
        from_s: from,
        to_s: to,
        buffer_filled: r.links[l].max_queue_pkts as f64 >= 0.95 * buffer
            && overflowed_between(r, l, fr.start_s, to),
        active_flows: active,
        quantities: qs,
    })
}
