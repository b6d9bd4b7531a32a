//! `dropless probe`: a path measurement over UDP (capacity, available
//! bandwidth, maximum burst size, base RTT) with the estimators of the PDA
//! controller (`crates/cc/src/pda.rs`): a short PDA transfer to a `dropless
//! recv`, read at the end.

use std::net::SocketAddr;
use std::time::Duration;

use dropless_cc::registry;
use dropless_scenario::units::{self, fmt_rate};
use dropless_udp::{Interval, SendOptions, Source, DEFAULT_MSS};

use crate::transfer::{check_mss, parse_params, positive_time};
use crate::Failure;

pub const PROBE_HELP: &str = "\
Measures the path to a `dropless recv` listening at PEER with the estimators
of the PDA controller (crates/cc/src/pda.rs): it sends for --time with PDA and
reports
  capacity          the narrow link's (the smallest capacity on the path):
                    the shortest-half mode of the capacities read from packet
                    pairs (the second and third packets of each burst)
                    as the receiver times them, its median over the second
                    half of the probe (PDA itself uses their median); the
                    search below starts once 16 pairs are in;
  available         the tight link's mean available bandwidth (the smallest
                    on the path): after PDA's start-up, self-loading trains
                    (pathload's streams) at rates swept over [0, capacity],
                    crates/cc/src/avail_search.rs: the fraction of trains
                    whose queue does not grow, integrated over the rates.
                    A search whose trains did not cover the rates reports
                    `no estimate` and the range they bound (JSON:
                    end.available.kind `range`, end.available_bps null),
                    never a rate in its place; with --param search=0 there
                    is no search and no estimate;
  wire rate         the rate PDA got through over the second half of the
                    probe (not a measurement of the available bandwidth);
  MBS               the burst size PDA reached without loss;
  base RTT          the smallest RTT seen.
The probe loads the path as PDA would (it is a transfer, not a passive
measurement). A closed port or a silent peer ends it after --timeout seconds
without progress, with an error.

Examples:
  dropless recv 0.0.0.0:9000 --discard --keep     # on the far host
  dropless probe 192.0.2.7:9000
  dropless probe 192.0.2.7:9000 --time 5s --json";

#[derive(clap::Args, Debug)]
pub struct ProbeArgs {
    /// Address of a `dropless recv`, e.g. 192.0.2.7:9000
    pub peer: SocketAddr,
    /// How long to probe, e.g. 3s
    #[arg(long, default_value = "3s")]
    pub time: String,
    /// Print the result as one JSON object (iperf3 style: start, intervals, end)
    #[arg(long)]
    pub json: bool,
    /// Payload bytes per datagram (as the receiver's)
    #[arg(long, default_value_t = DEFAULT_MSS)]
    pub mss: u32,
    /// Give up after this many seconds without progress (at most 3600)
    #[arg(long, default_value_t = 5.0)]
    pub timeout: f64,
    /// PDA parameter (repeatable): NAME=VALUE
    #[arg(short = 'p', long = "param", value_name = "NAME=VALUE")]
    pub params: Vec<String>,
    #[command(flatten)]
    pub security: crate::transfer::SecurityArgs,
}

/// What the probe knows of the available bandwidth (bits/s).
#[derive(Clone, Debug, PartialEq)]
pub enum Available {
    /// The search's trains covered the rates: the mean available
    /// bandwidth, from `estimates` judged trains.
    Estimate { bps: f64, estimates: u32 },
    /// No estimate: the judged trains bound it (`hi` no higher than the
    /// capacity measured, which the available bandwidth cannot exceed).
    Range {
        lo_bps: f64,
        hi_bps: f64,
        judged: u32,
        host_limited: u32,
    },
    /// No train was judged (or the search was off: `--param search=0`).
    None { trains: u32 },
}

impl Available {
    /// The one-line text form.
    pub fn text(&self) -> String {
        match self {
            Available::Estimate { bps, estimates } => {
                format!("{} (from {estimates} trains)", fmt_rate(*bps))
            }
            Available::Range {
                lo_bps,
                hi_bps,
                judged,
                host_limited,
            } => format!(
                "no estimate: between {} and {} ({judged} trains judged, the rates not covered{})",
                fmt_rate(*lo_bps),
                fmt_rate(*hi_bps),
                if *host_limited > 0 {
                    format!("; {host_limited} went out slower than asked")
                } else {
                    String::new()
                }
            ),
            Available::None { trains } => format!("no estimate ({trains} trains, none judged)"),
        }
    }

    /// The JSON form (`kind` is "estimate", "range" or "none").
    pub fn json(&self) -> serde_json::Value {
        match self {
            Available::Estimate { bps, estimates } => {
                serde_json::json!({"kind": "estimate", "bps": bps, "estimates": estimates})
            }
            Available::Range {
                lo_bps,
                hi_bps,
                judged,
                host_limited,
            } => serde_json::json!({
                "kind": "range", "lo_bps": lo_bps, "hi_bps": hi_bps,
                "judged": judged, "host_limited": host_limited,
            }),
            Available::None { trains } => serde_json::json!({"kind": "none", "trains": trains}),
        }
    }

    /// The estimate, if the search made one (never the range nor a rate).
    pub fn estimate(&self) -> Option<f64> {
        match self {
            Available::Estimate { bps, .. } => Some(*bps),
            _ => None,
        }
    }
}

/// The estimates, from the probe's intervals.
#[derive(Clone, Debug, PartialEq)]
pub struct Estimates {
    /// The narrow link's capacity (the pairs' dispersion).
    pub capacity_bps: Option<f64>,
    /// The tight link's available bandwidth (the trains).
    pub available: Available,
    /// PDA's wire rate over the second half of the probe: what it got
    /// through, reported as that and never as the available bandwidth.
    pub wire_rate_bps: Option<f64>,
    pub mbs_packets: Option<f64>,
    pub base_rtt_s: Option<f64>,
}

/// Reads the estimates from the intervals of a PDA transfer whose packets
/// carry `wire / mss` bytes on the wire per payload byte.
pub fn estimates(
    intervals: &[Interval],
    base_rtt: Option<Duration>,
    wire_per_payload: f64,
) -> Estimates {
    let last = |name: &str| {
        intervals
            .iter()
            .rev()
            .find_map(|i| i.vars.iter().find(|(n, _)| *n == name).map(|&(_, v)| v))
            .filter(|v| v.is_finite())
    };
    let var = |name: &str| last(name).filter(|v| *v > 0.0);
    let half = intervals.len() / 2;
    let tail = &intervals[half..];
    // The median over the second half of a variable's readings (one per
    // interval): a single reading of the pairs' mode covers only the last
    // 64 pairs and swung by -9 to +4 % on the real path.
    let median_tail = |name: &str| {
        let mut v: Vec<f64> = tail
            .iter()
            .filter_map(|i| i.vars.iter().find(|(n, _)| *n == name).map(|&(_, v)| v))
            .filter(|v| v.is_finite() && *v > 0.0)
            .collect();
        v.sort_by(f64::total_cmp);
        (!v.is_empty()).then(|| v[(v.len() - 1) / 2])
    };
    let secs: f64 = tail.iter().map(|i| (i.end - i.start).as_secs_f64()).sum();
    let bytes: u64 = tail.iter().map(|i| i.bytes_acked).sum();
    let capacity_bps = median_tail("pair_mode_bps")
        .or_else(|| var("pair_p75_bps"))
        .or_else(|| var("capacity_bps"));
    let count = |name: &str| last(name).map_or(0, |v| v.max(0.0) as u32);
    let estimates = count("search_estimates");
    let judged = count("search_judged");
    let available = match var("search_avail_bps") {
        Some(bps) if estimates > 0 => Available::Estimate { bps, estimates },
        _ if judged > 0 => {
            let lo = last("search_lo_bps").unwrap_or(0.0).max(0.0);
            let hi = last("search_hi_bps").unwrap_or(f64::INFINITY);
            // The available bandwidth cannot exceed the narrow link's
            // capacity: the search's upper end starts above it (and widens
            // above it when its lower end reaches it).
            let hi = capacity_bps.map_or(hi, |c| hi.min(c)).max(lo);
            Available::Range {
                lo_bps: lo,
                hi_bps: hi,
                judged,
                host_limited: count("search_host_limited"),
            }
        }
        _ => Available::None {
            trains: count("search_trains"),
        },
    };
    Estimates {
        capacity_bps,
        available,
        wire_rate_bps: (secs > 0.0 && bytes > 0)
            .then(|| bytes as f64 * 8.0 * wire_per_payload / secs),
        mbs_packets: var("mbs"),
        base_rtt_s: base_rtt.map(|d| d.as_secs_f64()),
    }
}

pub fn probe(a: &ProbeArgs) -> Result<(), Failure> {
    check_mss(a.mss)?;
    let time = positive_time("time", &a.time)?;
    if !(a.timeout.is_finite() && a.timeout > 0.0 && a.timeout <= 3600.0) {
        return Err(Failure::Input(format!(
            "--timeout: found {:?}, expected a number of seconds above 0 and at most 3600",
            a.timeout
        )));
    }
    let mut params = parse_params("pda", &a.params)?;
    if !params.iter().any(|(k, _)| k == "search") {
        params.push(("search".to_string(), 1.0));
    }
    let info = dropless_udp::conn_info_for(a.mss, !a.security.insecure);
    let cc = registry::build("pda", &params, &info)
        .map_err(|e| Failure::Input(format!("--param: {e}")))?;
    let opts = SendOptions {
        mss: a.mss,
        timeout: Duration::from_secs_f64(a.timeout),
        interval: Some(Duration::from_millis(100)),
        key: a.security.keys(crate::transfer::Role::Sender)?,
        ..SendOptions::default()
    };
    let mut intervals: Vec<Interval> = Vec::new();
    let report = dropless_udp::send(
        Source::Time(time),
        a.peer,
        cc,
        &opts,
        &mut |i: &Interval| intervals.push(i.clone()),
    )
    .map_err(|e| Failure::Run(format!("probe {}: {e:#}", a.peer)))?;
    let e = estimates(
        &intervals,
        report.min_rtt,
        info.wire_size as f64 / info.mss as f64,
    );
    let mbps = |v: Option<f64>| v.map_or("-".to_string(), fmt_rate);
    if a.json {
        let v = serde_json::json!({
            "start": {
                "peer": a.peer.to_string(),
                "time_s": time.as_secs_f64(),
                "mss": a.mss,
                "controller": "pda",
            },
            "intervals": intervals.iter().map(|i| serde_json::json!({
                "start_s": i.start.as_secs_f64(),
                "end_s": i.end.as_secs_f64(),
                "goodput_bps": i.goodput_bps,
                "pacing_rate_bps": i.pacing_rate_bps,
                "vars": i.vars.iter().map(|(k, v)| (k.to_string(), serde_json::json!(v))).collect::<serde_json::Map<_, _>>(),
            })).collect::<Vec<_>>(),
            "end": {
                "capacity_bps": e.capacity_bps,
                "available_bps": e.available.estimate(),
                "available": e.available.json(),
                "wire_rate_bps": e.wire_rate_bps,
                "mbs_packets": e.mbs_packets,
                "base_rtt_s": e.base_rtt_s,
                "goodput_bps": report.goodput_bps,
                "packets_sent": report.packets_sent,
                "retransmits": report.retransmits,
            },
        });
        println!("{v:#}");
    } else {
        println!("path to {} ({} s of PDA):", a.peer, time.as_secs_f64());
        println!(
            "  capacity   {}  (narrow link: packet pairs)",
            mbps(e.capacity_bps)
        );
        println!("  available  {}  (tight link: trains)", e.available.text());
        println!(
            "  wire rate  {}  (what PDA got through; not a measurement of the available bandwidth)",
            mbps(e.wire_rate_bps)
        );
        println!(
            "  MBS        {}",
            e.mbs_packets
                .map_or("-".to_string(), |m| format!("{m:.0} packets"))
        );
        println!(
            "  base RTT   {}",
            e.base_rtt_s
                .map_or("-".to_string(), |r| units::fmt_time((r * 1e9) as u64))
        );
        println!(
            "  ({} packets sent, {} retransmitted)",
            report.packets_sent, report.retransmits
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn iv(t: f64, bytes: u64, cap: f64, mbs: f64) -> Interval {
        Interval {
            start: Duration::from_secs_f64(t),
            end: Duration::from_secs_f64(t + 0.1),
            bytes_acked: bytes,
            vars: vec![("capacity_bps", cap), ("pair_mode_bps", cap), ("mbs", mbs)],
            ..Interval::default()
        }
    }

    #[test]
    fn estimates_read_the_last_values_and_the_second_half() {
        // 1st half at 100 Mb/s of payload, 2nd half at 500 Mb/s.
        let v: Vec<Interval> = (0..10)
            .map(|k| {
                let b = if k < 5 { 1_250_000 } else { 6_250_000 };
                iv(k as f64 * 0.1, b, 1e9 + k as f64, 16.0 + k as f64)
            })
            .collect();
        let e = estimates(&v, Some(Duration::from_millis(80)), 1.04);
        // The median of the second half's pair modes (1e9 + 5 ... 1e9 + 9).
        assert_eq!(e.capacity_bps, Some(1e9 + 7.0));
        assert_eq!(e.mbs_packets, Some(25.0));
        // No search ran: the wire rate is reported as that, not as the
        // available bandwidth.
        assert!((e.wire_rate_bps.unwrap() - 520e6).abs() < 1.0);
        assert_eq!(e.available, Available::None { trains: 0 });
        assert_eq!(e.available.estimate(), None);
        assert_eq!(e.base_rtt_s, Some(0.08));
        assert_eq!(estimates(&[], None, 1.0).available.estimate(), None);
    }

    fn with_search(vars: &[(&'static str, f64)]) -> Vec<Interval> {
        let mut v: Vec<Interval> = (0..10)
            .map(|k| iv(k as f64 * 0.1, 1_250_000, 1e9, 20.0))
            .collect();
        for i in &mut v {
            i.vars.extend_from_slice(vars);
        }
        v
    }

    #[test]
    fn a_search_that_found_no_estimate_says_so() {
        // Trains judged, the rates not covered (the host sent slower
        // than asked): a range, with its upper end no higher than the
        // capacity, and no estimate, whatever PDA got through.
        let v = with_search(&[
            ("search_avail_bps", 0.0),
            ("search_estimates", 0.0),
            ("search_trains", 40.0),
            ("search_judged", 39.0),
            ("search_host_limited", 30.0),
            ("search_lo_bps", 930e6),
            ("search_hi_bps", 1.2e9),
        ]);
        let e = estimates(&v, None, 1.04);
        assert_eq!(
            e.available,
            Available::Range {
                lo_bps: 930e6,
                hi_bps: 1e9,
                judged: 39,
                host_limited: 30
            }
        );
        assert_eq!(e.available.estimate(), None);
        assert!(e.wire_rate_bps.is_some());
        let t = e.available.text();
        assert!(t.starts_with("no estimate"), "{t}");
        assert_eq!(e.available.json()["kind"], "range");
        // No train judged: nothing at all.
        let v = with_search(&[("search_estimates", 0.0), ("search_trains", 1.0)]);
        let e = estimates(&v, None, 1.04);
        assert_eq!(e.available, Available::None { trains: 1 });
        assert_eq!(e.available.json()["kind"], "none");
        // A closed search: its estimate.
        let v = with_search(&[
            ("search_avail_bps", 497e6),
            ("search_estimates", 3.0),
            ("search_judged", 20.0),
        ]);
        let e = estimates(&v, None, 1.04);
        assert_eq!(e.available.estimate(), Some(497e6));
        assert_eq!(e.available.json()["kind"], "estimate");
    }
}
