//! `dropless emulate`: a bottleneck link in user space between two TUN
//! devices (`dropless_emu`), for real transfers over a long fat path.

use dropless_emu::{CrossConfig, CrossKind, Link, LinkConfig};
use dropless_scenario::units::{self, fmt_rate};

use crate::transfer::unit_arg;
use crate::Failure;

pub const EMULATE_HELP: &str = "\
Creates TUN devices A and B and forwards IP packets between them through one
emulated link per direction: the given rate, one-way delay, drop-tail buffer,
random loss and ECN step marking (ECT packets are set to CE when more than
--mark-above bytes are queued). Runs until interrupted (Ctrl-C, SIGTERM), then
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
  dropless emulate --rate 1Gbps --delay 40ms --buffer 10MB --cross poisson:500Mbps";

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
    #[arg(long, default_value = "1ms")]
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
    };
    cfg.validate()
        .map_err(|e| Failure::Input(format!("--{e}")))?;
    Ok(cfg)
}

fn line(dir: &str, l: &Link) -> String {
    let s = l.stats();
    let late = l.lateness();
    let us = |t: u64| t as f64 / 1e3;
    format!(
        "{dir}: {} packets in, {} out ({} bytes), {} dropped at the full buffer, {} lost at random, {} CE-marked, {} reordered, max queue {} bytes, delivered late by median {:.1} us, 99th percentile {:.1} us, max {:.1} us{}",
        s.packets_in, s.packets_out, s.bytes_out, s.overflows, s.lost, s.marked, s.reordered, s.max_queue_bytes,
        us(late.median), us(late.p99), us(late.max),
        if l.config().cross.is_some() {
            format!("; cross traffic: {} packets queued, {} dropped at the full buffer", s.cross_in, s.cross_overflows)
        } else {
            String::new()
        }
    )
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
    println!("{}", line(&format!("{} -> {}", a.tun_a, a.tun_b), &lab));
    println!("{}", line(&format!("{} -> {}", a.tun_b, a.tun_a), &lba));
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
