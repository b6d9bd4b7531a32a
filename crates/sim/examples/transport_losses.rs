//! Transport diagnostics: losses the sender declares against the queue's
//! drops of the flow (ground truth), timeouts, and spurious retransmissions
//! (duplicates at the receiver), on the TCP-Madison Fig. 8(a) path (100 Mb/s,
//! 278 ms, 158 KB, 42% Poisson cross traffic) and a few variants.
//!
//! `cargo run --release -p dropless-sim --example transport_losses -- [secs] [seed] [cc ...]`
//! (cc: `fast`, `fast-delack`, `madison`, `madison-paper`, `newreno`, `newreno-delack`, `highspeed`, `cubic`, `bic`,
//! `scalable`); a `-prr` suffix (`fast-prr`) turns on Proportional Rate
//! Reduction (RFC 9937). `XP_EVENTS=1` also lists the congestion events.

#[path = "../tests/common/mod.rs"]
mod common;

use common::fig8a;
use dropless_cc::from_secs;
use dropless_sim::{FlowSpec, Simulation};
use dropless_transport::AckPolicy;

fn fast(alpha: f64) -> FlowSpec {
    FlowSpec::bulk("fast", 0).param("alpha", alpha)
}

fn flow(name: &str) -> FlowSpec {
    if let Some(base) = name.strip_suffix("-prr") {
        let mut f = flow(base);
        f.prr = true;
        return f;
    }
    match name {
        "fast" => fast(8.0),
        "madison" | "madison-paper" => {
            let mut f = FlowSpec::bulk(name, 0);
            f.ack_policy = AckPolicy::ProbeOnly;
            f
        }
        "newreno-delack" => {
            let mut f = FlowSpec::bulk("newreno", 0);
            f.ack_policy = AckPolicy::DELAYED;
            f
        }
        "fast-delack" => {
            let mut f = fast(8.0);
            f.ack_policy = AckPolicy::DELAYED;
            f
        }
        other => FlowSpec::bulk(other, 0),
    }
}

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let dur: f64 = a.get(1).and_then(|x| x.parse().ok()).unwrap_or(30.0);
    let seed: u64 = a.get(2).and_then(|x| x.parse().ok()).unwrap_or(6);
    let ccs: Vec<String> = if a.len() > 3 {
        a[3..].to_vec()
    } else {
        ["fast", "newreno", "newreno-delack", "highspeed", "cubic"]
            .iter()
            .map(|s| s.to_string())
            .collect()
    };
    println!(
        "{:<16} {:>8} {:>8} {:>8} {:>8} {:>8} {:>6} {:>8} {:>8} {:>6} {:>9} {:>8}",
        "cc",
        "sent",
        "declared",
        "drops",
        "dupthr",
        "rto_lost",
        "rtos",
        "rto<FR",
        "rx_dups",
        "events",
        "loss/1e4",
        "drop/1e4"
    );
    for name in &ccs {
        let cfg = fig8a(flow(name), from_secs(dur), seed);
        let mut sim = Simulation::new(cfg).expect("valid");
        sim.run_until(from_secs(dur));
        let (snd, rcv) = sim.endpoints(0);
        let st = snd.stats().clone();
        let dups = rcv.stats().duplicates;
        let rtt = 0.278;
        let mut rto_lost = 0u64;
        let mut rto_after_fr = 0u64;
        let mut prev: Option<&dropless_transport::EventRecord> = None;
        for e in &st.events {
            if e.rto {
                rto_lost += e.lost as u64;
                if let Some(p) = prev {
                    if !p.rto && dropless_cc::secs(e.time - p.time) < 3.0 * rtt {
                        rto_after_fr += 1;
                    }
                }
            }
            prev = Some(e);
        }
        if std::env::var("XP_EVENTS").is_ok() {
            for e in &st.events {
                println!(
                    "  t {:.3} rto {} cwnd {:.1} lost {} [{}..{}]",
                    dropless_cc::secs(e.time),
                    e.rto,
                    e.cwnd,
                    e.lost,
                    e.first_lost,
                    e.last_lost
                );
            }
        }
        let r = sim.finish();
        let drops = r.series.flows[0].drops.last().copied().unwrap_or(0.0) as u64;
        let f = &r.flows[0];
        println!(
            "{:<16} {:>8} {:>8} {:>8} {:>8} {:>8} {:>6} {:>8} {:>8} {:>6} {:>9.1} {:>8.1}",
            name,
            st.packets_sent,
            st.packets_lost,
            drops,
            st.packets_lost - rto_lost,
            rto_lost,
            st.rtos,
            rto_after_fr,
            dups,
            st.congestion_events,
            f.loss_per_10k,
            1e4 * drops as f64 / st.packets_sent.max(1) as f64
        );
    }
}
