//! RPM, deterministic marking for max-min flow control (Ryu et al. 2005;
//! thesis §2.3.6 and L6917-6931, reference note §3.5): prices quantised to
//! `n` levels, and a router marks a probe only if its level *equals* the
//! probe's. The decoder (the note's [ASSUMPTION]) takes the largest marked
//! level seen, or 0.

/// A price in [0, 1] quantised to the nearest of `levels` levels
/// `0, 1/(levels-1), ..., 1`: the level.
pub fn quantise(p: f64, levels: u32) -> u32 {
    (p.clamp(0.0, 1.0) * f64::from(levels - 1)).round() as u32
}

/// Whether a path whose links have these quantised levels marks probe
/// level `j` (any link at exactly that level).
pub fn path_marks(levels: &[u32], j: u32) -> bool {
    levels.contains(&j)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equality_marking_finds_the_maximum_level() {
        let lv: Vec<u32> = [0.1, 0.8, 0.5].iter().map(|&p| quantise(p, 100)).collect();
        let best = (0..100).filter(|&j| path_marks(&lv, j)).max();
        assert_eq!(best, Some(quantise(0.8, 100)));
    }
}
