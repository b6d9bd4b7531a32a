//! ADPM, Adaptive Deterministic Packet Marking (Andrew, Hanly, Chan and Cui
//! 2006; thesis chapter 5, reference note §2): a router marks a packet of
//! probe type `i` when its price exceeds `i`; the receiver keeps one number.

/// Resolution of a probe type: 2^16 thresholds, the IPid's width (thesis
/// L7245, "216 thresholds" in the OCR).
pub const THRESHOLDS: f64 = 65536.0;

/// `F(v) = bitrev16(v) / 2^16`: bit-reversed counting (thesis L6733-6767,
/// reconstructed as `R(Σ a_i 2^i) = Σ a_i 2^-(i+1)`, so `F(1) = 1/2`,
/// `F(2) = 1/4`, `F(3) = 3/4`; reference note §2.3 and Appendix A).
#[inline]
pub fn threshold(ipid: u16) -> f64 {
    f64::from(ipid.reverse_bits()) / THRESHOLDS
}

/// A price code that stands for no price (all ones).
pub const NO_PRICE: u16 = u16::MAX;

/// Price-code units: the price in [0, 1) times 2^16, ADPM's probe-type
/// resolution. The decoder's estimates are probe types, k/2^16 with
/// k = 0 ..= 65535; k = 65535 is coded as 65534 (1/65536 lower) so that
/// [`NO_PRICE`] stays free.
pub const PRICE_SCALE: f64 = THRESHOLDS;

/// The code of a price in [0, 1].
pub fn price_code(p: f64) -> u16 {
    (p.clamp(0.0, 1.0) * PRICE_SCALE)
        .floor()
        .min(f64::from(NO_PRICE - 1)) as u16
}

/// ECN codepoint: not ECN-capable.
pub const NOT_ECT: u8 = 0b00;
/// ECN codepoint ADPM sources send: capable, not price-marked (ECT(1)).
pub const UNMARKED: u8 = 0b01;
/// ECN codepoint of a price mark (thesis L7004-7008: "01 to indicate no
/// mark, and 10 to indicate a mark due to pricing").
pub const MARKED: u8 = 0b10;
/// Congestion Experienced: keeps its RFC 3168 meaning.
pub const CE: u8 = 0b11;

/// Whether a link of (mapped) price `p` marks probe type `i`: strictly
/// `p > i` (thesis L6649-6651; the note §2.4 on the `p ≥ i` wording).
#[inline]
pub fn marks(p: f64, i: f64) -> bool {
    p > i
}

/// A router forwarding a packet with ECN codepoint `ecn` and probe type `i`
/// over a link of price `p`: 01 becomes 10 when it marks; 00, 10 and 11
/// pass unchanged (routers never unmark; reference note §2.2).
#[inline]
pub fn forward(ecn: u8, p: f64, i: f64) -> u8 {
    if ecn == UNMARKED && marks(p, i) {
        MARKED
    } else {
        ecn
    }
}

/// The receiver's estimate (thesis L6655-6659): a marked probe above the
/// estimate, or an unmarked one below it, becomes the estimate.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Decoder {
    /// The current estimate `p̂`.
    pub estimate: f64,
}

impl Decoder {
    /// A decoder starting at `p̂0` (0 converges to the interval's lower end,
    /// 1 to its upper end; thesis L6681-6682).
    pub fn new(start: f64) -> Decoder {
        Decoder { estimate: start }
    }

    /// One packet of probe type `i`, marked or not.
    #[inline]
    pub fn observe(&mut self, i: f64, marked: bool) {
        if (marked && i > self.estimate) || (!marked && i < self.estimate) {
            self.estimate = i;
        }
    }

    /// One packet with its ECN codepoint: not-ECT and CE carry no price and
    /// are skipped (the note's \[ASSUMPTION\] in §2.2).
    pub fn observe_ecn(&mut self, i: f64, ecn: u8) {
        match ecn {
            UNMARKED => self.observe(i, false),
            MARKED => self.observe(i, true),
            _ => {}
        }
    }
}

/// Probe types an ADPM quantiser of `levels` levels needs: `levels - 1`,
/// whatever the path length (thesis L6904-6908).
pub fn probe_types(levels: u64) -> u64 {
    levels.saturating_sub(1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    // Reference note §8 E2.
    #[test]
    fn routers_mark_by_strict_inequality_and_never_unmark() {
        let path = [0.2, 0.7, 0.4];
        let through = |ecn: u8, i: f64| path.iter().fold(ecn, |e, &p| forward(e, p, i));
        assert_eq!(through(UNMARKED, 0.6), MARKED);
        assert_eq!(through(UNMARKED, 0.72), UNMARKED);
        assert_eq!(through(UNMARKED, 0.7), UNMARKED);
        for i in [0.0, 0.3, 0.9] {
            assert_eq!(through(MARKED, i), MARKED);
            assert_eq!(through(CE, i), CE);
            assert_eq!(through(NOT_ECT, i), NOT_ECT);
        }
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(2);
        for _ in 0..100_000 {
            let n = rng.gen_range(1..6);
            let ps: Vec<f64> = (0..n).map(|_| rng.gen()).collect();
            let i: f64 = rng.gen();
            let max = ps.iter().cloned().fold(0.0, f64::max);
            let e = ps.iter().fold(UNMARKED, |e, &p| forward(e, p, i));
            assert_eq!(e == MARKED, max > i);
        }
    }

    // Reference note §8 E3.
    #[test]
    fn the_decoder_follows_the_thesis_rule() {
        let input = [
            (0.5, true),
            (0.75, false),
            (0.25, true),
            (0.625, true),
            (0.6875, false),
            (0.5625, true),
        ];
        let run = |start| {
            let mut d = Decoder::new(start);
            input
                .iter()
                .map(|&(i, m)| {
                    d.observe(i, m);
                    d.estimate
                })
                .collect::<Vec<_>>()
        };
        assert_eq!(run(0.0), [0.5, 0.5, 0.5, 0.625, 0.625, 0.625]);
        assert_eq!(run(1.0), [1.0, 0.75, 0.75, 0.75, 0.6875, 0.6875]);
    }

    #[test]
    fn ce_and_not_ect_carry_no_price() {
        let mut d = Decoder::new(0.3);
        d.observe_ecn(0.9, CE);
        d.observe_ecn(0.1, NOT_ECT);
        assert_eq!(d.estimate, 0.3);
        d.observe_ecn(0.9, MARKED);
        assert_eq!(d.estimate, 0.9);
    }
}
