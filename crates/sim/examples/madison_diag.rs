//! Diagnostics for TCP-Madison runs (not part of the report): sender-declared
//! losses vs queue drops, and a time series of the controller's state.
//!
//! `cargo run --release -p dropless-sim --example madison_diag -- <fig8a|fig8b|fig8c|fig6|fig7a|fig7b|fig7a_fast|fig7b_fast|fig7a_reno|fig7b_reno|fig2a|fig2b|fig2c> [secs] [seed] [series]`
//!
//! Environment: `MAD_PARAMS="paced_u=1,up_gain=0.5"` (extra Madison
//! parameters), `CROSS_SCALE=0.857` (cross-traffic rate multiplier).

#[path = "../tests/common/madison.rs"]
mod sc;

use dropless_sim::{jain, path_reports, Simulation};
use sc::*;

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let which = a.get(1).map(|s| s.as_str()).unwrap_or("fig8a");
    let dur: f64 = a.get(2).and_then(|x| x.parse().ok()).unwrap_or(30.0);
    let seed: u64 = a.get(3).and_then(|x| x.parse().ok()).unwrap_or(6);
    let series = a.get(4).is_some();
    // MAD_PARAMS="gain=0.25,open_loop=1": extra Madison parameters.
    let params: Vec<(String, f64)> = std::env::var("MAD_PARAMS")
        .unwrap_or_default()
        .split(',')
        .filter_map(|kv| {
            let (k, v) = kv.split_once('=')?;
            Some((k.to_string(), v.parse().ok()?))
        })
        .collect();
    let mut cfg = match which {
        "fig8a" => fig8(&FIG8[0], madison(0), s(dur), seed),
        "fig8b" => fig8(&FIG8[1], madison(0), s(dur), seed),
        "fig8c" => fig8(&FIG8[2], madison(0), s(dur), seed),
        "fig2a" => fig2(&FIG2[0], s(dur), seed),
        "fig2b" => fig2(&FIG2[1], s(dur), seed),
        "fig2c" => fig2(&FIG2[2], s(dur), seed),
        "fig6" => fig6(&[60, 140, 246], dur / 150.0, s(dur), seed),
        "fig7a" => fig7(madison(0), 1_320_000, dur / 122.0, seed),
        "fig7b" => fig7(madison(0), 140_000, dur / 122.0, seed),
        // The same against FAST (alpha 8), for comparison.
        "fig7a_fast" => fig7(fast(0, 8.0), 1_320_000, dur / 122.0, seed),
        "fig7b_fast" => fig7(fast(0, 8.0), 140_000, dur / 122.0, seed),
        // Reno alone (the other flow is a 1-packet-window NewReno).
        "fig7a_reno" | "fig7b_reno" => {
            let mut idle = reno(0);
            idle.max_window = Some(1);
            let buf = if which == "fig7a_reno" {
                1_320_000
            } else {
                140_000
            };
            fig7(idle, buf, dur / 122.0, seed)
        }
        _ => panic!("unknown {which}"),
    };
    // CROSS_SCALE=0.857: multiply the cross traffic's rate (sensitivity).
    if let Some(k) = std::env::var("CROSS_SCALE")
        .ok()
        .and_then(|x| x.parse::<f64>().ok())
    {
        for c in &mut cfg.cross {
            c.rate_bps *= k;
        }
    }
    // RENO_RTT_OFFSET_US=60: lengthen the Reno flows' RTTs (phase effects).
    if let Some(us) = std::env::var("RENO_RTT_OFFSET_US")
        .ok()
        .and_then(|x| x.parse::<u64>().ok())
    {
        for f in cfg.flows.iter_mut().filter(|f| f.cc == "newreno") {
            f.rtt = f.rtt.map(|r| r + us * dropless_cc::MICROSECOND);
        }
    }
    for f in cfg.flows.iter_mut().filter(|f| f.cc == "madison") {
        f.params.extend(params.iter().cloned());
    }
    let r = Simulation::new(cfg.clone()).unwrap().run();
    for rep in path_reports(&cfg, &r, 0.5) {
        let q = |n: &str| {
            rep.get(n)
                .map(|x| format!("{n} {:.3}/{:.3} ({:+.3})", x.est, x.truth, x.error))
                .unwrap_or_default()
        };
        println!(
            "report flow {}: {} | {} | {} | {} | {}",
            rep.flow,
            q("U"),
            q("B"),
            q("n"),
            q("C"),
            q("p")
        );
    }
    if which == "fig6" {
        let (j, g) = fig6_share(&r, dur, dur / 150.0);
        println!("fig6 window goodputs {g:.1?} Jain {j:.3}");
        // U models applied to the true queue, sample by sample, over the
        // same window: eq. (8); `paced_u` (only the flow's own packets
        // paced); and with all three Madison flows' packets paced.
        let k = dur / 150.0;
        let (from, to) = (59.0 * k + (dur - 59.0 * k) / 2.0, dur);
        let t = &r.series.t;
        let l = &r.series.links[0];
        let idx: Vec<usize> = (0..t.len())
            .filter(|&i| t[i] >= from && t[i] <= to)
            .collect();
        let mean =
            |f: &dyn Fn(usize) -> f64| idx.iter().map(|&i| f(i)).sum::<f64>() / idx.len() as f64;
        let x = |f: usize, i: usize| r.series.flows[f].link_bps[i] / 100e6;
        let q = |i: usize| l.avg_queue_pkts[i];
        let paced = |b: f64, x: f64| (2.0 * b + x) / (2.0 * b + 1.0);
        println!(
            "fig6 U on the true queue: truth {:.3}, eq. (8) {:.3}, own flow paced {:.3}/{:.3}/{:.3}, all Madison paced {:.3} (Madison share {:.3})",
            mean(&|i| l.utilization[i]),
            mean(&|i| 2.0 * q(i) / (2.0 * q(i) + 1.0)),
            mean(&|i| paced(q(i), x(0, i))),
            mean(&|i| paced(q(i), x(1, i))),
            mean(&|i| paced(q(i), x(2, i))),
            mean(&|i| paced(q(i), x(0, i) + x(1, i) + x(2, i))),
            mean(&|i| x(0, i) + x(1, i) + x(2, i)),
        );
    }
    if which.starts_with("fig7") {
        let [r1, m1, r2, m2] = fig7_shares(&r, dur / 122.0);
        let (fr, fo) = fig7_fair();
        println!(
            "fig7 reno1 {r1:.1} mad {m1:.1} | reno2 {r2:.1} mad {m2:.1} (fair {fr:.1}/{fo:.1})"
        );
    }
    for f in &r.flows {
        let fs = &r.series.flows[f.id];
        let qd = fs.drops.last().copied().unwrap_or(0.0);
        println!(
            "flow {} {}: goodput {:.1} Mb/s sent {} lost {} ({:.1}/1e4) queue drops {} ({:.1}/1e4) rtx {} events {} rto {} backlog {:.2}",
            f.id,
            f.cc,
            f.goodput_bps / 1e6,
            f.packets_sent,
            f.packets_lost,
            f.loss_per_10k,
            qd,
            qd * 1e4 / f.packets_sent.max(1) as f64,
            f.retransmits,
            f.congestion_events,
            f.timeouts,
            f.avg_backlog_pkts
        );
    }
    for l in &r.links {
        println!(
            "link {}: util {:.3} avg queue {:.1} max {} drops {}",
            l.id, l.utilization, l.avg_queue_pkts, l.max_queue_pkts, l.drops
        );
    }
    let g: Vec<f64> = r.flows.iter().map(|f| f.goodput_bps).collect();
    println!("jain(all-run goodputs) {:.3}", jain(&g));
    if series {
        let t = &r.series.t;
        let l = &r.series.links[0];
        for (i, fs) in r.series.flows.iter().enumerate() {
            let v = |n: &str| fs.var(n).map(|x| x.to_vec()).unwrap_or_default();
            let (st, u, bf, bt, p, ph) = (
                v("s_target_mbps"),
                v("est_u"),
                v("b_flow"),
                v("b_target"),
                v("est_p"),
                v("rate_changes"),
            );
            let se = v("s_eff_mbps");
            println!("# flow {i}: t gput s_target est_u true_util b_flow b_target p queue drops rate_changes s_eff");
            for (k, &tk) in t.iter().enumerate() {
                let g = |x: &Vec<f64>| x.get(k).copied().unwrap_or(f64::NAN);
                println!(
                    "{:.1} {:.1} {:.1} {:.3} {:.3} {:.2} {:.2} {:.2e} {:.0} {:.0} {:.0} {:.1}",
                    tk,
                    fs.goodput_bps[k] / 1e6,
                    g(&st),
                    g(&u),
                    l.utilization[k],
                    g(&bf),
                    g(&bt),
                    g(&p),
                    l.avg_queue_pkts[k],
                    fs.drops[k],
                    g(&ph),
                    g(&se)
                );
            }
        }
    }
}
