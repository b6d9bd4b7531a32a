//! Simultaneous events at a link: an arrival on the very nanosecond a
//! waiting packet's service starts (a slot of the buffer frees).
//!
//! Time is integer nanoseconds, and a link's departures are not events of
//! their own: the queue is advanced lazily to each arrival
//! ([`crate::engine`]). An arrival at the instant a slot frees therefore
//! needs a rule for which comes first. Two exist ([`crate::Ties`]):
//!
//! * **departure first** (`"departure-first"`): the arrival always finds
//!   the slot free. Deterministic, and harmless where arrivals fall at
//!   arbitrary nanoseconds. It is not harmless where they do not: an input
//!   link that feeds a trunk back to back at the trunk's own rate arrives
//!   exactly as each slot frees, takes every one, and locks the other
//!   inputs out of a full buffer for good (thesis chapter 3's E27 at N =
//!   500: 250 flows starved). In a real switch the two instants differ by
//!   an amount below the model's resolution, and its sign decides.
//! * **random** (`"random"`): that sign left to chance. Each arrival at a
//!   tie draws a fair coin from the link's own stream of the run's seed
//!   (so a run stays bit-identical for a seed): heads the departure comes
//!   first (as above), tails the arrival does, and it finds the packet
//!   whose service starts at that instant still waiting, so that a full
//!   buffer drops it. Once a departure has been ordered before an arrival
//!   it stays before the later arrivals of the same instant. An arrival
//!   that ties with nothing draws nothing, so a run without ties gives
//!   exactly the departure-first results.
//!
//! Only a slot of the buffer freeing is a tie. A channel that frees with
//! nothing waiting is not: an input link's back-to-back packet arrives
//! exactly as its predecessor leaves the channel, and an input at the
//! channel rate cannot overload a channel by itself (in the thesis's
//! finite-source model an input offers at most one packet per packet
//! time). Ordering that arrival first would drop half of every bufferless
//! trunk's back-to-back trains. So a trunk without buffer (B = 0) never
//! draws the coin.
//!
//! A trunk's channels default to random (M input links at the channel rate
//! make exact ties systematic there); every other link keeps departure
//! first, which costs its arrivals nothing.

use rand::Rng;
use rand_pcg::Pcg64Mcg;

/// The random tie rule's coin: one seeded stream per link.
#[derive(Clone, Debug)]
pub(crate) struct TieCoin {
    rng: Pcg64Mcg,
    /// Ties drawn so far.
    pub ties: u64,
    /// Of those, ties ordered arrival first.
    pub arrival_first: u64,
}

impl TieCoin {
    /// A coin drawing from `seed`'s stream.
    pub fn new(seed: u64) -> Self {
        use rand::SeedableRng;
        TieCoin {
            rng: Pcg64Mcg::seed_from_u64(seed),
            ties: 0,
            arrival_first: 0,
        }
    }

    /// Orders one tie: true when the arrival comes first.
    pub fn arrival_first(&mut self) -> bool {
        self.ties += 1;
        let tails = self.rng.gen::<bool>();
        self.arrival_first += u64::from(tails);
        tails
    }
}

#[cfg(test)]
mod tests {
    use super::TieCoin;

    #[test]
    fn the_coin_is_fair_and_repeatable() {
        let mut a = TieCoin::new(7);
        let mut b = TieCoin::new(7);
        let xs: Vec<bool> = (0..10_000).map(|_| a.arrival_first()).collect();
        let ys: Vec<bool> = (0..10_000).map(|_| b.arrival_first()).collect();
        assert_eq!(xs, ys);
        assert_eq!(a.ties, 10_000);
        // Binomial(10000, 1/2): 5 standard deviations are 250.
        assert!(
            (a.arrival_first as i64 - 5_000).abs() < 250,
            "{}",
            a.arrival_first
        );
    }
}
