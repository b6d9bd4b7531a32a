//! Available bandwidth from self-loading trains swept over the rates (the
//! streams of pathload: Jain and Dovrolis, "End-to-end available
//! bandwidth: measurement methodology, dynamics, and relation with TCP
//! throughput", SIGCOMM 2002), for `dropless probe` and PDA's `search` mode.
//!
//! # Principle
//!
//! At a FIFO bottleneck of capacity `C` carrying cross traffic `X`, the
//! available bandwidth is `A = C - X`. A train of packets paced at rate `r`
//! for a time `D` grows the bottleneck's queue by `(r - A) D` bytes when
//! `r > A`, i.e. its queueing delay by `(r - A) D / C`; when `r < A` the
//! queue stays where the cross traffic puts it (or drains). So one train
//! answers one question: "was `r` above the available bandwidth `A_D` of
//! the `D` it lasted?"
//!
//! When `X` varies over a train's timescale (bursty or on/off cross
//! traffic), `A_D` is itself a random variable: pathload's "grey region"
//! is the range of rates where some trains of a fleet show a queue and
//! others do not. What is measured here, and reported, is its mean, the
//! path's mean available bandwidth `E[A_D] = C - E[X]`, using
//! `E[A_D] = integral over [0, C] of P(A_D > r) dr`: the fraction of
//! trains at rate `r` without a queue, integrated over the rates. For
//! stationary traffic (`A_D` nearly constant) the fraction is a step at
//! `A` and the integral is `A`; for on/off traffic at the link's rate it is
//! the off fraction at every rate and the integral `C (1 - P(on))`. A
//! bisection cannot do the latter: its verdicts at one rate flip with the
//! on/off state, and it settled wherever the last verdicts put it (747-954
//! of 500 Mb/s in experiments/pda/probe.toml).
//!
//! # Why pathload's streams and not pathChirp's chirps
//!
//! Both load the path until their own packets queue ("self-induced
//! congestion"). pathChirp (Ribeiro, Riedi, Baraniuk, Navratil, Cottrell,
//! PAM 2003) sends chirps, trains whose packet gaps shrink exponentially,
//! so one chirp sweeps many rates, and reads the available bandwidth from
//! where the chirp's queueing delay starts its lasting excursion. pathload
//! (Jain and Dovrolis, SIGCOMM 2002 and IEEE/ACM ToN 2003) sends periodic
//! streams, one rate each, judged by the trend of their one-way delays.
//! This module follows pathload, for three reasons:
//! * a periodic stream is a pacing rate, which is what the one Controller
//!   interface expresses, so `dropless probe` and PDA's start-up can share
//!   this code with no per-packet gap schedule; a chirp needs a different
//!   gap before every packet;
//! * pathChirp reads single inter-packet gaps of microseconds (12 us per
//!   packet at 1 Gb/s): host pacing timers, interrupt coalescing and GRO
//!   on the real path blur them, whereas a stream's trend over one RTT
//!   (tens of milliseconds) survives them (the real path's pairs already
//!   scatter by -9 to +4 %, see `dropless probe`'s capacity);
//! * pathChirp's economy (few bytes) does not matter here: the probe is a
//!   transfer and loads the path anyway.
//!
//! Like pathChirp, though, the estimate uses every train's verdict at its
//! own rate rather than only a bracket's ends.
//!
//! # The test on one train
//!
//! The sender sees the queue in its RTT samples (the reverse path is
//! assumed uncongested). Samples are attributed to a train by their send
//! time (ACK time less RTT). The train shows a queue when the smallest RTT
//! of its last quarter exceeds the smallest RTT of its first quarter by
//! more than `trend` (the larger of `trend_frac` x `D`, 4 %, and
//! `trend_min`). The minimum over a quarter filters the noise that only
//! adds delay (ACK batching, the receiver's scheduling). A train with a
//! quarter that holds no sample gets no verdict. Losses do not enter the
//! test. The two minima are three quarters of a train apart, so a train
//! shows a queue once `r - A > margin = trend / (0.75 D) x C` (5.3 % of
//! `C`): each verdict is recorded at `r - margin`. The margin is what keeps
//! the cross traffic's own noise from reading as a queue: 50 % Poisson
//! cross traffic at 50 Mb/s moves the queue by about 3 ms over an 80-ms
//! train, and with a 1 % trend the trains near `A` read a queue more often
//! than not (-12 % on some probes).
//!
//! A train is sent in bursts of at most [`AvailSearch::max_burst`] packets
//! (64 bursts per train at least): pathload's streams are single packets
//! at equal gaps, and a train of a few MBS-sized bursts (hundreds of
//! packets on a deep buffer) left quarters without a sample and read as
//! sent slower than asked, so the idle 50 Mb/s path gave no estimate. Its
//! rate as sent is timed from its first send to its last.
//!
//! # Schedule and estimate
//!
//! A train lasts `D` = the base RTT (at least `min_train`, and at least
//! `min_packets` packets). The next one starts 1.5 `D` after it ends,
//! whatever the queue (starting once the queue had drained put the trains
//! in on/off traffic's off periods); the flow sends at 5 % of `C` between
//! trains. Train `k` is sent at a rate in bin `bitrev(k mod 16)` of
//! [`BINS`] bins over `[0, C]` (`C` the pairs' median), at offset
//! `vdc(k / 16 + 1)` within it (van der Corput): each sweep of 16 trains
//! covers the range, each prefix of a sweep spreads over it, and later
//! sweeps fill in between.
//!
//! The estimate: the fraction of trains with a queue, fitted
//! non-decreasing in the rate (pool-adjacent-violators over the verdicts
//! at their shifted rates), `1 - fit` integrated over `[0, C]`. It is made
//! once every bin holds a judged train (by its rate as sent) or the empty
//! bins are pinned within [`PINNED`] of `C` by their neighbours (the
//! fraction with a queue does not fall as the rate rises). Until then
//! [`AvailSearch::outcome`] gives the range the bins bound (`dropless
//! probe` reports it as a range, never a rate in its place): a host that
//! never sends the top rates (the real 1 Gb/s path at a load of 9 sent
//! trains slower than asked) leaves them empty, which matters only while
//! no bin below them always showed a queue.
//!
//! Accuracy: with about 35 trains in a 10-s probe at 80 ms the rates are
//! about 3 % of `C` apart, so a step is placed to about 1.5 % of `C`; on
//! on/off traffic each train is one sample of the on/off state, and the
//! estimate is the mean over the probe, which over a few heavy-tailed
//! on/off cycles is not the long-run mean (experiments/pda/probe-50m.toml).
//!
//! Assumptions: one FIFO bottleneck, an uncongested reverse path, and
//! enough packets per train to see a trend.

use crate::{Time, MILLISECOND};

/// Bursts per train at least (see [`AvailSearch::max_burst`]): 16 per
/// quarter.
pub const BURSTS_PER_TRAIN: f64 = 64.0;

/// Rate bins over `[0, C]`: the trains' rates sweep them in bit-reversed
/// order, one train per bin per sweep (a power of two).
pub const BINS: usize = 16;

/// The search's parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SearchConfig {
    /// Shortest train (20 ms); a train lasts the base RTT otherwise.
    pub min_train: Time,
    /// Queue growth over a train that means "above A", as a fraction of the
    /// train's length (0.01) ...
    pub trend_frac: f64,
    /// ... and at least this (200 us).
    pub trend_min: Time,
    /// Packets per train at least (32): a slow train is made longer so
    /// that each quarter holds samples.
    pub min_packets: f64,
}

impl Default for SearchConfig {
    fn default() -> Self {
        SearchConfig {
            min_train: 20 * MILLISECOND,
            trend_frac: 0.04,
            trend_min: 200_000,
            min_packets: 32.0,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// Sending the train, from `start` to `end`.
    Train,
    /// Sending at the gap rate until the train is judged and drained.
    Gap,
}

/// The search for the available bandwidth (rates in bytes/s).
#[derive(Clone, Debug)]
pub struct AvailSearch {
    cfg: SearchConfig,
    capacity: f64,
    state: State,
    /// The current (or last) train: its rate and send-time window.
    rate: f64,
    start: Time,
    end: Time,
    /// Smallest RTT of the train's first and last quarters.
    first_min: Time,
    last_min: Time,
    /// Bytes sent during the train: its actual rate (a host that cannot
    /// keep up sends slower than asked) ...
    sent: f64,
    /// ... timed from its first send to its last, less the last send's
    /// bytes (`last_bytes`, the packets sent at that instant): bursts of `n`
    /// packets every `P` give `(k - 1) n` packets over `(k - 1) P`, exact
    /// whatever the phase of the bursts in the train's window.
    first_send: Time,
    last_send: Time,
    last_bytes: f64,
    /// Bytes of the last packet sent (the train's length is set in packets
    /// for slow trains).
    pkt: f64,
    /// The train's verdict is in (its last packet's ACK came back).
    judged: bool,
    trains: u32,
    /// Trains judged, those of them that went out slower than asked (by
    /// more than a bin) without showing a queue, and trains that could not
    /// be judged (a quarter without an RTT sample).
    judged_trains: u32,
    host_limited: u32,
    unjudged: u32,
    /// Per rate bin (by the rate as sent): trains judged, and those of
    /// them that showed a queue.
    bin_n: [u32; BINS],
    bin_above: [u32; BINS],
    /// Every judged train (the latest [`MAX_TRAINS`]): its rate as sent
    /// and whether it showed a queue.
    verdicts: Vec<(f64, bool)>,
}

/// How wide (a fraction of the capacity) the bounds on the bins without a
/// judged train may leave the estimate (0.02).
pub const PINNED: f64 = 0.02;

/// Judged trains kept for the estimate (a longer search follows a changing
/// `A` with the latest ones).
pub const MAX_TRAINS: usize = 256;

/// What a search has found so far (rates in bytes/s).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Outcome {
    /// Every rate bin has a judged train: the mean available bandwidth.
    Estimate(f64),
    /// Some bins have no judged train (not swept yet, or the host never
    /// sent that fast): `A` lies between the estimate with those bins
    /// read as "queue" (`lo`) and as "no queue" (`hi`).
    Range {
        /// The estimate with every empty bin read as "queue".
        lo: f64,
        /// The estimate with every empty bin read as "no queue".
        hi: f64,
        /// Trains the host sent slower than asked without a queue showing.
        host_limited: u32,
    },
    /// No train has been judged.
    Nothing,
}

/// Bit reversal of `i` over log2(BINS) bits: the order in which a sweep
/// visits the bins (each prefix of a sweep spreads over the whole range).
fn bit_reverse(i: usize) -> usize {
    let bits = BINS.trailing_zeros();
    (0..bits).fold(0, |r, b| r | (((i >> b) & 1) << (bits - 1 - b)))
}

/// The van der Corput sequence in base 2 (1 -> 1/2, 2 -> 1/4, 3 -> 3/4,
/// ...): where in its bin the `n`-th sweep puts a train.
fn van_der_corput(mut n: u32) -> f64 {
    let (mut x, mut f) = (0.0, 0.5);
    while n > 0 {
        if n & 1 == 1 {
            x += f;
        }
        n >>= 1;
        f *= 0.5;
    }
    x
}

impl AvailSearch {
    /// A search below the capacity `capacity` (bytes/s), starting at `now`.
    pub fn new(cfg: SearchConfig, capacity: f64, now: Time) -> Self {
        let mut s = AvailSearch {
            cfg,
            capacity,
            state: State::Gap,
            rate: 0.0,
            start: now,
            end: now,
            first_min: Time::MAX,
            last_min: Time::MAX,
            sent: 0.0,
            first_send: 0,
            last_send: 0,
            last_bytes: 0.0,
            pkt: 1500.0,
            judged: true,
            trains: 0,
            judged_trains: 0,
            host_limited: 0,
            unjudged: 0,
            bin_n: [0; BINS],
            bin_above: [0; BINS],
            verdicts: Vec::with_capacity(MAX_TRAINS),
        };
        s.start_train(now, 0);
        s
    }

    fn bin_width(&self) -> f64 {
        self.capacity / BINS as f64
    }

    fn trend(&self) -> Time {
        let d = self.end.saturating_sub(self.start);
        ((d as f64 * self.cfg.trend_frac) as Time).max(self.cfg.trend_min)
    }

    fn start_train(&mut self, now: Time, base_rtt: Time) {
        // Train k: bin bit_reverse(k mod BINS), at the sweep's offset in it.
        let k = self.trains as usize;
        let bin = bit_reverse(k % BINS) as f64;
        let at = van_der_corput((k / BINS) as u32 + 1);
        self.rate = (bin + at) * self.bin_width();
        let slow = if self.rate > 0.0 {
            (self.cfg.min_packets * self.pkt / self.rate * 1e9) as Time
        } else {
            0
        };
        let d = base_rtt.max(self.cfg.min_train).max(slow);
        self.state = State::Train;
        self.start = now;
        self.end = now + d;
        self.first_min = Time::MAX;
        self.last_min = Time::MAX;
        self.sent = 0.0;
        self.first_send = 0;
        self.last_send = 0;
        self.last_bytes = 0.0;
        self.judged = false;
        self.trains += 1;
    }

    /// The rate to pace at now (bytes/s).
    pub fn rate(&self) -> f64 {
        match self.state {
            State::Train => self.rate,
            State::Gap => 0.05 * self.capacity,
        }
    }

    /// Time passes: a train ends at its end time.
    pub fn on_time(&mut self, now: Time) {
        if self.state == State::Train && now >= self.end {
            self.state = State::Gap;
        }
    }

    /// A packet of `bytes` leaves at `now`.
    pub fn on_send(&mut self, now: Time, bytes: f64) {
        self.pkt = bytes;
        if self.state == State::Train && now >= self.start && now < self.end {
            if self.sent == 0.0 {
                self.first_send = now;
            }
            if now != self.last_send {
                self.last_bytes = 0.0;
            }
            self.last_send = now;
            self.last_bytes += bytes;
            self.sent += bytes;
        }
    }

    /// An RTT sample at `now` of a packet sent `rtt` ago; `base_rtt` is the
    /// smallest RTT seen.
    pub fn on_rtt(&mut self, now: Time, rtt: Time, base_rtt: Time) {
        self.on_time(now);
        let sent = now.saturating_sub(rtt);
        let d = self.end.saturating_sub(self.start);
        if !self.judged {
            if sent >= self.start && sent < self.start + d / 4 {
                self.first_min = self.first_min.min(rtt);
            } else if sent >= self.end - d / 4 && sent < self.end {
                self.last_min = self.last_min.min(rtt);
            } else if sent >= self.end {
                self.judge();
            }
        }
        // The next train starts two train lengths after this one ended
        // (its verdict is in by then unless the queue exceeds the RTT),
        // whatever the queue: starting once it had drained put the trains
        // in the off periods of on/off cross traffic (the estimate read
        // those), and a train starting on a queue that drains still shows
        // its trend, up when above `A` and down when below.
        if self.judged && self.state == State::Gap && now >= self.end + d + d / 2 {
            self.start_train(now, base_rtt);
        }
    }

    fn judge(&mut self) {
        self.judged = true;
        if self.first_min == Time::MAX || self.last_min == Time::MAX {
            // A quarter without a sample says nothing about the trend: no
            // verdict (counting it "below" raised the bracket's lower end
            // on trains that had sent one burst in their first quarter).
            self.unjudged += 1;
            return;
        }
        let above = self.last_min > self.first_min + self.trend();
        let r = self.sent_rate();
        self.judged_trains += 1;
        if !above && self.rate - r > self.bin_width() {
            self.host_limited += 1;
        }
        // The verdict belongs to the rate as sent.
        let bin = ((r / self.bin_width()) as usize).min(BINS - 1);
        self.bin_n[bin] += 1;
        self.bin_above[bin] += above as u32;
        if self.verdicts.len() == MAX_TRAINS {
            self.verdicts.remove(0);
        }
        // A train shows its queue only once `(r - A) 3D/4 / C` exceeds
        // the trend: its verdict is about `A` against `r` less that
        // margin (the margin is what lets cross traffic's own noise pass
        // as no queue).
        let d = self.end.saturating_sub(self.start).max(1) as f64;
        let margin = self.trend() as f64 / (0.75 * d) * self.capacity;
        self.verdicts.push(((r - margin).max(0.0), above));
    }

    /// The mean available bandwidth from every judged train: `P(queue at
    /// r)` fitted non-decreasing in `r` (pool-adjacent-violators), and
    /// `1 - P` integrated over `[0, C]`, each train's value holding
    /// halfway to its neighbours' rates. With the rates spread evenly the
    /// fit keeps the mean of the verdicts, so on/off traffic (the same
    /// `P` at every rate) reads `C (1 - P)`; a step (stationary traffic)
    /// is placed to within half the spacing of the rates near it.
    fn mean_avail(&self) -> f64 {
        let mut v: Vec<(f64, bool)> = self.verdicts.clone();
        v.sort_by(|a, b| a.0.total_cmp(&b.0));
        // Pool adjacent violators: blocks of (sum of verdicts, count).
        let mut blocks: Vec<(f64, f64, usize)> = Vec::with_capacity(v.len());
        for (i, &(_, above)) in v.iter().enumerate() {
            blocks.push((above as u32 as f64, 1.0, i + 1));
            while blocks.len() > 1 {
                let (s1, n1, _) = blocks[blocks.len() - 2];
                let (s2, n2, end) = blocks[blocks.len() - 1];
                if s1 / n1 <= s2 / n2 {
                    break;
                }
                blocks.pop();
                let last = blocks.len() - 1;
                blocks[last] = (s1 + s2, n1 + n2, end);
            }
        }
        let mut fit = vec![0.0; v.len()];
        let mut from = 0;
        for &(s, n, end) in &blocks {
            fit[from..end].fill(s / n);
            from = end;
        }
        let mut a = 0.0;
        for i in 0..v.len() {
            let left = if i == 0 {
                0.0
            } else {
                0.5 * (v[i - 1].0 + v[i].0)
            };
            let right = if i + 1 == v.len() {
                self.capacity.max(v[i].0)
            } else {
                0.5 * (v[i].0 + v[i + 1].0)
            };
            a += (right - left) * (1.0 - fit[i]);
        }
        a
    }

    /// The rate the train was actually sent at, if the host fell short of
    /// the rate asked (bytes/s): from its first send to its last.
    fn sent_rate(&self) -> f64 {
        let span = self.last_send.saturating_sub(self.first_send) as f64 * 1e-9;
        if span > 0.0 && self.sent > self.last_bytes {
            self.rate.min((self.sent - self.last_bytes) / span)
        } else {
            self.rate
        }
    }

    /// The largest burst (packets of `packet_bytes`) that keeps a train
    /// periodic at the scale of its quarters: at least
    /// [`BURSTS_PER_TRAIN`] bursts per train, and pairs (2) at least.
    /// pathload's streams are single packets at equal gaps; a train of a
    /// few large bursts (PDA's MBS, hundreds of packets on a deep buffer)
    /// leaves quarters with no sample, and each burst builds its own queue
    /// that the trend test reads as the train's.
    pub fn max_burst(&self, packet_bytes: f64) -> u32 {
        let d = self.end.saturating_sub(self.start).max(self.cfg.min_train) as f64 * 1e-9;
        let pkts = self.rate.max(self.rate()) * d / packet_bytes.max(1.0);
        ((pkts / BURSTS_PER_TRAIN) as u32).max(2)
    }

    /// `(lo, hi)`: the integral over `[0, C]` of the fraction of trains
    /// without a queue, bin by bin. A bin no judged train fell in is bounded
    /// by its neighbours, since the fraction of trains with a queue does
    /// not fall as the rate rises: at most the nearest judged bin below's
    /// fraction without a queue (`hi`; 1 with none below), at least the
    /// nearest judged bin above's (`lo`; 0 with none above). So a host
    /// that never sends the top rates leaves no doubt once a bin below
    /// them always showed a queue.
    fn integral(&self) -> (f64, f64) {
        let w = self.bin_width();
        let free = |k: usize| {
            let n = self.bin_n[k];
            (n > 0).then(|| (n - self.bin_above[k]) as f64 / n as f64)
        };
        let (mut lo, mut hi) = (0.0, 0.0);
        for k in 0..BINS {
            match free(k) {
                Some(f) => {
                    lo += w * f;
                    hi += w * f;
                }
                None => {
                    hi += w * (0..k).rev().find_map(free).unwrap_or(1.0);
                    lo += w * (k + 1..BINS).find_map(free).unwrap_or(0.0);
                }
            }
        }
        (lo, hi)
    }

    /// Every bin judged, or the empty ones pinned by their neighbours to
    /// within [`PINNED`] of the capacity.
    fn covered(&self) -> bool {
        let (lo, hi) = self.integral();
        self.judged_trains > 0 && hi - lo <= PINNED * self.capacity
    }

    /// The mean available bandwidth (bytes/s) once every bin has a judged
    /// train, 0 before.
    pub fn estimate(&self) -> f64 {
        if self.covered() {
            self.mean_avail()
        } else {
            0.0
        }
    }

    /// What the search has found: an estimate once every rate bin has a
    /// judged train, else the range its judged trains bound, else nothing.
    /// A search whose bins are not all covered (a host that cannot send as
    /// fast as asked, a probe too short for one sweep) must not be read as
    /// an estimate: the caller reports the range as a range.
    pub fn outcome(&self) -> Outcome {
        if self.covered() {
            Outcome::Estimate(self.estimate())
        } else if self.judged_trains > 0 {
            let (lo, hi) = self.bracket();
            Outcome::Range {
                lo,
                hi,
                host_limited: self.host_limited,
            }
        } else {
            Outcome::Nothing
        }
    }

    /// The range `(lo, hi)` the judged trains bound (bytes/s; equal once
    /// every bin is covered).
    pub fn bracket(&self) -> (f64, f64) {
        // The bins hold rates as sent: a verdict is about `A` against the
        // rate less the trend's margin, which lowers the lower end.
        let (lo, hi) = self.integral();
        let margin = self.cfg.trend_frac / 0.75 * self.capacity;
        ((lo - margin).max(0.0), hi)
    }

    /// Trains judged, and how many of them the host sent slower than asked
    /// without a queue showing.
    pub fn judged(&self) -> (u32, u32) {
        (self.judged_trains, self.host_limited)
    }

    /// Trains that could not be judged (a quarter without an RTT sample).
    pub fn unjudged(&self) -> u32 {
        self.unjudged
    }

    /// The estimate (0 before every bin is covered), the trains judged in
    /// it (0 before), trains sent.
    pub fn progress(&self) -> (f64, u32, u32) {
        let n = if self.covered() {
            self.judged_trains
        } else {
            0
        };
        (self.estimate(), n, self.trains)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::VecDeque;

    /// A fluid FIFO bottleneck of capacity `c` (bytes/s) with constant cross
    /// traffic `x`, base RTT 80 ms, driven for `secs` by the search; the
    /// host sends at most `host_max` bytes/s. Returns the search and the
    /// fastest rate it asked for.
    fn run(c: f64, x: f64, host_max: f64, secs: f64) -> (AvailSearch, f64) {
        run_cross(c, &|_| x, host_max, secs, 0)
    }

    /// `run`, with the host stalling every `stall_every` (0: never): every
    /// RTT sample of a packet sent in the stall's first 25 ms reads 3 ms
    /// late, as on a busy real host.
    fn run_stalls(
        c: f64,
        x: f64,
        host_max: f64,
        secs: f64,
        stall_every: Time,
    ) -> (AvailSearch, f64) {
        run_cross(c, &|_| x, host_max, secs, stall_every)
    }

    /// `run_stalls` with cross traffic `x(t)` (bytes/s) that varies.
    fn run_cross(
        c: f64,
        x: &dyn Fn(Time) -> f64,
        host_max: f64,
        secs: f64,
        stall_every: Time,
    ) -> (AvailSearch, f64) {
        let base: Time = 80 * MILLISECOND;
        let dt: Time = 100_000; // 0.1 ms steps
        let mut s = AvailSearch::new(SearchConfig::default(), c, 0);
        let mut q = 0.0; // bytes queued
        let mut acks: VecDeque<(Time, Time)> = VecDeque::new(); // (arrival, rtt)
        let mut t: Time = 0;
        let mut next_sample: Time = 0;
        let mut asked: f64 = 0.0;
        while (t as f64) < secs * 1e9 {
            asked = asked.max(s.rate());
            let r = s.rate().min(host_max);
            let bytes = r * dt as f64 * 1e-9;
            s.on_send(t, bytes);
            q = (q + (r + x(t) - c) * dt as f64 * 1e-9).max(0.0);
            // One RTT sample per 0.5 ms of sending.
            if t >= next_sample {
                let mut rtt = base + (q / c * 1e9) as Time;
                if stall_every > 0 && t % stall_every < 25 * MILLISECOND {
                    rtt += 3 * MILLISECOND;
                }
                acks.push_back((t + rtt, rtt));
                next_sample = t + 500_000;
            }
            while acks.front().is_some_and(|&(at, _)| at <= t) {
                let (at, rtt) = acks.pop_front().unwrap();
                s.on_rtt(at, rtt, base);
            }
            t += dt;
        }
        (s, asked)
    }

    #[test]
    fn the_search_finds_the_available_bandwidth_of_a_fluid_bottleneck() {
        let c = 125e6; // 1 Gb/s
        for frac in [0.2, 0.5, 0.9] {
            let a = frac * c;
            let (s, _) = run(c, c - a, f64::INFINITY, 20.0);
            let (latest, n, _) = s.progress();
            assert!(n >= 3, "A = {frac} C: only {n} estimates");
            // The documented resolution: detection at 1.33 % of C above A
            // plus half the 2 % bracket.
            let e = s.estimate();
            assert!(
                (e - a).abs() < 0.024 * c,
                "A = {frac} C: mean estimate {e}, latest {latest}, against {a}"
            );
        }
    }

    #[test]
    fn a_host_that_cannot_keep_up_is_not_taken_for_available_bandwidth() {
        // A = 0.9 C but the host sends at most 0.6 C: trains asked for more
        // go out at 0.6 C without a queue, which proves only A >= 0.6 C.
        // The search must not estimate above what the host sent, nor ask
        // for ever more (judging the rates asked for, it widened its bracket
        // past the capacity again and again).
        let c = 125e6;
        let (s, asked) = run(c, 0.1 * c, 0.6 * c, 20.0);
        let e = s.estimate();
        assert!(e <= 0.6 * c * 1.01, "estimate {e} above what the host sent");
        assert!(asked <= c, "asked for {asked}, above the capacity {c}");
        // And it says so: no estimate, a range from what the host sent
        // (the bins above it never see a train): the lower end reads them
        // as "queue", so it is what the host sent to within a bin, the
        // upper end as "no queue", the capacity.
        match s.outcome() {
            Outcome::Range {
                lo,
                hi,
                host_limited,
            } => {
                let bin = c / BINS as f64;
                assert!(
                    (lo - 0.6 * c).abs() <= bin,
                    "lower bound {lo}, the host sent 0.6 C"
                );
                assert!((hi - c).abs() < 1e-6 * c, "upper bound {hi}, not C");
                assert!(host_limited > 0, "no train counted as host-limited");
            }
            o => panic!("a host-limited search reported {o:?}"),
        }
    }

    #[test]
    fn a_stalling_host_does_not_read_an_idle_path_low() {
        // An idle path (A = C) and a host that stalls every 390 ms (not a
        // multiple of the schedule): a stall adds 3 ms to a train's
        // samples, under the trend (4 % of 80 ms), so no train reads
        // "above" on it.
        let c = 125e6;
        let (s, _) = run_stalls(c, 0.0, f64::INFINITY, 20.0, 390 * MILLISECOND);
        let (latest, n, _) = s.progress();
        assert!(n >= 1, "no estimate");
        let e = s.estimate();
        assert!(
            (e - c).abs() < 0.024 * c,
            "mean estimate {e}, latest {latest}, against {c}"
        );
    }

    #[test]
    fn a_search_that_closes_reports_an_estimate_and_before_any_train_nothing() {
        let c = 125e6;
        let s = AvailSearch::new(SearchConfig::default(), c, 0);
        assert_eq!(s.outcome(), Outcome::Nothing);
        let (s, _) = run(c, 0.5 * c, f64::INFINITY, 20.0);
        match s.outcome() {
            Outcome::Estimate(e) => assert_eq!(e, s.estimate()),
            o => panic!("a closed search reported {o:?}"),
        }
        assert_eq!(s.judged().1, 0, "an unlimited host counted as limited");
    }

    #[test]
    fn on_off_cross_traffic_reads_its_mean_available_bandwidth() {
        // Cross traffic at the full capacity for 270 ms, then none for
        // 330 ms (not a multiple of the schedule): a train sees either the
        // whole link or nothing, at any rate. The mean available bandwidth
        // is 0.55 C; single verdicts cannot bracket it (the bisection read
        // the off periods), the integral of the fraction of trains without
        // a queue over the rates must find it. 60 s: about 30 trains per
        // half of the rates, so the fraction's sampling error is about
        // 0.5 / sqrt(30 x 2) of C, under the 0.1 C allowed here.
        let c = 125e6;
        let period: Time = 600 * MILLISECOND;
        let on = |t: Time| {
            if t % period < 270 * MILLISECOND {
                c
            } else {
                0.0
            }
        };
        let (s, _) = run_cross(c, &on, f64::INFINITY, 60.0, 0);
        let e = match s.outcome() {
            Outcome::Estimate(e) => e,
            o => panic!("no estimate: {o:?}"),
        };
        assert!(
            (e - 0.55 * c).abs() < 0.1 * c,
            "estimate {} C against 0.55 C",
            e / c
        );
    }

    #[test]
    fn a_train_without_a_sample_in_a_quarter_gets_no_verdict() {
        // A train of one burst at its start: its last quarter has no RTT
        // sample. It must neither count as "no queue" (that raised the
        // lower end on the idle real path) nor enter the estimate.
        let c = 125e6;
        let base: Time = 80 * MILLISECOND;
        let mut s = AvailSearch::new(SearchConfig::default(), c, 0);
        s.on_send(0, 1500.0);
        s.on_rtt(base, base, base);
        // The next sample is of a packet sent after the train: the verdict.
        s.on_rtt(2 * base + MILLISECOND, base, base);
        assert_eq!(s.unjudged(), 1);
        assert_eq!(s.judged(), (0, 0));
        assert_eq!(s.outcome(), Outcome::Nothing);
    }

    #[test]
    fn a_train_of_bursts_is_timed_from_its_first_send_to_its_last() {
        // Bursts of 10 packets every 4 ms at a rate of 3.75 MB/s, whatever
        // their phase in the train's window: the rate as sent is exact
        // (counting the window's bytes over its length read 10-20 % low
        // on trains of a few bursts).
        let c = 125e6;
        for phase in [0, MILLISECOND, 3 * MILLISECOND] {
            let mut s = AvailSearch::new(SearchConfig::default(), c, 0);
            let mut t = phase;
            while t < s.end {
                for _ in 0..10 {
                    s.on_send(t, 1500.0);
                }
                t += 4 * MILLISECOND;
            }
            assert!(
                (s.sent_rate() - 3.75e6).abs() < 1e-6 * 3.75e6,
                "phase {phase}: {} against 3.75e6 (asked {})",
                s.sent_rate(),
                s.rate
            );
        }
    }
}
