//! A constant-rate sender: bursts of a fixed size at a fixed average rate,
//! whatever the network says (the open-loop stream of seed 001's MBS
//! figures, Figs. 1-4, and `iperf3 -u -b RATE` over the transport). Lost
//! packets are retransmitted (the transport does that) but the rate and the
//! burst never change.

use crate::{AckSample, CongestionEvent, Control, Controller, Time};

/// A constant-rate sender.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ConstantRate {
    /// Average rate, bytes per second on the wire.
    rate: f64,
    /// Packets per burst.
    burst: u32,
}

impl ConstantRate {
    /// Sends at `rate_bps` bits per second (wire bytes) in bursts of `burst`
    /// packets.
    pub fn new(rate_bps: f64, burst: u32) -> Self {
        ConstantRate {
            rate: rate_bps / 8.0,
            burst: burst.max(1),
        }
    }
}

impl Controller for ConstantRate {
    fn name(&self) -> &'static str {
        "cbr"
    }

    fn control(&self) -> Control {
        Control {
            cwnd: None,
            pacing_rate: Some(self.rate),
            max_burst: Some(self.burst),
        }
    }

    fn on_ack(&mut self, _now: Time, _ack: &AckSample) {}

    fn on_congestion_event(&mut self, _now: Time, _ev: &CongestionEvent) {}

    fn on_rto(&mut self, _now: Time) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn never_changes() {
        let mut c = ConstantRate::new(8e6, 16);
        let before = c.control();
        assert_eq!(before.pacing_rate, Some(1e6));
        assert_eq!(before.max_burst, Some(16));
        assert_eq!(before.cwnd, None);
        c.on_rto(1);
        c.on_congestion_event(
            2,
            &CongestionEvent {
                cause: crate::CongestionCause::Loss,
                lost: 10,
                in_flight: 100,
                srtt: 1,
                min_rtt: 1,
            },
        );
        assert_eq!(c.control(), before);
    }
}
