//! Open-loop cross traffic: Poisson, constant-rate and Pareto on/off sources.

use dropless_cc::{from_secs, secs, Time};
use dropless_transport::DataPacket;
use rand::{Rng, SeedableRng};
use rand_distr::{Distribution, Exp};
use rand_pcg::Pcg64Mcg;

use crate::config::{CrossKind, CrossSpec};
use crate::engine::SimPacket;

/// One cross-traffic source with its own random stream.
pub(crate) struct CrossSource {
    spec: CrossSpec,
    rng: Pcg64Mcg,
    /// Mean spacing between packets while sending, seconds.
    gap_s: f64,
    exp: Option<Exp<f64>>,
    /// End of the current on period (Pareto on/off).
    on_until: Time,
    next: Time,
}

/// Samples a Pareto variate with the given shape and mean (shape > 1).
fn pareto(rng: &mut Pcg64Mcg, shape: f64, mean: f64) -> f64 {
    let xm = mean * (shape - 1.0) / shape;
    let u: f64 = 1.0 - rng.gen::<f64>(); // (0, 1]
    xm / u.powf(1.0 / shape)
}

impl CrossSource {
    pub(crate) fn new(spec: &CrossSpec, seed: u64) -> Result<Self, String> {
        if !(spec.rate_bps.is_finite() && spec.rate_bps > 0.0) {
            return Err(format!("rate must be positive, found {}", spec.rate_bps));
        }
        if spec.packet_size == 0 {
            return Err("packet_size must be positive".into());
        }
        let mut peak = spec.rate_bps;
        if let CrossKind::ParetoOnOff {
            shape,
            mean_on,
            mean_off,
        } = spec.kind
        {
            if shape.is_nan() || shape <= 1.0 {
                return Err(format!("pareto shape must be above 1, found {shape}"));
            }
            if mean_on == 0 {
                return Err("mean_on must be positive".into());
            }
            // The mean rate is `rate`; the peak rate during on periods is higher.
            peak = spec.rate_bps * (mean_on + mean_off) as f64 / mean_on as f64;
        }
        let gap_s = spec.packet_size as f64 * 8.0 / peak;
        let exp = matches!(spec.kind, CrossKind::Poisson)
            .then(|| Exp::new(1.0 / gap_s).expect("positive rate"));
        let mut s = CrossSource {
            spec: *spec,
            rng: Pcg64Mcg::seed_from_u64(seed),
            gap_s,
            exp,
            on_until: 0,
            next: Time::MAX,
        };
        s.next = s.spec.start;
        if let CrossKind::ParetoOnOff { shape, mean_on, .. } = s.spec.kind {
            let on = pareto(&mut s.rng, shape, secs(mean_on));
            s.on_until = s.spec.start + from_secs(on);
        } else if let Some(e) = s.exp {
            s.next = s.spec.start + from_secs(e.sample(&mut s.rng));
        }
        Ok(s)
    }

    pub(crate) fn first_time(&self) -> Time {
        if self.spec.stop.is_some_and(|s| self.next >= s) {
            Time::MAX
        } else {
            self.next
        }
    }

    pub(crate) fn link(&self) -> usize {
        self.spec.link
    }

    /// Emits the packet due at `now` and returns the time of the next one.
    pub(crate) fn fire(&mut self, now: Time, id: u32) -> (Option<SimPacket>, Time) {
        let p = SimPacket {
            flow: id,
            hop: 0,
            cross: true,
            wire: self.spec.packet_size,
            data: DataPacket::default(),
        };
        let mut next = match self.spec.kind {
            CrossKind::Poisson => {
                now + from_secs(self.exp.expect("poisson").sample(&mut self.rng)).max(1)
            }
            CrossKind::Constant => now + from_secs(self.gap_s).max(1),
            CrossKind::ParetoOnOff {
                shape,
                mean_on,
                mean_off,
            } => {
                let mut t = now + from_secs(self.gap_s).max(1);
                if t >= self.on_until {
                    let off = pareto(&mut self.rng, shape, secs(mean_off));
                    let on = pareto(&mut self.rng, shape, secs(mean_on));
                    t = self.on_until + from_secs(off);
                    self.on_until = t + from_secs(on);
                }
                t
            }
        };
        if self.spec.stop.is_some_and(|s| next >= s) {
            next = Time::MAX;
        }
        self.next = next;
        (Some(p), next)
    }
}
