//! RFC 3168's response to CE for every loss-based controller, through the
//! transport (where the once-per-window rule lives): a CE echo starts a
//! congestion event that reduces the window as the controller reduces it
//! for a loss (RFC 3168 §6.1.2; DCTCP: by alpha/2, RFC 8257 §3.3), at most
//! once per window of data however many packets of that window were
//! marked, and again for a mark in the next window.

use std::sync::{Arc, Mutex};

use dropless_cc::registry::build;
use dropless_cc::{
    AckSample, CongestionCause, CongestionEvent, ConnInfo, Control, Controller, PacketFlags, Time,
    MILLISECOND,
};
use dropless_transport::{AckPacket, Sender, SenderConfig};

/// One call the transport made on the controller.
#[derive(Clone, Debug)]
enum Call {
    Ack(Time, AckSample),
    Event(Time, CongestionEvent),
    RecoveryEnd(Time),
    Rto(Time),
    Send(Time, u64, bool, u32),
    Timer(Time),
}

/// One congestion event: its cause, the window before and after it, and
/// the controller's alpha before it (NaN if it has none).
type Cut = (CongestionCause, f64, f64, f64);

/// Forwards every call to the controller and records it, with the window
/// before and after each congestion event.
struct Recorder {
    inner: Box<dyn Controller>,
    log: Arc<Mutex<Vec<Call>>>,
    cuts: Arc<Mutex<Vec<Cut>>>,
}

fn cwnd(c: &dyn Controller) -> f64 {
    c.control().cwnd.expect("a window controller")
}

fn trace(c: &dyn Controller, name: &str) -> f64 {
    let mut v = Vec::new();
    c.trace_vars(&mut v);
    v.iter().find(|(k, _)| *k == name).map_or(f64::NAN, |x| x.1)
}

impl Controller for Recorder {
    fn name(&self) -> &'static str {
        self.inner.name()
    }
    fn control(&self) -> Control {
        self.inner.control()
    }
    fn on_ack(&mut self, now: Time, ack: &AckSample) {
        self.log.lock().unwrap().push(Call::Ack(now, *ack));
        self.inner.on_ack(now, ack);
    }
    fn on_congestion_event(&mut self, now: Time, ev: &CongestionEvent) {
        self.log.lock().unwrap().push(Call::Event(now, *ev));
        let before = cwnd(&*self.inner);
        let alpha = trace(&*self.inner, "alpha");
        self.inner.on_congestion_event(now, ev);
        self.cuts
            .lock()
            .unwrap()
            .push((ev.cause, before, cwnd(&*self.inner), alpha));
    }
    fn on_recovery_end(&mut self, now: Time) {
        self.log.lock().unwrap().push(Call::RecoveryEnd(now));
        self.inner.on_recovery_end(now);
    }
    fn on_rto(&mut self, now: Time) {
        self.log.lock().unwrap().push(Call::Rto(now));
        self.inner.on_rto(now);
    }
    fn on_send(&mut self, now: Time, seq: u64, retransmit: bool, in_flight: u32) -> PacketFlags {
        self.log
            .lock()
            .unwrap()
            .push(Call::Send(now, seq, retransmit, in_flight));
        self.inner.on_send(now, seq, retransmit, in_flight)
    }
    fn timer(&self) -> Option<Time> {
        self.inner.timer()
    }
    fn on_timer(&mut self, now: Time) {
        self.log.lock().unwrap().push(Call::Timer(now));
        self.inner.on_timer(now);
    }
    fn wants_delivery_rate(&self) -> bool {
        self.inner.wants_delivery_rate()
    }
}

/// The loss-based controllers of the registry (window controllers that
/// reduce on a congestion event).
const LOSS_BASED: &[&str] = &[
    "newreno",
    "dctcp",
    "highspeed",
    "scalable",
    "bic",
    "cubic",
    "acwap-highspeed",
    "acwap-scalable",
    "acwap-bic",
];

/// An ACK of everything below `cum`, echoing packet `cum - 1` sent at
/// `ts`, reporting `ce` CE marks in all.
fn ack(cum: u64, ts: Time, ce: u64) -> AckPacket {
    AckPacket {
        cum_ack: cum,
        echo_seq: cum - 1,
        ts_echo: ts,
        ce_count: ce,
        ..AckPacket::default()
    }
}

struct Run {
    cuts: Vec<Cut>,
    log: Vec<Call>,
    /// Marked packets acknowledged in the first event's window (below its
    /// recovery point).
    marked_in_first: u64,
}

/// A lossless path of 100 ms RTT, every packet acknowledged in order.
/// Rounds 0-2 unmarked; from round 3 on every acknowledged packet is
/// marked until the first event's window has been acknowledged, then
/// one round unmarked, then one more marked packet.
fn run(name: &str) -> Run {
    let log = Arc::new(Mutex::new(Vec::new()));
    let cuts = Arc::new(Mutex::new(Vec::new()));
    let inner = build(name, &[], &ConnInfo::default()).unwrap();
    let rec = Recorder {
        inner,
        log: log.clone(),
        cuts: cuts.clone(),
    };
    let mut s = Sender::new(SenderConfig::default(), Box::new(rec), 0);
    let rtt = 100 * MILLISECOND;
    let mut sent: Vec<Time> = Vec::new();
    let mut now = 0;
    let mut ce = 0u64;
    let mut acked = 0u64;
    let mut marked_in_first = 0;
    let mut first_window_end = None;
    let mut extra_marked = false;
    for round in 0..8u64 {
        while let Some(p) = s.poll_transmit(now) {
            assert_eq!(p.seq as usize, sent.len());
            sent.push(now);
        }
        let upto = sent.len() as u64;
        let t0 = now;
        let n = upto - acked;
        for (i, seq) in (acked..upto).enumerate() {
            now = t0 + rtt * (i as u64 + 1) / n;
            let mark = match first_window_end {
                _ if round < 3 => false,
                None => true,
                Some(end) if seq < end => true,
                Some(_) if round >= 6 && !extra_marked => {
                    extra_marked = true;
                    true
                }
                Some(_) => false,
            };
            if mark {
                ce += 1;
            }
            s.handle_ack(now, &ack(seq + 1, sent[seq as usize], ce));
            if mark && first_window_end.is_some_and(|e| seq < e) {
                marked_in_first += 1;
            }
            if first_window_end.is_none() && s.in_recovery() {
                // The event's recovery point: the packets sent so far.
                first_window_end = Some(s.next_seq());
                marked_in_first = 1;
            }
            while let Some(p) = s.poll_transmit(now) {
                sent.push(now);
                assert_eq!(p.seq as usize + 1, sent.len());
            }
            acked = seq + 1;
        }
    }
    assert!(extra_marked, "{name}: the run reached the second mark");
    let cuts = cuts.lock().unwrap().clone();
    let log = log.lock().unwrap().clone();
    Run {
        cuts,
        log,
        marked_in_first,
    }
}

/// Replays the calls into a fresh controller, each ECN event turned into a
/// loss event, and returns the window after each event.
fn replay_as_loss(name: &str, log: &[Call]) -> Vec<f64> {
    let mut c = build(name, &[], &ConnInfo::default()).unwrap();
    let mut after = Vec::new();
    for call in log {
        match *call {
            Call::Ack(t, a) => c.on_ack(t, &a),
            Call::Event(t, mut ev) => {
                ev.cause = CongestionCause::Loss;
                c.on_congestion_event(t, &ev);
                after.push(cwnd(&*c));
            }
            Call::RecoveryEnd(t) => c.on_recovery_end(t),
            Call::Rto(t) => c.on_rto(t),
            Call::Send(t, seq, r, f) => {
                c.on_send(t, seq, r, f);
            }
            Call::Timer(t) => c.on_timer(t),
        }
    }
    after
}

#[test]
fn a_ce_mark_cuts_the_window_once_per_window_of_data_for_every_loss_based_controller() {
    for &name in LOSS_BASED {
        let r = run(name);
        // Every packet of the first event's window was marked, and one
        // more after it: two events, both ECN, never one per mark.
        assert!(
            r.marked_in_first > 10,
            "{name}: {} marks in the window",
            r.marked_in_first
        );
        assert_eq!(r.cuts.len(), 2, "{name}: {:?}", r.cuts);
        for &(cause, before, after, alpha) in &r.cuts {
            assert_eq!(cause, CongestionCause::Ecn, "{name}");
            assert!(after < before, "{name}: {before} -> {after}");
            if name == "dctcp" {
                // RFC 8257 §3.3: cwnd (1 - alpha/2).
                let want = (before * (1.0 - alpha / 2.0)).max(2.0);
                assert!((after - want).abs() < 1e-9, "{name}: {after} vs {want}");
            }
        }
        if name != "dctcp" {
            // RFC 3168 §6.1.2: the same response as to a loss.
            let as_loss = replay_as_loss(name, &r.log);
            let got: Vec<f64> = r.cuts.iter().map(|c| c.2).collect();
            assert_eq!(got, as_loss, "{name}");
        }
    }
}
