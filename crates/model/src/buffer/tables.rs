//! Tables 3.1-3.4 of the thesis (§3.8.1, L4009-4170; note §8.4),
//! regenerated from the rules of [`super::rules`] beside the printed values.
//!
//! All links run at 40 Gb/s with 1040-byte packets (mu = 40e9/8320 packets/s,
//! note §1.4), targets U = 60/70/80/90 %.
//!
//! * **Our rule** (3.23): all 32 entries reproduce exactly.
//! * **O(log W)** (Enachescu, varrho = 0.95): within 1; the one difference is
//!   Table 3.1 at 50 ms and 70 %, raw value 260.001, which rounds up to 261
//!   against the printed 260 (note §10 item 13).
//! * **x mu RTT / sqrt(N)** (Appenzeller): does **not** reproduce. Solving
//!   (3.26) with the standard erf gives x = 0.324/0.399/0.493/0.633 at large
//!   N, about 6.2 times the x implied by the printed buffers
//!   (0.052/0.065/0.08/0.10), and the printed values depend more strongly on
//!   N than (3.26) allows (implied x at 60 %: 0.0522 for N >= 16000, 0.0577
//!   for N = 400, where (3.26) changes x by under 2 %). No single constant or
//!   RTT convention (harmonic vs arithmetic mean, total vs per-link
//!   capacity) maps one onto the other, so the thesis must have used a
//!   different, unstated form of the erf rule. We print what (3.26) gives and
//!   do not tune anything to match (note §8.4, §10 item 14).
//! * **2M**: Table 3.4 prints 2 x (links per trunk) = M (32, 128) instead of
//!   2M (64, 256) (note §10 item 12); we print 2M.
//! * **BDP**: rounded up; Table 3.4 K = 64 prints 30769229 against
//!   30769230.8 (rounding noise, within 2).

use super::rules::{self, RuleInput};

/// The four target utilizations of every table.
pub const TARGETS: [f64; 4] = [0.6, 0.7, 0.8, 0.9];

/// One row (scenario) of Tables 3.1-3.4 with the thesis's printed values.
#[derive(Clone, Debug, PartialEq)]
pub struct Scenario {
    /// Table number, e.g. "3.1".
    pub table: &'static str,
    /// The row's label in the table (e.g. "RTT_H 50 ms", "M = 8").
    pub label: &'static str,
    /// M input links.
    pub m: f64,
    /// K output links.
    pub k: usize,
    /// N flows.
    pub n: f64,
    /// RTT_H, s.
    pub rtt: f64,
    /// Printed "our rule" entries at 60/70/80/90 %.
    pub thesis_rule: [u64; 4],
    /// Printed O(log W) entries.
    pub thesis_enachescu: [u64; 4],
    /// Printed x mu RTT / sqrt(N) entries.
    pub thesis_appenzeller: [u64; 4],
    /// Printed 2M entry.
    pub thesis_2m: u64,
    /// Printed BDP entry.
    pub thesis_bdp: u64,
}

/// The eight scenarios of Tables 3.1-3.4 (note §8.4, verbatim).
pub fn scenarios() -> Vec<Scenario> {
    let s = |table, label, m, k, n, rtt, r, e, a, g, b| Scenario {
        table,
        label,
        m,
        k,
        n,
        rtt,
        thesis_rule: r,
        thesis_enachescu: e,
        thesis_appenzeller: a,
        thesis_2m: g,
        thesis_bdp: b,
    };
    let w114 = [191, 198, 208, 229];
    vec![
        s(
            "3.1",
            "RTT_H 50 ms",
            8.0,
            1,
            400.0,
            0.05,
            [19, 28, 45, 97],
            [254, 260, 270, 292],
            [694, 875, 1122, 1502],
            16,
            240_385,
        ),
        s(
            "3.1",
            "RTT_H 100 ms",
            8.0,
            1,
            400.0,
            0.1,
            [21, 31, 51, 108],
            [281, 288, 297, 319],
            [1388, 1749, 2243, 3003],
            16,
            480_770,
        ),
        s(
            "3.2",
            "M = 8",
            8.0,
            4,
            16_000.0,
            0.1,
            [8, 12, 19, 40],
            w114,
            [794, 986, 1226, 1587],
            16,
            1_923_077,
        ),
        s(
            "3.2",
            "M = 32",
            32.0,
            4,
            16_000.0,
            0.1,
            [11, 18, 30, 65],
            w114,
            [794, 986, 1226, 1587],
            64,
            1_923_077,
        ),
        s(
            "3.3",
            "N = 3200",
            16.0,
            8,
            3200.0,
            0.1,
            [12, 18, 29, 61],
            [281, 288, 297, 319],
            [3656, 4516, 5698, 7311],
            32,
            3_846_154,
        ),
        s(
            "3.3",
            "N = 32000",
            16.0,
            8,
            32_000.0,
            0.1,
            [7, 10, 18, 38],
            w114,
            [1122, 1393, 1733, 2210],
            32,
            3_846_154,
        ),
        s(
            "3.4",
            "K = 16",
            32.0,
            16,
            64_000.0,
            0.1,
            [5, 9, 16, 36],
            w114,
            [1587, 1972, 2404, 3126],
            32,
            7_692_308,
        ),
        s(
            "3.4",
            "K = 64",
            128.0,
            64,
            256_000.0,
            0.1,
            [0, 0, 9, 29],
            w114,
            [3174, 3845, 4808, 6154],
            128,
            30_769_229,
        ),
    ]
}

/// A regenerated row: what each rule gives, at 60/70/80/90 %.
#[derive(Clone, Debug, PartialEq)]
pub struct Regenerated {
    /// The scenario (with the printed values).
    pub scenario: Scenario,
    /// Our rule (3.23).
    pub rule: [u64; 4],
    /// Raw log_{F1} F2.
    pub rule_exponent: [f64; 4],
    /// Enachescu O(log W), varrho = 0.95.
    pub enachescu: [u64; 4],
    /// Raw Enachescu exponent.
    pub enachescu_exponent: [f64; 4],
    /// Appenzeller x K mu RTT / sqrt(N), standard erf.
    pub appenzeller: [u64; 4],
    /// 2M.
    pub two_m: f64,
    /// BDP, rounded up.
    pub bdp: f64,
}

/// The link rate of every table: 40 Gb/s, 1040-byte packets, in packets/s.
pub fn table_mu() -> f64 {
    rules::packets_per_second(40e9, 1040.0)
}

/// Regenerates one scenario.
pub fn regenerate(s: &Scenario) -> Result<Regenerated, String> {
    let mu = table_mu();
    let mut out = Regenerated {
        scenario: s.clone(),
        rule: [0; 4],
        rule_exponent: [0.0; 4],
        enachescu: [0; 4],
        enachescu_exponent: [0.0; 4],
        appenzeller: [0; 4],
        two_m: rules::gorinsky_buffer(s.m),
        bdp: rules::bdp(s.k, mu, s.rtt).ceil(),
    };
    for (j, &u) in TARGETS.iter().enumerate() {
        let r = RuleInput {
            m: s.m,
            k: s.k,
            mu,
            n: s.n,
            rtt: s.rtt,
            u,
        };
        out.rule_exponent[j] = rules::dwdm_exponent(&r)?;
        out.rule[j] = rules::dwdm_buffer(&r)?;
        out.enachescu_exponent[j] = rules::enachescu_exponent(&r, 0.95)?;
        out.enachescu[j] = rules::enachescu_buffer(&r, 0.95)?;
        out.appenzeller[j] = rules::appenzeller_buffer(s.k, mu, s.rtt, s.n, u)?;
    }
    Ok(out)
}

/// All eight rows.
pub fn regenerate_all() -> Result<Vec<Regenerated>, String> {
    scenarios().iter().map(regenerate).collect()
}

/// The x implied by a printed Appenzeller entry: B sqrt(N) / (K mu RTT).
pub fn implied_appenzeller_x(s: &Scenario, j: usize) -> f64 {
    s.thesis_appenzeller[j] as f64 * s.n.sqrt() / rules::bdp(s.k, table_mu(), s.rtt)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn all_32_rule_entries_match_exactly() {
        for r in regenerate_all().unwrap() {
            assert_eq!(
                r.rule, r.scenario.thesis_rule,
                "Table {} {}",
                r.scenario.table, r.scenario.label
            );
        }
    }

    #[test]
    fn enachescu_within_one_and_the_one_miss_is_260_001() {
        let mut misses = Vec::new();
        for r in regenerate_all().unwrap() {
            for j in 0..4 {
                let d = r.enachescu[j] as i64 - r.scenario.thesis_enachescu[j] as i64;
                assert!(d.abs() <= 1, "{:?}", r.scenario);
                if d != 0 {
                    misses.push((r.scenario.label, j, r.enachescu_exponent[j]));
                }
            }
        }
        // Only Table 3.1, 50 ms, 70 %: 260.001 -> 261 vs printed 260.
        assert_eq!(misses.len(), 1, "{misses:?}");
        assert_eq!((misses[0].0, misses[0].1), ("RTT_H 50 ms", 1));
        assert!((misses[0].2 - 260.001).abs() < 1e-3);
    }

    #[test]
    fn bdp_entries() {
        for r in regenerate_all().unwrap() {
            let d = r.bdp - r.scenario.thesis_bdp as f64;
            let tol = if r.scenario.label == "K = 64" {
                2.0
            } else {
                0.0
            };
            assert!(d.abs() <= tol, "{} {}", r.scenario.label, r.bdp);
        }
    }

    #[test]
    fn two_m_entries_except_table_3_4() {
        for r in regenerate_all().unwrap() {
            if r.scenario.table == "3.4" {
                // Printed value is M itself (note §10 item 12).
                assert_eq!(r.scenario.thesis_2m as f64, r.scenario.m);
                assert_eq!(r.two_m, 2.0 * r.scenario.m);
            } else {
                assert_eq!(r.two_m, r.scenario.thesis_2m as f64);
            }
        }
    }

    /// Why the Appenzeller column does not reproduce: the printed buffers
    /// imply x about 6x smaller than (3.26) gives, and an N-dependence that
    /// (3.26) does not have. We assert the mismatch so that a "fix" that
    /// quietly tunes the rule to the table fails here.
    #[test]
    fn appenzeller_column_does_not_reproduce() {
        for r in regenerate_all().unwrap() {
            for j in 0..4 {
                let ratio = r.appenzeller[j] as f64 / r.scenario.thesis_appenzeller[j] as f64;
                assert!(ratio > 4.5 && ratio < 7.0, "{:?} {ratio}", r.scenario.label);
            }
        }
        let sc = scenarios();
        // Implied x at 60 %: ~0.0522 at large N, 0.0577 at N = 400.
        let x_big = implied_appenzeller_x(&sc[6], 0);
        let x_400 = implied_appenzeller_x(&sc[0], 0);
        assert!((x_big - 0.0522).abs() < 5e-4, "{x_big}");
        assert!((x_400 - 0.0577).abs() < 5e-4, "{x_400}");
        // (3.26) itself moves x by far less between N = 400 and 64000.
        let f = rules::appenzeller_x(0.6, 400.0).unwrap()
            / rules::appenzeller_x(0.6, 64_000.0).unwrap();
        assert!(f < 1.02 && x_400 / x_big > 1.10, "{f}");
    }
}
