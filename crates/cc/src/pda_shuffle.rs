//! PDA's shuffle: sharing a bottleneck among PDA flows by counting them from
//! what they yield (seed 000 §IV, "Network Lion"), sans-IO.
//!
//! The seed's words: "The algorithm assumes all existing traffic is Lion,
//! and after detecting new traffic, yields a scaled bandwidth based on
//! utilized bandwidth from existing streams. For example, throughput
//! between 500Mb/s~999Mb/s yields 200 Mb/s, throughput between
//! 150Mb/s~499Mb/s yields 100 Mb/s, and so on. This allows each stream to
//! obtain the number of existing streams by evaluating the yielded
//! bandwidth, then each stream can quickly adjust to the new pacing rate
//! for itself. In this test, Linux TCP sped up after seeing more bandwidth
//! yielded from Lion. This sent a signal to Lion that there is no way to
//! detect the number of streams and the competing traffic is too
//! aggressive. This caused Lion to balance the bandwidth by gradually
//! increasing the burst pacing."
//!
//! The machine, one call per round of cruise ([`Shuffle::on_round`]):
//!
//! 1. **New traffic** (a standing queue the flow did not build): the flow
//!    records the round's total arrival rate at the bottleneck `A0` (a FIFO
//!    gives each sender its share of the departures: `A = C r / d` for a
//!    flow that sent at `r` and had `d` delivered, see [`arrivals`]) and
//!    yields the table's step `Y` ([`yield_step`]).
//! 2. **Evaluating the yielded bandwidth**: two rounds later (the first
//!    round's acknowledgements are still for packets sent before the
//!    yield) it reads the arrival rate again, `A1`. Every existing stream
//!    yielded at the same time, so the arrivals fell by `N Y` (all at the
//!    same rate, the seed's assumption): the count of existing streams is
//!    `N = round((A0 - A1) / Y)` (at least 1, at most what the flow's own
//!    rate says the link held, `C (1 - margin) / r`, which a newcomer's own
//!    fall after its start-up would otherwise inflate), and with the
//!    newcomer the flows sharing are `N + 1`.
//! 3. **Its own pace**: the flow paces at the even share `C (1 - margin) /
//!    (N + 1)` and probes no higher.
//! 4. **Not Lion**: when the arrivals fell by less than half of the flow's
//!    own step, the newcomer took what was yielded (the seed's Linux TCP):
//!    the count cannot be read, and the flow balances as PDA does without
//!    the shuffle ([`Action::Balance`]).
//!
//! Two rules keep a flow's own probe from reading as new traffic: a flow
//! that sees a standing queue within two rounds of its own probe goes back
//! to the rate before it (the link is full at it: that rate is its share);
//! and a flow quiet at its share for twice the rounds a flow starting from
//! nothing needs to probe up to it counts one flow fewer (one left, or the
//! count was high).
//!
//! When the queue drained before the second reading, the arrivals are read
//! from the queue's fall over the round ([`arrivals`]), a bound above them
//! when the queue emptied: the count is then low, never high.

/// The seed's shuffle table, bits/s in and out: 500-999 Mb/s yields 200,
/// 150-499 yields 100, "and so on" (seed 000 §IV). Extended to every decade
/// `D` (a power of ten): rates in `[5D, 10D)` yield `2D`, in `[1.5D, 5D)`
/// yield `D`, and in `[D, 1.5D)` yield `0.2 D` (the step of the decade
/// below's top, so that 999 and 1000 Mb/s both yield 200 Mb/s). Below
/// 1 kb/s nothing.
///
/// | rate | yields |
/// |---|---|
/// | 100-149 Mb/s | 20 Mb/s |
/// | 150-499 Mb/s | 100 Mb/s (seed) |
/// | 500-999 Mb/s | 200 Mb/s (seed) |
/// | 1-1.49 Gb/s | 200 Mb/s |
/// | 1.5-4.99 Gb/s | 1 Gb/s |
/// | 5-9.99 Gb/s | 2 Gb/s |
/// | 10-14.9 Gb/s | 2 Gb/s |
/// | 15-49.9 Gb/s | 10 Gb/s |
/// | 50-99.9 Gb/s | 20 Gb/s |
/// | 100-149 Gb/s | 20 Gb/s |
pub fn yield_step(rate_bps: f64) -> f64 {
    if rate_bps.is_nan() || rate_bps < 1e3 {
        return 0.0;
    }
    let d = 10f64.powi(rate_bps.log10().floor() as i32);
    let m = rate_bps / d;
    if m >= 5.0 {
        2.0 * d
    } else if m >= 1.5 {
        d
    } else {
        0.2 * d
    }
}

/// The total arrival rate at the bottleneck (bytes/s) seen by a flow that
/// sent at `rate` and had `delivered` of the capacity `c`. With a standing
/// queue the FIFO serves each sender in proportion to its arrivals, so the
/// arrivals are `c rate / delivered`. Without one, from the queue's change
/// over the round (`q_first` to `q_last`, seconds, over `dur` seconds): the
/// queue grows at `A - c`, so `A = c (1 + (q_last - q_first) / dur)`; a
/// queue that emptied makes this a bound above `A`. 0 on inputs that say
/// nothing (no capacity, nothing delivered, an empty round).
pub fn arrivals(
    c: f64,
    rate: f64,
    delivered: f64,
    standing: bool,
    q_first: f64,
    q_last: f64,
    dur: f64,
) -> f64 {
    if c.is_nan() || c <= 0.0 {
        return 0.0;
    }
    if standing && rate > 0.0 && delivered > 0.0 {
        return (c * rate / delivered).max(c);
    }
    if dur > 0.0 && q_first.is_finite() && q_last.is_finite() {
        return (c * (1.0 + (q_last - q_first) / dur)).max(0.0);
    }
    0.0
}

/// Existing streams counted from the drop in arrivals `freed` after each
/// yielded `step` (bytes/s), at most `cap`: `round(freed / step)`, at
/// least 1. `None` when the arrivals fell by less than half a step: the
/// newcomer took what was yielded, and the count cannot be read.
pub fn streams_from_yield(freed: f64, step: f64, cap: u32) -> Option<u32> {
    if step.is_nan() || step <= 0.0 || freed.is_nan() || freed < 0.5 * step {
        return None;
    }
    Some(((freed / step).round().min(10_000.0) as u32).clamp(1, cap.max(1)))
}

/// Rounds after a probe step in which a standing queue is the probe's own:
/// the step is paced from the round after the decision, its first delays
/// come back a round trip later, and a queue stands (`qmin` over the
/// threshold) only in a round whose every sample saw it; a step just past
/// the room builds it slowly (2 % of 1 Gb/s fills the 4 ms of an 80-ms
/// path's threshold in 200 ms, 2.5 rounds). Chosen, not from the seed.
pub const PROBE_ECHO_ROUNDS: u32 = 6;

/// Rounds a fitted queue may take to drain ([`ProbeEcho`]). Chosen, not
/// from the seed.
pub const DRAIN_ROUNDS: u32 = 24;

/// Whether a standing queue is what probes built (the flow's own, or
/// synchronized peers'), and not new traffic: the flow probed within
/// [`PROBE_ECHO_ROUNDS`], or the arrivals exceed the capacity by at most
/// two probe steps (`excess_max`, fraction of the capacity: a peer's probe
/// adds one step, a newcomer's start-up at least half the capacity). After
/// a fit, the queue drains while it falls over each round and the
/// arrivals stay within the margin of the capacity (at the margin's 2 %
/// a probe's 20 ms of queue takes a second, 12 rounds of 80 ms), for at
/// most [`DRAIN_ROUNDS`]; a queue that stands longer, or grows again, is
/// new traffic (a TCP newcomer that
/// grows by a packet per round trip keeps it standing: the flow then
/// yields and balances as before).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ProbeEcho {
    rounds_left: u32,
    /// Rounds since the last fit (0: none pending).
    fitted: u32,
}

/// What a standing queue is, as [`ProbeEcho::on_round`] reads it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Echo {
    /// Not a probe's queue (or no standing queue): the rules as before.
    NewTraffic,
    /// A probe's queue: fit the pace ([`fit_after_probe`]).
    Fit,
    /// The queue a fit is draining: nothing to do.
    Draining,
}

impl ProbeEcho {
    /// The flow raised its pace by a probe step.
    pub fn on_probe(&mut self) {
        self.rounds_left = PROBE_ECHO_ROUNDS;
    }

    /// One round of cruise, with a `standing` queue or not, and the
    /// bottleneck's arrivals over the capacity (`load`, [`arrivals`] / C),
    /// the queue `falling` over the round or not. Call once per round.
    pub fn on_round(
        &mut self,
        standing: bool,
        load: f64,
        falling: bool,
        excess_max: f64,
        margin: f64,
    ) -> Echo {
        let recent = self.rounds_left > 0;
        self.rounds_left = self.rounds_left.saturating_sub(1);
        if !standing {
            self.fitted = 0;
            return Echo::NewTraffic;
        }
        if self.fitted > 0 {
            self.fitted += 1;
            if self.fitted <= DRAIN_ROUNDS + 1 && falling && load <= 1.0 + margin {
                return Echo::Draining;
            }
            self.fitted = 0;
            return Echo::NewTraffic;
        }
        if recent || (load.is_finite() && load <= 1.0 + excess_max) {
            self.rounds_left = 0;
            self.fitted = 1;
            return Echo::Fit;
        }
        Echo::NewTraffic
    }
}

/// The pace after a probe step filled the link (bytes/s): every sender
/// scaled by the factor that brings the bottleneck's arrivals back to
/// `c (1 - margin)`. The arrivals are read from the FIFO share ([`arrivals`]: a
/// flow that paced at `round_rate` and had `delivered` of `c`). Flows that
/// probed together all scale by the same factor, so the link stays full
/// (the table's step, 200 Mb/s at 500-999 Mb/s, yielded by each flow to
/// the others' synchronized probes emptied it to 0.6 with two flows), and
/// the larger flow gives up more, so the equal steps of later probes even
/// the shares out. Never above `rate`; `rate` itself on inputs that say
/// nothing.
pub fn fit_after_probe(c: f64, rate: f64, round_rate: f64, delivered: f64, margin: f64) -> f64 {
    let a = arrivals(c, round_rate, delivered, true, 0.0, 0.0, 0.0);
    if !(a > 0.0 && rate > 0.0 && margin.is_finite()) {
        return rate.max(0.0);
    }
    (rate * c * (1.0 - margin) / a).min(rate)
}

/// Settings of the shuffle.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ShuffleConfig {
    /// Fraction below the capacity the flows share (PDA's `margin`).
    pub margin: f64,
    /// A probe's step, fraction of the capacity (PDA's `probe_gain`).
    pub probe_gain: f64,
    /// Quiet rounds before a probe (PDA's `probe_rounds`).
    pub probe_rounds: u32,
}

/// One round of cruise as the flow saw it (rates in bytes/s, times in
/// seconds).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Round {
    /// The capacity estimate.
    pub capacity: f64,
    /// The pace now.
    pub rate: f64,
    /// The pace over the round.
    pub round_rate: f64,
    /// What the round delivered.
    pub delivered: f64,
    /// A standing queue the flow did not build (new traffic, or a probe).
    pub standing: bool,
    /// The queue stayed under half the threshold.
    pub quiet: bool,
    /// Queueing delay of the round's first RTT sample (NaN: none).
    pub q_first: f64,
    /// Queueing delay of the round's last RTT sample.
    pub q_last: f64,
    /// The round's length.
    pub dur: f64,
}

/// What the flow does after a round.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Action {
    /// Nothing from the shuffle (PDA probes in quiet rounds as usual).
    Keep,
    /// Pace at this rate (bytes/s).
    Pace(f64),
    /// The newcomer is not Lion: balance against it.
    Balance,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum State {
    Steady,
    /// Yielded `step` from `rate_before` with arrivals `a0`, `rounds` ago.
    Yielded {
        a0: f64,
        step: f64,
        rate_before: f64,
        rounds: u32,
    },
}

/// The shuffle's state for one flow.
#[derive(Clone, Debug)]
pub struct Shuffle {
    cfg: ShuffleConfig,
    state: State,
    /// Flows sharing, this one included (0: not counted).
    count: u32,
    /// The even share of the count, bytes/s (0: none).
    share: f64,
    /// The rate before the flow's latest probe, and the rounds since it.
    probe_from: Option<(f64, u32)>,
    quiet_at_share: u32,
}

impl Shuffle {
    /// A flow that has counted nothing yet.
    pub fn new(cfg: ShuffleConfig) -> Self {
        Shuffle {
            cfg,
            state: State::Steady,
            count: 0,
            share: 0.0,
            probe_from: None,
            quiet_at_share: 0,
        }
    }

    /// Flows sharing as last counted, this one included (0: none counted).
    pub fn count(&self) -> u32 {
        self.count
    }

    /// The rate probing stops at (bytes/s), if the flows were counted.
    pub fn probe_cap(&self) -> Option<f64> {
        (self.share > 0.0).then_some(self.share)
    }

    /// Whether a yield is being evaluated.
    pub fn yielding(&self) -> bool {
        matches!(self.state, State::Yielded { .. })
    }

    /// The flow probed from `from` (bytes/s).
    pub fn on_probe(&mut self, from: f64) {
        self.probe_from = Some((from, 0));
    }

    /// Forget the count (the flow balances against a competitor that is
    /// not Lion).
    pub fn forget(&mut self) {
        self.state = State::Steady;
        self.count = 0;
        self.share = 0.0;
        self.quiet_at_share = 0;
    }

    fn set_count(&mut self, n: u32, c: f64) {
        self.count = n.max(1);
        self.share = c * (1.0 - self.cfg.margin) / self.count as f64;
        self.quiet_at_share = 0;
    }

    /// One round of cruise.
    pub fn on_round(&mut self, r: &Round) -> Action {
        let c = r.capacity;
        let probe = self.probe_from.take();
        let probe = match probe {
            Some((from, n)) if n < 2 => {
                self.probe_from = Some((from, n + 1));
                Some(from)
            }
            _ => None,
        };
        match self.state {
            State::Yielded {
                a0,
                step,
                rate_before,
                rounds,
            } => {
                if rounds + 1 < 2 {
                    self.state = State::Yielded {
                        a0,
                        step,
                        rate_before,
                        rounds: rounds + 1,
                    };
                    return Action::Keep;
                }
                self.state = State::Steady;
                let a1 = arrivals(
                    c,
                    r.round_rate,
                    r.delivered,
                    r.standing,
                    r.q_first,
                    r.q_last,
                    r.dur,
                );
                // What the flow's own rate says the link held (the seed's
                // assumption: all at one rate).
                let held = if rate_before > 0.0 {
                    (c * (1.0 - self.cfg.margin) / rate_before).round()
                } else {
                    1.0
                };
                match streams_from_yield(a0 - a1, step, held.clamp(1.0, 10_000.0) as u32) {
                    Some(n) => {
                        // "each stream can quickly adjust to the new pacing
                        // rate for itself" (seed 000 §IV).
                        self.set_count(n + 1, c);
                        Action::Pace(self.share)
                    }
                    None => {
                        // "Linux TCP sped up after seeing more bandwidth
                        // yielded from Lion. This sent a signal to Lion that
                        // there is no way to detect the number of streams"
                        // (seed 000 §IV).
                        self.forget();
                        Action::Balance
                    }
                }
            }
            State::Steady => {
                if r.standing {
                    if let Some(from) = probe {
                        // The flow's own probe filled the link: back to the
                        // rate before it, which is then its share.
                        self.probe_from = None;
                        let n = if from > 0.0 {
                            (c * (1.0 - self.cfg.margin) / from).round()
                        } else {
                            1.0
                        };
                        self.count = n.clamp(1.0, 10_000.0) as u32;
                        self.share = from;
                        self.quiet_at_share = 0;
                        return Action::Pace(from);
                    }
                    // New traffic: yield the table's step.
                    let a0 = arrivals(
                        c,
                        r.round_rate,
                        r.delivered,
                        true,
                        r.q_first,
                        r.q_last,
                        r.dur,
                    );
                    let step = yield_step(r.rate * 8.0) / 8.0;
                    if !(a0 > 0.0 && step > 0.0) {
                        return Action::Keep;
                    }
                    self.state = State::Yielded {
                        a0,
                        step,
                        rate_before: r.rate,
                        rounds: 0,
                    };
                    return Action::Pace(r.rate - step);
                }
                if r.quiet && self.share > 0.0 && r.rate >= 0.99 * self.share && c > 0.0 {
                    // At the share and the link not full: fewer flows than
                    // counted, after twice the rounds a flow starting from
                    // nothing needs to probe up to the share.
                    self.quiet_at_share += 1;
                    let probes = (self.share / (self.cfg.probe_gain * c)).ceil().max(1.0) as u32;
                    if self.quiet_at_share >= 2 * self.cfg.probe_rounds * probes {
                        let n = self.count.saturating_sub(1);
                        self.set_count(n, c);
                    }
                } else if !r.quiet {
                    self.quiet_at_share = 0;
                }
                Action::Keep
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const M: f64 = 1e6;

    fn cfg() -> ShuffleConfig {
        ShuffleConfig {
            margin: 0.02,
            probe_gain: 0.05,
            probe_rounds: 4,
        }
    }

    #[test]
    fn the_seeds_yield_table_and_its_extension_to_100_gbps() {
        assert_eq!(yield_step(999.0 * M), 200.0 * M);
        assert_eq!(yield_step(500.0 * M), 200.0 * M);
        assert_eq!(yield_step(499.0 * M), 100.0 * M);
        assert_eq!(yield_step(150.0 * M), 100.0 * M);
        assert!((yield_step(120.0 * M) - 20.0 * M).abs() < 1.0);
        assert!((yield_step(40e9) - 10e9).abs() < 1.0);
        assert!((yield_step(100e9) - 20e9).abs() < 1.0);
        assert_eq!(yield_step(0.0), 0.0);
        assert_eq!(yield_step(f64::NAN), 0.0);
        // Never more than the rate itself, up to 100 Gb/s.
        let mut r = 1e3;
        while r <= 100e9 {
            assert!(yield_step(r) < r, "{r}");
            r *= 1.07;
        }
    }

    #[test]
    fn arrivals_from_the_fifo_share_and_from_the_queue() {
        // Half the link delivered to a flow sending at 600 of 1000: 1200.
        assert!((arrivals(1000.0, 600.0, 500.0, true, 0.0, 0.0, 0.1) - 1200.0).abs() < 1e-9);
        // A queue falling 10 ms over a 100-ms round: 0.9 of the capacity.
        assert!((arrivals(1000.0, 0.0, 0.0, false, 0.02, 0.01, 0.1) - 900.0).abs() < 1e-9);
        assert_eq!(arrivals(0.0, 600.0, 500.0, true, 0.0, 0.0, 0.1), 0.0);
        assert_eq!(arrivals(1000.0, 0.0, 0.0, false, 0.0, 0.0, 0.0), 0.0);
    }

    #[test]
    fn streams_are_counted_from_what_was_yielded() {
        assert_eq!(streams_from_yield(400.0, 100.0, 100), Some(4));
        assert_eq!(streams_from_yield(190.0, 100.0, 100), Some(2));
        // Capped by what the flow's rate says the link held.
        assert_eq!(streams_from_yield(900.0, 100.0, 3), Some(3));
        // Less than half a step: the newcomer took it (not Lion).
        assert_eq!(streams_from_yield(40.0, 100.0, 100), None);
        assert_eq!(streams_from_yield(-300.0, 100.0, 100), None);
        assert_eq!(streams_from_yield(f64::NAN, 100.0, 100), None);
        assert_eq!(streams_from_yield(100.0, 0.0, 100), None);
    }

    /// Flows at `rate` each, the link's capacity `c`, a standing round.
    fn standing(c: f64, rate: f64, a: f64) -> Round {
        Round {
            capacity: c,
            rate,
            round_rate: rate,
            delivered: c * rate / a,
            standing: true,
            quiet: false,
            q_first: 0.01,
            q_last: 0.01,
            dur: 0.1,
        }
    }

    /// Two Lion flows at 490 Mb/s and a Lion newcomer at 250 Mb/s: each
    /// yields 100, sees 200 freed (the queue still standing), counts 2 + 1
    /// and paces at a third.
    #[test]
    fn lion_flows_count_themselves_and_take_the_even_share() {
        let c = 1000.0 * M / 8.0;
        let r = 490.0 * M / 8.0;
        let newcomer = 250.0 * M / 8.0;
        let mut s = Shuffle::new(cfg());
        let a0 = 2.0 * r + newcomer;
        let act = s.on_round(&standing(c, r, a0));
        let Action::Pace(y) = act else {
            panic!("{act:?}")
        };
        assert!((r - y - 100.0 * M / 8.0).abs() < 1.0);
        assert!(s.yielding());
        // The round after: still the old acknowledgements.
        assert_eq!(s.on_round(&standing(c, y, a0)), Action::Keep);
        // Two rounds after: both yielded 100.
        let a1 = 2.0 * y + newcomer;
        let act = s.on_round(&standing(c, y, a1));
        assert_eq!(s.count(), 3);
        let share = c * 0.98 / 3.0;
        assert_eq!(act, Action::Pace(share));
        assert_eq!(s.probe_cap(), Some(share));
    }

    /// A newcomer that takes what was yielded (the seed's Linux TCP): the
    /// arrivals do not fall; no count, balance.
    #[test]
    fn a_newcomer_that_takes_the_yield_is_not_lion() {
        let c = 1000.0 * M / 8.0;
        let r = 980.0 * M / 8.0;
        let mut s = Shuffle::new(cfg());
        let a0 = r + 100.0 * M / 8.0;
        let Action::Pace(y) = s.on_round(&standing(c, r, a0)) else {
            panic!()
        };
        s.on_round(&standing(c, y, a0));
        // The TCP grew by more than the 200 yielded.
        let a1 = y + 350.0 * M / 8.0;
        assert_eq!(s.on_round(&standing(c, y, a1)), Action::Balance);
        assert_eq!(s.count(), 0);
        assert_eq!(s.probe_cap(), None);
    }

    /// The flow's own probe filling the link is not new traffic: back to
    /// the rate before it, which becomes the share.
    #[test]
    fn a_standing_queue_after_the_flows_own_probe_reverts_it() {
        let c = 1000.0 * M / 8.0;
        let from = 470.0 * M / 8.0;
        let mut s = Shuffle::new(cfg());
        s.on_probe(from);
        let act = s.on_round(&standing(c, from + 50.0 * M / 8.0, 1.02 * c));
        assert_eq!(act, Action::Pace(from));
        assert_eq!(s.count(), 2);
        assert_eq!(s.probe_cap(), Some(from));
        assert!(!s.yielding());
        // Three rounds later a standing queue is new traffic again.
        let mut s = Shuffle::new(cfg());
        s.on_probe(from);
        let quiet = Round {
            quiet: true,
            ..standing(c, from, c)
        };
        let quiet = Round {
            standing: false,
            ..quiet
        };
        for _ in 0..3 {
            assert_eq!(s.on_round(&quiet), Action::Keep);
        }
        assert!(matches!(
            s.on_round(&standing(c, from, 1.1 * c)),
            Action::Pace(_)
        ));
        assert!(s.yielding());
    }

    /// Two flows at 450 and 250 Mb/s probe 50 Mb/s each at once (arrivals
    /// 800 of 750): both are scaled by 735/800, so the link stays full and
    /// the larger flow gives up more; neither yields the table's step.
    #[test]
    fn a_probe_collision_scales_every_flow_to_fill_the_link() {
        let c = 750.0 * M / 8.0;
        let (big, small) = (500.0 * M / 8.0, 300.0 * M / 8.0);
        let a = big + small;
        // Each flow's FIFO share of the departures.
        let fit = |r: f64| fit_after_probe(c, r, r, c * r / a, 0.02);
        let (b, s) = (fit(big), fit(small));
        assert!((b + s - 0.98 * c).abs() < 1e-6 * c, "{b} {s}");
        assert!(big - b > small - s);
        assert!((b / s - big / small).abs() < 1e-9);
        // The table would have taken 200 and 100 Mb/s.
        assert!(big - b < yield_step(big * 8.0) / 8.0);
        // Arrivals below the capacity (a queue that is not growing): a
        // margin's step down, never up.
        let r = 300.0 * M / 8.0;
        assert!((fit_after_probe(c, r, r, r, 0.02) - 0.98 * r).abs() < 1e-6);
        // Inputs that say nothing leave the pace.
        assert_eq!(fit_after_probe(0.0, r, r, r, 0.02), r);
        assert_eq!(fit_after_probe(c, r, r, 0.0, 0.02), r);
        assert_eq!(fit_after_probe(c, r, r, f64::NAN, 0.02), r);
    }

    #[test]
    fn a_probe_s_queue_is_told_from_new_traffic() {
        // No probe, a newcomer's half of the link: new traffic.
        let mut e = ProbeEcho::default();
        assert_eq!(e.on_round(true, 1.5, true, 0.1, 0.02), Echo::NewTraffic);
        // A peer's probe step (4 % over): fitted, then drained.
        let mut e = ProbeEcho::default();
        assert_eq!(e.on_round(true, 1.04, true, 0.1, 0.02), Echo::Fit);
        assert_eq!(e.on_round(true, 1.0, true, 0.1, 0.02), Echo::Draining);
        // A queue that grows again after the fit is new traffic.
        assert_eq!(e.on_round(true, 1.05, true, 0.1, 0.02), Echo::NewTraffic);
        // The flow's own probe, however large the arrivals.
        let mut e = ProbeEcho::default();
        e.on_probe();
        assert_eq!(e.on_round(false, 1.0, true, 0.1, 0.02), Echo::NewTraffic);
        assert_eq!(e.on_round(true, 1.5, true, 0.1, 0.02), Echo::Fit);
        // A queue that stops falling after the fit is new traffic (a TCP
        // newcomer growing by a packet per round trip), and so is one that
        // takes too long to drain.
        assert_eq!(e.on_round(true, 1.0, true, 0.1, 0.02), Echo::Draining);
        assert_eq!(e.on_round(true, 1.0, false, 0.1, 0.02), Echo::NewTraffic);
        assert_eq!(e.on_round(true, 1.04, true, 0.1, 0.02), Echo::Fit);
        for _ in 0..DRAIN_ROUNDS {
            assert_eq!(e.on_round(true, 1.0, true, 0.1, 0.02), Echo::Draining);
        }
        assert_eq!(e.on_round(true, 1.0, true, 0.1, 0.02), Echo::NewTraffic);
        // A probe long ago does not count.
        let mut e = ProbeEcho::default();
        e.on_probe();
        for _ in 0..PROBE_ECHO_ROUNDS {
            e.on_round(false, 1.0, true, 0.1, 0.02);
        }
        assert_eq!(e.on_round(true, 1.5, true, 0.1, 0.02), Echo::NewTraffic);
    }

    /// Quiet at the share for long: one flow fewer.
    #[test]
    fn a_quiet_link_at_the_share_counts_one_flow_fewer() {
        let c = 1000.0 * M / 8.0;
        let mut s = Shuffle::new(cfg());
        s.set_count(4, c);
        let share = s.probe_cap().unwrap();
        let quiet = Round {
            capacity: c,
            rate: share,
            round_rate: share,
            delivered: share,
            quiet: true,
            ..Round::default()
        };
        // 4 probes of 50 Mb/s reach 245 Mb/s: 2 x 4 x 5 rounds.
        for _ in 0..39 {
            s.on_round(&quiet);
        }
        assert_eq!(s.count(), 4);
        s.on_round(&quiet);
        assert_eq!(s.count(), 3);
        assert!(s.probe_cap().unwrap() > share);
    }
}
