//! A bottleneck link in user space, for real transfers over a long fat path
//! on one machine.
//!
//! The simulator's paths have any rate, delay and buffer; a real transfer
//! on one host has none of them (loopback is a few microseconds, and this
//! kernel has no `netem`). This crate puts one emulated link in each
//! direction between two TUN devices, as Mahimahi does: the network stacks
//! of two namespaces send through it, so `dropless send`/`recv` (or any
//! other program) see a path with the configured rate, one-way delay,
//! drop-tail buffer, random loss and ECN marking.
//!
//! [`Link`] is the sans-IO core: packets go in with their arrival time and
//! come out at their delivery time; it never reads a clock. The [`tun`]
//! module (Linux) is the thin shell that moves packets between the TUN
//! devices and the links. The model is the simulator's drop-tail link:
//!
//! * **FIFO with serialisation**: a packet leaves the queue
//!   `len * 8 / rate` after the previous one left, or after it arrived if
//!   the link was idle; it is delivered `delay` after it left.
//! * **Drop-tail buffer**: a packet that would bring the bytes waiting or
//!   in service above `buffer` is dropped.
//! * **Random loss** with probability `loss` before the queue, from a
//!   seeded generator (the sequence of drop decisions is reproducible; which
//!   packets they hit depends on real timing).
//! * **ECN** (step marking, as DCTCP's K): an ECN-capable IPv4 packet that
//!   finds more than `mark_above` bytes queued is set to CE instead of being
//!   delayed further; Not-ECT packets are never marked.
//! * **Active queue management** ([`aqm`]): RED, CoDel, PIE or DCTCP's step
//!   on packets, the simulator's own disciplines deciding at arrival; an
//!   ECN-capable IPv4 packet they signal is set to CE (header checksum
//!   updated), any other is dropped.
//! * **Prices** ([`price_mark`]): RCP's rate or MaxNet's cost computed at
//!   the link and carried as ADPM's price; an ADPM-capable dropless data packet (ECN 01)
//!   whose probe type is below it is marked 10 (header checksum updated).
//!   The probe type comes from the packet number or, as the thesis has it,
//!   from the IPv4 header's IP ID in either byte order ([`probe_type`],
//!   which also records the probe types real IP IDs give, per flow).
//! * **Reordering** with probability `reorder`: a packet leaves the queue
//!   as usual but is delivered `reorder_delay` after its due time, so the
//!   packets behind it overtake it (none is lost). Drawn from its own
//!   seeded generator, so the loss decisions do not change with it.
//! * **Cross traffic** ([`cross`]): open-loop packets that enter the same
//!   queue (and are dropped at the full buffer like the rest) and take the
//!   link's time, but go nowhere. They are generated lazily, in time order,
//!   before each real packet is queued or delivered, so they cost nothing
//!   between real packets.

#![warn(missing_docs)]

use std::collections::VecDeque;

use dropless_cc::{Time, SECOND};
use hdrhistogram::Histogram;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

pub mod aqm;
pub mod cross;
pub mod price_mark;
pub mod probe_type;
#[cfg(target_os = "linux")]
pub mod tun;

pub use aqm::QueueConfig;
pub use cross::{CrossConfig, CrossKind};
use dropless_sim::red::Verdict as AqmVerdict;
pub use price_mark::PriceConfig;
pub use probe_type::{IpIdOrder, ProbeRecorder, ProbeSource};

/// One direction of the emulated path.
#[derive(Clone, Debug, PartialEq)]
pub struct LinkConfig {
    /// Rate in bits per second (of whole IP packets).
    pub rate_bps: f64,
    /// One-way propagation delay.
    pub delay: Time,
    /// Drop-tail buffer in bytes (waiting and in service).
    pub buffer_bytes: u64,
    /// Probability that a packet is lost before the queue.
    pub loss: f64,
    /// Mark ECN-capable packets CE when more than this many bytes are
    /// queued; `None`: never mark.
    pub mark_above: Option<u64>,
    /// Seed of the loss (and reordering) decisions.
    pub seed: u64,
    /// Probability that a packet is delivered `reorder_delay` late (after
    /// packets behind it).
    pub reorder: f64,
    /// How late a reordered packet is delivered.
    pub reorder_delay: Time,
    /// Open-loop cross traffic sharing the queue and the link.
    pub cross: Option<CrossConfig>,
    /// The queue discipline in front of the buffer (drop-tail by default).
    pub queue: QueueConfig,
    /// The price the link computes and marks (none by default).
    pub price: PriceConfig,
    /// Where the price's probe types come from (the dropless packet number
    /// by default; the IP ID needs a price).
    pub probe: ProbeSource,
}

impl LinkConfig {
    /// Checks the values; the error names the field and what is allowed.
    pub fn validate(&self) -> Result<(), String> {
        if !(self.rate_bps.is_finite() && self.rate_bps > 0.0) {
            return Err(format!(
                "rate: found {}, expected a positive rate",
                self.rate_bps
            ));
        }
        if !(0.0..=1.0).contains(&self.loss) {
            return Err(format!(
                "loss: found {}, expected a probability from 0 to 1",
                self.loss
            ));
        }
        if !(0.0..=1.0).contains(&self.reorder) {
            return Err(format!(
                "reorder: found {}, expected a probability from 0 to 1",
                self.reorder
            ));
        }
        if self.reorder > 0.0 && !(1..=10 * SECOND).contains(&self.reorder_delay) {
            return Err(format!(
                "reorder-delay: found {} ns, expected from 1 ns to 10 s when reorder is above 0",
                self.reorder_delay
            ));
        }
        if self.buffer_bytes == 0 {
            return Err("buffer: found 0, expected at least one packet's bytes".into());
        }
        if let Some(c) = &self.cross {
            c.validate()?;
        }
        self.queue.validate()?;
        self.price.validate()?;
        if self.probe != ProbeSource::PacketNumber && self.price == PriceConfig::None {
            return Err("probe-type: ip-id needs a price (--price rcp or maxnet)".into());
        }
        Ok(())
    }
}

/// What became of a packet offered to [`Link::push`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Queued (possibly CE-marked); it will come out of [`Link::pop`].
    Queued {
        /// The packet was set to CE.
        marked: bool,
    },
    /// Dropped because the buffer was full.
    Overflow,
    /// Dropped by the random loss.
    Lost,
    /// Dropped by the queue discipline ([`LinkConfig::queue`]).
    Dropped,
}

/// Counters of one link.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LinkStats {
    /// Packets offered.
    pub packets_in: u64,
    /// Packets delivered.
    pub packets_out: u64,
    /// Bytes delivered.
    pub bytes_out: u64,
    /// Packets dropped at the full buffer.
    pub overflows: u64,
    /// Packets dropped by the random loss.
    pub lost: u64,
    /// Packets set to CE.
    pub marked: u64,
    /// Packets delivered `reorder_delay` late.
    pub reordered: u64,
    /// Largest queue seen, bytes.
    pub max_queue_bytes: u64,
    /// Cross-traffic packets that entered the queue.
    pub cross_in: u64,
    /// Cross-traffic packets dropped at the full buffer.
    pub cross_overflows: u64,
    /// Cross-traffic bytes offered (queued or dropped), and the arrival
    /// times of the first and the last cross packet: the cross traffic's
    /// mean rate over the run, which for heavy-tailed on/off traffic a run
    /// of seconds need not share with the configured mean.
    pub cross_bytes: u64,
    /// Arrival time of the first cross packet.
    pub cross_first: Time,
    /// Arrival time of the last cross packet.
    pub cross_last: Time,
    /// Packets dropped by the queue discipline.
    pub aqm_drops: u64,
    /// Packets price-marked (ECN 01 -> 10).
    pub price_marked: u64,
    /// Packets queued behind a queue discipline other than drop-tail.
    pub aqm_queued: u64,
    /// Sum of their waiting times (arrival to service start), ns: over the
    /// time they span, the time-averaged number of packets waiting
    /// (Little's law).
    pub sojourn_sum_ns: u128,
    /// The standing sojourn: over consecutive windows of
    /// [`STANDING_WINDOW`] (each opened by the first packet let in after
    /// the last one closed), the sum of each window's smallest waiting
    /// time, ns (CoDel's measure of the standing queue, RFC 8289 §3); the
    /// window still open is not counted.
    pub standing_sum_ns: u128,
    /// Windows in `standing_sum_ns`.
    pub standing_windows: u64,
    /// First and last arrival seen, ns (the shell's clock).
    pub first_arrival: Time,
    /// See `first_arrival`.
    pub last_arrival: Time,
}

struct Entry {
    /// When its last bit leaves the queue.
    depart: Time,
    len: u32,
    /// To be delivered `reorder_delay` late.
    late: bool,
    buf: Vec<u8>,
}

/// One direction: a drop-tail FIFO at a fixed rate followed by a delay line.
/// Packet buffers are recycled ([`Link::recycle`]), so a steady flow does
/// not allocate.
pub struct Link {
    cfg: LinkConfig,
    /// Seconds per byte.
    byte_time: f64,
    /// Packets not yet delivered, in departure (= delivery) order.
    entries: VecDeque<Entry>,
    /// Index of the first entry still waiting or in service at the last
    /// `advance`; entries before it are in the delay line.
    first_queued: usize,
    /// Bytes of the entries from `first_queued` on.
    queued_bytes: u64,
    /// Departure time of the last packet queued.
    last_depart: Time,
    rng: Pcg64Mcg,
    /// Draws the reordering decisions.
    reorder_rng: Pcg64Mcg,
    /// Reordered packets out of the queue, with their (late) due times, in
    /// that order (the delay is the same for all).
    late: VecDeque<(Time, Vec<u8>)>,
    free: Vec<Vec<u8>>,
    stats: LinkStats,
    /// How late each packet was handed over (`pop`'s `now` minus its due
    /// time), ns: the shell's timing error, which the link model does not
    /// have.
    lateness: Histogram<u64>,
    cross: Option<cross::CrossSource>,
    /// Departure times and sizes of the cross packets still queued.
    cross_queued: VecDeque<(Time, u32)>,
    /// The queue discipline's state; `None`: drop-tail.
    aqm: Option<Box<aqm::Aqm>>,
    /// The largest packet seen, bytes (PIE's MTU).
    mtu: u32,
    /// The price's state; `None`: no price.
    price: Option<Box<price_mark::PriceMark>>,
    /// Random loss, a price or a queue discipline is configured: arrivals
    /// take [`Link::push_from`]'s slow path.
    slow: bool,
    /// A price or a queue discipline is configured: arrivals take
    /// [`Link::push_to_disciplines`].
    disciplines: bool,
    /// The open standing-sojourn window: when it closes, and the smallest
    /// waiting time in it (`None`: no window open).
    standing: Option<(Time, Time)>,
}

/// The window over which [`LinkStats::standing_sum_ns`] takes the smallest
/// waiting time: CoDel's default interval (RFC 8289 §4.3), 100 ms.
pub const STANDING_WINDOW: Time = 100 * dropless_cc::MILLISECOND;

/// How late a [`Link`]'s packets were delivered, from [`Link::lateness`].
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Lateness {
    /// Packets delivered.
    pub count: u64,
    /// Median, ns (within 1%).
    pub median: Time,
    /// 99th percentile, ns (within 1%).
    pub p99: Time,
    /// Largest, ns (within 1%).
    pub max: Time,
}

impl Link {
    /// A link as `cfg` says (call [`LinkConfig::validate`] first).
    pub fn new(cfg: LinkConfig) -> Link {
        Link {
            byte_time: 8.0 / cfg.rate_bps,
            rng: Pcg64Mcg::seed_from_u64(cfg.seed),
            reorder_rng: Pcg64Mcg::seed_from_u64(cfg.seed ^ 0x005E_ED0F_0DE5),
            late: VecDeque::new(),
            cross: None,
            cross_queued: VecDeque::new(),
            aqm: aqm::Aqm::new(&cfg.queue, cfg.rate_bps, cfg.seed ^ 0xA011_D15C).map(Box::new),
            mtu: 0,
            price: price_mark::PriceMark::new(&cfg.price, cfg.rate_bps, cfg.probe).map(Box::new),
            slow: cfg.loss > 0.0
                || cfg.queue != QueueConfig::DropTail
                || cfg.price != PriceConfig::None,
            disciplines: cfg.queue != QueueConfig::DropTail || cfg.price != PriceConfig::None,
            standing: None,
            cfg,
            entries: VecDeque::new(),
            first_queued: 0,
            queued_bytes: 0,
            last_depart: 0,
            free: Vec::new(),
            stats: LinkStats::default(),
            // 1 ns to 100 s at two significant digits: allocated once here,
            // recording is a bucket increment.
            lateness: Histogram::new_with_bounds(1, 100 * SECOND, 2)
                .expect("valid histogram bounds"),
        }
    }

    /// The rate the link's price gives each flow, bits/s (RCP's R, or the
    /// MaxNet demand at the link's cost), if it computes a price.
    pub fn price_rate_bps(&self) -> Option<f64> {
        self.price.as_deref().map(price_mark::PriceMark::rate_bps)
    }

    /// The probe types the price derived from IP IDs, per flow; `None`
    /// unless the link takes probe types from the IP ID.
    pub fn probe_record(&self) -> Option<&ProbeRecorder> {
        self.price
            .as_deref()
            .and_then(price_mark::PriceMark::recorder)
    }

    /// Sums over the price's updates (the rate above, y and q); `None`
    /// without a price.
    pub fn price_totals(&self) -> Option<dropless_sim::rcp_price::RcpTotals> {
        self.price.as_deref().map(price_mark::PriceMark::totals)
    }

    /// The configuration.
    pub fn config(&self) -> &LinkConfig {
        &self.cfg
    }

    /// Counters.
    pub fn stats(&self) -> &LinkStats {
        &self.stats
    }

    /// How late the packets delivered so far were handed over, against
    /// their due time ([`Link::next_delivery`]): the timing error of the
    /// shell that calls [`Link::pop`] (a late wake-up, a busy core), which
    /// the link model itself does not have. Packet-pair dispersion and pacing
    /// measured behind the link carry it.
    pub fn lateness(&self) -> Lateness {
        let h = &self.lateness;
        Lateness {
            count: h.len(),
            median: h.value_at_quantile(0.5),
            p99: h.value_at_quantile(0.99),
            max: h.max(),
        }
    }

    /// Bytes waiting or in service at the last call.
    pub fn queued_bytes(&self) -> u64 {
        self.queued_bytes
    }

    /// An empty buffer for the next packet (recycled when possible).
    pub fn buffer(&mut self) -> Vec<u8> {
        let mut b = self.free.pop().unwrap_or_default();
        b.clear();
        b
    }

    /// Gives a delivered (or refused) packet's buffer back for reuse.
    pub fn recycle(&mut self, buf: Vec<u8>) {
        if self.free.len() < 4096 {
            self.free.push(buf);
        }
    }

    /// Moves the packets that have left the queue by `now` into the delay
    /// line.
    fn advance(&mut self, now: Time) {
        while let Some(e) = self.entries.get(self.first_queued) {
            if e.depart > now {
                break;
            }
            self.queued_bytes -= e.len as u64;
            self.first_queued += 1;
        }
        while let Some(&(depart, len)) = self.cross_queued.front() {
            if depart > now {
                break;
            }
            self.queued_bytes -= len as u64;
            self.cross_queued.pop_front();
        }
    }

    /// Queues (or drops) the cross packets that arrived up to `now`, each
    /// at its own arrival time.
    fn cross_until(&mut self, now: Time) {
        let mut src = match (self.cross.take(), self.cfg.cross) {
            (Some(src), _) => src,
            // The source starts with the first packet the link sees (the
            // shell's clock has an arbitrary origin).
            (None, Some(c)) => cross::CrossSource::new(c, now),
            (None, None) => return,
        };
        while src.peek() <= now {
            let t = src.take();
            self.advance(t);
            let len = src.packet_bytes();
            if self.stats.cross_bytes == 0 {
                self.stats.cross_first = t;
            }
            self.stats.cross_bytes += u64::from(len);
            self.stats.cross_last = t;
            if self.queued_bytes + len as u64 > self.cfg.buffer_bytes {
                self.stats.cross_overflows += 1;
                continue;
            }
            let start = self.last_depart.max(t);
            let depart = start + (len as f64 * self.byte_time * SECOND as f64).round() as Time;
            self.last_depart = depart;
            self.queued_bytes += len as u64;
            self.stats.cross_in += 1;
            self.stats.max_queue_bytes = self.stats.max_queue_bytes.max(self.queued_bytes);
            self.cross_queued.push_back((depart, len));
        }
        self.cross = Some(src);
    }

    /// Offers the IP packet in `buf` at time `now`. A dropped packet's
    /// buffer is kept for reuse.
    pub fn push(&mut self, now: Time, buf: Vec<u8>) -> Verdict {
        self.cross_until(now);
        self.advance(now);
        self.stats.packets_in += 1;
        // One test where there was the random loss's before the disciplines
        // existed; each case compiled on its own (docs/performance.md, the
        // emulator's drop-tail path).
        if self.slow {
            self.push_from::<true>(now, buf)
        } else {
            self.push_from::<false>(now, buf)
        }
    }

    /// `push` after the counters: with `SLOW`, the random loss, then a
    /// drop-tail link's path or the disciplines'; without, the drop-tail
    /// path alone.
    #[inline(always)]
    fn push_from<const SLOW: bool>(&mut self, now: Time, mut buf: Vec<u8>) -> Verdict {
        if SLOW {
            if self.cfg.loss > 0.0 && self.rng.gen::<f64>() < self.cfg.loss {
                self.stats.lost += 1;
                self.recycle(buf);
                return Verdict::Lost;
            }
            if self.disciplines {
                return self.push_to_disciplines(now, buf);
            }
        }
        if self.overflows(buf.len() as u64) {
            self.recycle(buf);
            return Verdict::Overflow;
        }
        let marked = self.step_mark(&mut buf);
        self.enqueue(now, buf, marked)
    }

    /// `push` past the random loss on a link with a price or a queue
    /// discipline: the price counts every arrival, then the buffer, then
    /// the discipline decides.
    #[cold]
    #[inline(never)]
    fn push_to_disciplines(&mut self, now: Time, mut buf: Vec<u8>) -> Verdict {
        if let Some(pm) = self.price.as_deref_mut() {
            // Every arrival counts towards the link's input rate, as in the
            // simulator's links.
            if pm.on_arrival(now, self.queued_bytes, &mut buf) {
                self.stats.price_marked += 1;
            }
        }
        if self.overflows(buf.len() as u64) {
            self.recycle(buf);
            return Verdict::Overflow;
        }
        let mut marked = false;
        if self.aqm.is_some() {
            match self.aqm_verdict(now, &mut buf) {
                AqmVerdict::Drop => {
                    self.stats.aqm_drops += 1;
                    self.recycle(buf);
                    return Verdict::Dropped;
                }
                AqmVerdict::Mark => marked = true,
                AqmVerdict::Enqueue => {}
            }
        }
        let marked = marked || self.step_mark(&mut buf);
        self.enqueue(now, buf, marked)
    }

    /// Whether `len` more bytes would overflow the buffer (counted).
    #[inline(always)]
    fn overflows(&mut self, len: u64) -> bool {
        let full = self.queued_bytes + len > self.cfg.buffer_bytes;
        if full {
            self.stats.overflows += 1;
        }
        full
    }

    /// `--mark-above`: sets an ECN-capable packet to CE when more than the
    /// threshold is queued.
    #[inline(always)]
    fn step_mark(&mut self, buf: &mut [u8]) -> bool {
        self.cfg
            .mark_above
            .is_some_and(|k| self.queued_bytes > k && mark_ce(buf))
    }

    /// Queues an accepted packet behind the others.
    #[inline(always)]
    fn enqueue(&mut self, now: Time, buf: Vec<u8>, marked: bool) -> Verdict {
        let len = buf.len() as u64;
        if marked {
            self.stats.marked += 1;
        }
        let start = self.last_depart.max(now);
        let depart = start + (len as f64 * self.byte_time * SECOND as f64).round() as Time;
        self.last_depart = depart;
        self.queued_bytes += len;
        self.stats.max_queue_bytes = self.stats.max_queue_bytes.max(self.queued_bytes);
        let late = self.cfg.reorder > 0.0 && self.reorder_rng.gen::<f64>() < self.cfg.reorder;
        self.entries.push_back(Entry {
            depart,
            len: len as u32,
            late,
            buf,
        });
        Verdict::Queued { marked }
    }

    /// Asks the queue discipline about the packet in `buf` arriving at
    /// `now` (after `advance(now)`); a mark is applied to the header here,
    /// and a mark the header cannot take (not ECN-capable IPv4) becomes a
    /// drop. Counts the packet's waiting time if it is not dropped.
    fn aqm_verdict(&mut self, now: Time, buf: &mut [u8]) -> AqmVerdict {
        let len = buf.len() as u32;
        self.mtu = self.mtu.max(len);
        let real = self
            .entries
            .get(self.first_queued)
            .map(|e| (e.depart, e.len));
        let cross = self.cross_queued.front().copied();
        // The packet in service: whichever queued one leaves first.
        let head = match (real, cross) {
            (Some(a), Some(b)) => Some(if a.0 <= b.0 { a } else { b }),
            (a, b) => a.or(b),
        };
        let queued = (self.entries.len() - self.first_queued + self.cross_queued.len()) as u64;
        let view = aqm::QueueView {
            now,
            busy_until: self.last_depart,
            waiting: queued.saturating_sub(1),
            waiting_bytes: self.queued_bytes - head.map_or(0, |h| h.1 as u64),
            len,
            mtu: self.mtu,
        };
        let ect = aqm::is_ect(buf);
        let a = self.aqm.as_deref_mut().expect("checked by the caller");
        let v = match a.on_arrival(&view, ect) {
            AqmVerdict::Mark if !mark_ce(buf) => AqmVerdict::Drop,
            v => v,
        };
        if v != AqmVerdict::Drop {
            if self.stats.aqm_queued == 0 {
                self.stats.first_arrival = now;
            }
            self.stats.aqm_queued += 1;
            let wait = self.last_depart.max(now) - now;
            self.stats.sojourn_sum_ns += wait as u128;
            self.stats.last_arrival = now;
            self.standing = match self.standing {
                Some((end, min)) if now < end => Some((end, min.min(wait))),
                closed => {
                    if let Some((_, min)) = closed {
                        self.stats.standing_sum_ns += min as u128;
                        self.stats.standing_windows += 1;
                    }
                    Some((now + STANDING_WINDOW, wait))
                }
            };
        }
        v
    }

    /// When the next packet is due at the far end, if any.
    pub fn next_delivery(&self) -> Option<Time> {
        let e = self.entries.front().map(|e| e.depart + self.cfg.delay);
        match (e, self.late.front().map(|(t, _)| *t)) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// The next packet due by `now`, if any.
    pub fn pop(&mut self, now: Time) -> Option<Vec<u8>> {
        loop {
            let due = self.next_delivery()?;
            if due > now {
                return None;
            }
            let from_queue = self
                .entries
                .front()
                .is_some_and(|e| e.depart + self.cfg.delay == due);
            if !from_queue {
                let (_, buf) = self.late.pop_front()?;
                self.lateness.saturating_record(now - due);
                self.stats.packets_out += 1;
                self.stats.bytes_out += buf.len() as u64;
                return Some(buf);
            }
            self.cross_until(now);
            self.advance(now);
            let e = self.entries.pop_front()?;
            // It had left the queue (delivery is after departure).
            self.first_queued -= 1;
            if e.late {
                // Out of the queue on time, delivered late.
                self.stats.reordered += 1;
                self.late.push_back((due + self.cfg.reorder_delay, e.buf));
                continue;
            }
            self.lateness.saturating_record(now - due);
            self.stats.packets_out += 1;
            self.stats.bytes_out += e.len as u64;
            return Some(e.buf);
        }
    }
}

/// Sets an ECN-capable IPv4 packet's ECN field to CE and fixes its header
/// checksum (RFC 1624 incremental update). Returns false, leaving the
/// packet alone, for Not-ECT, for packets already CE and for anything that
/// is not a well-formed IPv4 header (IPv6 is not marked).
pub fn mark_ce(p: &mut [u8]) -> bool {
    match p.get(1).map(|b| b & 0x03) {
        Some(e @ (1 | 2)) => price_mark::set_ecn(p, e, 3),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dropless_cc::MILLISECOND;

    fn cfg() -> LinkConfig {
        LinkConfig {
            rate_bps: 8e6, // 1 byte per microsecond
            delay: 10 * MILLISECOND,
            buffer_bytes: 3000,
            loss: 0.0,
            mark_above: None,
            seed: 1,
            reorder: 0.0,
            reorder_delay: 0,
            cross: None,
            queue: QueueConfig::DropTail,
            price: PriceConfig::None,
            probe: ProbeSource::PacketNumber,
        }
    }

    /// A reordered packet leaves the queue on time and arrives
    /// `reorder_delay` late, after the packets behind it; nothing is lost,
    /// and the share reordered is the configured one.
    #[test]
    fn reordered_packets_arrive_late_and_behind_the_others() {
        let mut l = Link::new(LinkConfig {
            reorder: 0.1,
            reorder_delay: 30_000,
            buffer_bytes: u64::MAX,
            ..cfg()
        });
        // 10-byte packets every 10 us (10 us of service each at 1 B/us).
        let n = 20_000u64;
        let mut out = Vec::new();
        let mut t = 0;
        for i in 0..n {
            let mut p = pkt(10);
            p[..8].copy_from_slice(&i.to_be_bytes());
            l.push(t, p);
            t += 10;
            while let Some(b) = l.pop(t) {
                out.push(u64::from_be_bytes(b[..8].try_into().unwrap()));
            }
        }
        while let Some(at) = l.next_delivery() {
            while let Some(b) = l.pop(at) {
                out.push(u64::from_be_bytes(b[..8].try_into().unwrap()));
            }
        }
        assert_eq!(out.len() as u64, n, "none lost");
        let mut sorted = out.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..n).collect::<Vec<_>>());
        // A late packet arrives 30 us late: behind the next three, never
        // further.
        let r = l.stats().reordered;
        assert!((1700..=2300).contains(&r), "{r} reordered of {n}");
        let displaced = (0..out.len())
            .filter(|&k| (out[k] as usize) < k)
            .map(|k| k - out[k] as usize)
            .max()
            .unwrap();
        assert_eq!(
            displaced, 3,
            "a late packet comes after the three behind it"
        );
        let late_ones = (0..out.len())
            .filter(|&k| k > 0 && out[k - 1] > out[k])
            .count() as u64;
        assert!(
            late_ones * 10 >= r * 9,
            "{late_ones} inversions for {r} reordered"
        );
        assert_eq!(
            LinkConfig {
                reorder: 0.1,
                ..cfg()
            }
            .validate()
            .unwrap_err(),
            "reorder-delay: found 0 ns, expected from 1 ns to 10 s when reorder is above 0"
        );
        assert!(LinkConfig {
            reorder: 2.0,
            ..cfg()
        }
        .validate()
        .unwrap_err()
        .starts_with("reorder"));
    }

    /// Constant cross traffic at half the link's rate takes its share: real
    /// packets at 40 % of the rate pass untouched, at 60 % the queue
    /// overflows.
    #[test]
    fn cross_traffic_takes_its_share_of_the_link() {
        for (share, overflows) in [(0.4, false), (0.6, true)] {
            let mut c = cfg();
            c.buffer_bytes = 20_000;
            c.cross = Some(CrossConfig {
                kind: CrossKind::Constant,
                rate_bps: 4e6,
                packet_bytes: 1000,
                seed: 5,
            });
            let mut l = Link::new(c);
            let gap = (1000.0 * 8.0 / (8e6 * share) * 1e9) as Time;
            let mut t = 1_000_000 * MILLISECOND; // any origin
            let start = t;
            while t < start + 20 * SECOND {
                let _ = l.push(t, pkt(1000));
                while l.pop(t).is_some() {}
                t += gap;
            }
            let st = l.stats().clone();
            let cross_rate = st.cross_in as f64 * 1000.0 * 8.0 / 20.0;
            assert_eq!(st.overflows > 0, overflows, "{share}: {st:?}");
            if !overflows {
                assert!((cross_rate - 4e6).abs() < 0.1e6, "{cross_rate}");
            }
            // Offered: queued and dropped, over the span of their arrivals.
            assert_eq!(st.cross_bytes, (st.cross_in + st.cross_overflows) * 1000);
            let span = (st.cross_last - st.cross_first) as f64 / 1e9;
            assert!((span - 20.0).abs() < 0.01, "{span}");
            let offered = st.cross_bytes as f64 * 8.0 / span;
            assert!((offered - 4e6).abs() < 0.01e6, "{offered}");
        }
    }

    fn pkt(len: usize) -> Vec<u8> {
        vec![0u8; len]
    }

    const US: Time = 1000;

    #[test]
    fn serialises_at_the_rate_then_delays() {
        let mut l = Link::new(cfg());
        // Two 1000-byte packets at t = 0: they leave at 1 ms and 2 ms and
        // arrive 10 ms later.
        assert_eq!(l.push(0, pkt(1000)), Verdict::Queued { marked: false });
        assert_eq!(l.push(0, pkt(1000)), Verdict::Queued { marked: false });
        assert_eq!(l.next_delivery(), Some(11 * MILLISECOND));
        assert!(l.pop(11 * MILLISECOND - 1).is_none());
        assert!(l.pop(11 * MILLISECOND).is_some());
        assert_eq!(l.next_delivery(), Some(12 * MILLISECOND));
        assert!(l.pop(12 * MILLISECOND).is_some());
        assert!(l.pop(SECOND).is_none());
        // An idle link starts serialising at the arrival.
        l.push(100 * MILLISECOND, pkt(500));
        assert_eq!(
            l.next_delivery(),
            Some(100 * MILLISECOND + 500 * US + 10 * MILLISECOND)
        );
        assert_eq!(l.stats().packets_out, 2);
    }

    #[test]
    fn lateness_is_the_time_past_the_due_time_at_pop() {
        let mut l = Link::new(cfg());
        assert_eq!(l.lateness(), Lateness::default());
        for _ in 0..100 {
            l.push(0, pkt(10));
        }
        // Due at 10 ms + 10 us, 20 us, ... 1000 us. Handed over on time
        // except the last: 1 ms late.
        for i in 1..100u64 {
            assert!(l.pop(10 * MILLISECOND + i * 10 * US).is_some());
        }
        assert!(l.pop(12 * MILLISECOND).is_some());
        let late = l.lateness();
        assert_eq!(late.count, 100);
        assert_eq!(late.median, 0);
        assert_eq!(late.p99, 0);
        assert!(
            late.max.abs_diff(MILLISECOND) <= MILLISECOND / 100,
            "{late:?}"
        );
        // A pop with nothing due records nothing.
        assert!(l.pop(SECOND).is_none());
        assert_eq!(l.lateness().count, 100);
    }

    #[test]
    fn drop_tail_counts_waiting_and_in_service_bytes() {
        let mut l = Link::new(cfg());
        for _ in 0..3 {
            assert!(matches!(l.push(0, pkt(1000)), Verdict::Queued { .. }));
        }
        assert_eq!(l.push(0, pkt(1)), Verdict::Overflow);
        assert_eq!(l.queued_bytes(), 3000);
        // After 1 ms the first has left: room for one more.
        assert!(matches!(
            l.push(MILLISECOND, pkt(1000)),
            Verdict::Queued { .. }
        ));
        assert_eq!(l.push(MILLISECOND, pkt(1000)), Verdict::Overflow);
        assert_eq!(l.stats().overflows, 2);
        assert_eq!(l.stats().max_queue_bytes, 3000);
        // Packets in the delay line do not count against the buffer.
        assert_eq!(
            l.push(4 * MILLISECOND, pkt(3000)),
            Verdict::Queued { marked: false }
        );
    }

    #[test]
    fn random_loss_has_the_configured_rate_and_is_reproducible() {
        let run = |seed| {
            let mut l = Link::new(LinkConfig {
                loss: 0.01,
                buffer_bytes: u64::MAX,
                seed,
                ..cfg()
            });
            (0..100_000u64)
                .map(|i| l.push(i * MILLISECOND, pkt(10)) == Verdict::Lost)
                .collect::<Vec<bool>>()
        };
        let a = run(7);
        let lost = a.iter().filter(|x| **x).count();
        // Binomial(1e5, 0.01): sd 31.5; 5 sd either side.
        assert!((843..=1157).contains(&lost), "{lost} lost");
        assert_eq!(a, run(7));
        assert_ne!(a, run(8));
    }

    /// A minimal IPv4 header with the given TOS and a valid checksum.
    fn ipv4(tos: u8) -> Vec<u8> {
        let mut h = vec![
            0x45, tos, 0, 40, 0x12, 0x34, 0x40, 0, 64, 17, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2,
        ];
        h.resize(40, 0);
        let c = checksum(&h[..20]);
        h[10..12].copy_from_slice(&c.to_be_bytes());
        h
    }

    fn checksum(h: &[u8]) -> u16 {
        let mut s: u32 = h
            .chunks(2)
            .map(|w| u16::from_be_bytes([w[0], w[1]]) as u32)
            .sum();
        while s >> 16 != 0 {
            s = (s & 0xffff) + (s >> 16);
        }
        !(s as u16)
    }

    #[test]
    fn ce_marking_sets_the_field_and_keeps_the_checksum_valid() {
        for tos in [0x02u8, 0x01, 0xb8 | 0x02, 0xfd] {
            let mut p = ipv4(tos);
            assert!(mark_ce(&mut p), "tos {tos:#x}");
            assert_eq!(p[1], tos | 3);
            let mut h = p[..20].to_vec();
            h[10] = 0;
            h[11] = 0;
            assert_eq!(
                checksum(&h),
                u16::from_be_bytes([p[10], p[11]]),
                "tos {tos:#x}"
            );
        }
        // Not-ECT, CE already, IPv6 and runts are left alone.
        for mut p in [ipv4(0x00), ipv4(0x03), vec![0x60; 40], vec![0x45; 10]] {
            let before = p.clone();
            assert!(!mark_ce(&mut p));
            assert_eq!(p, before);
        }
    }

    #[test]
    fn marks_ect_packets_above_the_threshold_only() {
        let mut l = Link::new(LinkConfig {
            mark_above: Some(1500),
            buffer_bytes: 100_000,
            ..cfg()
        });
        let v: Vec<Verdict> = (0..4).map(|_| l.push(0, ipv4(0x02))).collect();
        // Queued before each: 0, 40, 80, 120 bytes: none above 1500.
        assert!(v.iter().all(|x| *x == Verdict::Queued { marked: false }));
        l.push(0, pkt(2000)); // not IPv4: never marked, but fills the queue
        assert_eq!(l.push(0, ipv4(0x02)), Verdict::Queued { marked: true });
        assert_eq!(l.push(0, ipv4(0x00)), Verdict::Queued { marked: false });
        assert_eq!(l.stats().marked, 1);
    }

    #[test]
    fn buffers_are_recycled() {
        let mut l = Link::new(cfg());
        let mut b = l.buffer();
        b.extend_from_slice(&[1; 100]);
        l.push(0, b);
        let out = l.pop(SECOND).unwrap();
        let cap = out.capacity();
        l.recycle(out);
        let again = l.buffer();
        assert!(again.is_empty() && again.capacity() == cap);
    }

    #[test]
    fn bad_configs_name_the_field() {
        let e = LinkConfig {
            rate_bps: 0.0,
            ..cfg()
        }
        .validate()
        .unwrap_err();
        assert!(e.starts_with("rate"), "{e}");
        let e = LinkConfig { loss: 1.5, ..cfg() }.validate().unwrap_err();
        assert!(e.starts_with("loss"), "{e}");
        let e = LinkConfig {
            buffer_bytes: 0,
            ..cfg()
        }
        .validate()
        .unwrap_err();
        assert!(e.starts_with("buffer"), "{e}");
    }

    /// A packet of `len` bytes with an IPv4 header whose TOS byte is `tos`.
    fn ipv4_len(tos: u8, len: usize) -> Vec<u8> {
        let mut h = ipv4(tos);
        h.resize(len, 0);
        h
    }

    fn with_queue(queue: QueueConfig) -> Link {
        Link::new(LinkConfig {
            buffer_bytes: 1_000_000,
            queue,
            ..cfg()
        })
    }

    /// DCTCP's step on packets: above K = 2 packets waiting an ECT packet
    /// is set to CE with a valid header checksum, a Not-ECT one is dropped.
    #[test]
    fn step_marks_ect_and_drops_not_ect_above_k_packets() {
        use dropless_sim::step_mark::StepConfig;
        let mut l = with_queue(QueueConfig::Step(StepConfig { k: 2, ecn: true }));
        // The fourth finds one in service and two waiting: not above K.
        for _ in 0..4 {
            assert_eq!(
                l.push(0, ipv4_len(0x02, 1000)),
                Verdict::Queued { marked: false }
            );
        }
        assert_eq!(
            l.push(0, ipv4_len(0x02, 1000)),
            Verdict::Queued { marked: true }
        );
        assert_eq!(
            l.push(0, ipv4_len(0x01, 1000)),
            Verdict::Queued { marked: true }
        );
        assert_eq!(l.push(0, ipv4_len(0x00, 1000)), Verdict::Dropped);
        assert_eq!(
            l.push(0, pkt(1000)),
            Verdict::Dropped,
            "not IPv4: not ECN-capable"
        );
        assert_eq!((l.stats().marked, l.stats().aqm_drops), (2, 2));
        let mut t = 0;
        let mut ce = 0;
        while let Some(p) = l.pop(t) {
            assert_eq!(checksum(&p[..20]), 0, "header checksum still valid");
            ce += (p[1] & 3 == 3) as u32;
            t += MILLISECOND;
        }
        for _ in 0..20 {
            t += MILLISECOND;
            while let Some(p) = l.pop(t) {
                assert_eq!(checksum(&p[..20]), 0);
                ce += (p[1] & 3 == 3) as u32;
            }
        }
        assert_eq!(ce, 2);
    }

    /// `n` packets of 1000 bytes with TOS `tos` offered to a link with
    /// queue `q`, packet `i` at `at(i)`, each instant's departures taken at
    /// once (their header checksums checked): the verdicts and the stats.
    fn verdicts_at(
        q: QueueConfig,
        tos: u8,
        n: u64,
        at: impl Fn(u64) -> Time,
    ) -> (Vec<Verdict>, LinkStats) {
        let mut l = with_queue(q);
        let mut verdicts = Vec::new();
        for i in 0..n {
            let now = at(i);
            verdicts.push(l.push(now, ipv4_len(tos, 1000)));
            while let Some(p) = l.pop(now) {
                assert_eq!(checksum(&p[..20]), 0);
                l.recycle(p);
            }
        }
        (verdicts, l.stats().clone())
    }

    /// RED on real packets: a queue growing past the lower threshold
    /// (w_q = 1, upper threshold far away) has ECT packets marked, never
    /// dropped, with valid header checksums, and Not-ECT packets dropped,
    /// never marked.
    #[test]
    fn red_marks_or_drops_real_packets() {
        use dropless_sim::red::RedConfig;
        let run = |tos: u8| {
            let mut l = with_queue(QueueConfig::Red(RedConfig {
                min_th: 1.0,
                max_th: 400.0,
                max_p: 1.0,
                w_q: 1.0,
                gentle: false,
                adaptive: false,
                ecn: true,
                min_queue: 2,
            }));
            for _ in 0..300 {
                l.push(0, ipv4_len(tos, 1000));
            }
            let mut ce = 0;
            while let Some(p) = l.pop(SECOND) {
                assert_eq!(checksum(&p[..20]), 0);
                ce += (p[1] & 3 == 3) as u64;
            }
            (l.stats().clone(), ce)
        };
        let (s, ce) = run(0x02);
        assert!(
            s.marked > 10 && s.aqm_drops == 0 && s.overflows == 0,
            "{s:?}"
        );
        assert_eq!(ce, s.marked);
        let (s, ce) = run(0x00);
        assert!(s.aqm_drops > 10 && s.marked == 0 && ce == 0, "{s:?}");
    }

    /// CoDel on real packets: a standing queue (a packet every 0.5 ms into a
    /// 1 ms-per-packet link) stays above the 5 ms target for an interval,
    /// and CoDel then marks ECT packets (checksum valid) or drops Not-ECT
    /// ones; the same arrivals give the same verdicts (seeded, no clock).
    #[test]
    fn codel_signals_a_standing_queue_on_real_packets() {
        use dropless_sim::codel::CodelConfig;
        let run = |tos: u8| {
            let q = QueueConfig::Codel(CodelConfig {
                ecn: true,
                ..CodelConfig::default()
            });
            verdicts_at(q, tos, 600, |i| i * 500 * US)
        };
        let (v, s) = run(0x02);
        assert!(s.marked > 0 && s.aqm_drops == 0, "{s:?}");
        assert_eq!(run(0x02).0, v, "deterministic");
        // Packet i starts its service at i ms (its dequeue instant, where
        // CoDel judges it); the sojourn is above 5 ms from packet 11 on, so
        // nothing may be signalled before an interval (100 ms) later.
        let first = v
            .iter()
            .position(|x| *x == Verdict::Queued { marked: true })
            .unwrap();
        assert!(first >= 110, "first mark at packet {first}");
        let (_, s) = run(0x00);
        assert!(s.aqm_drops > 0 && s.marked == 0, "{s:?}");
        // Waiting time recorded for the packets let in.
        assert!(s.sojourn_sum_ns > 0 && s.aqm_queued + s.aqm_drops == 600);
    }

    /// PIE on real packets: a burst of 30 packets, then arrivals at the
    /// link's rate, hold about 30 ms of queue (twice PIE's 15 ms target);
    /// nothing is signalled within PIE's 150 ms burst allowance, then ECT
    /// packets are marked (header checksum valid) while the probability is
    /// at most 10 % and Not-ECT packets are only ever dropped; the same
    /// arrivals give the same verdicts (seeded, no clock).
    #[test]
    fn pie_signals_a_growing_queue_on_real_packets() {
        use dropless_sim::pie::PieConfig;
        let run = |tos: u8| {
            let q = QueueConfig::Pie(PieConfig {
                ecn: true,
                ..PieConfig::default()
            });
            verdicts_at(q, tos, 3000, |i| i.saturating_sub(30) * MILLISECOND)
        };
        let (v, s) = run(0x02);
        assert!(s.marked > 0 && s.overflows == 0, "{s:?}");
        assert_eq!(run(0x02).0, v, "deterministic");
        let first = v
            .iter()
            .position(|x| !matches!(x, Verdict::Queued { marked: false }))
            .unwrap();
        // Arrival i (from 30 on) is at i - 30 ms: the burst allowance
        // lasts 150 ms.
        assert!(first >= 180, "first signal at packet {first}");
        // Marks come before any drop of an ECT packet (RFC 8033 §5.1).
        if let Some(d) = v.iter().position(|x| *x == Verdict::Dropped) {
            assert!(d > first, "an ECT packet dropped before the first mark");
        }
        let (v, s) = run(0x00);
        assert!(s.aqm_drops > 0 && s.marked == 0, "{s:?}");
        assert!(v.iter().all(|x| *x != Verdict::Queued { marked: true }));
    }

    /// The queue a discipline sees is the emulated FIFO's: the packet in
    /// service and those in the delay line do not count as waiting. With
    /// DCTCP's step at K = 1, the third of packets arriving together finds
    /// one in service and one waiting (not above K), the fourth two waiting
    /// (marked); once the link has sent two of them (fake clock at 2.5 ms),
    /// one is in service and one waits, so the next arrival is not marked;
    /// and once all have left the queue (still in the 10 ms delay line)
    /// nothing waits.
    #[test]
    fn the_discipline_sees_only_the_packets_waiting() {
        use dropless_sim::step_mark::StepConfig;
        let mut l = with_queue(QueueConfig::Step(StepConfig { k: 1, ecn: true }));
        let q = |marked| Verdict::Queued { marked };
        // 1000 bytes at 1 byte/us: 1 ms of service each.
        assert_eq!(l.push(0, ipv4_len(0x02, 1000)), q(false)); // in service
        assert_eq!(l.push(0, ipv4_len(0x02, 1000)), q(false)); // 1 waiting
        assert_eq!(l.push(0, ipv4_len(0x02, 1000)), q(false)); // 1 waiting: not > K
        assert_eq!(l.push(0, ipv4_len(0x02, 1000)), q(true)); // 2 waiting
                                                              // At 2.5 ms: two sent, the third in service, the fourth waiting.
        assert_eq!(l.push(2_500 * US, ipv4_len(0x02, 1000)), q(false));
        assert_eq!(l.push(2_500 * US, ipv4_len(0x02, 1000)), q(true));
        // At 7 ms all six have left the queue (the last at 6 ms) and are in
        // the 10 ms delay line: the link is idle.
        for _ in 0..3 {
            assert_eq!(l.push(7 * MILLISECOND, ipv4_len(0x02, 1000)), q(false));
        }
        assert_eq!(l.push(7 * MILLISECOND, ipv4_len(0x02, 1000)), q(true));
        assert_eq!(l.stats().marked, 3);
    }

    /// Cross traffic shares the queue the discipline sees: a constant
    /// stream at twice the link's rate keeps packets waiting, so a real ECT
    /// packet arriving later is marked by the step, where without it the
    /// same packet finds an idle link.
    #[test]
    fn cross_traffic_counts_in_the_disciplines_queue() {
        use dropless_sim::step_mark::StepConfig;
        let run = |cross: Option<CrossConfig>| {
            let mut l = Link::new(LinkConfig {
                buffer_bytes: 1_000_000,
                queue: QueueConfig::Step(StepConfig { k: 5, ecn: true }),
                cross,
                ..cfg()
            });
            let first = l.push(0, ipv4_len(0x02, 1000));
            let later = l.push(50 * MILLISECOND, ipv4_len(0x02, 1000));
            (first, later, l.stats().cross_in)
        };
        let (first, later, cross_in) = run(None);
        assert_eq!(first, Verdict::Queued { marked: false });
        assert_eq!(later, Verdict::Queued { marked: false });
        assert_eq!(cross_in, 0);
        let (_, later, cross_in) = run(Some(CrossConfig {
            kind: CrossKind::Constant,
            rate_bps: 16e6,
            packet_bytes: 1000,
            seed: 1,
        }));
        assert!(cross_in > 50, "{cross_in}");
        assert_eq!(later, Verdict::Queued { marked: true });
    }

    /// The standing sojourn is each 100-ms window's smallest waiting time:
    /// five packets at once (waits 0 to 4 ms), then one per millisecond at
    /// the link's rate (each waits 4 ms). The first window's smallest wait
    /// is 0, the next two's 4 ms; the window still open is not counted.
    #[test]
    fn the_standing_sojourn_is_the_smallest_wait_per_window() {
        use dropless_sim::step_mark::StepConfig;
        let mut l = with_queue(QueueConfig::Step(StepConfig {
            k: 1_000_000,
            ecn: true,
        }));
        for _ in 0..5 {
            l.push(0, ipv4_len(0x02, 1000));
        }
        for k in 1..=350u64 {
            l.push(k * MILLISECOND, ipv4_len(0x02, 1000));
        }
        let s = l.stats();
        assert_eq!(s.standing_windows, 3);
        assert_eq!(s.standing_sum_ns, 8 * MILLISECOND as u128);
        // The mean waiting time counts every packet (the burst's too).
        assert_eq!(s.sojourn_sum_ns, (10 + 350 * 4) * MILLISECOND as u128);
        // A drop-tail link keeps no such counters.
        let mut d = Link::new(cfg());
        d.push(0, ipv4_len(0x02, 1000));
        d.push(200 * MILLISECOND, ipv4_len(0x02, 1000));
        assert_eq!(d.stats().standing_windows, 0);
    }

    /// Bad discipline parameters are refused naming the command-line flag.
    #[test]
    fn bad_queue_parameters_name_the_flag() {
        use dropless_sim::{
            codel::CodelConfig, pie::PieConfig, red::RedConfig, step_mark::StepConfig,
        };
        let bad = |q: QueueConfig| LinkConfig { queue: q, ..cfg() }.validate().unwrap_err();
        let e = bad(QueueConfig::Codel(CodelConfig {
            target: 200 * MILLISECOND,
            ..CodelConfig::default()
        }));
        assert!(e.starts_with("codel-target:"), "{e}");
        let e = bad(QueueConfig::Codel(CodelConfig {
            interval: 0,
            ..CodelConfig::default()
        }));
        assert!(e.starts_with("codel-interval:"), "{e}");
        let e = bad(QueueConfig::Pie(PieConfig {
            target: 0,
            ..PieConfig::default()
        }));
        assert!(e.starts_with("pie-target:"), "{e}");
        let e = bad(QueueConfig::Step(StepConfig { k: 0, ecn: true }));
        assert!(e.starts_with("step-k:"), "{e}");
        let red = RedConfig {
            min_th: 10.0,
            max_th: 30.0,
            ..RedConfig::default()
        };
        let e = bad(QueueConfig::Red(RedConfig { max_th: 5.0, ..red }));
        assert!(e.starts_with("red-max-th:"), "{e}");
        let e = bad(QueueConfig::Red(RedConfig { max_p: 0.0, ..red }));
        assert!(e.starts_with("red-max-p:"), "{e}");
        assert!(LinkConfig {
            queue: QueueConfig::Red(red),
            ..cfg()
        }
        .validate()
        .is_ok());
    }
}
