//! DCTCP's step-marking queue (RFC 8257 §3.1; Alizadeh et al., "Data
//! Center TCP", SIGCOMM 2010): an arriving packet finds more than `k`
//! packets waiting and is marked CE if it is ECN-capable, dropped if it is
//! not (as a RED queue with both thresholds at `k` and ECN on does, the
//! configuration RFC 8257 §3.1 describes). The queue is the instantaneous
//! one, not an average.

use crate::red::Verdict;

/// The step queue's parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StepConfig {
    /// Marking threshold, packets waiting (RFC 8257 leaves it to the
    /// operator; the DCTCP paper's 10 Gb/s switches used 65, its 1 Gb/s
    /// ones 20).
    pub k: u64,
    /// Mark ECN-capable packets (true); false: drop every packet above `k`
    /// (a drop-tail queue of `k` packets).
    pub ecn: bool,
}

impl Default for StepConfig {
    fn default() -> Self {
        StepConfig { k: 20, ecn: true }
    }
}

impl StepConfig {
    /// Checks the parameters: `Err((key, allowed))` names the scenario key
    /// and its allowed values.
    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        if self.k == 0 || self.k > 1_000_000 {
            return Err(("step_k", "a number of packets from 1 to 1000000".into()));
        }
        Ok(())
    }
}

/// The step-marking state of one queue (counters only: the decision needs
/// nothing but the queue).
#[derive(Clone, Debug, Default)]
pub struct StepMark {
    cfg: StepConfig,
    /// Packets marked CE.
    pub marks: u64,
    /// Packets dropped above `k` (not ECN-capable, or `ecn` off).
    pub drops: u64,
}

impl StepMark {
    /// A step queue with the given (validated) parameters.
    pub fn new(cfg: StepConfig) -> Self {
        StepMark {
            cfg,
            marks: 0,
            drops: 0,
        }
    }

    /// The parameters.
    pub fn config(&self) -> &StepConfig {
        &self.cfg
    }

    /// A packet arrives to `waiting` packets; `ect`: it is ECN-capable.
    pub fn on_arrival(&mut self, waiting: u64, ect: bool) -> Verdict {
        if waiting <= self.cfg.k {
            Verdict::Enqueue
        } else {
            Verdict::signal(self.cfg.ecn && ect, &mut self.marks, &mut self.drops)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_above_k_only() {
        let mut s = StepMark::new(StepConfig { k: 10, ecn: true });
        assert_eq!(s.on_arrival(0, true), Verdict::Enqueue);
        assert_eq!(s.on_arrival(10, true), Verdict::Enqueue);
        assert_eq!(s.on_arrival(11, true), Verdict::Mark);
        assert_eq!(s.on_arrival(11, false), Verdict::Drop);
        assert_eq!((s.marks, s.drops), (1, 1));
        let mut s = StepMark::new(StepConfig { k: 10, ecn: false });
        assert_eq!(s.on_arrival(11, true), Verdict::Drop);
    }

    #[test]
    fn k_is_checked() {
        assert_eq!(
            StepConfig { k: 0, ecn: true }.validate().unwrap_err().0,
            "step_k"
        );
        assert!(StepConfig::default().validate().is_ok());
    }
}
