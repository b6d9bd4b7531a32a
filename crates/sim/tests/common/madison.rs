//! TCP-Madison scenarios (seed 002 Figs. 2, 6, 7 and 8) shared by the
//! shortened tests (`tests/madison.rs`) and the full-length runner
//! (`examples/madison_figs.rs`). The paper's experiments ran over live
//! Internet paths; here each path is a dumbbell whose bottleneck has the
//! figure's capacity, RTT and buffer, with Poisson cross traffic of
//! 1500-byte packets standing in for the Internet load.
#![allow(dead_code)]

use dropless_cc::{Time, MILLISECOND, SECOND};
use dropless_sim::{Buffer, CrossKind, CrossSpec, FlowSpec, LinkSpec, SimConfig, Topology};
use dropless_transport::AckPolicy;

/// Reno's `W_max` in the paper's comparisons: 172 KB in 1500-byte packets.
pub const RENO_WMAX_PKTS: u64 = 172_000 / 1500;

/// A TCP-Madison bulk flow: receiver ACKs only probes, pair seconds and FIN.
pub fn madison(rtt: Time) -> FlowSpec {
    let mut f = FlowSpec::bulk("madison", rtt);
    f.ack_policy = AckPolicy::ProbeOnly;
    f
}

/// The precautions against the M/D/1 model's error with paced flows and
/// Poisson cross traffic (not in the paper; see `dropless_cc::madison`):
/// `U` from random-instant probes that found the link busy (`busy_u`),
/// allowing for the flow's own pacing until 32 are back (`paced_u`), and
/// half of each rate increase (`up_gain`).
pub const PRECAUTIONS: [(&str, f64); 3] = [("paced_u", 1.0), ("busy_u", 1.0), ("up_gain", 0.5)];

/// A TCP-Madison flow with [`PRECAUTIONS`].
pub fn madison_prec(rtt: Time) -> FlowSpec {
    let mut f = madison(rtt);
    for (k, v) in PRECAUTIONS {
        f = f.param(k, v);
    }
    f
}

/// Median of `v` (the mean of the middle two for an even count).
pub fn median(v: &[f64]) -> f64 {
    let mut x = v.to_vec();
    x.sort_by(|a, b| a.total_cmp(b));
    let n = x.len();
    if n == 0 {
        f64::NAN
    } else if n % 2 == 1 {
        x[n / 2]
    } else {
        0.5 * (x[n / 2 - 1] + x[n / 2])
    }
}

/// Seeds of the multi-seed claims (medians over these).
pub const SEEDS: [u64; 5] = [1, 2, 3, 4, 5];

/// Fig. 6 Jain index over the second half of the time all three flows
/// are active, and the three mean goodputs (Mb/s).
pub fn fig6_share(r: &dropless_sim::SimResult, dur: f64, scale: f64) -> (f64, Vec<f64>) {
    let from = 59.0 * scale + (dur - 59.0 * scale) / 2.0;
    let g: Vec<f64> = r
        .series
        .flows
        .iter()
        .map(|f| window_mean(&f.goodput_bps, &r.series.t, from, dur) / 1e6)
        .collect();
    (dropless_sim::jain(&g), g)
}

/// Fig. 7 shares (Mb/s): Reno 1 and the other flow over 40-60 s, Reno 2
/// and the other flow over 102-122 s (times x `scale`).
pub fn fig7_shares(r: &dropless_sim::SimResult, scale: f64) -> [f64; 4] {
    let t = &r.series.t;
    let w = |f: usize, a: f64, b: f64| {
        window_mean(&r.series.flows[f].goodput_bps, t, a * scale, b * scale) / 1e6
    };
    [
        w(0, 40.0, 60.0),
        w(1, 40.0, 60.0),
        w(2, 102.0, 122.0),
        w(1, 102.0, 122.0),
    ]
}

/// Fig. 7 max-min fair shares (Mb/s): Reno capped by `W_max` over 260 ms,
/// the other flow the rest of the 30 Mb/s left by the cross traffic.
pub fn fig7_fair() -> (f64, f64) {
    let reno = RENO_WMAX_PKTS as f64 * 1500.0 * 8.0 / 0.26 / 1e6;
    (reno, 30.0 - reno)
}

/// Reno (NewReno) limited to `W_max` = 172 KB, delayed ACKs.
pub fn reno(rtt: Time) -> FlowSpec {
    let mut f = FlowSpec::bulk("newreno", rtt);
    f.ack_policy = AckPolicy::DELAYED;
    f.max_window = Some(RENO_WMAX_PKTS);
    f
}

/// FAST with the paper's alpha (packets).
pub fn fast(rtt: Time, alpha: f64) -> FlowSpec {
    FlowSpec::bulk("fast", rtt).param("alpha", alpha)
}

/// BIC with S_min 0.01, S_max 32, exporting the path estimator.
pub fn bic(rtt: Time) -> FlowSpec {
    FlowSpec::bulk("bic", rtt)
        .param("s_min", 0.01)
        .param("s_max", 32.0)
        .param("path_estimator", 1.0)
}

/// Poisson cross traffic of `frac` of `rate_bps` on link 0.
pub fn poisson(rate_bps: f64, frac: f64) -> CrossSpec {
    CrossSpec {
        kind: CrossKind::Poisson,
        rate_bps: frac * rate_bps,
        packet_size: 1500,
        link: 0,
        start: 0,
        stop: None,
    }
}

/// A dumbbell path: capacity, base RTT, buffer (bytes), cross fraction.
pub fn path(
    rate_bps: f64,
    rtt: Time,
    buffer_bytes: u64,
    cross: f64,
    flows: Vec<FlowSpec>,
    duration: Time,
    seed: u64,
) -> SimConfig {
    SimConfig {
        seed,
        duration,
        topology: Topology::Dumbbell {
            bottleneck: LinkSpec::new(rate_bps, rtt / 2, Buffer::Bytes(buffer_bytes)),
            access_rate_bps: None,
        },
        flows,
        cross: if cross > 0.0 {
            vec![poisson(rate_bps, cross)]
        } else {
            vec![]
        },
        sample_interval: 100 * MILLISECOND,
        flow_series: true,
    }
}

/// One Fig. 2 path.
pub struct Fig2 {
    /// Panel label.
    pub label: &'static str,
    /// Capacity, Mb/s.
    pub c_mbps: f64,
    /// RTT, ms.
    pub rtt_ms: u64,
    /// Cross-traffic fraction of C.
    pub cross: f64,
}

/// Fig. 2 (a) U_xt < 20%, 98 Mb/s, 144 ms; (b) U_xt ~ 99%, 155 Mb/s,
/// 127 ms; (c) U_xt ~ 80%, 98 Mb/s, 103 ms. The paper gives no buffer
/// sizes: 1500 KB (1000 packets) here.
pub const FIG2: [Fig2; 3] = [
    Fig2 {
        label: "2a",
        c_mbps: 98.0,
        rtt_ms: 144,
        cross: 0.20,
    },
    Fig2 {
        label: "2b",
        c_mbps: 155.0,
        rtt_ms: 127,
        cross: 0.99,
    },
    Fig2 {
        label: "2c",
        c_mbps: 98.0,
        rtt_ms: 103,
        cross: 0.80,
    },
];

/// A Fig. 2 run: one Madison flow against Poisson cross traffic.
pub fn fig2(p: &Fig2, duration: Time, seed: u64) -> SimConfig {
    let rtt = p.rtt_ms * MILLISECOND;
    path(
        p.c_mbps * 1e6,
        rtt,
        1_500_000,
        p.cross,
        vec![madison(rtt)],
        duration,
        seed,
    )
}

/// Fig. 6: three Madison flows with different RTTs (the paper's panels
/// have 246 ms and lower-RTT paths) starting at 0, 32 and 59 s (scaled by
/// `scale`), 100 Mb/s, 484 KB buffer, 30% Poisson cross traffic.
pub fn fig6(rtts_ms: &[u64], scale: f64, duration: Time, seed: u64) -> SimConfig {
    let starts = [0.0, 32.0, 59.0];
    let flows = rtts_ms
        .iter()
        .enumerate()
        .map(|(i, &r)| {
            let mut f = madison(r * MILLISECOND);
            f.start = dropless_cc::from_secs(starts[i % 3] * scale);
            f
        })
        .collect();
    let rtt = rtts_ms.iter().copied().min().unwrap_or(100) * MILLISECOND;
    path(100e6, rtt, 484_000, 0.30, flows, duration, seed)
}

/// Fig. 7: Reno (W_max 172 KB) from 0 to 60 s, the protocol under test
/// from 30 s, a second Reno from 92 s; 100 Mb/s, 260 ms, ~70% cross
/// traffic, buffer 1320 KB (a) or 140 KB (b). Times scale with `scale`.
pub fn fig7(other: FlowSpec, buffer_bytes: u64, scale: f64, seed: u64) -> SimConfig {
    let rtt = 260 * MILLISECOND;
    let t = |s: f64| dropless_cc::from_secs(s * scale);
    let mut r1 = reno(rtt);
    r1.stop = Some(t(60.0));
    let mut o = other;
    o.rtt = Some(rtt);
    o.start = t(30.0);
    let mut r2 = reno(rtt);
    r2.start = t(92.0);
    path(
        100e6,
        rtt,
        buffer_bytes,
        0.70,
        vec![r1, o, r2],
        t(122.0),
        seed,
    )
}

/// One Fig. 8 path.
pub struct Fig8 {
    /// Panel label.
    pub label: &'static str,
    /// Capacity, Mb/s.
    pub c_mbps: f64,
    /// RTT, ms.
    pub rtt_ms: u64,
    /// Buffer, bytes.
    pub buffer: u64,
    /// Cross-traffic fraction.
    pub cross: f64,
}

/// Fig. 8 (a) baseline: 100 Mb/s, 278 ms, 158 KB, U_xt ~ 42%; (b) 500
/// Mb/s, 78 ms, 172 KB, ~70%; (c) 100 Mb/s, 196 ms, 2000 KB, < 10% (8%).
pub const FIG8: [Fig8; 3] = [
    Fig8 {
        label: "8a",
        c_mbps: 100.0,
        rtt_ms: 278,
        buffer: 158_000,
        cross: 0.42,
    },
    Fig8 {
        label: "8b",
        c_mbps: 500.0,
        rtt_ms: 78,
        buffer: 172_000,
        cross: 0.70,
    },
    Fig8 {
        label: "8c",
        c_mbps: 100.0,
        rtt_ms: 196,
        buffer: 2_000_000,
        cross: 0.08,
    },
];

/// A Fig. 8 run of one protocol alone on the path (back-to-back transfers).
pub fn fig8(p: &Fig8, flow: FlowSpec, duration: Time, seed: u64) -> SimConfig {
    let rtt = p.rtt_ms * MILLISECOND;
    let mut f = flow;
    f.rtt = Some(rtt);
    path(
        p.c_mbps * 1e6,
        rtt,
        p.buffer,
        p.cross,
        vec![f],
        duration,
        seed,
    )
}

/// FAST's alpha by the paper's rule: twice its largest throughput in
/// packets/ms (over 1 s windows), at least 8.
pub fn fast_alpha_from(goodput_bps: &[f64], t: &[f64], wire: f64) -> f64 {
    let dt = if t.len() >= 2 { t[1] - t[0] } else { 1.0 };
    let per = (1.0 / dt).round().max(1.0) as usize;
    let mut best: f64 = 0.0;
    for w in goodput_bps.chunks(per) {
        let m = w.iter().sum::<f64>() / w.len() as f64;
        best = best.max(m);
    }
    (2.0 * best / 8.0 / wire / 1000.0).max(8.0)
}

/// Mean of `v` over samples with `from <= t < to`.
pub fn window_mean(v: &[f64], t: &[f64], from: f64, to: f64) -> f64 {
    let x: Vec<f64> = v
        .iter()
        .zip(t)
        .filter(|(x, &t)| t > from && t <= to && x.is_finite())
        .map(|(v, _)| *v)
        .collect();
    if x.is_empty() {
        f64::NAN
    } else {
        x.iter().sum::<f64>() / x.len() as f64
    }
}

/// Seconds.
pub fn s(x: f64) -> Time {
    dropless_cc::from_secs(x)
}

/// Unused-import guard.
pub const _SECOND: Time = SECOND;
