//! 50 MB over 127.0.0.1 with real controllers from the registry, and with
//! deterministic artificial loss.

mod common;

use common::*;
use dropless_cc::{registry, Controller};
use dropless_udp::{conn_info, SendOptions, TransferReport};

const SIZE: usize = 50 * 1024 * 1024;

fn controller(name: &str, params: &[(String, f64)], mss: u32) -> Box<dyn Controller> {
    registry::build(name, params, &conn_info(mss)).expect("controller builds")
}

fn run(tag: &str, size: usize, cc: Box<dyn Controller>, sopts: &SendOptions) -> TransferReport {
    let _g = serial();
    let dir = TempDir::new(tag);
    let src = dir.path("in.bin");
    let dst = dir.path("out.bin");
    write_random_file(&src, size, 0xC0FFEE);
    let o = transfer(&src, &dst, cc, sopts, &recv_opts());
    let s = o.send.expect("sender succeeds");
    let r = o.recv.expect("receiver succeeds");
    assert_same_file(&src, &dst);
    assert_eq!(s.bytes, size as u64);
    assert_eq!(r.bytes, size as u64);
    assert_eq!(
        dir.list(),
        vec!["in.bin".to_string(), "out.bin".to_string()]
    );
    eprintln!(
        "[{tag}] wall {:.2} s\n  sender:   {s}\n  receiver: {r}",
        o.wall.as_secs_f64()
    );
    // The mean RTT is reported, in the right unit: no smaller than the
    // smallest sample and no longer than the transfer itself (wiring and
    // units only; its value over a real bottleneck is in the stop-13 note).
    let (min, mean) = (
        s.min_rtt.expect("RTT samples"),
        s.mean_rtt.expect("RTT samples"),
    );
    assert!(
        min <= mean && mean <= s.duration,
        "min rtt {min:?}, mean rtt {mean:?}, transfer {:?}",
        s.duration
    );
    s
}

#[test]
fn newreno_50mb() {
    let opts = SendOptions::default();
    run("newreno", SIZE, controller("newreno", &[], opts.mss), &opts);
}

#[test]
fn fast_50mb() {
    let opts = SendOptions::default();
    run(
        "fast",
        SIZE,
        controller("fast", &[("alpha".into(), 100.0)], opts.mss),
        &opts,
    );
}

/// NewReno over 1% deterministic loss, with the given recovery.
fn newreno_with_one_percent_loss(tag: &str, prr: bool) {
    let opts = SendOptions {
        debug_drop_every: Some(100),
        prr,
        ..Default::default()
    };
    let s = run(tag, SIZE, controller("newreno", &[], opts.mss), &opts);
    assert!(s.debug_dropped >= (SIZE / opts.mss as usize / 100) as u64);
    assert!(
        s.retransmits >= s.debug_dropped,
        "every dropped packet was resent"
    );
    assert!(s.congestion_events > 0);
    // The option reached the sender: every fast recovery (a congestion
    // event that was not a timeout) ran under PRR, or none did.
    if prr {
        assert!(s.prr_recoveries > 0, "{s}");
        assert!(s.prr_recoveries + s.rtos >= s.congestion_events, "{s}");
    } else {
        assert_eq!(s.prr_recoveries, 0, "{s}");
    }
}

#[test]
fn newreno_50mb_with_one_percent_loss() {
    newreno_with_one_percent_loss("loss", false);
}

/// The same with Proportional Rate Reduction (RFC 9937) in the recovery:
/// the file still arrives intact over real sockets.
#[test]
fn newreno_50mb_with_one_percent_loss_and_prr() {
    newreno_with_one_percent_loss("loss-prr", true);
}

#[test]
fn paced_sender_keeps_its_rate() {
    // Exercises the fine-grained wait: every departure is timed by the pacer
    // (one packet per ~233 µs at 50 Mbit/s on the wire).
    let opts = SendOptions::default();
    let wire = (opts.mss + dropless_udp::wire_overhead()) as f64;
    let rate = 50e6 / 8.0;
    let cc = Box::new(FixedRate { cwnd: 1000.0, rate });
    let size = 5 * 1024 * 1024;
    let s = run("paced", size, cc, &opts);
    let target_bps = rate * 8.0 * opts.mss as f64 / wire;
    let ratio = s.goodput_bps / target_bps;
    eprintln!("paced goodput / target = {ratio:.3}");
    // Never ahead of the rate: what load cannot change (a late wake-up
    // only delays, the pacer does not make up for it). How close to the
    // rate it stays is the machine's load's to decide (0.46 was measured
    // in a CI run at a load average of 12-15, where a lower bound of 0.5
    // stood), so it is not asserted here.
    assert!(ratio < 1.05, "goodput {:.1} Mbit/s", s.goodput_bps / 1e6);
}

/// TCP-Madison over loopback (issue 34's stall after 16,800 bytes): its
/// packet pairs must reach the receiver as datagrams of their own, or GRO
/// merges them, no dispersion is measured, start-up never ends and (before
/// the controller's fix) the window stayed at zero. The transfer completes,
/// and the controller left start-up (a capacity was measured), which does
/// not depend on the machine's load.
#[test]
fn madison_over_loopback_measures_its_pairs_and_completes() {
    {
        let opts = SendOptions {
            trace_every: Some(std::time::Duration::from_millis(20)),
            ..Default::default()
        };
        let s = run(
            "madison-loopback",
            2_000_000,
            controller("madison", &[], opts.mss),
            &opts,
        );
        let phase = s
            .trace
            .iter()
            .filter_map(|i| i.vars.iter().find(|v| v.0 == "phase").map(|v| v.1))
            .fold(0.0, f64::max);
        assert_eq!(
            phase, 1.0,
            "never left start-up: no pair dispersion measured"
        );
    }
}
