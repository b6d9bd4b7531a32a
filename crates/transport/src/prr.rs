//! Proportional Rate Reduction (RFC 9937): how many packets the pipe may
//! hold during fast recovery, so that the flight falls to the reduced window
//! (the controller's ssthresh) in proportion to the data delivered, instead
//! of stopping for half a round trip and then sending in a burst (RFC 6675's
//! `pipe < cwnd` rule, the sender's default).
//!
//! The sender owns one [`Prr`] and calls it at the episode's start
//! ([`Prr::start`]), for every transmission in recovery ([`Prr::on_send`])
//! and after every ACK in recovery, once the controller has set the reduced
//! window ([`Prr::on_ack`]); in recovery a packet may leave while the pipe
//! is below [`Prr::limit`]. [`SenderConfig::prr`](crate::SenderConfig::prr)
//! turns it on.

/// RFC 9937's per-episode state.
#[derive(Clone, Copy, Debug, Default)]
pub struct Prr {
    /// Packets delivered since the episode began (`prr_delivered`).
    delivered: u64,
    /// Transmissions since the episode began (`prr_out`).
    out: u64,
    /// The flight when the episode began, in packets (`RecoverFS`).
    recover_fs: u64,
    /// The pipe may grow up to this (RFC 9937 `cwnd = pipe + sndcnt`, set
    /// on each ACK).
    limit: f64,
}

impl Prr {
    /// An episode begins (RFC 9937 §4, initialization): `recover_fs` is the
    /// data outstanding and not delivered before the ACK that started it
    /// (`snd.nxt - snd.una`, less what was SACKed before, plus what that
    /// ACK cumulatively acknowledged); `in_flight` the pipe now.
    #[inline]
    pub fn start(&mut self, recover_fs: u64, in_flight: u32) {
        self.delivered = 0;
        self.out = 0;
        self.recover_fs = recover_fs.max(1);
        self.limit = in_flight as f64;
    }

    /// A transmission leaves during the episode (`prr_out += 1`).
    #[inline]
    pub fn on_send(&mut self) {
        self.out += 1;
    }

    /// The per-ACK step of RFC 9937 §4. `delivered`: packets this ACK
    /// delivered (`DeliveredData`); `safe`: the cumulative ACK advanced and
    /// no new loss was declared (`SafeACK`, which allows PRR-SSRB's extra
    /// packet); `pipe`: the packets in flight; `ssthresh`: the reduced
    /// window the controller has set.
    pub fn on_ack(&mut self, delivered: u32, safe: bool, pipe: f64, ssthresh: f64) {
        if delivered == 0 {
            // RFC 9937: an ACK that delivers nothing changes nothing (the
            // fast retransmission is forced separately by the sender).
            return;
        }
        self.delivered += delivered as u64;
        let sndcnt = if pipe > ssthresh {
            // Proportional part: the flight falls towards ssthresh in
            // proportion to the data delivered.
            (self.delivered as f64 * ssthresh / self.recover_fs as f64).ceil() - self.out as f64
        } else {
            // PRR-CRB: no faster than the data delivered; PRR-SSRB adds one
            // packet per ACK that shows recovery making progress.
            let mut s = (self.delivered as f64 - self.out as f64).max(delivered as f64);
            if safe {
                s += 1.0;
            }
            // The window may be fractional: round the room up, as the
            // window rule outside recovery (`in_flight < cwnd`) does.
            s.min((ssthresh - pipe).ceil())
        };
        let mut sndcnt = sndcnt.max(0.0);
        if self.out == 0 && sndcnt == 0.0 {
            // RFC 9937: force the fast retransmission on entering recovery.
            sndcnt = 1.0;
        }
        self.limit = pipe + sndcnt;
    }

    /// The pipe may hold up to this many packets now.
    #[inline]
    pub fn limit(&self) -> f64 {
        self.limit
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 9937's example (its Figure, 20 packets outstanding, ssthresh 10,
    /// one packet delivered per ACK): the proportional part sends one
    /// packet for every two delivered, so the flight falls to ssthresh
    /// when the recovery's data is delivered.
    #[test]
    fn proportional_part_sends_one_for_every_two_delivered() {
        let mut p = Prr::default();
        p.start(20, 19);
        let mut pipe = 19.0;
        let mut sent = 0;
        for _ in 0..18 {
            pipe -= 1.0;
            p.on_ack(1, false, pipe, 10.0);
            while pipe < p.limit() {
                p.on_send();
                pipe += 1.0;
                sent += 1;
            }
        }
        assert_eq!(sent, 9, "half of the 18 delivered");
        assert!((pipe - 10.0).abs() <= 1.0, "pipe {pipe}");
    }

    /// Below ssthresh, PRR-SSRB: as many as delivered, plus one on a safe
    /// ACK, never past ssthresh.
    #[test]
    fn slow_start_reduction_bound_grows_by_one_per_safe_ack_up_to_ssthresh() {
        let mut p = Prr::default();
        p.start(10, 4);
        p.on_ack(2, false, 4.0, 10.0);
        assert_eq!(p.limit(), 6.0, "CRB: as many as delivered");
        let mut q = Prr::default();
        q.start(10, 4);
        q.on_ack(2, true, 4.0, 10.0);
        assert_eq!(q.limit(), 7.0, "SSRB: one more on a safe ACK");
        let mut r = Prr::default();
        r.start(10, 9);
        r.on_ack(5, true, 9.0, 10.0);
        assert_eq!(r.limit(), 10.0, "never past ssthresh");
    }

    /// An ACK that delivers nothing changes nothing; the first ACK of an
    /// episode that would allow nothing still lets the fast retransmission
    /// leave.
    #[test]
    fn nothing_delivered_changes_nothing_and_the_first_retransmission_is_forced() {
        let mut p = Prr::default();
        p.start(100, 99);
        p.on_ack(0, false, 99.0, 50.0);
        assert_eq!(p.limit(), 99.0);
        p.on_ack(1, false, 98.0, 50.0);
        // With ssthresh 0 the proportional part gives 0 and the rule
        // forces 1.
        let mut q = Prr::default();
        q.start(100, 99);
        q.on_ack(1, false, 98.0, 0.0);
        assert_eq!(q.limit(), 99.0, "forced: one packet");
    }
}
