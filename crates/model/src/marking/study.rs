//! Monte Carlo study of the marking schemes' estimators alone, as thesis
//! §5.4 runs them (reference note §5 and §8): the error against the number
//! of packets k for a static price, tracking a ramp, detecting a step.
//!
//! Every function is deterministic in its seed: one PCG-64 stream, drawn
//! in a fixed order.

use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

use super::probe::{threshold, IpidMap, Probes, Sequence};
use super::{adpm, rpm, tpm};

/// Links on the path in the thesis's TPM and RPM runs (L7337-7345).
pub const LINKS: usize = 10;

/// Largest k a study runs to.
pub const MAX_K: usize = 1 << 20;
/// Largest ensemble (sequences times prices, or runs, or trials).
pub const MAX_TRIALS: usize = 10_000_000;

/// A signalling scheme as the static study runs it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scheme {
    /// ADPM carrying one price uniform on [0, 1], with a probe sequence.
    Adpm(Sequence),
    /// REM or RAM in the space of the marking probability: a fraction q
    /// uniform on [0, 1] of packets marked at random, estimated by the
    /// fraction seen (thesis L7329-7335: MSE `1/(6k)` on average).
    Rem,
    /// Single-bit TPM with n-bit prices, 10 links of prices uniform on
    /// [0, 1], the sum scaled by 1/10 (thesis L7335-7345).
    Tpm(u32),
    /// RPM with n levels, 10 links, the maximum price (thesis L6917-6923).
    Rpm(u32),
}

impl Scheme {
    /// Names accepted by [`Scheme::parse`].
    pub const NAMES: &'static str = "adpm-brc, adpm-random-brc, adpm-random, rem, tpm-N (N bits, 1..16), rpm-N (N levels, 2..65536)";

    /// `adpm-brc`, `adpm-random-brc`, `adpm-random`, `rem`, `tpm-N`, `rpm-N`.
    pub fn parse(name: &str) -> Result<Scheme, String> {
        let bad = || {
            format!(
                "unknown marking scheme \"{name}\" (allowed: {})",
                Scheme::NAMES
            )
        };
        if let Some(s) = name.strip_prefix("adpm-") {
            return Sequence::parse(s).map(Scheme::Adpm).map_err(|_| bad());
        }
        if name == "rem" || name == "ram" {
            return Ok(Scheme::Rem);
        }
        let num =
            |s: &str, lo: u32, hi: u32| s.parse::<u32>().ok().filter(|n| (lo..=hi).contains(n));
        if let Some(n) = name.strip_prefix("tpm-").and_then(|s| num(s, 1, 16)) {
            return Ok(Scheme::Tpm(n));
        }
        if let Some(n) = name.strip_prefix("rpm-").and_then(|s| num(s, 2, 65536)) {
            return Ok(Scheme::Rpm(n));
        }
        Err(bad())
    }
}

/// Error statistics after k packets, over an ensemble.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ErrorStats {
    /// Packets received.
    pub k: usize,
    /// Mean absolute error.
    pub mean: f64,
    /// Mean squared error.
    pub mse: f64,
    /// 99th percentile of the absolute error.
    pub p99: f64,
    /// Largest absolute error seen.
    pub max: f64,
}

fn check_ks(ks: &[usize]) -> Result<usize, String> {
    if ks.is_empty() {
        return Err("k: give at least one packet count".into());
    }
    if let Some(k) = ks.iter().find(|&&k| k == 0 || k > MAX_K) {
        return Err(format!("k: {k} is outside 1..={MAX_K}"));
    }
    Ok(*ks.iter().max().expect("not empty"))
}

fn check_trials(n: usize, what: &str) -> Result<(), String> {
    if n == 0 || n > MAX_TRIALS {
        return Err(format!("{what}: {n} is outside 1..={MAX_TRIALS}"));
    }
    Ok(())
}

fn stats(k: usize, mut e: Vec<f64>) -> ErrorStats {
    let n = e.len() as f64;
    let mean = e.iter().sum::<f64>() / n;
    let mse = e.iter().map(|x| x * x).sum::<f64>() / n;
    e.sort_by(f64::total_cmp);
    let idx = ((0.99 * n).ceil() as usize).clamp(1, e.len()) - 1;
    ErrorStats {
        k,
        mean,
        mse,
        p99: e[idx],
        max: *e.last().expect("not empty"),
    }
}

/// The error of `scheme` after each k in `ks` for a static price, over
/// `sequences` probe sequences times `prices` prices each (thesis Figs.
/// 5.1-5.3: pure BRC over 1000 prices, the random sequences over 256
/// sequences of 100 prices). For REM, TPM and RPM every trial draws its own
/// marks, so only the product matters.
pub fn static_error(
    scheme: Scheme,
    ks: &[usize],
    sequences: usize,
    prices: usize,
    seed: u64,
) -> Result<Vec<ErrorStats>, String> {
    let kmax = check_ks(ks)?;
    check_trials(sequences, "sequences")?;
    check_trials(prices, "prices")?;
    let trials = sequences
        .checked_mul(prices)
        .filter(|&n| n <= MAX_TRIALS)
        .ok_or_else(|| format!("sequences times prices is above {MAX_TRIALS}"))?;
    if trials.saturating_mul(kmax) > 20_000_000_000 {
        return Err("the study is too large: trials times the largest k above 2e10".into());
    }
    let mut rng = Pcg64::seed_from_u64(seed);
    // at[k - 1] = index into ks + 1, or 0.
    let mut at = vec![0usize; kmax];
    for (j, &k) in ks.iter().enumerate() {
        at[k - 1] = j + 1;
    }
    let mut errs: Vec<Vec<f64>> = ks.iter().map(|_| Vec::with_capacity(trials)).collect();
    let record = |t: usize, e: f64, errs: &mut Vec<Vec<f64>>| {
        if at[t] > 0 {
            errs[at[t] - 1].push(e);
        }
    };
    match scheme {
        Scheme::Adpm(seq) => {
            let mut th = vec![0.0; kmax];
            for _ in 0..sequences {
                let mut probes = Probes::start(seq, &mut rng);
                for x in th.iter_mut() {
                    *x = threshold(probes.next_ipid(&mut rng));
                }
                for _ in 0..prices {
                    let p: f64 = rng.gen();
                    let mut d = adpm::Decoder::new(0.0);
                    for (t, &i) in th.iter().enumerate() {
                        d.observe(i, adpm::marks(p, i));
                        record(t, (d.estimate - p).abs(), &mut errs);
                    }
                }
            }
        }
        Scheme::Rem => {
            for _ in 0..trials {
                let q: f64 = rng.gen();
                let mut m = 0u64;
                for t in 0..kmax {
                    m += u64::from(rng.gen::<f64>() < q);
                    record(t, (m as f64 / (t + 1) as f64 - q).abs(), &mut errs);
                }
            }
        }
        Scheme::Tpm(bits) => {
            let types = tpm::HOPS * bits as usize;
            for _ in 0..trials {
                let p: Vec<f64> = (0..LINKS).map(|_| rng.gen()).collect();
                let lv: Vec<u32> = p.iter().map(|&x| tpm::quantise(x, bits)).collect();
                let truth = p.iter().sum::<f64>() / LINKS as f64;
                let mut d = tpm::Decoder::new(bits);
                for (t, &wanted) in at.iter().enumerate() {
                    let ty = rng.gen_range(0..types);
                    let hop = ty / bits as usize;
                    let m = hop < LINKS && tpm::marks(ty, bits, hop, lv[hop]);
                    d.observe(ty, m);
                    // The table's sum only where an error is recorded.
                    if wanted > 0 {
                        record(t, (d.sum() / LINKS as f64 - truth).abs(), &mut errs);
                    }
                }
            }
        }
        Scheme::Rpm(levels) => {
            let top = f64::from(levels - 1);
            for _ in 0..trials {
                let p: Vec<f64> = (0..LINKS).map(|_| rng.gen()).collect();
                let lv: Vec<u32> = p.iter().map(|&x| rpm::quantise(x, levels)).collect();
                let truth = p.iter().cloned().fold(0.0, f64::max);
                let mut best: Option<u32> = None;
                for t in 0..kmax {
                    let j = rng.gen_range(0..levels);
                    if rpm::path_marks(&lv, j) && best.is_none_or(|b| j > b) {
                        best = Some(j);
                    }
                    let est = best.map_or(0.0, |b| f64::from(b) / top);
                    record(t, (est - truth).abs(), &mut errs);
                }
            }
        }
    }
    Ok(ks.iter().zip(errs).map(|(&k, e)| stats(k, e)).collect())
}

/// Tracking a price that rises by `delta` per packet.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tracking {
    /// Mean absolute error after the burn-in.
    pub mean: f64,
    /// Mean squared error.
    pub mse: f64,
    /// Fraction of packets with an error above `sqrt(2 delta)` (for a
    /// Rayleigh error, `exp(-1)`).
    pub exceed: f64,
}

/// ADPM following the ramp `p_t = 0.1 + delta t` (the other links at 0):
/// `10/sqrt(delta)` packets of burn-in, then the error averaged over
/// `30/sqrt(delta)` packets, over `runs` runs (reference note §8 E10; the
/// thesis's Fig. 5.4 gives delta from 1e-8 to 1e-5 per packet).
pub fn track_ramp(delta: f64, seq: Sequence, runs: usize, seed: u64) -> Result<Tracking, String> {
    if !(1e-10..=1e-3).contains(&delta) {
        return Err(format!("delta: {delta} is outside 1e-10..=1e-3 per packet"));
    }
    check_trials(runs, "runs")?;
    let burn = (10.0 / delta.sqrt()).ceil() as u64;
    let span = (30.0 / delta.sqrt()).ceil() as u64;
    if (runs as u64).saturating_mul(burn + span) > 20_000_000_000 {
        return Err("the study is too large: runs times packets above 2e10".into());
    }
    let mut rng = Pcg64::seed_from_u64(seed);
    let (mut s1, mut s2, mut over, mut n) = (0.0, 0.0, 0u64, 0u64);
    let lim = (2.0 * delta).sqrt();
    for _ in 0..runs {
        let mut probes = Probes::start(seq, &mut rng);
        let mut d = adpm::Decoder::new(0.0);
        for t in 0..burn + span {
            let p = 0.1 + delta * t as f64;
            let i = threshold(probes.next_ipid(&mut rng));
            d.observe(i, adpm::marks(p, i));
            if t >= burn {
                let e = (p - d.estimate).abs();
                s1 += e;
                s2 += e * e;
                over += u64::from(e > lim);
                n += 1;
            }
        }
    }
    let n = n as f64;
    Ok(Tracking {
        mean: s1 / n,
        mse: s2 / n,
        exceed: over as f64 / n,
    })
}

/// Detecting a step of the price above the believed interval's upper end.
#[derive(Clone, Debug, PartialEq)]
pub struct Detection {
    /// Mean packets until the first probe falls between the old upper end
    /// and the new price.
    pub mean: f64,
    /// The most packets any trial took.
    pub worst: u64,
    /// Fraction of trials not detected after each of the given k.
    pub undetected: Vec<f64>,
}

/// The price jumps to `i+ + a`, with `i+` uniform on [0, 1 - a] and the
/// probe sequence from its own start: packets until a probe falls in
/// `(i+, i+ + a)` (thesis eqs. (5.4)/(5.5), reference note §2.6.5 and §8
/// E11), over `trials` trials.
pub fn detect_step(
    a: f64,
    seq: Sequence,
    trials: usize,
    ks: &[usize],
    seed: u64,
) -> Result<Detection, String> {
    if !(1e-4..1.0).contains(&a) {
        return Err(format!("a: {a} is outside [1e-4, 1)"));
    }
    check_trials(trials, "trials")?;
    let mut rng = Pcg64::seed_from_u64(seed);
    let cap = MAX_K as u64 * 16;
    let mut times = Vec::with_capacity(trials);
    for _ in 0..trials {
        let lo = rng.gen::<f64>() * (1.0 - a);
        let hi = lo + a;
        let mut probes = Probes::start(seq, &mut rng);
        let mut t = 0u64;
        loop {
            t += 1;
            let i = threshold(probes.next_ipid(&mut rng));
            if (i > lo && i < hi) || t >= cap {
                break;
            }
        }
        times.push(t);
    }
    let n = trials as f64;
    Ok(Detection {
        mean: times.iter().sum::<u64>() as f64 / n,
        worst: times.iter().copied().max().unwrap_or(0),
        undetected: ks
            .iter()
            .map(|&k| times.iter().filter(|&&t| t > k as u64).count() as f64 / n)
            .collect(),
    })
}

/// ADPM's mean error after `k` packets of a sequential IPid counter from a
/// random start, sent in host order or byte-swapped, through `map`
/// (reference note §8 E14), over `sequences` times `prices`.
pub fn ipid_map_error(
    map: IpidMap,
    swapped: bool,
    k: usize,
    sequences: usize,
    prices: usize,
    seed: u64,
) -> Result<f64, String> {
    check_ks(&[k])?;
    check_trials(sequences, "sequences")?;
    check_trials(prices, "prices")?;
    let mut rng = Pcg64::seed_from_u64(seed);
    let (mut sum, mut n) = (0.0, 0usize);
    for _ in 0..sequences {
        let d0: u16 = rng.gen();
        let th: Vec<f64> = (0..k)
            .map(|t| {
                let c = d0.wrapping_add(t as u16);
                map.threshold(if swapped { c.swap_bytes() } else { c })
            })
            .collect();
        for _ in 0..prices {
            let p: f64 = rng.gen();
            let mut d = adpm::Decoder::new(0.0);
            for &i in &th {
                d.observe(i, adpm::marks(p, i));
            }
            sum += (d.estimate - p).abs();
            n += 1;
        }
    }
    Ok(sum / n as f64)
}

/// The worst relative error of the decoded RCP rate over `trials` paths of
/// `links` links with rates log-uniform on [1 kb/s, 100 Gb/s], after `k`
/// pure-BRC packets (reference note §8 E12).
pub fn rcp_rate_error(k: usize, links: usize, trials: usize, seed: u64) -> Result<f64, String> {
    use super::mapping::{rcp_price, rcp_rate};
    check_ks(&[k])?;
    check_trials(trials, "trials")?;
    if !(1..=100).contains(&links) {
        return Err(format!("links: {links} is outside 1..=100"));
    }
    let (r_min, r_max): (f64, f64) = (1e3, 100e9);
    let mut rng = Pcg64::seed_from_u64(seed);
    let mut worst: f64 = 0.0;
    for _ in 0..trials {
        let rates: Vec<f64> = (0..links)
            .map(|_| r_min * (r_max / r_min).powf(rng.gen::<f64>()))
            .collect();
        let slowest = rates.iter().cloned().fold(f64::INFINITY, f64::min);
        let price = rates
            .iter()
            .map(|&r| rcp_price(r, r_min, r_max))
            .fold(0.0, f64::max);
        let mut d = adpm::Decoder::new(0.0);
        for v in 1..=k {
            let i = threshold(v as u16);
            d.observe(i, adpm::marks(price, i));
        }
        let got = rcp_rate(d.estimate, r_min, r_max);
        worst = worst.max((got - slowest).abs() / slowest);
    }
    Ok(worst)
}

/// RAM's mean bit over `packets` packets crossing links of prices `s`
/// (reference note §8 E15).
pub fn ram_mean(s: &[f64], packets: u64, seed: u64) -> Result<f64, String> {
    check_prices(s)?;
    check_trials(packets as usize, "packets")?;
    Ok(super::ram::mean_bit(
        s,
        packets,
        &mut Pcg64::seed_from_u64(seed),
    ))
}

/// The fraction of `packets` packets REM marks on links of prices `p`
/// with base `phi` (reference note §8 E16).
pub fn rem_fraction(p: &[f64], phi: f64, packets: u64, seed: u64) -> Result<f64, String> {
    if p.is_empty() || p.iter().any(|x| !(0.0..=1e6).contains(x)) {
        return Err("prices: give one or more prices from 0 to 1e6".into());
    }
    if !(phi > 1.0 && phi.is_finite()) {
        return Err(format!("phi: {phi} must be above 1"));
    }
    check_trials(packets as usize, "packets")?;
    let mut rng = Pcg64::seed_from_u64(seed);
    let m = (0..packets)
        .filter(|_| super::rem::path_marked(p, phi, &mut rng))
        .count();
    Ok(m as f64 / packets as f64)
}

/// The largest gap between consecutive probe types among the first `k`
/// probes of a sequence, with 0 and 1 as the ends: the supremum over prices
/// of ADPM's error after those probes (the estimate is the probe below the
/// price). The largest over `sequences` sequences (reference note §8 E5,
/// E6: 1/K for pure BRC, up to 2/K from a random start).
pub fn worst_gap(seq: Sequence, k: usize, sequences: usize, seed: u64) -> Result<f64, String> {
    check_ks(&[k])?;
    check_trials(sequences, "sequences")?;
    let mut rng = Pcg64::seed_from_u64(seed);
    let mut worst: f64 = 0.0;
    let mut th = Vec::with_capacity(k + 2);
    for _ in 0..sequences {
        let mut probes = Probes::start(seq, &mut rng);
        th.clear();
        th.extend([0.0, 1.0]);
        th.extend((0..k).map(|_| threshold(probes.next_ipid(&mut rng))));
        th.sort_by(f64::total_cmp);
        worst = th.windows(2).map(|w| w[1] - w[0]).fold(worst, f64::max);
    }
    Ok(worst)
}

/// Probes per cell of width `2^-j` among `count` consecutive IPids from
/// `start` (reference note §8 E1).
pub fn cell_counts(start: u16, count: usize, j: u32) -> Result<Vec<u32>, String> {
    if j > 16 || count > 1 << 17 {
        return Err("j must be at most 16 and count at most 2^17".into());
    }
    let mut cells = vec![0u32; 1 << j];
    for t in 0..count {
        let i = threshold(start.wrapping_add(t as u16));
        cells[(i * f64::from(1u32 << j)) as usize] += 1;
    }
    Ok(cells)
}

/// Paths of 1 to 10 links with random prices and random probe types:
/// how often the codepoint after ADPM's routers disagrees with
/// `1{max price > i}` (reference note §8 E2; 0 expected).
pub fn path_mismatches(trials: usize, seed: u64) -> Result<usize, String> {
    check_trials(trials, "trials")?;
    let mut rng = Pcg64::seed_from_u64(seed);
    let mut bad = 0;
    for _ in 0..trials {
        let n = rng.gen_range(1..=10);
        let ps: Vec<f64> = (0..n).map(|_| rng.gen()).collect();
        let i = threshold(rng.gen());
        let e = ps
            .iter()
            .fold(adpm::UNMARKED, |e, &p| adpm::forward(e, p, i));
        let max = ps.iter().cloned().fold(0.0, f64::max);
        bad += usize::from((e == adpm::MARKED) != (max > i));
    }
    Ok(bad)
}

fn check_prices(s: &[f64]) -> Result<(), String> {
    if s.is_empty() || s.len() > 1000 || s.iter().any(|x| !(0.0..=1.0).contains(x)) {
        return Err("prices: give 1 to 1000 prices, each in [0, 1]".into());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_numbers_and_bad_sizes_are_refused() {
        let a = static_error(Scheme::Adpm(Sequence::Random), &[1, 10], 4, 5, 9).unwrap();
        let b = static_error(Scheme::Adpm(Sequence::Random), &[1, 10], 4, 5, 9).unwrap();
        assert_eq!(a, b);
        assert!(static_error(Scheme::Rem, &[0], 1, 1, 1).is_err());
        assert!(static_error(Scheme::Rem, &[1], 0, 1, 1).is_err());
        assert!(static_error(Scheme::Rem, &[MAX_K + 1], 1, 1, 1).is_err());
        assert!(track_ramp(0.5, Sequence::Random, 1, 1).is_err());
        assert!(detect_step(1.5, Sequence::Random, 1, &[], 1).is_err());
        for bad in ["adpm", "tpm-0", "tpm-17", "rpm-1", "red", ""] {
            let e = Scheme::parse(bad).unwrap_err();
            assert!(e.contains("allowed"), "{e}");
        }
    }

    #[test]
    fn pure_brc_after_2j_minus_1_packets_has_mean_error_half_a_cell() {
        // 1000 prices, k = 2^j - 1: mean |e| = 1/(2(k+1)) (thesis L7287).
        let r = static_error(Scheme::Adpm(Sequence::Brc), &[7, 63], 1, 20_000, 4).unwrap();
        for s in r {
            let want = 1.0 / (2.0 * (s.k + 1) as f64);
            assert!((s.mean / want - 1.0).abs() < 0.03, "{s:?}");
            assert!(s.max <= 1.0 / (s.k + 1) as f64 + 1e-12, "{s:?}");
        }
    }
}
