//! The output trunk of a core DWDM switch (thesis chapter 3,
//! `thesis_ch3_buffer_sizing.md` §1): K wavelength channels of rate µ each,
//! one shared FIFO buffer of B packets, fed by M input links.
//!
//! **Full wavelength conversion** (§1.2): a packet may leave on any channel.
//! The trunk is then a K-server FIFO queue with B waiting places, the system
//! the thesis's detailed model describes (§6.1): an arriving packet takes an
//! idle channel if there is one; otherwise it waits if fewer than B packets
//! wait, and is lost if not. Served first come, first served, a waiting
//! packet starts on the channel that frees first, so its start time is
//! known when it arrives ([`Channels::earliest`]): the link keeps the lazy
//! start/finish bookkeeping of a single-channel link, and start times stay
//! in arrival order (each arrival takes the least free time, which only
//! grows).
//!
//! **No conversion**: the thesis models it as L separate networks, one per
//! wavelength, each with F channels (fibres) per trunk and 1/L of the flows
//! and inputs (§1.2: K → F, M → M/L, N → N/L). The scenario builds exactly
//! that: L groups of F channels, each a link of its own with its own buffer
//! of B packets, and input link m carries wavelength m mod L. This is the
//! thesis's reading; a shared memory across wavelengths (one B for all) is
//! not modelled.
//!
//! **Input links** (§1.1): each input port is a link of the channel rate
//! fed by an edge router's buffer, so at most M packets can arrive at the
//! trunk within one packet time: the finite-source effect G1DM models
//! (§6.2). The thesis calls the edge routers' buffers large and gives no
//! size; the scenario's default is one bandwidth-delay product of an input
//! link (`input_buffer`). An unbounded one let slow start park hundreds of
//! thousands of packets per input (a 650,000-packet queue and 0.8 s of
//! delay in a 2-s run with fast access links), which no router holds.

use dropless_cc::Time;

/// The channels of a multi-channel link: when each is next free, and how
/// long each has been busy.
#[derive(Clone, Debug)]
pub(crate) struct Channels {
    /// Time each channel finishes its last accepted packet.
    pub free: Vec<Time>,
    /// Transmission time accepted on each channel, ns.
    pub busy_ns: Vec<u64>,
    /// The buffer's limit in bytes (`u64::MAX`: limited in packets).
    pub limit_bytes: u64,
}

impl Channels {
    /// `k` idle channels sharing a buffer of `limit_bytes` bytes.
    pub fn new(k: u32, limit_bytes: u64) -> Self {
        Channels {
            free: vec![0; k as usize],
            busy_ns: vec![0; k as usize],
            limit_bytes,
        }
    }

    /// The channel that frees first (the lowest index among equals, so a
    /// run is deterministic) and when.
    #[inline]
    pub fn earliest(&self) -> (usize, Time) {
        let mut best = (0, self.free[0]);
        for (c, &t) in self.free.iter().enumerate().skip(1) {
            if t < best.1 {
                best = (c, t);
            }
        }
        best
    }

    /// Books a packet of `tx` ns on channel `c` from `start`; returns its
    /// finish time.
    #[inline]
    pub fn book(&mut self, c: usize, start: Time, tx: Time) -> Time {
        let finish = start + tx;
        self.free[c] = finish;
        self.busy_ns[c] += tx;
        finish
    }

    /// Number of channels.
    pub fn len(&self) -> usize {
        self.free.len()
    }
}

#[cfg(test)]
mod tests {
    use super::Channels;

    #[test]
    fn earliest_prefers_the_first_of_equals_and_booking_moves_it() {
        let mut c = Channels::new(3, u64::MAX);
        assert_eq!(c.earliest(), (0, 0));
        assert_eq!(c.book(0, 5, 10), 15);
        assert_eq!(c.earliest(), (1, 0));
        c.book(1, 5, 10);
        c.book(2, 7, 10);
        assert_eq!(c.earliest(), (0, 15));
        assert_eq!(c.busy_ns, vec![10, 10, 10]);
        assert_eq!(c.len(), 3);
    }
}
