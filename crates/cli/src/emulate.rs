//! `dropless emulate`: a bottleneck link in user space between two TUN
//! devices (`dropless_emu`), for real transfers over a long fat path.

use dropless_emu::probe_type::{MAPS, MAX_FLOWS, WINDOW};
use dropless_emu::{
    CrossConfig, CrossKind, IpIdOrder, Link, LinkConfig, PriceConfig, ProbeSource, QueueConfig,
};
use dropless_scenario::units::{self, fmt_rate};
use dropless_sim::codel::CodelConfig;
use dropless_sim::maxnet_price::MaxnetConfig;
use dropless_sim::pie::PieConfig;
use dropless_sim::rcp_price::{RcpConfig, RcpQueue};
use dropless_sim::red::RedConfig;
use dropless_sim::step_mark::StepConfig;

use crate::transfer::unit_arg;
use crate::Failure;

pub const EMULATE_HELP: &str = "\
Creates TUN devices A and B and forwards IP packets between them through one
emulated link per direction: the given rate, one-way delay, drop-tail buffer,
random loss and ECN step marking (ECT packets are set to CE when more than
--mark-above bytes are queued), and a queue discipline in each direction
(--queue red, codel, pie or step: the simulator's own RED, CoDel, PIE and
DCTCP step deciding on the real packets; with --aqm-ecn they set ECT packets
to CE, fixing the IPv4 header checksum, and drop the others). Runs until interrupted (Ctrl-C, SIGTERM), then
prints each direction's counters, with how late the packets were handed over
against their due time (the emulator's own timing error: packet spacing
measured behind it, such as a packet pair's dispersion, carries it; --spin
keeps it small). Needs root. Move the devices into two network namespaces and
address them; scripts/netns-path.sh does all of it and runs `dropless
send`/`recv` across.

Examples:
  dropless emulate --rate 100Mbps --delay 25ms --buffer 625kB
  dropless emulate --rate 1Gbps --delay 50ms --buffer 12.5MB --mark-above 1MB
  dropless emulate --rate 100Mbps --delay 10ms --buffer 100kB --loss 0.001 --seed 7
  dropless emulate --rate 100Mbps --delay 25ms --buffer 625kB --reorder 0.1 --reorder-delay 400us
  dropless emulate --rate 1Gbps --delay 40ms --buffer 10MB --cross poisson:500Mbps
  dropless emulate --rate 50Mbps --delay 20ms --buffer 500kB --queue codel --aqm-ecn
  dropless emulate --rate 100Mbps --delay 50ms --buffer 3MB --queue red --red-min-th 100 --red-max-th 300 --red-max-p 0.002";

/// Arguments of `dropless emulate`.
#[derive(clap::Args, Debug)]
pub struct EmulateArgs {
    /// Link rate in each direction, e.g. 100Mbps, 1Gbps
    #[arg(long)]
    pub rate: String,
    /// One-way propagation delay in each direction, e.g. 25ms
    #[arg(long)]
    pub delay: String,
    /// Drop-tail buffer in each direction, e.g. 625kB
    #[arg(long)]
    pub buffer: String,
    /// Probability that a packet is lost (both directions)
    #[arg(long, default_value_t = 0.0)]
    pub loss: f64,
    /// Mark ECT packets CE above this queue, e.g. 100kB (default: never)
    #[arg(long, value_name = "SIZE")]
    pub mark_above: Option<String>,
    /// Seed of the random loss and reordering
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Probability that a packet is delivered --reorder-delay late, behind
    /// the packets after it (both directions)
    #[arg(long, default_value_t = 0.0)]
    pub reorder: f64,
    /// How late a reordered packet arrives, e.g. 1ms
    #[arg(long, default_value = "1ms", requires = "reorder")]
    pub reorder_delay: String,
    /// Busy-poll for this long before each delivery instead of sleeping
    /// through it (0s: sleep only, and let the wake-up be late)
    #[arg(long, default_value = "100us")]
    pub spin: String,
    /// Name of TUN device A
    #[arg(long, default_value = "dlemu-a")]
    pub tun_a: String,
    /// Name of TUN device B
    #[arg(long, default_value = "dlemu-b")]
    pub tun_b: String,
    /// Open-loop cross traffic in the A -> B direction: KIND:RATE[:SIZE],
    /// KIND constant, poisson or pareto (on/off, shape 1.5, mean on and off
    /// 500 ms), e.g. poisson:500Mbps or constant:100Mbps:576B
    #[arg(long, value_name = "KIND:RATE[:SIZE]")]
    pub cross: Option<String>,
    /// Queue discipline in each direction: droptail, red, codel, pie or step
    #[arg(long, default_value = "droptail")]
    pub queue: String,
    /// Set ECN-capable packets to CE instead of dropping them (red, codel,
    /// pie; step always marks them)
    #[arg(long)]
    pub aqm_ecn: bool,
    /// RED's lower threshold, packets (default 5)
    #[arg(long)]
    pub red_min_th: Option<f64>,
    /// RED's upper threshold, packets (default 3 red-min-th)
    #[arg(long)]
    pub red_max_th: Option<f64>,
    /// RED's max_p (default 0.1)
    #[arg(long)]
    pub red_max_p: Option<f64>,
    /// RED signals only when at least this many packets wait (default 2,
    /// ns-2's qlen > 1; 0 tests every arrival, as the 1993 paper)
    #[arg(long)]
    pub red_min_queue: Option<u32>,
    /// CoDel's target sojourn, e.g. 5ms (RFC 8289's default)
    #[arg(long)]
    pub codel_target: Option<String>,
    /// CoDel's interval, e.g. 100ms (RFC 8289's default)
    #[arg(long)]
    pub codel_interval: Option<String>,
    /// PIE's target queueing delay, e.g. 15ms (RFC 8033's default)
    #[arg(long)]
    pub pie_target: Option<String>,
    /// The step's K: packets waiting above which ECT packets are marked
    /// (default 20)
    #[arg(long)]
    pub step_k: Option<u64>,
    /// The price each direction computes and marks in ADPM-capable dropless
    /// data packets (ECN 01 -> 10): none, rcp (RCP's rate as ADPM's price,
    /// for `dropless send --cc rcp --insecure`) or maxnet (MaxNet's cost,
    /// thesis eq. (5.6), for `dropless send --cc maxnet --insecure`)
    #[arg(long, default_value = "none")]
    pub price: String,
    /// RCP's or MaxNet's mean round trip d, e.g. 100ms (default 100ms)
    #[arg(long)]
    pub price_rtt: Option<String>,
    /// RCP's or MaxNet's update interval T, e.g. 10ms (default 10ms)
    #[arg(long)]
    pub price_interval: Option<String>,
    /// RCP's gain on spare capacity, or MaxNet's gain alpha (default 0.1)
    #[arg(long)]
    pub price_alpha: Option<f64>,
    /// RCP's gain on the queue (default 1)
    #[arg(long)]
    pub price_beta: Option<f64>,
    /// The queue RCP's beta term reads: instant (at the update, the
    /// default) or min (the interval's smallest, the standing queue)
    #[arg(long)]
    pub price_queue: Option<String>,
    /// MaxNet's target aggregate rate as a fraction of the link's rate, in
    /// (0, 1] (default 1)
    #[arg(long)]
    pub price_target: Option<f64>,
    /// Where the price takes ADPM's probe type from: packet-number (the
    /// dropless data header's packet number, what `dropless recv` decodes
    /// with; the default) or ip-id (the IPv4 header's IP ID, as the thesis
    /// does, marking any IPv4 packet with ECN 01; also records the probe
    /// types per flow and prints a line per flow at the end)
    #[arg(long, value_name = "SOURCE")]
    pub probe_type: Option<String>,
    /// How --probe-type ip-id reads the IP ID's two bytes: network (as on
    /// the wire, big-endian; the default) or host (little-endian, swapped)
    #[arg(long, value_name = "ORDER")]
    pub ip_id_order: Option<String>,
    /// With --probe-type ip-id: write the recorded probe-type histograms
    /// (per direction, flow and byte order; 1024 bins) to this CSV file at
    /// the end
    #[arg(long, value_name = "FILE")]
    pub probe_histogram: Option<std::path::PathBuf>,
}

/// `--probe-type`, `--ip-id-order` and `--probe-histogram`: each needs a
/// price, and the last two need `--probe-type ip-id`.
fn probe_arg(a: &EmulateArgs) -> Result<ProbeSource, Failure> {
    let given = [
        ("probe-type", a.probe_type.is_some()),
        ("ip-id-order", a.ip_id_order.is_some()),
        ("probe-histogram", a.probe_histogram.is_some()),
    ];
    if a.price == "none" {
        if let Some((flag, _)) = given.iter().find(|(_, g)| *g) {
            return Err(Failure::Input(format!(
                "--{flag}: needs --price rcp or maxnet"
            )));
        }
    }
    let ip_id = match a.probe_type.as_deref() {
        None | Some("packet-number") => false,
        Some("ip-id") => true,
        Some(other) => {
            return Err(Failure::Input(format!(
                "--probe-type: found {other:?}, expected packet-number or ip-id"
            )))
        }
    };
    if !ip_id {
        if let Some((flag, _)) = given[1..].iter().find(|(_, g)| *g) {
            return Err(Failure::Input(format!(
                "--{flag}: needs --probe-type ip-id"
            )));
        }
        return Ok(ProbeSource::PacketNumber);
    }
    let order = match a.ip_id_order.as_deref() {
        None | Some("network") => IpIdOrder::Network,
        Some("host") => IpIdOrder::Host,
        Some(other) => {
            return Err(Failure::Input(format!(
                "--ip-id-order: found {other:?}, expected network or host"
            )))
        }
    };
    if let Some(p) = &a.probe_histogram {
        // Refused before any device is created; written at the end.
        let dir = p.parent().filter(|d| !d.as_os_str().is_empty());
        if p.file_name().is_none() || dir.is_some_and(|d| !d.is_dir()) {
            return Err(Failure::Input(format!(
                "--probe-histogram: {:?} is not a file in an existing directory",
                p.display().to_string()
            )));
        }
    }
    Ok(ProbeSource::IpId(order))
}

/// The summary lines of the probe types a direction derived from IP IDs:
/// per flow, for each byte order (and the thesis's variant map), ADPM's
/// mean error over windows of 1024 packets (E14's criterion) and the
/// histogram's chi-square per degree of freedom.
fn probe_lines(dir: &str, l: &Link) -> Vec<String> {
    let Some(r) = l.probe_record() else {
        return Vec::new();
    };
    let mut out: Vec<String> = r
        .flows
        .iter()
        .map(|f| {
            let maps: Vec<String> = MAPS
                .iter()
                .zip(&f.maps)
                .map(|(name, m)| {
                    let e = |v: Option<f64>| v.map_or("-".to_string(), |v| format!("{v:.3e}"));
                    format!(
                        "{name}: mean error {} (worst window {}), chi2/df {}",
                        e(m.mean_error()),
                        if m.windows > 0 { format!("{:.3e}", m.error_max) } else { "-".into() },
                        m.chi2_per_df().map_or("-".to_string(), |c| format!("{c:.3}"))
                    )
                })
                .collect();
            format!(
                "{dir} probe types from the IP ID, flow {}: {} packets, {} with IP ID 0, {} windows of {} packets; {}",
                f.key,
                f.packets,
                f.zero_ids,
                f.maps[0].windows,
                WINDOW,
                maps.join("; ")
            )
        })
        .collect();
    if r.untracked > 0 {
        out.push(format!(
            "{dir} probe types from the IP ID: {} packets of flows beyond the first {MAX_FLOWS} not recorded",
            r.untracked
        ));
    }
    out
}

/// Writes the probe-type histograms of both directions as CSV
/// (`direction,flow,order,bin,count`), through a temporary file renamed
/// into place, so that no partial file is left behind.
fn write_histograms(path: &std::path::Path, links: &[(&str, &Link)]) -> Result<(), Failure> {
    use std::fmt::Write as _;
    let mut s = String::from("direction,flow,order,bin,count\n");
    for (dir, l) in links {
        for f in l.probe_record().map_or(&[][..], |r| &r.flows[..]) {
            for (name, m) in MAPS.iter().zip(&f.maps) {
                for (bin, n) in m.hist.iter().enumerate() {
                    let _ = writeln!(s, "{dir},{},{name},{bin},{n}", f.key);
                }
            }
        }
    }
    let tmp = path.with_extension("partial");
    let fail =
        |e: std::io::Error| Failure::Run(format!("--probe-histogram: {}: {e}", path.display()));
    std::fs::write(&tmp, s).map_err(fail)?;
    std::fs::rename(&tmp, path).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        fail(e)
    })
}

/// `--price` and its flags; a `--price-*` flag the chosen price does not
/// take is refused, naming the prices that take it.
fn price_arg(a: &EmulateArgs) -> Result<PriceConfig, Failure> {
    // Each flag and the prices that take it.
    let given = [
        ("price-rtt", a.price_rtt.is_some(), "rcp or maxnet"),
        (
            "price-interval",
            a.price_interval.is_some(),
            "rcp or maxnet",
        ),
        ("price-alpha", a.price_alpha.is_some(), "rcp or maxnet"),
        ("price-beta", a.price_beta.is_some(), "rcp"),
        ("price-queue", a.price_queue.is_some(), "rcp"),
        ("price-target", a.price_target.is_some(), "maxnet"),
    ];
    let price = a.price.as_str();
    if !["none", "rcp", "maxnet"].contains(&price) {
        return Err(Failure::Input(format!(
            "--price: found {price:?}, expected none, rcp or maxnet"
        )));
    }
    if let Some((flag, _, takes)) = given
        .iter()
        .find(|(_, g, takes)| *g && !takes.split(" or ").any(|t| t == price))
    {
        return Err(Failure::Input(format!("--{flag}: needs --price {takes}")));
    }
    let time = |flag: &str, v: &Option<String>, dflt: u64| {
        v.as_deref()
            .map_or(Ok(dflt), |v| unit_arg(flag, v, units::parse_time))
    };
    // `--price-rtt` and `--price-interval`, which both prices take.
    let clock = |rtt_s: f64, interval: u64| -> Result<(f64, u64), Failure> {
        let rtt = time("price-rtt", &a.price_rtt, (rtt_s * 1e9) as u64)?;
        Ok((
            rtt as f64 / 1e9,
            time("price-interval", &a.price_interval, interval)?,
        ))
    };
    match price {
        "rcp" => {
            let d = RcpConfig::default();
            let (rtt_s, interval) = clock(d.rtt_s, d.interval)?;
            Ok(PriceConfig::Rcp(RcpConfig {
                rtt_s,
                interval,
                alpha: a.price_alpha.unwrap_or(d.alpha),
                beta: a.price_beta.unwrap_or(d.beta),
                queue: match a.price_queue.as_deref() {
                    None | Some("instant") => RcpQueue::Instant,
                    Some("min") => RcpQueue::Min,
                    Some(other) => {
                        return Err(Failure::Input(format!(
                            "--price-queue: found {other:?}, expected instant or min"
                        )))
                    }
                },
            }))
        }
        "maxnet" => {
            let d = MaxnetConfig::default();
            let (rtt_s, interval) = clock(d.rtt_s, d.interval)?;
            Ok(PriceConfig::Maxnet(MaxnetConfig {
                rtt_s,
                interval,
                alpha: a.price_alpha.unwrap_or(d.alpha),
                target: a.price_target.unwrap_or(d.target),
            }))
        }
        _ => Ok(PriceConfig::None),
    }
}

/// `--queue` and its discipline's flags; a flag of another discipline is
/// refused, naming it.
fn queue_arg(a: &EmulateArgs) -> Result<QueueConfig, Failure> {
    let given: [(&str, bool); 8] = [
        ("red-min-th", a.red_min_th.is_some()),
        ("red-min-queue", a.red_min_queue.is_some()),
        ("red-max-th", a.red_max_th.is_some()),
        ("red-max-p", a.red_max_p.is_some()),
        ("codel-target", a.codel_target.is_some()),
        ("codel-interval", a.codel_interval.is_some()),
        ("pie-target", a.pie_target.is_some()),
        ("step-k", a.step_k.is_some()),
    ];
    let prefix = match a.queue.as_str() {
        "droptail" => "-",
        "red" => "red-",
        "codel" => "codel-",
        "pie" => "pie-",
        "step" => "step-",
        q => {
            return Err(Failure::Input(format!(
                "--queue: found {q:?}, expected droptail, red, codel, pie or step"
            )))
        }
    };
    if let Some((flag, _)) = given.iter().find(|(f, g)| *g && !f.starts_with(prefix)) {
        return Err(Failure::Input(format!(
            "--{flag}: not a parameter of --queue {}",
            a.queue
        )));
    }
    if a.aqm_ecn && a.queue == "droptail" {
        return Err(Failure::Input(
            "--aqm-ecn: needs --queue red, codel, pie or step (use --mark-above to mark a drop-tail queue)".into(),
        ));
    }
    let time = |flag: &str, v: &Option<String>, d: dropless_cc::Time| {
        v.as_deref()
            .map_or(Ok(d), |v| unit_arg(flag, v, units::parse_time))
    };
    let q = match a.queue.as_str() {
        "red" => {
            let d = RedConfig::default();
            let min_th = a.red_min_th.unwrap_or(5.0);
            QueueConfig::Red(RedConfig {
                min_th,
                max_th: a.red_max_th.unwrap_or(3.0 * min_th),
                max_p: a.red_max_p.unwrap_or(d.max_p),
                min_queue: a.red_min_queue.unwrap_or(d.min_queue),
                ecn: a.aqm_ecn,
                ..d
            })
        }
        "codel" => {
            let d = CodelConfig::default();
            QueueConfig::Codel(CodelConfig {
                target: time("codel-target", &a.codel_target, d.target)?,
                interval: time("codel-interval", &a.codel_interval, d.interval)?,
                ecn: a.aqm_ecn,
            })
        }
        "pie" => {
            let d = PieConfig::default();
            QueueConfig::Pie(PieConfig {
                target: time("pie-target", &a.pie_target, d.target)?,
                ecn: a.aqm_ecn,
                ..d
            })
        }
        "step" => QueueConfig::Step(StepConfig {
            k: a.step_k.unwrap_or(StepConfig::default().k),
            ecn: true,
        }),
        _ => QueueConfig::DropTail,
    };
    q.validate().map_err(|e| Failure::Input(format!("--{e}")))?;
    Ok(q)
}

/// `--cross KIND:RATE[:SIZE]`.
fn cross_arg(v: &str, seed: u64) -> Result<CrossConfig, Failure> {
    let bad = |why: String| {
        Failure::Input(format!(
            "--cross: found {v:?}, expected KIND:RATE[:SIZE] with KIND constant, poisson or pareto (e.g. poisson:500Mbps){why}"
        ))
    };
    let parts: Vec<&str> = v.split(':').collect();
    if !(2..=3).contains(&parts.len()) {
        return Err(bad(String::new()));
    }
    let kind = match parts[0] {
        "constant" => CrossKind::Constant,
        "poisson" => CrossKind::Poisson,
        "pareto" => CrossKind::ParetoOnOff {
            shape: 1.5,
            mean_on: 500 * dropless_cc::MILLISECOND,
            mean_off: 500 * dropless_cc::MILLISECOND,
        },
        k => return Err(bad(format!("; unknown kind {k:?}"))),
    };
    let rate_bps = units::parse_rate(parts[1]).map_err(|e| bad(format!("; rate: {e}")))?;
    let packet_bytes = match parts.get(2) {
        None => 1500,
        Some(p) => {
            let b = units::parse_size(p).map_err(|e| bad(format!("; size: {e}")))?;
            u32::try_from(b).map_err(|_| bad("; size too large".into()))?
        }
    };
    let c = CrossConfig {
        kind,
        rate_bps,
        packet_bytes,
        seed,
    };
    c.validate().map_err(|e| bad(format!("; {e}")))?;
    Ok(c)
}

fn config(a: &EmulateArgs, seed: u64) -> Result<LinkConfig, Failure> {
    let cfg = LinkConfig {
        rate_bps: unit_arg("rate", &a.rate, units::parse_rate)?,
        delay: unit_arg("delay", &a.delay, units::parse_time)?,
        buffer_bytes: unit_arg("buffer", &a.buffer, units::parse_size)?,
        loss: a.loss,
        mark_above: a
            .mark_above
            .as_deref()
            .map(|v| unit_arg("mark-above", v, units::parse_size))
            .transpose()?,
        seed,
        reorder: a.reorder,
        reorder_delay: unit_arg("reorder-delay", &a.reorder_delay, units::parse_time)?,
        cross: None,
        queue: queue_arg(a)?,
        price: price_arg(a)?,
        probe: probe_arg(a)?,
    };
    cfg.validate()
        .map_err(|e| Failure::Input(format!("--{e}")))?;
    Ok(cfg)
}

fn line(dir: &str, l: &Link) -> String {
    let s = l.stats();
    let late = l.lateness();
    let us = |t: u64| t as f64 / 1e3;
    let price_name = match l.config().price {
        PriceConfig::Maxnet(_) => "MaxNet",
        _ => "RCP",
    };
    format!(
        "{dir}: {} packets in, {} out ({} bytes), {} dropped at the full buffer, {} lost at random, {} CE-marked, {} reordered, max queue {} bytes, delivered late by median {:.1} us, 99th percentile {:.1} us, max {:.1} us{}{}{}",
        s.packets_in, s.packets_out, s.bytes_out, s.overflows, s.lost, s.marked, s.reordered, s.max_queue_bytes,
        us(late.median), us(late.p99), us(late.max),
        if l.config().queue != QueueConfig::DropTail && s.aqm_queued > 0 {
            let span = (s.last_arrival - s.first_arrival).max(1) as f64;
            format!(
                "; {}: {} dropped, {} packets queued, mean sojourn {:.3} ms, mean waiting {:.2} packets, standing sojourn {:.3} ms (smallest per 100 ms, {} windows)",
                l.config().queue.name(),
                s.aqm_drops,
                s.aqm_queued,
                s.sojourn_sum_ns as f64 / s.aqm_queued as f64 / 1e6,
                s.sojourn_sum_ns as f64 / span,
                s.standing_sum_ns as f64 / s.standing_windows.max(1) as f64 / 1e6,
                s.standing_windows
            )
        } else {
            String::new()
        },
        match (l.price_rate_bps(), l.price_totals()) {
            (Some(r), Some(t)) => {
                let n = t.updates.max(1) as f64;
                format!(
                    "; price: {} packets price-marked, {} rate now {}, over {} updates mean rate {}, mean input {}, mean queue {:.0} bytes",
                    s.price_marked,
                    price_name,
                    fmt_rate(r),
                    t.updates,
                    fmt_rate(t.rate_bps / n),
                    fmt_rate(t.input_bps / n),
                    t.queue_bytes / n
                )
            }
            _ => String::new(),
        },
        if l.config().cross.is_some() {
            let span = s.cross_last.saturating_sub(s.cross_first) as f64 / 1e9;
            format!(
                "; cross traffic: {} packets queued, {} dropped at the full buffer, {} bytes offered over {:.3} s (mean {})",
                s.cross_in,
                s.cross_overflows,
                s.cross_bytes,
                span,
                if span > 0.0 { fmt_rate(s.cross_bytes as f64 * 8.0 / span) } else { "-".to_string() }
            )
        } else {
            String::new()
        }
    )
}

/// `--tun-a` and `--tun-b`: two different interface names the kernel
/// takes (1 to 15 bytes, no `/`, whitespace or `:`), refused before any
/// device is created.
fn tun_names(a: &EmulateArgs) -> Result<(), Failure> {
    for (flag, n) in [("--tun-a", &a.tun_a), ("--tun-b", &a.tun_b)] {
        let bad = n.is_empty()
            || n.len() > 15
            || n == "."
            || n == ".."
            || n.chars()
                .any(|c| c == '/' || c == ':' || c.is_whitespace() || c.is_control());
        if bad {
            return Err(Failure::Input(format!(
                "{flag}: found {n:?}, expected an interface name of 1 to 15 bytes without '/', ':' or spaces"
            )));
        }
    }
    if a.tun_a == a.tun_b {
        return Err(Failure::Input(format!(
            "--tun-a and --tun-b: both {:?}, expected two different names",
            a.tun_a
        )));
    }
    Ok(())
}

#[cfg(target_os = "linux")]
pub fn emulate(a: &EmulateArgs) -> Result<(), Failure> {
    use dropless_emu::tun::{run, Tun};
    // The two directions draw independent loss decisions.
    let mut ab = config(a, a.seed)?;
    ab.cross = a
        .cross
        .as_deref()
        .map(|v| cross_arg(v, a.seed ^ 0xC0FF_EE00))
        .transpose()?;
    let ba = config(a, a.seed ^ 0x9E37_79B9_7F4A_7C15)?;
    let spin = unit_arg("spin", &a.spin, units::parse_time)?;
    tun_names(a)?;
    let run_err = |e: anyhow::Error| Failure::Run(format!("{e:#}"));
    let mut ta = Tun::create(&a.tun_a).map_err(run_err)?;
    let mut tb = Tun::create(&a.tun_b).map_err(run_err)?;
    eprintln!(
        "emulating {} each way, {} one-way delay, {} bytes of buffer between {} and {} (Ctrl-C ends)",
        fmt_rate(ab.rate_bps),
        units::fmt_time(ab.delay),
        ab.buffer_bytes,
        ta.name(),
        tb.name()
    );
    let (mut lab, mut lba) = (Link::new(ab), Link::new(ba));
    run(&mut ta, &mut tb, &mut lab, &mut lba, spin).map_err(run_err)?;
    let (dab, dba) = (
        format!("{} -> {}", a.tun_a, a.tun_b),
        format!("{} -> {}", a.tun_b, a.tun_a),
    );
    println!("{}", line(&dab, &lab));
    println!("{}", line(&dba, &lba));
    for l in probe_lines(&dab, &lab)
        .into_iter()
        .chain(probe_lines(&dba, &lba))
    {
        println!("{l}");
    }
    if let Some(p) = &a.probe_histogram {
        write_histograms(p, &[(&dab, &lab), (&dba, &lba)])?;
    }
    Ok(())
}

#[cfg(not(target_os = "linux"))]
pub fn emulate(a: &EmulateArgs) -> Result<(), Failure> {
    config(a, a.seed)?;
    a.cross
        .as_deref()
        .map(|v| cross_arg(v, a.seed))
        .transpose()?;
    unit_arg("spin", &a.spin, units::parse_time)?;
    Err(Failure::Run(
        "dropless emulate needs Linux TUN devices".to_string(),
    ))
}
