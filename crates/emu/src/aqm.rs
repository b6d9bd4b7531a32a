//! Active queue management on real IP packets: the simulator's RED, CoDel,
//! PIE and step-marking disciplines (`dropless_sim::{red, codel, pie,
//! step_mark}`, one implementation for both) deciding on the packets of an
//! emulated [`crate::Link`].
//!
//! The emulated link knows, when a packet arrives, when its service will
//! start (a FIFO at a fixed rate), so each discipline is asked at arrival
//! exactly as the simulator's links ask it: RED with the packets waiting
//! and the idle time, CoDel with the packet's sojourn at its known dequeue
//! instant, PIE with the backlog's drain time, the step with the packets
//! waiting. A packet to be marked is set to CE in its IPv4 header (the
//! header checksum updated, [`crate::mark_ce`]) if it is ECN-capable (ECT(0)
//! or ECT(1)); every other packet the discipline signals (Not-ECT, IPv6,
//! anything that is not IPv4) is dropped.

use dropless_cc::Time;
use dropless_sim::codel::{Codel, CodelConfig};
use dropless_sim::pie::{Pie, PieConfig};
use dropless_sim::red::{Red, RedConfig, Verdict};
use dropless_sim::step_mark::{StepConfig, StepMark};

/// The queue discipline of one emulated direction.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum QueueConfig {
    /// Drop-tail only (the buffer), the default.
    #[default]
    DropTail,
    /// RED (Floyd and Jacobson 1993) on the packets waiting.
    Red(RedConfig),
    /// CoDel (RFC 8289).
    Codel(CodelConfig),
    /// PIE (RFC 8033).
    Pie(PieConfig),
    /// DCTCP's step (RFC 8257 §3.1): more than `k` packets waiting.
    Step(StepConfig),
}

impl QueueConfig {
    /// The discipline's name as `--queue` takes it.
    pub fn name(&self) -> &'static str {
        match self {
            QueueConfig::DropTail => "droptail",
            QueueConfig::Red(_) => "red",
            QueueConfig::Codel(_) => "codel",
            QueueConfig::Pie(_) => "pie",
            QueueConfig::Step(_) => "step",
        }
    }

    /// Checks the parameters; the error names the command-line flag
    /// (`--codel-target`, ...) and what is allowed.
    pub fn validate(&self) -> Result<(), String> {
        let r = match self {
            QueueConfig::DropTail => Ok(()),
            QueueConfig::Red(c) => validate_red(c),
            QueueConfig::Codel(c) => c.validate(),
            QueueConfig::Pie(c) => c.validate(),
            QueueConfig::Step(c) => c.validate(),
        };
        r.map_err(|(key, allowed)| format!("{}: expected {allowed}", key.replace('_', "-")))
    }
}

fn validate_red(c: &RedConfig) -> Result<(), (&'static str, String)> {
    if !(c.min_th > 0.0 && c.min_th.is_finite()) {
        return Err(("red_min_th", "a positive number of packets".into()));
    }
    if !(c.max_th > c.min_th && c.max_th.is_finite()) {
        return Err((
            "red_max_th",
            format!("a number of packets above red-min-th ({})", c.min_th),
        ));
    }
    if !(c.max_p > 0.0 && c.max_p <= 1.0) {
        return Err(("red_max_p", "a probability in (0, 1]".into()));
    }
    if !(c.w_q >= 0.0 && c.w_q <= 1.0) {
        return Err(("red_w_q", "a weight in (0, 1] (0: automatic)".into()));
    }
    Ok(())
}

/// A discipline's state.
pub(crate) enum Aqm {
    Red(Red),
    Codel(Codel),
    Pie(Pie),
    Step(StepMark),
}

/// What the queue looks like to an arriving packet.
pub(crate) struct QueueView {
    /// The arrival instant.
    pub now: Time,
    /// When the packets accepted so far will all have left (the new
    /// packet's service start if it is accepted, when later than `now`).
    pub busy_until: Time,
    /// Packets waiting (service not started).
    pub waiting: u64,
    /// Bytes waiting (service not started).
    pub waiting_bytes: u64,
    /// The packet's size, bytes.
    pub len: u32,
    /// The largest packet seen, bytes (PIE's MTU).
    pub mtu: u32,
}

impl Aqm {
    /// The state for `cfg` on a link of `rate_bps` (RED's automatic weight
    /// and idle decay count 1500-byte packets); `None` for drop-tail.
    pub fn new(cfg: &QueueConfig, rate_bps: f64, seed: u64) -> Option<Aqm> {
        let pkts_per_s = rate_bps / (8.0 * 1500.0);
        Some(match cfg {
            QueueConfig::DropTail => return None,
            QueueConfig::Red(c) => Aqm::Red(Red::new(*c, pkts_per_s, seed)),
            QueueConfig::Codel(c) => Aqm::Codel(Codel::new(*c)),
            QueueConfig::Pie(c) => Aqm::Pie(Pie::new(*c, seed)),
            QueueConfig::Step(c) => Aqm::Step(StepMark::new(*c)),
        })
    }

    /// The discipline's verdict on a packet arriving to `q`; `ect`: it is
    /// ECN-capable.
    pub fn on_arrival(&mut self, q: &QueueView, ect: bool) -> Verdict {
        let idle = q.busy_until <= q.now;
        let start = q.busy_until.max(q.now);
        match self {
            Aqm::Red(r) => r.on_arrival(q.now, q.waiting, idle.then_some(q.busy_until), ect),
            Aqm::Codel(c) => c.on_dequeue(q.now, start, q.waiting_bytes, q.len, ect),
            Aqm::Pie(p) => p.on_arrival(q.now, q.busy_until, q.waiting_bytes, q.mtu, ect),
            Aqm::Step(s) => s.on_arrival(q.waiting, ect),
        }
    }
}

/// The packet is ECN-capable: IPv4 with ECT(0) or ECT(1) in its ECN field.
/// IPv6 counts as not ECN-capable ([`crate::mark_ce`] marks IPv4 only).
pub fn is_ect(p: &[u8]) -> bool {
    p.len() >= 20 && p[0] >> 4 == 4 && matches!(p[1] & 0x03, 1 | 2)
}
