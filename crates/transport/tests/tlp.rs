//! Tail loss probes (RFC 8985 §7, [`SenderConfig::tlp`]) in a small
//! deterministic simulation of one path: a sender and a receiver of this
//! crate, a 12 Mb/s link (1 ms per 1500-byte packet) with 10 ms of
//! propagation each way, and chosen first transmissions dropped. Times are
//! simulated nanoseconds; nothing here reads a clock.
//!
//! A transfer whose last packets are dropped has nothing after them to
//! reveal the loss: without a probe it waits for the retransmission
//! timeout (SRTT + at least 200 ms here). With TLP one probe leaves about
//! 2 SRTT after the tail, its ACK shows the hole, and fast recovery repairs
//! it, one RTT or two later.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use dropless_cc::registry::build;
use dropless_cc::{ConnInfo, Time, MILLISECOND};
use dropless_transport::{AckPacket, AckPolicy, DataPacket, Receiver, Sender, SenderConfig};

const ONE_WAY: Time = 10 * MILLISECOND;
const SERIALIZATION: Time = MILLISECOND;
const PACKETS: u64 = 60;

enum Ev {
    Data(DataPacket),
    Ack(AckPacket),
}

/// What one run shows.
#[derive(Debug)]
struct Run {
    /// Send time of each transmission: (time, seq).
    sends: Vec<(Time, u64)>,
    /// When the sender had everything acknowledged.
    done: Time,
    /// Each ACK's arrival, with the sender's SRTT after it.
    acks: Vec<(Time, Time)>,
    rtos: u64,
    probes: u64,
    repairs: u64,
    congestion_events: u64,
    packets_lost: u64,
}

impl Run {
    /// When the last first transmission (the tail) left.
    fn tail_sent(&self) -> Time {
        self.sends
            .iter()
            .find(|&&(_, s)| s == PACKETS - 1)
            .expect("the last packet was sent")
            .0
    }
    /// The first transmission after the tail, if any.
    fn after_tail(&self) -> Option<(Time, u64)> {
        let t = self.tail_sent();
        self.sends.iter().copied().find(|&(at, _)| at > t)
    }
}

/// Sends `PACKETS` packets with NewReno; drops the transmissions whose
/// (seq, nth transmission of that seq, from 0) is in `drops`.
fn run(tlp: bool, rack: bool, policy: AckPolicy, drops: &[(u64, u32)]) -> Run {
    let cfg = SenderConfig {
        total_bytes: Some(PACKETS * 1460),
        rack,
        tlp,
        tlp_max_ack_delay: match policy {
            AckPolicy::Delayed { max_delay, .. } => max_delay,
            _ => 0,
        },
        ..SenderConfig::default()
    };
    let cc = build("newreno", &[], &ConnInfo::default()).unwrap();
    let mut snd = Sender::new(cfg, cc, 0);
    let mut rcv = Receiver::new(0, 1460, policy);
    let mut q: BinaryHeap<Reverse<(Time, u64)>> = BinaryHeap::new();
    let mut evs: Vec<Option<Ev>> = Vec::new();
    let mut sends = Vec::new();
    let mut tx_count = vec![0u32; PACKETS as usize];
    let mut link_free = 0;
    let mut now = 0;
    let mut pending: Vec<(Time, Ev)> = Vec::new();
    let mut acks = Vec::new();
    loop {
        snd.handle_timeout(now);
        while let Some(p) = snd.poll_transmit(now) {
            sends.push((now, p.seq));
            let nth = tx_count[p.seq as usize];
            tx_count[p.seq as usize] += 1;
            link_free = link_free.max(now) + SERIALIZATION;
            if !drops.contains(&(p.seq, nth)) {
                pending.push((link_free + ONE_WAY, Ev::Data(p)));
            }
        }
        rcv.handle_timeout(now);
        while let Some(a) = rcv.poll_ack(now) {
            pending.push((now + ONE_WAY, Ev::Ack(a)));
        }
        for (t, e) in pending.drain(..) {
            evs.push(Some(e));
            q.push(Reverse((t, evs.len() as u64 - 1)));
        }
        if snd.is_done() {
            break;
        }
        assert!(now < 10_000 * MILLISECOND, "the transfer did not finish");
        let next = [
            q.peek().map(|r| r.0 .0),
            snd.poll_timeout(),
            rcv.poll_timeout(),
        ]
        .into_iter()
        .flatten()
        .min()
        .expect("something to wait for");
        now = next.max(now);
        while q.peek().is_some_and(|r| r.0 .0 <= now) {
            let Reverse((_, i)) = q.pop().unwrap();
            match evs[i as usize].take().unwrap() {
                Ev::Data(p) => {
                    rcv.handle_data(now, &p);
                }
                Ev::Ack(a) => {
                    snd.handle_ack(now, &a);
                    acks.push((now, snd.rtt().srtt()));
                }
            }
        }
    }
    let st = snd.stats();
    Run {
        sends,
        done: now,
        acks,
        rtos: st.rtos,
        probes: st.tlp_probes,
        repairs: st.tlp_repairs,
        congestion_events: st.congestion_events,
        packets_lost: st.packets_lost,
    }
}

/// The last three packets' first transmissions.
const TAIL3: &[(u64, u32)] = &[(PACKETS - 3, 0), (PACKETS - 2, 0), (PACKETS - 1, 0)];

#[test]
fn a_dropped_tail_is_recovered_by_one_probe_after_two_srtt_not_by_the_rto() {
    for policy in [AckPolicy::EveryPacket, AckPolicy::DELAYED] {
        let on = run(true, true, policy, TAIL3);
        let off = run(false, true, policy, TAIL3);
        let tail = on.tail_sent();
        assert_eq!(
            tail,
            off.tail_sent(),
            "{policy:?}: same transfer until the tail"
        );
        // Without TLP: the timeout, at least 200 ms (the RTO floor) after
        // the tail.
        assert_eq!(off.rtos, 1, "{policy:?}: {off:?}");
        assert!(off.done >= tail + 200 * MILLISECOND, "{policy:?}: {off:?}");
        // With TLP: one probe, 2 SRTT after the tail (the PTO runs from the
        // last transmission; nothing is acknowledged after it), no timeout.
        assert_eq!(on.rtos, 0, "{policy:?}: {on:?}");
        assert_eq!(on.probes, 1, "{policy:?}: {on:?}");
        let (probe_at, probe_seq) = on.after_tail().expect("a probe");
        assert_eq!(
            probe_seq,
            PACKETS - 1,
            "{policy:?}: the highest packet is probed"
        );
        // The ACKs of the packets before the tail advance the cumulative
        // ACK after the tail left (they were queued behind it), so the PTO
        // runs from the last of them: exactly 2 SRTT after it.
        let &(last_ack, srtt) = on.acks.iter().rfind(|&&(t, _)| t < probe_at).unwrap();
        assert!(last_ack > tail);
        assert_eq!(
            probe_at,
            last_ack + 2 * srtt,
            "{policy:?}: probe {} ms after the last ACK, SRTT {} ms",
            (probe_at - last_ack) as f64 / 1e6,
            srtt as f64 / 1e6
        );
        // (The tail waited in the link's queue behind the slow-start
        // burst, so that ACK came about one SRTT after the tail left the
        // sender.) The probe left sooner than the RTO's floor alone.
        assert!(probe_at - tail < 200 * MILLISECOND, "{policy:?}: {on:?}");
        // Its ACK reveals the two holes: fast recovery repairs them within
        // two more RTTs of the probe (each under 2 SRTT here), well before
        // the RTO.
        assert!(
            on.done <= probe_at + 4 * srtt,
            "{policy:?}: done {} ms after the probe",
            (on.done - probe_at) as f64 / 1e6
        );
        assert!(on.done + 100 * MILLISECOND < off.done, "{policy:?}");
        eprintln!(
            "{policy:?}: tail at {:.1} ms; TLP: probe +{:.1} ms, done +{:.1} ms; no TLP: done +{:.1} ms",
            tail as f64 / 1e6,
            (probe_at - tail) as f64 / 1e6,
            (on.done - tail) as f64 / 1e6,
            (off.done - tail) as f64 / 1e6
        );
        assert_eq!(on.congestion_events, 1, "{policy:?}: {on:?}");
        assert_eq!(on.packets_lost, 2, "{policy:?}: {on:?}");
    }
}

#[test]
fn a_tail_gets_one_probe_even_when_the_probe_is_lost_too() {
    // The probe (second transmission of the last packet) is dropped as
    // well: no second probe, the RTO recovers.
    let mut drops = TAIL3.to_vec();
    drops.push((PACKETS - 1, 1));
    let r = run(true, true, AckPolicy::EveryPacket, &drops);
    assert_eq!(r.probes, 1, "{r:?}");
    assert_eq!(r.rtos, 1, "{r:?}");
    let tail = r.tail_sent();
    let probe = r.after_tail().unwrap().0;
    // The timeout is re-armed when the probe leaves, and fires a whole RTO
    // (SRTT + 200 ms at least) after it.
    let retransmissions: Vec<_> = r.sends.iter().filter(|&&(t, _)| t > probe).collect();
    assert!(retransmissions[0].0 >= probe + 200 * MILLISECOND, "{r:?}");
    assert!(probe < tail + 200 * MILLISECOND);
}

#[test]
fn a_probe_that_repairs_the_only_lost_packet_is_a_congestion_event() {
    for rack in [true, false] {
        let r = run(true, rack, AckPolicy::EveryPacket, &[(PACKETS - 1, 0)]);
        assert_eq!(
            (r.rtos, r.probes, r.repairs),
            (0, 1, 1),
            "rack {rack}: {r:?}"
        );
        assert_eq!(r.congestion_events, 1, "rack {rack}: {r:?}");
        assert_eq!(r.packets_lost, 1, "rack {rack}: {r:?}");
        // The probe was the repair: nothing was sent after it.
        let (probe_at, _) = r.after_tail().unwrap();
        assert_eq!(r.sends.last().unwrap().0, probe_at, "rack {rack}");
    }
}

#[test]
fn no_probe_without_a_loss_and_no_change_when_off() {
    let on = run(true, true, AckPolicy::EveryPacket, &[]);
    let off = run(false, true, AckPolicy::EveryPacket, &[]);
    // The ACKs keep coming: the PTO never fires.
    assert_eq!(on.probes, 0);
    assert_eq!(on.sends, off.sends);
    assert_eq!(on.done, off.done);
    assert_eq!(off.probes, 0);
}
