//! Open-loop cross traffic inside an emulated link: packets that occupy the
//! queue and the link's time but are never written anywhere, so the real
//! flows through [`crate::Link`] meet the congested path the simulator's
//! `[[cross_traffic]]` gives them (constant, Poisson, Pareto on/off, with the
//! same meaning of `rate`: the mean over on and off periods).

use dropless_cc::{from_secs, Time};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

/// How cross packets are spaced.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum CrossKind {
    /// Evenly spaced.
    Constant,
    /// Exponential gaps.
    Poisson,
    /// Pareto-distributed on and off periods; evenly spaced at the peak rate
    /// `rate (on + off) / on` while on.
    ParetoOnOff {
        /// Shape of both periods, > 1.
        shape: f64,
        /// Mean on period.
        mean_on: Time,
        /// Mean off period.
        mean_off: Time,
    },
}

/// A cross-traffic source.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CrossConfig {
    /// Spacing.
    pub kind: CrossKind,
    /// Mean rate, bits/s of whole IP packets.
    pub rate_bps: f64,
    /// Bytes per packet.
    pub packet_bytes: u32,
    /// Seed of the random gaps and periods.
    pub seed: u64,
}

impl CrossConfig {
    /// Checks the values; the error names the field and what is allowed.
    pub fn validate(&self) -> Result<(), String> {
        if !(self.rate_bps.is_finite() && self.rate_bps > 0.0 && self.rate_bps <= 1e14) {
            return Err(format!(
                "cross rate: found {}, expected a rate above 0 and at most 100 Tb/s",
                self.rate_bps
            ));
        }
        if !(20..=65_535).contains(&self.packet_bytes) {
            return Err(format!(
                "cross size: found {}, expected 20 to 65535 bytes",
                self.packet_bytes
            ));
        }
        if let CrossKind::ParetoOnOff { shape, mean_on, .. } = self.kind {
            if !(shape.is_finite() && shape > 1.0) {
                return Err(format!(
                    "cross shape: found {shape}, expected a number above 1"
                ));
            }
            if mean_on == 0 {
                return Err("cross on: found 0, expected a positive time".into());
            }
        }
        Ok(())
    }
}

/// The arrivals of one source, in time order.
pub struct CrossSource {
    cfg: CrossConfig,
    rng: Pcg64Mcg,
    /// Mean gap while sending, ns.
    gap: f64,
    on_until: Time,
    next: Time,
}

fn pareto(rng: &mut Pcg64Mcg, shape: f64, mean: f64) -> f64 {
    let xm = mean * (shape - 1.0) / shape;
    let u: f64 = 1.0 - rng.gen::<f64>(); // (0, 1]
    xm / u.powf(1.0 / shape)
}

impl CrossSource {
    /// A source whose first packet comes at or after `start` (validate
    /// `cfg` first).
    pub fn new(cfg: CrossConfig, start: Time) -> Self {
        let mut peak = cfg.rate_bps;
        if let CrossKind::ParetoOnOff {
            mean_on, mean_off, ..
        } = cfg.kind
        {
            peak = cfg.rate_bps * (mean_on + mean_off) as f64 / mean_on as f64;
        }
        let mut s = CrossSource {
            rng: Pcg64Mcg::seed_from_u64(cfg.seed),
            gap: cfg.packet_bytes as f64 * 8.0 / peak * 1e9,
            on_until: 0,
            next: start,
            cfg,
        };
        if let CrossKind::ParetoOnOff { shape, mean_on, .. } = cfg.kind {
            s.on_until = start + from_secs(pareto(&mut s.rng, shape, mean_on as f64 * 1e-9));
        }
        s.next = start + s.gap_sample();
        s
    }

    fn gap_sample(&mut self) -> Time {
        match self.cfg.kind {
            CrossKind::Poisson => {
                let u: f64 = 1.0 - self.rng.gen::<f64>();
                (-u.ln() * self.gap).round().max(1.0) as Time
            }
            _ => (self.gap.round() as Time).max(1),
        }
    }

    /// Bytes per packet.
    pub fn packet_bytes(&self) -> u32 {
        self.cfg.packet_bytes
    }

    /// When the next packet arrives.
    pub fn peek(&self) -> Time {
        self.next
    }

    /// Takes the next arrival and schedules the one after it.
    pub fn take(&mut self) -> Time {
        let t = self.next;
        let mut n = t + self.gap_sample();
        if let CrossKind::ParetoOnOff {
            shape,
            mean_on,
            mean_off,
        } = self.cfg.kind
        {
            if n > self.on_until {
                // Off, then a new on period.
                let off = from_secs(pareto(&mut self.rng, shape, mean_off as f64 * 1e-9));
                let on = from_secs(pareto(&mut self.rng, shape, mean_on as f64 * 1e-9));
                n = self.on_until + off;
                self.on_until = n + on;
            }
        }
        self.next = n;
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dropless_cc::SECOND;

    fn mean_rate(kind: CrossKind) -> f64 {
        let mut s = CrossSource::new(
            CrossConfig {
                kind,
                rate_bps: 100e6,
                packet_bytes: 1500,
                seed: 3,
            },
            0,
        );
        let mut n = 0u64;
        while s.peek() < 100 * SECOND {
            s.take();
            n += 1;
        }
        n as f64 * 1500.0 * 8.0 / 100.0
    }

    #[test]
    fn every_kind_keeps_its_mean_rate() {
        assert!((mean_rate(CrossKind::Constant) - 100e6).abs() < 1e5);
        assert!((mean_rate(CrossKind::Poisson) - 100e6).abs() < 1e6);
        let p = mean_rate(CrossKind::ParetoOnOff {
            shape: 1.5,
            mean_on: SECOND / 2,
            mean_off: SECOND / 2,
        });
        // Heavy tails: the 100-s mean is within 25 %.
        assert!((p - 100e6).abs() < 25e6, "{p}");
    }
}
