//! Loss-event analysis: what happens in each congestion event, and which
//! flows lose packets together.
//!
//! Seed 004 (ACWAP) explains HighSpeed TCP's losses behind a drop-tail queue
//! packet by packet: in the RTT between the first drop and its detection the
//! window grows by `a(w)`, and each increment leaves as the second packet of
//! a back-to-back pair, which the full queue drops; so about `a(W_c)` packets
//! are lost per event, spaced about `W_c / a(W_c)` sequence numbers apart,
//! and the drops of several flows overlap in time (synchronised loss). This
//! module measures exactly those quantities from a [`SimResult`]:
//!
//! * per congestion event ([`LossEvent`]): the window at the event, the
//!   packets lost, their sequence numbers and gaps, how many of the lost
//!   transmissions left back to back with the one before, and an estimate of
//!   when the first drop happened at the bottleneck;
//! * congestion episodes ([`Episode`]): loss events of all flows grouped by
//!   the time of their first drop; an episode that hits several flows is a
//!   synchronised loss;
//! * per flow ([`FlowLoss`]): events, drops per event, mean and median gap,
//!   window range at the events, and the fraction of its events that were
//!   synchronised with another flow;
//! * per flow over a time window ([`window_stats`]): goodput, share of the
//!   bottleneck and loss rate, from the time series (the paper's tables
//!   measure 50-400 s).
//!
//! Sequence numbers come from [`dropless_transport::EventRecord::lost_seqs`],
//! which keeps the first [`dropless_transport::LOST_SEQS_CAP`] losses of each
//! event; the mean gap uses the complete first/last/count record, so it is
//! exact even for longer events.

use dropless_cc::{secs, Time};
use dropless_transport::EventRecord;
use serde::Serialize;

use crate::config::SimConfig;
use crate::metrics::SimResult;

/// What to analyse.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LossOptions {
    /// Only events detected at or after this time, seconds.
    pub from_s: f64,
    /// Only events detected before this time, seconds.
    pub to_s: f64,
    /// Loss events whose first drops lie within this many seconds of an
    /// episode's first drop belong to that episode. `None`: the largest mean
    /// RTT of any flow (a drop-tail overflow lasts until the flows have
    /// reacted, about one RTT).
    pub sync_window_s: Option<f64>,
}

impl LossOptions {
    /// Events detected in `[from_s, to_s)`, default episode window.
    pub fn window(from_s: f64, to_s: f64) -> Self {
        LossOptions {
            from_s,
            to_s,
            sync_window_s: None,
        }
    }
}

/// One congestion event of one flow.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LossEvent {
    /// Flow index.
    pub flow: usize,
    /// When the sender detected the event, seconds.
    pub time_s: f64,
    /// Estimated time the first dropped packet reached the bottleneck: its
    /// send time plus the flow's access delay (queueing ignored), seconds.
    pub drop_time_s: f64,
    /// A retransmission timeout (its "lost" count is the whole flight).
    pub rto: bool,
    /// Congestion window just before the event, packets.
    pub cwnd: f64,
    /// Packets declared lost during the event.
    pub lost: u32,
    /// The recorded lost packet numbers, ascending, without repeats
    /// (lost retransmissions of the same packet appear once).
    pub lost_seqs: Vec<u64>,
    /// Lost transmissions recorded (at most `LOST_SEQS_CAP`).
    pub recorded: u32,
    /// Of those, how many left back to back with the transmission before
    /// them (seed 004 Fig. 4: the burst packet is the one dropped).
    pub back_to_back: u32,
    /// Gaps between consecutive entries of `lost_seqs`.
    pub gaps: Vec<u64>,
    /// Mean gap between consecutive lost packets,
    /// `(last - first) / (lost - 1)` (`None` for a single loss or a timeout).
    pub mean_gap: Option<f64>,
    /// Index of the [`Episode`] the event belongs to.
    pub episode: usize,
}

/// Loss events of all flows whose first drops fall within one episode window.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Episode {
    /// First drop of the episode, seconds.
    pub start_s: f64,
    /// Last first-drop time of an event in the episode, seconds.
    pub end_s: f64,
    /// Indices into [`LossAnalysis::events`].
    pub events: Vec<usize>,
    /// Distinct flows hit, ascending.
    pub flows: Vec<usize>,
    /// Packets lost in the episode, all flows.
    pub drops: u64,
}

/// Per-flow summary of its loss events.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FlowLoss {
    /// Flow index.
    pub flow: usize,
    /// Congestion events in the window (loss, ECN and timeouts).
    pub events: usize,
    /// Events with at least one lost packet.
    pub loss_events: usize,
    /// Retransmission timeouts.
    pub timeouts: usize,
    /// Packets declared lost in those events.
    pub drops: u64,
    /// `drops / loss_events` (0 without loss events).
    pub drops_per_event: f64,
    /// Mean gap between consecutive lost packets of an event, pooled over
    /// events (NaN if no event lost two packets).
    pub mean_gap: f64,
    /// Median of the recorded individual gaps (NaN if none).
    pub median_gap: f64,
    /// Smallest window at a loss event, packets (NaN if none).
    pub cwnd_min: f64,
    /// Largest window at a loss event, packets (NaN if none).
    pub cwnd_max: f64,
    /// Mean window at the loss events, packets (NaN if none).
    pub cwnd_mean: f64,
    /// Fraction of recorded lost transmissions that left back to back.
    pub back_to_back_fraction: f64,
    /// Fraction of the flow's loss events whose episode hit another flow too.
    pub synchronised_fraction: f64,
}

/// The analysis of one run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LossAnalysis {
    /// Episode window used, seconds.
    pub sync_window_s: f64,
    /// All congestion events in the time window, by flow then time.
    pub events: Vec<LossEvent>,
    /// Episodes, in time order (only events that lost packets).
    pub episodes: Vec<Episode>,
    /// One summary per flow of the run.
    pub flows: Vec<FlowLoss>,
    /// Fraction of episodes that hit two or more flows (synchronised loss).
    pub sync_ratio: f64,
    /// Mean number of distinct flows hit per episode.
    pub mean_flows_per_episode: f64,
}

/// Delay from a flow's sender to the first shared link of its path (the
/// access link's propagation delay, as the engine builds it).
fn entry_delay(cfg: &SimConfig, flow: usize) -> Time {
    let fs = &cfg.flows[flow];
    let links = cfg.topology.links();
    let (a, b) = fs.path;
    let one_way: Time = links
        .get(a..=b)
        .map_or(0, |l| l.iter().map(|l| l.delay).sum());
    let rtt = fs.rtt.unwrap_or(2 * one_way);
    rtt.saturating_sub(2 * one_way) / 2
}

fn median(v: &mut [u64]) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_unstable();
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2] as f64
    } else {
        (v[n / 2 - 1] + v[n / 2]) as f64 / 2.0
    }
}

fn event(flow: usize, e: &EventRecord, entry: Time) -> LossEvent {
    let mut seqs: Vec<u64> = e.lost_seqs.seqs().to_vec();
    seqs.sort_unstable();
    seqs.dedup();
    let gaps: Vec<u64> = seqs.windows(2).map(|w| w[1] - w[0]).collect();
    let recorded = e.lost_seqs.len() as u32;
    let back_to_back = (0..e.lost_seqs.len())
        .filter(|&i| e.lost_seqs.back_to_back(i))
        .count() as u32;
    // The record is complete when every loss fits: use the distinct packets
    // (a lost retransmission is not a new gap); otherwise the exact span.
    let mean_gap = if e.rto {
        None
    } else if (recorded as usize) < dropless_transport::LOST_SEQS_CAP {
        (seqs.len() >= 2).then(|| (seqs[seqs.len() - 1] - seqs[0]) as f64 / (seqs.len() - 1) as f64)
    } else {
        (e.lost >= 2).then(|| (e.last_lost - e.first_lost) as f64 / (e.lost - 1) as f64)
    };
    LossEvent {
        flow,
        time_s: secs(e.time),
        drop_time_s: if e.lost > 0 {
            secs(e.first_lost_sent + entry)
        } else {
            secs(e.time)
        },
        rto: e.rto,
        cwnd: e.cwnd,
        lost: e.lost,
        lost_seqs: seqs,
        recorded,
        back_to_back,
        gaps,
        mean_gap,
        episode: usize::MAX,
    }
}

/// Analyses the congestion events of a run.
pub fn analyze(cfg: &SimConfig, r: &SimResult, opts: &LossOptions) -> LossAnalysis {
    let window = opts.sync_window_s.unwrap_or_else(|| {
        r.flows
            .iter()
            .map(|f| f.mean_rtt_s.max(f.rtt_s))
            .fold(0.0, f64::max)
    });
    let mut events = Vec::new();
    for (i, f) in r.flows.iter().enumerate() {
        let entry = entry_delay(cfg, i);
        for e in &f.events {
            let t = secs(e.time);
            if t >= opts.from_s && t < opts.to_s {
                events.push(event(i, e, entry));
            }
        }
    }
    // Episodes: loss events ordered by first drop; a new episode starts when
    // an event's first drop is more than `window` after the episode's first.
    let mut order: Vec<usize> = (0..events.len()).filter(|&i| events[i].lost > 0).collect();
    order.sort_by(|&a, &b| {
        events[a]
            .drop_time_s
            .total_cmp(&events[b].drop_time_s)
            .then(a.cmp(&b))
    });
    let mut episodes: Vec<Episode> = Vec::new();
    for i in order {
        let t = events[i].drop_time_s;
        let start_new = episodes.last().is_none_or(|ep| t > ep.start_s + window);
        if start_new {
            episodes.push(Episode {
                start_s: t,
                end_s: t,
                events: Vec::new(),
                flows: Vec::new(),
                drops: 0,
            });
        }
        let k = episodes.len() - 1;
        let ep = &mut episodes[k];
        ep.end_s = t;
        ep.events.push(i);
        ep.drops += events[i].lost as u64;
        if let Err(pos) = ep.flows.binary_search(&events[i].flow) {
            ep.flows.insert(pos, events[i].flow);
        }
        events[i].episode = k;
    }
    let flows = (0..r.flows.len())
        .map(|fi| {
            let mine: Vec<&LossEvent> = events.iter().filter(|e| e.flow == fi).collect();
            let lossy: Vec<&&LossEvent> = mine.iter().filter(|e| e.lost > 0).collect();
            let drops: u64 = lossy.iter().map(|e| e.lost as u64).sum();
            let (mut span, mut steps) = (0.0, 0.0);
            for e in &lossy {
                if let Some(g) = e.mean_gap {
                    let n = if (e.recorded as usize) < dropless_transport::LOST_SEQS_CAP {
                        e.lost_seqs.len() as f64
                    } else {
                        e.lost as f64
                    };
                    span += g * (n - 1.0);
                    steps += n - 1.0;
                }
            }
            let mut gaps: Vec<u64> = lossy
                .iter()
                .filter(|e| !e.rto)
                .flat_map(|e| e.gaps.iter().copied())
                .collect();
            let cw: Vec<f64> = lossy.iter().map(|e| e.cwnd).collect();
            let recorded: u32 = lossy.iter().filter(|e| !e.rto).map(|e| e.recorded).sum();
            let b2b: u32 = lossy
                .iter()
                .filter(|e| !e.rto)
                .map(|e| e.back_to_back)
                .sum();
            let synced = lossy
                .iter()
                .filter(|e| episodes[e.episode].flows.len() > 1)
                .count();
            let n = lossy.len();
            FlowLoss {
                flow: fi,
                events: mine.len(),
                loss_events: n,
                timeouts: mine.iter().filter(|e| e.rto).count(),
                drops,
                drops_per_event: if n > 0 { drops as f64 / n as f64 } else { 0.0 },
                mean_gap: if steps > 0.0 { span / steps } else { f64::NAN },
                median_gap: median(&mut gaps),
                cwnd_min: cw.iter().copied().reduce(f64::min).unwrap_or(f64::NAN),
                cwnd_max: cw.iter().copied().reduce(f64::max).unwrap_or(f64::NAN),
                cwnd_mean: if n > 0 {
                    cw.iter().sum::<f64>() / n as f64
                } else {
                    f64::NAN
                },
                back_to_back_fraction: if recorded > 0 {
                    b2b as f64 / recorded as f64
                } else {
                    0.0
                },
                synchronised_fraction: if n > 0 { synced as f64 / n as f64 } else { 0.0 },
            }
        })
        .collect();
    let n_ep = episodes.len() as f64;
    let (sync_ratio, mean_flows) = if episodes.is_empty() {
        (0.0, 0.0)
    } else {
        (
            episodes.iter().filter(|e| e.flows.len() > 1).count() as f64 / n_ep,
            episodes.iter().map(|e| e.flows.len() as f64).sum::<f64>() / n_ep,
        )
    };
    LossAnalysis {
        sync_window_s: window,
        events,
        episodes,
        flows,
        sync_ratio,
        mean_flows_per_episode: mean_flows,
    }
}

/// One flow over a measurement window.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FlowWindow {
    /// Flow index.
    pub flow: usize,
    /// Goodput over the window, bits/s.
    pub goodput_bps: f64,
    /// Goodput as a fraction of the capacity of the first shared link of
    /// the flow's path (the bottleneck of a dumbbell).
    pub utilization: f64,
    /// Packets delivered in order over the window.
    pub delivered_pkts: f64,
    /// Packets declared lost in events detected in the window.
    pub lost_pkts: u64,
    /// The flow's packets dropped by full queues over the window (the
    /// simulator's ground truth, from the cumulative drop series).
    pub queue_drops: f64,
    /// `lost / (delivered + lost)`: the fraction of packets sent that were
    /// lost (the sender's loss rate).
    pub loss_rate: f64,
    /// Congestion events detected in the window.
    pub events: usize,
    /// Of those, retransmission timeouts.
    pub timeouts: usize,
}

/// Goodput, share of the bottleneck and loss rate of every flow over
/// `(from_s, to_s]`, from the per-flow time series (the run needs
/// `flow_series` and a `sample_interval` that divides both ends).
///
/// # Panics
/// If the run has no per-flow series.
pub fn window_stats(cfg: &SimConfig, r: &SimResult, from_s: f64, to_s: f64) -> Vec<FlowWindow> {
    assert!(
        r.series.flows.len() == r.flows.len() && !r.series.t.is_empty(),
        "window_stats needs per-flow time series (flow_series and sample_interval)"
    );
    let t = &r.series.t;
    let dt = cfg.sample_interval as f64 * 1e-9;
    let eps = dt * 1e-6;
    let span = to_s - from_s;
    r.flows
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let bits: f64 = r.series.flows[i]
                .goodput_bps
                .iter()
                .zip(t)
                .filter(|(_, &ts)| ts > from_s + eps && ts <= to_s + eps)
                .map(|(g, _)| g * dt)
                .sum();
            let goodput = bits / span;
            let spec = &cfg.flows[i];
            let cap = cfg.topology.links()[spec.path.0].rate_bps;
            let delivered = bits / 8.0 / spec.mss as f64;
            let in_window: Vec<&EventRecord> = f
                .events
                .iter()
                .filter(|e| {
                    let ts = secs(e.time);
                    ts > from_s && ts <= to_s
                })
                .collect();
            let lost: u64 = in_window.iter().map(|e| e.lost as u64).sum();
            // Cumulative drops at the last sample at or before each end.
            let drops = &r.series.flows[i].drops;
            let at = |x: f64| -> f64 {
                t.iter()
                    .zip(drops)
                    .take_while(|(&ts, _)| ts <= x + eps)
                    .last()
                    .map_or(0.0, |(_, &d)| d)
            };
            FlowWindow {
                flow: i,
                goodput_bps: goodput,
                utilization: goodput / cap,
                delivered_pkts: delivered,
                lost_pkts: lost,
                queue_drops: at(to_s) - at(from_s),
                loss_rate: if delivered + lost as f64 > 0.0 {
                    lost as f64 / (delivered + lost as f64)
                } else {
                    0.0
                },
                events: in_window.len(),
                timeouts: in_window.iter().filter(|e| e.rto).count(),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Buffer, FlowSpec, LinkSpec, Topology};
    use crate::metrics::FlowResult;
    use dropless_cc::{CongestionCause, MILLISECOND, SECOND};
    use dropless_transport::LostSeqs;

    fn cfg(rtts: &[Time]) -> SimConfig {
        SimConfig {
            seed: 1,
            duration: 10 * SECOND,
            topology: Topology::Dumbbell {
                bottleneck: LinkSpec::new(1e9, 10 * MILLISECOND, Buffer::Packets(100)),
                access_rate_bps: None,
            },
            flows: rtts.iter().map(|&r| FlowSpec::bulk("newreno", r)).collect(),
            cross: vec![],
            sample_interval: 0,
            flow_series: false,
        }
    }

    fn rec(time: Time, sent: Time, cwnd: f64, seqs: &[(u64, bool)]) -> EventRecord {
        let mut l = LostSeqs::new();
        for &(s, b) in seqs {
            l.push(s, b);
        }
        EventRecord {
            time,
            cause: CongestionCause::Loss,
            rto: false,
            cwnd,
            lost: seqs.len() as u32,
            first_lost: seqs.iter().map(|s| s.0).min().unwrap_or(0),
            last_lost: seqs.iter().map(|s| s.0).max().unwrap_or(0),
            first_lost_sent: sent,
            lost_seqs: l,
        }
    }

    fn flow(id: usize, rtt_s: f64, events: Vec<EventRecord>) -> FlowResult {
        FlowResult {
            id,
            cc: "newreno".into(),
            rtt_s,
            start_s: 0.0,
            end_s: 10.0,
            completion_s: None,
            bytes_delivered: 0,
            goodput_bps: 0.0,
            throughput_bps: 0.0,
            packets_sent: 0,
            packets_lost: 0,
            retransmits: 0,
            loss_per_10k: 0.0,
            congestion_events: events.len() as u64,
            timeouts: 0,
            lost_per_event: 0.0,
            mean_rtt_s: rtt_s,
            min_rtt_s: rtt_s,
            avg_backlog_pkts: 0.0,
            events,
        }
    }

    fn result(flows: Vec<FlowResult>) -> SimResult {
        SimResult {
            duration_s: 10.0,
            flows,
            links: vec![],
            jain_fairness: 1.0,
            data_packets: 0,
            cross_packets: 0,
            events: 0,
            series: Default::default(),
        }
    }

    #[test]
    fn gaps_back_to_back_and_synchronised_episodes() {
        let ms = MILLISECOND;
        // Flow 0 (RTT 60 ms, access delay 20 ms): drops 100, 200, 300*, 400*
        // sent at 1.000 s; flow 1 (RTT 120 ms, access 50 ms): one drop sent
        // at 0.990 s, so both first drops reach the bottleneck at 1.02 and
        // 1.04 s: one episode. At 5 s flow 0 alone loses two packets.
        let c = cfg(&[60 * ms, 120 * ms]);
        let f0 = vec![
            rec(
                1100 * ms,
                1000 * ms,
                800.0,
                &[(100, false), (200, true), (300, true), (400, true)],
            ),
            rec(5100 * ms, 5000 * ms, 700.0, &[(9000, true), (9050, true)]),
        ];
        let f1 = vec![rec(1200 * ms, 990 * ms, 50.0, &[(77, false)])];
        let r = result(vec![flow(0, 0.06, f0), flow(1, 0.12, f1)]);
        let a = analyze(&c, &r, &LossOptions::window(0.0, 10.0));
        assert!((a.sync_window_s - 0.12).abs() < 1e-12);
        assert_eq!(a.events.len(), 3);
        let e = &a.events[0];
        assert_eq!(e.gaps, vec![100, 100, 100]);
        assert_eq!(e.mean_gap, Some(100.0));
        assert_eq!(e.back_to_back, 3);
        assert!((e.drop_time_s - 1.02).abs() < 1e-9);
        assert!((a.events[2].drop_time_s - 1.04).abs() < 1e-9);
        assert_eq!(a.episodes.len(), 2);
        assert_eq!(a.episodes[0].flows, vec![0, 1]);
        assert_eq!(a.episodes[0].drops, 5);
        assert_eq!(a.episodes[1].flows, vec![0]);
        assert!((a.sync_ratio - 0.5).abs() < 1e-12);
        assert!((a.mean_flows_per_episode - 1.5).abs() < 1e-12);
        let f = &a.flows[0];
        assert_eq!((f.events, f.loss_events, f.drops), (2, 2, 6));
        assert!((f.drops_per_event - 3.0).abs() < 1e-12);
        // Pooled: (300 + 50) / (3 + 1).
        assert!((f.mean_gap - 87.5).abs() < 1e-12);
        assert_eq!(f.median_gap, 100.0);
        assert_eq!((f.cwnd_min, f.cwnd_max, f.cwnd_mean), (700.0, 800.0, 750.0));
        assert!((f.back_to_back_fraction - 5.0 / 6.0).abs() < 1e-12);
        assert!((f.synchronised_fraction - 0.5).abs() < 1e-12);
        assert_eq!(a.flows[1].synchronised_fraction, 1.0);
        assert!(a.flows[1].mean_gap.is_nan());
        // A narrower window separates the two flows; a time window drops events.
        let a = analyze(
            &c,
            &r,
            &LossOptions {
                sync_window_s: Some(0.01),
                ..LossOptions::window(0.0, 10.0)
            },
        );
        assert_eq!(a.episodes.len(), 3);
        assert_eq!(a.sync_ratio, 0.0);
        let a = analyze(&c, &r, &LossOptions::window(2.0, 10.0));
        assert_eq!(a.events.len(), 1);
        assert_eq!(a.flows[1].loss_events, 0);
    }

    #[test]
    fn long_events_use_the_exact_span() {
        let c = cfg(&[60 * MILLISECOND]);
        // 100 losses 10 apart: only 64 recorded, the mean gap is still exact.
        let seqs: Vec<(u64, bool)> = (0..100).map(|i| (1000 + 10 * i, true)).collect();
        let mut e = rec(SECOND, SECOND / 2, 5000.0, &seqs);
        e.lost = 100;
        e.last_lost = 1990;
        let r = result(vec![flow(0, 0.06, vec![e])]);
        let a = analyze(&c, &r, &LossOptions::window(0.0, 10.0));
        assert_eq!(a.events[0].recorded, 64);
        assert_eq!(a.events[0].mean_gap, Some(10.0));
        assert!((a.flows[0].mean_gap - 10.0).abs() < 1e-12);
        assert_eq!(a.flows[0].drops, 100);
    }
}
