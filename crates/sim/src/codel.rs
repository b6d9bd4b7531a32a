//! CoDel, Controlled Delay (RFC 8289; Nichols and Jacobson, "Controlling
//! Queue Delay", ACM Queue 2012): a queue that drops (or marks CE) at
//! dequeue when the packets' sojourn time has stayed above `target` for at
//! least `interval`, at a rate that rises with the square root of the
//! number of drops.
//!
//! Per dequeued packet (RFC 8289 §5.4, `dodequeue`):
//! * below `target`, or at most one maximum-size packet left behind it: the
//!   delay is "below", and `first_above_time` is cleared;
//! * otherwise the first such packet sets `first_above_time = now +
//!   interval`, and once `now` passes it the queue is "ok to drop".
//!
//! Not dropping, ok to drop: drop (or mark) this packet and enter the
//! dropping state; `count` restarts at 1, or at the number of drops of the
//! previous dropping state beyond its first if that state ended less than
//! 16 intervals ago (§5.5); `drop_next = now + interval / sqrt(count)`
//! (the control law, §5.6). Dropping: a packet found below target ends
//! the state; otherwise each time `now >= drop_next` the packet is dropped
//! (or marked), `count += 1` and `drop_next += interval / sqrt(count)`.
//! After a drop the next packet is dequeued at once and judged at the same
//! instant (the `while` loop of RFC 8289 §5.5, as in Linux's
//! `codel_dequeue()`). With `ecn`, an ECN-capable packet is marked CE
//! instead of dropped and delivered, which ends the loop.
//!
//! **Dequeue decided at arrival.** The simulator's links are lazy FIFOs:
//! a packet's service start is fixed when it arrives (the end of the
//! transmissions already accepted), so its sojourn and dequeue instant are
//! known then, and packets leave in the order they arrive. [`Codel`] is
//! therefore run on each accepted packet at its arrival, with `now` its
//! dequeue instant, in dequeue order. Dropping a packet at arrival leaves
//! the packets behind it exactly where a head drop would put them (its
//! service slot is never used), and its loss is seen by the receiver when
//! its successor arrives there, as with a head drop. Two approximations,
//! both documented in docs/simulator.md: the "at most one packet left
//! behind" test uses the bytes waiting ahead of the packet when it
//! arrived (the bytes behind it at its dequeue are in the future), and a
//! packet CoDel drops never occupies the drop-tail buffer (a head drop
//! holds its place until its dequeue), so the buffer limit counts it out
//! one sojourn early.

use dropless_cc::{Time, MILLISECOND};

use crate::red::Verdict;

/// CoDel's parameters (RFC 8289 §4.2-4.3 defaults: 5 ms and 100 ms).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CodelConfig {
    /// Acceptable standing sojourn time (5 ms).
    pub target: Time,
    /// Window over which the sojourn must stay above `target` before the
    /// first drop, and the control law's scale (100 ms).
    pub interval: Time,
    /// Mark ECN-capable packets instead of dropping them (false).
    pub ecn: bool,
}

impl Default for CodelConfig {
    fn default() -> Self {
        CodelConfig {
            target: 5 * MILLISECOND,
            interval: 100 * MILLISECOND,
            ecn: false,
        }
    }
}

impl CodelConfig {
    /// Checks the parameters: `Err((key, allowed))` names the scenario key
    /// (`codel_target`, `codel_interval`) and its allowed values.
    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        if self.interval == 0 || self.interval > 10_000 * MILLISECOND {
            return Err(("codel_interval", "a time from 1ns to 10s".into()));
        }
        if self.target == 0 || self.target >= self.interval {
            return Err((
                "codel_target",
                format!(
                    "a time above 0 and below codel_interval ({} ms)",
                    self.interval as f64 / MILLISECOND as f64
                ),
            ));
        }
        Ok(())
    }
}

/// What the packet that follows a drop is (RFC 8289's dequeue of the next
/// packet inside `dequeue()`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum AfterDrop {
    /// No drop pending.
    None,
    /// A drop that entered the dropping state at `at`: the next packet is
    /// judged (for `first_above_time`) and delivered.
    Entry(Time),
    /// A drop inside the dropping state at `at`: the next packet may end
    /// the state or be dropped too.
    Loop(Time),
}

/// The CoDel state of one queue.
#[derive(Clone, Debug)]
pub struct Codel {
    cfg: CodelConfig,
    first_above_time: Option<Time>,
    drop_next: Time,
    count: u32,
    lastcount: u32,
    dropping: bool,
    after: AfterDrop,
    /// Largest packet seen, bytes (RFC 8289's `maxpacket`).
    maxpacket: u64,
    /// Packets marked CE.
    pub marks: u64,
    /// Packets dropped.
    pub drops: u64,
}

impl Codel {
    /// CoDel with the given (validated) parameters.
    pub fn new(cfg: CodelConfig) -> Self {
        Codel {
            cfg,
            first_above_time: None,
            drop_next: 0,
            count: 0,
            lastcount: 0,
            dropping: false,
            after: AfterDrop::None,
            maxpacket: 0,
            marks: 0,
            drops: 0,
        }
    }

    /// The parameters.
    pub fn config(&self) -> &CodelConfig {
        &self.cfg
    }

    /// Whether the queue is in the dropping state.
    pub fn dropping(&self) -> bool {
        self.dropping
    }

    /// Drops of the current (or last) dropping state.
    pub fn count(&self) -> u32 {
        self.count
    }

    /// The control law (RFC 8289 §5.6): `t + interval / sqrt(count)`.
    fn control_law(&self, t: Time) -> Time {
        t + (self.cfg.interval as f64 / (self.count.max(1) as f64).sqrt()).round() as Time
    }

    /// RFC 8289 §5.4's test of one dequeued packet: whether it is ok to
    /// drop, updating `first_above_time`.
    fn ok_to_drop(&mut self, now: Time, sojourn: Time, backlog: u64) -> bool {
        if sojourn < self.cfg.target || backlog <= self.maxpacket {
            self.first_above_time = None;
            return false;
        }
        match self.first_above_time {
            None => {
                self.first_above_time = Some(now + self.cfg.interval);
                false
            }
            Some(t) => now >= t,
        }
    }

    /// The queue ran empty at `at` after a drop: RFC 8289's `dodequeue`
    /// finding no packet.
    fn empty_after_drop(&mut self) {
        self.first_above_time = None;
        if matches!(self.after, AfterDrop::Loop(_)) {
            self.dropping = false;
        }
        self.after = AfterDrop::None;
    }

    /// Drops or marks the packet in hand: `count += 1` inside the dropping
    /// state, the next drop scheduled after a mark.
    fn signal(&mut self, ect: bool, entry: bool, now: Time) -> Verdict {
        if self.cfg.ecn && ect {
            self.marks += 1;
            if !entry {
                self.drop_next = self.control_law(self.drop_next);
            }
            self.after = AfterDrop::None;
            Verdict::Mark
        } else {
            self.drops += 1;
            self.after = if entry {
                AfterDrop::Entry(now)
            } else {
                AfterDrop::Loop(now)
            };
            Verdict::Drop
        }
    }

    /// Enters the dropping state at `now` (RFC 8289 §5.5): `count` from
    /// the previous state if it ended recently, the first `drop_next`.
    fn enter(&mut self, now: Time) {
        self.dropping = true;
        let delta = self.count.saturating_sub(self.lastcount);
        self.count = if delta > 1 && now.saturating_sub(self.drop_next) < 16 * self.cfg.interval {
            delta
        } else {
            1
        };
        self.lastcount = self.count;
        self.drop_next = self.control_law(now);
    }

    /// A packet of `bytes` bytes that arrived at `arrival` leaves the
    /// queue at `dequeue` (its service start), with `backlog` bytes waiting
    /// ahead of it when it arrived. `ect`: it is ECN-capable. Packets must
    /// be offered in dequeue order.
    pub fn on_dequeue(
        &mut self,
        arrival: Time,
        dequeue: Time,
        backlog: u64,
        bytes: u32,
        ect: bool,
    ) -> Verdict {
        let sojourn = dequeue - arrival;
        self.maxpacket = self.maxpacket.max(bytes as u64);
        match self.after {
            AfterDrop::None => {}
            AfterDrop::Entry(at) | AfterDrop::Loop(at) if arrival > at => {
                // Nothing was waiting when the dropped packet left.
                self.empty_after_drop();
            }
            AfterDrop::Entry(at) => {
                // RFC 8289 §5.5: the packet after the entering drop is
                // judged at the same instant and delivered.
                self.after = AfterDrop::None;
                self.ok_to_drop(at, at - arrival, backlog);
                return Verdict::Enqueue;
            }
            AfterDrop::Loop(at) => {
                self.after = AfterDrop::None;
                if !self.ok_to_drop(at, at - arrival, backlog) {
                    self.dropping = false;
                    return Verdict::Enqueue;
                }
                self.drop_next = self.control_law(self.drop_next);
                if at >= self.drop_next {
                    self.count += 1;
                    return self.signal(ect, false, at);
                }
                return Verdict::Enqueue;
            }
        }
        let now = dequeue;
        let ok = self.ok_to_drop(now, sojourn, backlog);
        if self.dropping {
            if !ok {
                self.dropping = false;
            } else if now >= self.drop_next {
                self.count += 1;
                return self.signal(ect, false, now);
            }
            Verdict::Enqueue
        } else if ok {
            let v = self.signal(ect, true, now);
            self.enter(now);
            v
        } else {
            Verdict::Enqueue
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Time = MILLISECOND;

    fn codel(ecn: bool) -> Codel {
        Codel::new(CodelConfig {
            ecn,
            ..CodelConfig::default()
        })
    }

    #[test]
    fn below_target_never_drops() {
        let mut c = codel(false);
        for k in 0..10_000u64 {
            let t = k * MS / 10;
            assert_eq!(
                c.on_dequeue(t, t + 4 * MS, 100_000, 1500, false),
                Verdict::Enqueue
            );
        }
        assert!(!c.dropping());
        assert_eq!(c.drops, 0);
    }

    /// A standing 10 ms sojourn, one packet every 0.1 ms: the first drop
    /// comes one interval after the delay first exceeds the target, then
    /// drop k falls on the first packet at or after
    /// `first + interval (1 + 1/sqrt(2) + ... + 1/sqrt(k))`.
    #[test]
    fn first_drop_after_an_interval_then_the_control_law() {
        let mut c = codel(false);
        let mut drops = Vec::new();
        for k in 0..20_000u64 {
            let d = 10 * MS + k * MS / 10;
            if c.on_dequeue(d - 10 * MS, d, 100_000, 1500, false) == Verdict::Drop {
                drops.push(d);
            }
        }
        assert!(drops.len() > 5);
        // The first packet (at 10 ms) sets first_above_time = 110 ms; the
        // packet dequeued then is dropped.
        assert_eq!(drops[0], 110 * MS);
        let mut next = drops[0] as f64;
        for (k, &d) in drops.iter().enumerate().skip(1) {
            next += 100e6 / (k as f64).sqrt();
            let late = d as f64 - next;
            assert!(
                (-1.0..0.1e6 + 1.0).contains(&late),
                "drop {k}: {late} ns late"
            );
        }
        assert_eq!(c.count() as usize, drops.len());
    }

    #[test]
    fn ecn_capable_packets_are_marked_and_delivered() {
        let mut c = codel(true);
        let mut marks = 0;
        for k in 0..20_000u64 {
            let d = k * MS / 10;
            match c.on_dequeue(d.saturating_sub(10 * MS), d, 100_000, 1500, true) {
                Verdict::Mark => marks += 1,
                Verdict::Drop => panic!("an ECN-capable packet dropped"),
                Verdict::Enqueue => {}
            }
        }
        assert!(marks > 5);
        assert_eq!(c.marks, marks);
        assert_eq!(c.drops, 0);
        // Not ECN-capable: dropped even with ecn on.
        let mut c = codel(true);
        let dropped = (0..20_000u64)
            .filter(|k| {
                let d = k * MS / 10;
                c.on_dequeue(d.saturating_sub(10 * MS), d, 100_000, 1500, false) == Verdict::Drop
            })
            .count();
        assert!(dropped > 5);
    }

    #[test]
    fn a_packet_below_target_ends_the_dropping_state() {
        let mut c = codel(false);
        let mut t = 0;
        while !c.dropping() {
            t += MS / 10;
            c.on_dequeue(t - 10 * MS.min(t), t, 100_000, 1500, false);
        }
        // The packet behind the entering drop is judged at the drop's
        // instant and delivered whatever it shows (RFC 8289 §5.5); the
        // one after it, below target, ends the state.
        t += MS / 10;
        assert_eq!(
            c.on_dequeue(t - MS, t, 100_000, 1500, false),
            Verdict::Enqueue
        );
        assert!(c.dropping());
        t += MS / 10;
        assert_eq!(
            c.on_dequeue(t - MS, t, 100_000, 1500, false),
            Verdict::Enqueue
        );
        assert!(!c.dropping());
        // A queue under one maximum packet is "below" whatever its sojourn.
        let mut c = codel(false);
        for k in 0..20_000u64 {
            let d = k * MS / 10;
            assert_eq!(
                c.on_dequeue(d.saturating_sub(10 * MS), d, 1000, 1500, false),
                Verdict::Enqueue
            );
        }
    }

    #[test]
    fn a_recent_dropping_state_resumes_its_count() {
        let mut c = codel(false);
        let mut t = 0;
        let step = MS / 10;
        // Drive the count up to a few drops.
        while c.count() < 6 {
            t += step;
            c.on_dequeue(t.saturating_sub(10 * MS), t, 100_000, 1500, false);
        }
        let before = c.count();
        // Leave the state, then come back above target within 16 intervals.
        t += step;
        c.on_dequeue(t - MS, t, 100_000, 1500, false);
        assert!(!c.dropping());
        while !c.dropping() {
            t += step;
            c.on_dequeue(t - 10 * MS, t, 100_000, 1500, false);
        }
        // delta = count - lastcount (lastcount was 1 at the last entry).
        assert_eq!(c.count(), before - 1);
    }

    #[test]
    fn bad_parameters_name_their_key() {
        let bad = |target, interval| {
            CodelConfig {
                target,
                interval,
                ecn: false,
            }
            .validate()
            .unwrap_err()
            .0
        };
        assert_eq!(bad(0, 100 * MS), "codel_target");
        assert_eq!(bad(100 * MS, 100 * MS), "codel_target");
        assert_eq!(bad(5 * MS, 0), "codel_interval");
        assert_eq!(bad(5 * MS, 11_000 * MS), "codel_interval");
        assert!(CodelConfig::default().validate().is_ok());
    }
}
