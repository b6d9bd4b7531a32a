//! Measurements: per-flow and per-link summaries, time series, fairness.

use dropless_cc::secs;
use dropless_transport::EventRecord;
use serde::Serialize;

use crate::engine::Simulation;
use crate::interarrival::InterarrivalResult;

/// Time series sampled every `sample_interval`, column by column.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Series {
    /// Sample times, seconds.
    pub t: Vec<f64>,
    /// One entry per flow (empty when per-flow series are off).
    pub flows: Vec<FlowSeries>,
    /// One entry per shared link.
    pub links: Vec<LinkSeries>,
}

/// Per-flow columns, aligned with [`Series::t`].
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct FlowSeries {
    /// Goodput over the last interval, bits/s (bytes delivered in order at the receiver).
    pub goodput_bps: Vec<f64>,
    /// Congestion window, packets (NaN when the controller sets none).
    pub cwnd: Vec<f64>,
    /// Pacing rate, bits/s (NaN when not pacing).
    pub pacing_bps: Vec<f64>,
    /// Latest RTT sample, seconds (NaN before the first).
    pub rtt_s: Vec<f64>,
    /// Packets in flight.
    pub in_flight: Vec<f64>,
    /// Controller trace variables ([`dropless_cc::Controller::trace_vars`],
    /// e.g. FAST's `alpha`), one column per name, aligned with
    /// [`Series::t`] (NaN where the controller did not report the name).
    pub vars: Vec<(String, Vec<f64>)>,
    /// Wire bits/s of this flow's packets accepted by the last link of its
    /// path over the last interval (its share of the bottleneck, for ground
    /// truth next to end-host estimates).
    pub link_bps: Vec<f64>,
    /// Cumulative buffer-overflow drops of this flow's packets.
    pub drops: Vec<f64>,
}

impl FlowSeries {
    /// The trace column called `name`, if the controller reported it.
    pub fn var(&self, name: &str) -> Option<&[f64]> {
        self.vars
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_slice())
    }
}

/// Per-link columns, aligned with [`Series::t`].
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct LinkSeries {
    /// Packets waiting at the sample time.
    pub queue_pkts: Vec<f64>,
    /// Time-averaged packets waiting over the last interval.
    pub avg_queue_pkts: Vec<f64>,
    /// Cumulative buffer-overflow drops.
    pub drops: Vec<f64>,
    /// Cumulative packets the queue discipline dropped (RED's early and
    /// forced drops; 0 for drop-tail).
    pub aqm_drops: Vec<f64>,
    /// Cumulative packets marked Congestion Experienced.
    pub marks: Vec<f64>,
    /// Cumulative packets that left the link.
    pub departed: Vec<f64>,
    /// RED's average queue at the sample time, packets (NaN without RED).
    pub red_avg: Vec<f64>,
    /// Fraction of capacity used over the last interval.
    pub utilization: Vec<f64>,
    /// Open-loop cross traffic accepted by the link over the last
    /// interval, bits/s.
    pub cross_bps: Vec<f64>,
    /// Flows crossing the link that are sending at the sample time.
    pub active_flows: Vec<f64>,
}

/// Summary of one flow.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FlowResult {
    /// Index in the configuration.
    pub id: usize,
    /// Controller name.
    pub cc: String,
    /// Base (propagation) RTT, seconds.
    pub rtt_s: f64,
    /// Start time, seconds.
    pub start_s: f64,
    /// End of the measured interval (stop, completion or run end), seconds.
    pub end_s: f64,
    /// Completion time of a finite transfer, seconds from its start.
    pub completion_s: Option<f64>,
    /// Payload bytes delivered in order to the receiver.
    pub bytes_delivered: u64,
    /// Goodput over the active interval, bits/s.
    pub goodput_bps: f64,
    /// Payload bits sent per second, retransmissions included.
    pub throughput_bps: f64,
    /// Data packets transmitted (retransmissions included).
    pub packets_sent: u64,
    /// Packets declared lost by the sender.
    pub packets_lost: u64,
    /// Retransmitted packets.
    pub retransmits: u64,
    /// Lost packets per 10,000 sent.
    pub loss_per_10k: f64,
    /// Congestion events (recovery episodes, ECN reactions and timeouts).
    pub congestion_events: u64,
    /// Retransmission timeouts.
    pub timeouts: u64,
    /// Mean packets lost per loss event.
    pub lost_per_event: f64,
    /// Mean RTT sample, seconds.
    pub mean_rtt_s: f64,
    /// Smallest RTT sample, seconds.
    pub min_rtt_s: f64,
    /// Average network backlog of the flow, packets: S·(RTT_avg − RTT_min),
    /// with S the delivered packet rate (TCP-Madison's definition, seed 002
    /// eqs. (4)-(5), by Little's law).
    pub avg_backlog_pkts: f64,
    /// Congestion events, one record each.
    #[serde(skip)]
    pub events: Vec<EventRecord>,
}

/// Summary of one shared link.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LinkResult {
    /// Index in the topology.
    pub id: usize,
    /// Capacity, bits/s (of all its channels together).
    pub rate_bps: f64,
    /// Channels (wavelengths) sharing its buffer; 1 for an ordinary link.
    pub channels: usize,
    /// Fraction of the run each channel spent transmitting (a trunk's
    /// per-channel busy fraction; one entry for an ordinary link).
    pub channel_busy: Vec<f64>,
    /// Buffer-overflow drops over packets offered to the buffer.
    pub loss: f64,
    /// Bits sent over capacity × duration.
    pub utilization: f64,
    /// Time-averaged packets waiting.
    pub avg_queue_pkts: f64,
    /// Most packets ever waiting.
    pub max_queue_pkts: u64,
    /// Buffer-overflow drops.
    pub drops: u64,
    /// Random (configured) losses.
    pub random_drops: u64,
    /// Early drops by the queue discipline (RED's forced ones included;
    /// CoDel, PIE, step marking).
    pub aqm_drops: u64,
    /// Mean sojourn time (arrival to service start) of the packets a
    /// CoDel, PIE or step-marking queue let into its buffer, seconds
    /// (absent from summary.json for the other disciplines).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mean_sojourn_s: Option<f64>,
    /// Packets marked CE by the queue discipline.
    pub marks: u64,
    /// Packets that crossed the link.
    pub packets: u64,
    /// Intervals between packet arrivals, if the link records them
    /// (`interarrivals` in its table; absent from summary.json otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub interarrival: Option<InterarrivalResult>,
}

/// Everything a run produces.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SimResult {
    /// Simulated seconds.
    pub duration_s: f64,
    /// Per-flow summaries.
    pub flows: Vec<FlowResult>,
    /// Per shared link summaries.
    pub links: Vec<LinkResult>,
    /// Jain's fairness index over the goodputs of the long-lived flows.
    pub jain_fairness: f64,
    /// Data packets transmitted by all senders.
    pub data_packets: u64,
    /// Cross-traffic packets generated.
    pub cross_packets: u64,
    /// Events processed.
    pub events: u64,
    /// Time series.
    #[serde(skip)]
    pub series: Series,
}

/// Jain's fairness index `(Σx)² / (n·Σx²)`; 1 for an empty or all-zero set.
pub fn jain(x: &[f64]) -> f64 {
    let n = x.len() as f64;
    let s: f64 = x.iter().sum();
    let s2: f64 = x.iter().map(|v| v * v).sum();
    if n == 0.0 || s2 == 0.0 {
        1.0
    } else {
        s * s / (n * s2)
    }
}

pub(crate) fn collect(sim: &Simulation) -> SimResult {
    let now = sim.now;
    let duration = secs(now);
    let mut flows = Vec::with_capacity(sim.flows.len());
    for (i, f) in sim.flows.iter().enumerate() {
        let spec = &sim.cfg.flows[i];
        let st = f.sender.stats();
        let end = f.finish.unwrap_or(now).min(f.stop).min(now);
        let active = secs(end.saturating_sub(f.start));
        let bytes = f.receiver.stats().bytes_delivered;
        let per_s = |x: f64| if active > 0.0 { x / active } else { 0.0 };
        let loss_events: Vec<&EventRecord> = st.events.iter().filter(|e| e.lost > 0).collect();
        let lost_per_event = if loss_events.is_empty() {
            0.0
        } else {
            loss_events.iter().map(|e| e.lost as f64).sum::<f64>() / loss_events.len() as f64
        };
        let mean_rtt = if st.rtt_samples > 0 {
            st.rtt_sum_s / st.rtt_samples as f64
        } else {
            0.0
        };
        let rtt = f.sender.rtt();
        let min_rtt = if rtt.has_sample() {
            secs(rtt.min_rtt())
        } else {
            0.0
        };
        let pkt_rate = per_s(st.packets_delivered as f64);
        flows.push(FlowResult {
            id: i,
            cc: spec.cc.clone(),
            rtt_s: secs(f.base_rtt),
            start_s: secs(f.start),
            end_s: secs(end),
            completion_s: f.finish.map(|t| secs(t - f.start)),
            bytes_delivered: bytes,
            goodput_bps: per_s(bytes as f64 * 8.0),
            throughput_bps: per_s(st.bytes_sent as f64 * 8.0),
            packets_sent: st.packets_sent,
            packets_lost: st.packets_lost,
            retransmits: st.retransmits,
            loss_per_10k: if st.packets_sent > 0 {
                st.packets_lost as f64 * 1e4 / st.packets_sent as f64
            } else {
                0.0
            },
            congestion_events: st.congestion_events,
            timeouts: st.rtos,
            lost_per_event,
            mean_rtt_s: mean_rtt,
            min_rtt_s: min_rtt,
            avg_backlog_pkts: pkt_rate * (mean_rtt - min_rtt).max(0.0),
            events: st.events.clone(),
        });
    }
    let links = (0..sim.n_shared)
        .map(|i| {
            let l = &sim.links[i];
            let channels = l.channel_count();
            let rate_bps = 8e9 / l.ns_per_byte * channels as f64;
            let utilization = if duration > 0.0 {
                l.departed_bytes as f64 * 8.0 / (rate_bps * duration)
            } else {
                0.0
            };
            let channel_busy = match l.channels.as_deref() {
                // Booked transmission time, less what lies past the end.
                Some(c) if now > 0 => c
                    .busy_ns
                    .iter()
                    .zip(&c.free)
                    .map(|(&b, &f)| (b.saturating_sub(f.saturating_sub(now))) as f64 / now as f64)
                    .collect(),
                _ => vec![utilization],
            };
            let offered = l.departed_pkts + l.in_system() + l.drops;
            LinkResult {
                id: i,
                rate_bps,
                channels,
                channel_busy,
                loss: if offered > 0 {
                    l.drops as f64 / offered as f64
                } else {
                    0.0
                },
                utilization,
                avg_queue_pkts: if now > 0 { l.area / now as f64 } else { 0.0 },
                max_queue_pkts: l.max_q,
                drops: l.drops,
                random_drops: l.random_drops,
                aqm_drops: l.aqm.as_ref().map_or(0, |a| a.drops_marks().0),
                marks: l.aqm.as_ref().map_or(0, |a| a.drops_marks().1),
                mean_sojourn_s: l.aqm.as_ref().and_then(|a| a.mean_sojourn_s()),
                packets: l.departed_pkts,
                interarrival: l.arrivals.as_ref().map(|a| a.result()),
            }
        })
        .collect();
    let long_lived: Vec<f64> = flows
        .iter()
        .zip(&sim.cfg.flows)
        .filter(|(_, s)| s.size.is_none())
        .map(|(r, _)| r.goodput_bps)
        .collect();
    SimResult {
        duration_s: duration,
        jain_fairness: jain(&long_lived),
        flows,
        links,
        data_packets: sim.data_packets,
        cross_packets: sim.cross_packets,
        events: sim.events_processed,
        series: sim.series.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::jain;

    #[test]
    fn jain_index_values() {
        assert_eq!(jain(&[1.0, 1.0, 1.0]), 1.0);
        assert!((jain(&[1.0, 0.0]) - 0.5).abs() < 1e-12);
        assert!((jain(&[3.0, 1.0]) - 16.0 / 20.0).abs() < 1e-12);
    }
}
