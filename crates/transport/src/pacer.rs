//! Departure-time pacing driven by the controller's rate and burst.
//!
//! Packets leave in trains of up to `burst` packets back to back; the next
//! train may start once the bytes already sent, divided by the rate, have
//! elapsed since the start of the previous train. With `burst = 1` this is
//! plain even spacing; with a larger burst it is the burst pacing of the
//! packet-drop-avoidance protocol (seeds 000/001: "send bursts no larger than
//! the MBS, separated by gaps").

use dropless_cc::Time;

/// Pacer state.
#[derive(Clone, Copy, Debug, Default)]
pub struct Pacer {
    /// Earliest departure time of the next packet.
    next: Time,
    train_start: Time,
    train_len: u32,
    /// Time owed by the current train, in nanoseconds (fractional).
    debt: f64,
    /// Length in time of the last complete train.
    last_train: Time,
}

impl Pacer {
    /// Earliest time the next packet may leave.
    pub fn next_departure(&self) -> Time {
        self.next
    }

    /// True if a packet may leave at `now`.
    pub fn ready(&self, now: Time) -> bool {
        self.next <= now
    }

    /// Records a departure of `bytes` at `now` under `rate` (bytes/s) and `burst`.
    pub fn on_send(&mut self, now: Time, bytes: u32, rate: f64, burst: u32) {
        let burst = burst.max(1);
        if self.train_len == 0 {
            // A train that starts a little late (a late wake-up on a real
            // host) keeps the schedule, so the average rate still holds; one
            // that starts after a longer idle period must not inherit credit
            // for it: at most one train's worth of lateness is forgiven.
            self.train_start = if now > self.next && now - self.next <= self.last_train {
                self.next
            } else {
                now.max(self.next)
            };
            self.debt = 0.0;
        }
        self.train_len += 1;
        self.debt += bytes as f64 * 1e9 / rate;
        if self.train_len >= burst {
            self.last_train = self.debt.round() as Time;
            self.next = self.train_start + self.last_train;
            self.train_len = 0;
            self.debt = 0.0;
        } else {
            self.next = now;
        }
    }

    /// Forgets any partial train (used when the rate changes a lot or pacing stops).
    pub fn reset(&mut self, now: Time) {
        self.next = self.next.min(now);
        self.train_len = 0;
        self.debt = 0.0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn even_spacing_with_burst_one() {
        let mut p = Pacer::default();
        // 1500 bytes at 1.5e6 B/s = 1 ms per packet
        let mut t = 0;
        for _ in 0..5 {
            assert!(p.ready(t));
            p.on_send(t, 1500, 1.5e6, 1);
            t = p.next_departure();
        }
        assert_eq!(t, 5_000_000);
    }

    #[test]
    fn late_wakeups_are_caught_up_but_idle_time_is_not() {
        let mut p = Pacer::default();
        p.on_send(0, 1500, 1.5e6, 1); // next at 1 ms
        p.on_send(1_300_000, 1500, 1.5e6, 1); // 0.3 ms late: schedule kept
        assert_eq!(p.next_departure(), 2_000_000);
        p.on_send(10_000_000, 1500, 1.5e6, 1); // 8 ms idle: no credit
        assert_eq!(p.next_departure(), 11_000_000);
    }

    #[test]
    fn trains_of_burst_size_then_gap() {
        let mut p = Pacer::default();
        let mut departures = vec![];
        let mut t = 0;
        for _ in 0..8 {
            t = t.max(p.next_departure());
            departures.push(t);
            p.on_send(t, 1500, 1.5e6, 4);
        }
        // four back to back at 0, then four at 4 ms
        assert_eq!(
            departures,
            vec![0, 0, 0, 0, 4_000_000, 4_000_000, 4_000_000, 4_000_000]
        );
        assert_eq!(p.next_departure(), 8_000_000);
    }
}
