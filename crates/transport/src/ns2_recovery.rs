//! The ns-2 FAST TCP module's fast recovery (`tcp-fast.cc`; reference note
//! `thesis_ch2_ch4_protocols.md` §3.6), which the thesis's chapter 4
//! reproductions select: its pipe counts the episode's lost packets and
//! delivered retransmissions as still in flight
//! ([`SenderConfig::recovery_pipe_counts_lost`](crate::SenderConfig::recovery_pipe_counts_lost)),
//! its fast retransmission and partial-ACK pairs leave outside that pipe,
//! and only the episode's first partial ACK restarts the retransmission
//! timer ([`SenderConfig::ns2_recovery_timer`](crate::SenderConfig::ns2_recovery_timer)).
//!
//! The sender owns one [`Ns2Episode`] and keeps it current in every fast
//! recovery (the counts cost a few additions whether the options are on or
//! not); its switches decide whether the pipe and the timer follow it. The
//! module's resending of a retransmission that is late
//! ([`SenderConfig::ns2_lost_retransmission`](crate::SenderConfig::ns2_lost_retransmission))
//! touches the scoreboard and is the sender's (`expire_head`).

/// What the module counts in one fast-recovery episode.
#[derive(Clone, Copy, Debug, Default)]
pub struct Ns2Episode {
    /// Packets declared lost, and retransmissions delivered, in the
    /// episode: the module's pipe still counts them.
    pub extra: u32,
    /// Transmissions of the episode that the module's pipe does not count
    /// (the fast retransmission, partial-ACK pairs).
    pub uncounted: u32,
    /// A partial ACK has already restarted the timer in this episode.
    pub first_partial_seen: bool,
}

impl Ns2Episode {
    /// An episode starts with `lost` packets declared lost.
    #[inline]
    pub fn start(&mut self, lost: u32) {
        self.extra = lost;
        self.uncounted = 0;
        self.first_partial_seen = false;
    }

    /// The episode ends (recovery point passed, or a timeout).
    #[inline]
    pub fn end(&mut self) {
        self.extra = 0;
        self.uncounted = 0;
    }

    /// The module's pipe for a flight of `in_flight` packets (module:
    /// `maxseq - highest_ack - 3` on entry, one less per ACK, one more per
    /// counted transmission).
    #[inline]
    pub fn pipe(&self, in_flight: u32) -> u32 {
        (in_flight + self.extra).saturating_sub(self.uncounted)
    }

    /// A partial ACK arrives: true if it is not the episode's first (the
    /// module's `newtimer` under `firstpartial_` restarts the timer on the
    /// first only). Marks the first as seen.
    #[inline]
    pub fn later_partial(&mut self) -> bool {
        std::mem::replace(&mut self.first_partial_seen, true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pipe_counts_lost_and_leaves_out_uncounted_sends() {
        let mut e = Ns2Episode::default();
        e.start(3);
        assert_eq!(e.pipe(10), 13);
        e.uncounted += 2;
        assert_eq!(e.pipe(10), 11);
        e.end();
        assert_eq!(e.pipe(10), 10);
        e.uncounted = 20;
        assert_eq!(e.pipe(10), 0, "never below zero");
    }

    #[test]
    fn only_the_first_partial_ack_of_an_episode_is_first() {
        let mut e = Ns2Episode::default();
        e.start(1);
        assert!(!e.later_partial());
        assert!(e.later_partial());
        e.start(1);
        assert!(!e.later_partial());
    }
}
