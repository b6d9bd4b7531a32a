//! Tail loss probes (RFC 8985 §7): when no ACK has come for about two
//! smoothed round trips and nothing is known lost, one packet (new data, or
//! the highest packet sent again) is sent to draw an ACK, so that a lost
//! tail is found by the fast-recovery machinery instead of waiting for the
//! retransmission timeout.
//!
//! The sender owns one [`Tlp`]: its probe timeout ([`Tlp::pto`], RFC 8985
//! §7.2), the probe's episode (§7.3-7.4) and whether the probe repaired a
//! loss (§7.4.2). Sending the probe and repairing are the sender's, as they
//! touch its scoreboard. [`SenderConfig::tlp`](crate::SenderConfig::tlp)
//! turns it on.

use dropless_cc::Time;

/// RFC 8985's probe state (`TLP.end_seq`, `TLP.is_retrans`) and what the
/// sender needs to tell a repair from a probe that was not needed.
#[derive(Clone, Copy, Debug)]
pub struct Tlp {
    /// The PTO fired and a probe is to leave.
    pub probe: bool,
    /// `next_seq` after the outstanding probe (`TLP.end_seq`), `None` when
    /// no probe is outstanding.
    pub end: Option<u64>,
    /// The outstanding probe is a retransmission (`TLP.is_retrans`).
    pub is_retrans: bool,
    /// The probe's packet number and send time (what the ACK it triggers
    /// echoes).
    pub probe_tx: (u64, Time),
    /// Send time of the original of a retransmitted probe.
    pub orig_sent: Time,
    /// RTT samples taken when the last probe left (another may leave only
    /// after a new one, RFC 8985 §7.3).
    pub samples_at: u64,
    /// The start of the PTO that last fired; the PTO is re-armed only by a
    /// later transmission or cumulative advance.
    pub fired_base: Time,
}

impl Default for Tlp {
    fn default() -> Self {
        Tlp {
            probe: false,
            end: None,
            is_retrans: false,
            probe_tx: (0, 0),
            orig_sent: 0,
            samples_at: 0,
            fired_base: Time::MAX,
        }
    }
}

impl Tlp {
    /// The probe timeout (RFC 8985 §7.2): `2 SRTT`, plus `min_extra` (the
    /// timer's granularity), plus `max_ack_delay` when a single packet is in
    /// flight (its ACK may be delayed), from `base`, the later of the
    /// latest transmission and cumulative advance. `None` when the PTO that
    /// last fired had this base (it is re-armed only by a later one).
    #[inline]
    pub fn pto(
        &self,
        base: Time,
        srtt: Time,
        min_extra: Time,
        max_ack_delay: Time,
        in_flight: u32,
    ) -> Option<Time> {
        if base == self.fired_base {
            return None;
        }
        let mut pto = 2 * srtt + min_extra;
        if in_flight == 1 {
            pto += max_ack_delay;
        }
        Some(base + pto)
    }

    /// Whether a probe is outstanding or about to leave (no second one
    /// until it is answered).
    #[inline]
    pub fn busy(&self) -> bool {
        self.probe || self.end.is_some()
    }

    /// The episode ends without a probe: recovery or a timeout took over
    /// (RFC 8985 §7.1).
    #[inline]
    pub fn cancel(&mut self) {
        self.probe = false;
        self.end = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two SRTTs, plus the ACK delay for a lone packet; once fired, not
    /// again from the same base.
    #[test]
    fn pto_is_two_srtt_plus_the_ack_delay_for_a_lone_packet_and_fires_once_per_base() {
        let mut t = Tlp::default();
        assert_eq!(t.pto(1_000, 40, 2, 200, 5), Some(1_000 + 82));
        assert_eq!(t.pto(1_000, 40, 2, 200, 1), Some(1_000 + 282));
        t.fired_base = 1_000;
        assert_eq!(t.pto(1_000, 40, 2, 200, 5), None);
        assert_eq!(t.pto(1_001, 40, 2, 200, 5), Some(1_083));
    }

    #[test]
    fn cancel_ends_the_episode() {
        let mut t = Tlp {
            probe: true,
            end: Some(9),
            ..Tlp::default()
        };
        assert!(t.busy());
        t.cancel();
        assert!(!t.busy());
    }
}
