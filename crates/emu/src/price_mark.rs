//! ADPM price marking of real packets (thesis chapter 5; Andrew, Hanly,
//! Chan and Cui 2006): the link computes RCP's rate or MaxNet's cost with
//! the simulator's own code ([`LinkPrice`]: [`RcpPrice`],
//! [`MaxnetPrice`]) and marks an ADPM-capable packet (ECN 01 -> 10, header
//! checksum updated) when the price exceeds the packet's probe type. A
//! packet crossing several such links carries the largest of their prices
//! (a link never unmarks), MaxNet's path maximum.
//!
//! By default the probe type is the bit-reversed low 16 bits of the
//! dropless packet number ([`dropless_cc::adpm::threshold`]), read from the
//! plaintext data header inside the UDP payload: the number the receiver
//! decodes with, as in the simulator. Sealed datagrams carry their packet
//! number encrypted and are not price-marked (a sender driven by prices
//! runs with `--insecure` for now). The thesis takes the probe type from
//! the IP ID, which a router sees and a kernel receiver could read:
//! [`ProbeSource::IpId`] does so, in either byte order
//! ([`crate::probe_type`]), and records the probe types per flow. A UDP
//! socket's receiver cannot read the IP ID, and Linux sets it itself, so
//! `dropless recv` cannot decode those marks: that source measures whether
//! real IP IDs would serve (E14 on real headers).

use crate::probe_type::{ProbeRecorder, ProbeSource};
use dropless_cc::adpm;
use dropless_cc::Time;
use dropless_sim::link_price::LinkPrice;
use dropless_sim::maxnet_price::{MaxnetConfig, MaxnetPrice};
use dropless_sim::rcp_price::{RcpConfig, RcpPrice};

/// The price an emulated direction computes and marks.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum PriceConfig {
    /// No price, nothing marked (the default).
    #[default]
    None,
    /// RCP's rate carried as ADPM's price ([`RcpPrice`]).
    Rcp(RcpConfig),
    /// MaxNet's cost carried as ADPM's price ([`MaxnetPrice`]).
    Maxnet(MaxnetConfig),
}

impl PriceConfig {
    /// Checks the parameters; the error names the `--price-*` flag.
    pub fn validate(&self) -> Result<(), String> {
        let c = match self {
            PriceConfig::None => return Ok(()),
            PriceConfig::Maxnet(m) => {
                return m.validate().map_err(|e| format!("price-{e}"));
            }
            PriceConfig::Rcp(c) => c,
        };
        if !(c.rtt_s > 0.0 && c.rtt_s <= 100.0) {
            return Err(format!(
                "price-rtt: found {} s, expected from above 0 to 100 s",
                c.rtt_s
            ));
        }
        if !(1..=10 * dropless_cc::SECOND).contains(&c.interval) {
            return Err(format!(
                "price-interval: found {} ns, expected from 1 ns to 10 s",
                c.interval
            ));
        }
        if !(c.alpha > 0.0 && c.alpha <= 10.0) {
            return Err(format!(
                "price-alpha: found {}, expected a gain above 0, at most 10",
                c.alpha
            ));
        }
        if !(c.beta >= 0.0 && c.beta <= 10.0) {
            return Err(format!(
                "price-beta: found {}, expected a gain from 0 to 10",
                c.beta
            ));
        }
        Ok(())
    }
}

/// One direction's price state.
pub(crate) struct PriceMark {
    price: LinkPrice,
    /// Where probe types come from.
    source: ProbeSource,
    /// The probe types derived from IP IDs, per flow (IP-ID probe types
    /// only).
    recorder: Option<ProbeRecorder>,
}

impl PriceMark {
    /// The state for `cfg` on a link of `rate_bps`, taking probe types from
    /// `source`; `None` without a price.
    pub fn new(cfg: &PriceConfig, rate_bps: f64, source: ProbeSource) -> Option<PriceMark> {
        let price = match cfg {
            PriceConfig::None => return None,
            PriceConfig::Rcp(c) => LinkPrice::Rcp(RcpPrice::new(*c, rate_bps)),
            PriceConfig::Maxnet(c) => LinkPrice::Maxnet(MaxnetPrice::new(*c, rate_bps)),
        };
        Some(PriceMark {
            price,
            source,
            recorder: match source {
                ProbeSource::PacketNumber => None,
                ProbeSource::IpId(_) => Some(ProbeRecorder::default()),
            },
        })
    }

    /// The probe types derived from IP IDs so far (`None` with packet-number
    /// probe types).
    pub fn recorder(&self) -> Option<&ProbeRecorder> {
        self.recorder.as_ref()
    }

    /// The rate the link gives each flow, bits/s: RCP's R, or the MaxNet
    /// demand at the link's cost.
    pub fn rate_bps(&self) -> f64 {
        self.price.rate_bps()
    }

    /// Sums over the price's updates so far (means of the rate, y and q).
    pub fn totals(&self) -> dropless_sim::rcp_price::RcpTotals {
        self.price.totals()
    }

    /// A packet arrives at `now` with `queued_bytes` in the queue: it counts
    /// towards the link's input rate, and it is price-marked if it is
    /// ADPM-capable (a dropless data packet sent with ECN 01, or with IP-ID
    /// probe types any IPv4 packet with ECN 01) and its probe type is below
    /// the price. Returns whether it was marked.
    pub fn on_arrival(&mut self, now: Time, queued_bytes: u64, p: &mut [u8]) -> bool {
        let price = self.price.on_arrival(now, p.len() as u32, queued_bytes);
        let probe = match self.source {
            ProbeSource::PacketNumber => probe_number(p).map(|seq| seq as u16),
            ProbeSource::IpId(order) => {
                if let Some(r) = self.recorder.as_mut() {
                    r.record(p);
                }
                order.ip_id(p).filter(|_| p[1] & 0x03 == adpm::UNMARKED)
            }
        };
        match probe {
            Some(v) if adpm::marks(price, adpm::threshold(v)) => {
                set_ecn(p, adpm::UNMARKED, adpm::MARKED)
            }
            _ => false,
        }
    }
}

/// The dropless packet number of an IPv4/UDP datagram carrying a plaintext
/// dropless data packet (magic "DL", type 1) whose IP ECN field is 01;
/// `None` for anything else.
pub fn probe_number(p: &[u8]) -> Option<u64> {
    if p.len() < 20 || p[0] >> 4 != 4 || p[1] & 0x03 != adpm::UNMARKED || p[9] != 17 {
        return None;
    }
    let ihl = usize::from(p[0] & 0x0f) * 4;
    // A fragment other than the first carries no UDP header.
    if ihl < 20 || u16::from_be_bytes([p[6], p[7]]) & 0x1fff != 0 {
        return None;
    }
    let d = p.get(ihl + 8..ihl + 8 + 16)?;
    if d[0..2] != *b"DL" || d[3] != 1 {
        return None;
    }
    Some(u64::from_be_bytes(d[8..16].try_into().ok()?))
}

/// Changes an IPv4 packet's ECN field from `from` to `to`, updating the
/// header checksum (RFC 1624 eq. 3); false, the packet untouched, if it is
/// not IPv4 or its field is not `from`.
pub fn set_ecn(p: &mut [u8], from: u8, to: u8) -> bool {
    if p.len() < 20 || p[0] >> 4 != 4 || (p[0] & 0x0f) < 5 || p[1] & 0x03 != from {
        return false;
    }
    let old = u16::from_be_bytes([p[0], p[1]]);
    p[1] = (p[1] & !0x03) | (to & 0x03);
    let new = u16::from_be_bytes([p[0], p[1]]);
    // HC' = ~(~HC + ~m + m'), ones' complement sums.
    let hc = u16::from_be_bytes([p[10], p[11]]);
    let mut sum = (!hc as u32) + (!old as u32) + new as u32;
    while sum >> 16 != 0 {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    p[10..12].copy_from_slice(&(!(sum as u16)).to_be_bytes());
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An IPv4/UDP packet with ECN field `ecn` carrying a dropless data
    /// header of packet number `seq`.
    pub(crate) fn dropless_data(ecn: u8, seq: u64) -> Vec<u8> {
        let mut p = vec![0u8; 20 + 8 + 30 + 100];
        p[0] = 0x45;
        p[1] = ecn;
        let n = p.len() as u16;
        p[2..4].copy_from_slice(&n.to_be_bytes());
        p[8] = 64;
        p[9] = 17;
        let ck = checksum(&p[..20]);
        p[10..12].copy_from_slice(&ck.to_be_bytes());
        p[28..32].copy_from_slice(b"DL\x04\x01");
        p[36..44].copy_from_slice(&seq.to_be_bytes());
        p
    }

    pub(crate) fn checksum(h: &[u8]) -> u16 {
        let mut s: u32 = 0;
        for (i, w) in h.chunks(2).enumerate() {
            if i != 5 {
                s += u32::from(u16::from_be_bytes([w[0], w[1]]));
            }
        }
        while s >> 16 != 0 {
            s = (s & 0xffff) + (s >> 16);
        }
        !(s as u16)
    }

    #[test]
    fn reads_the_packet_number_of_adpm_capable_dropless_data_only() {
        assert_eq!(
            probe_number(&dropless_data(1, 0x1234_5678)),
            Some(0x1234_5678)
        );
        // ECT(0), CE, Not-ECT: not ADPM-capable (or already marked)
        for e in [0, 2, 3] {
            assert_eq!(probe_number(&dropless_data(e, 7)), None);
        }
        // an ACK, a sealed datagram, a TCP packet, a later fragment
        let mut p = dropless_data(1, 7);
        p[31] = 2;
        assert_eq!(probe_number(&p), None);
        p[31] = 5;
        assert_eq!(probe_number(&p), None);
        let mut p = dropless_data(1, 7);
        p[9] = 6;
        assert_eq!(probe_number(&p), None);
        let mut p = dropless_data(1, 7);
        p[7] = 1;
        assert_eq!(probe_number(&p), None);
        assert_eq!(probe_number(&dropless_data(1, 7)[..40]), None);
    }

    #[test]
    fn marks_probes_below_the_price_and_keeps_the_checksum_valid() {
        // A link at 1 Gb/s starts at R = C: price rcp_price(1e9).
        let cfg = PriceConfig::Rcp(RcpConfig::default());
        let mut m = PriceMark::new(&cfg, 1e9, ProbeSource::PacketNumber).unwrap();
        let price =
            dropless_cc::price_map::rcp_price(1e9, 1e3, dropless_cc::price_map::RCP_MAX_BPS);
        let mut marked = 0;
        for seq in 0..1000u64 {
            let mut p = dropless_data(1, seq);
            let did = m.on_arrival(0, 0, &mut p);
            let want = adpm::threshold(seq as u16) < price;
            assert_eq!(did, want, "seq {seq}");
            assert_eq!(p[1] & 3, if want { adpm::MARKED } else { adpm::UNMARKED });
            assert_eq!(u16::from_be_bytes([p[10], p[11]]), checksum(&p[..20]));
            marked += u64::from(did);
        }
        assert!(marked > 0 && marked < 1000);
        // marked packets are not marked again, ECT(0) and CE are left alone
        let mut p = dropless_data(2, 1);
        assert!(!m.on_arrival(0, 0, &mut p));
        assert_eq!(p[1] & 3, 2);
    }

    #[test]
    fn ip_id_probe_types_mark_by_the_header_in_the_chosen_order() {
        use crate::probe_type::IpIdOrder;
        // A link at 1 Gb/s starts at R = C: price rcp_price(1e9), between
        // 1/128 and 1/2.
        let cfg = PriceConfig::Rcp(RcpConfig::default());
        let price =
            dropless_cc::price_map::rcp_price(1e9, 1e3, dropless_cc::price_map::RCP_MAX_BPS);
        assert!(price > 1.0 / 128.0 && price < 0.5, "{price}");
        // Wire bytes 00 01: F = 1/2 in network order (not marked), 128/65536
        // in host order (marked); 01 00 the other way round; 00 03: 3/4 (not
        // marked) and 192/65536 (marked); ff ff: 65535/65536 either way
        // (not marked); 00 00: 0 either way (marked).
        let cases = [
            ([0x00, 0x01], false, true),
            ([0x01, 0x00], true, false),
            ([0x00, 0x03], false, true),
            ([0xff, 0xff], false, false),
            ([0x00, 0x00], true, true),
        ];
        for (id, net, host) in cases {
            for (order, want) in [(IpIdOrder::Network, net), (IpIdOrder::Host, host)] {
                let mut m = PriceMark::new(&cfg, 1e9, ProbeSource::IpId(order)).unwrap();
                // any IPv4 packet with ECN 01 (here a non-dropless payload)
                let mut p = dropless_data(1, 0);
                p[28..32].copy_from_slice(b"XXXX");
                p[4..6].copy_from_slice(&id);
                let ck = checksum(&p[..20]);
                p[10..12].copy_from_slice(&ck.to_be_bytes());
                assert_eq!(m.on_arrival(0, 0, &mut p), want, "{id:?} {order:?}");
                assert_eq!(u16::from_be_bytes([p[10], p[11]]), checksum(&p[..20]));
                // recorded whether marked or not
                assert_eq!(m.recorder().unwrap().flows[0].packets, 1);
                // ECT(0) is recorded but never price-marked
                let mut q = dropless_data(2, 0);
                q[4..6].copy_from_slice(&id);
                assert!(!m.on_arrival(0, 0, &mut q));
                assert_eq!(m.recorder().unwrap().flows[0].packets, 2);
            }
        }
        // packet-number probe types keep no record
        let m = PriceMark::new(&cfg, 1e9, ProbeSource::PacketNumber).unwrap();
        assert!(m.recorder().is_none());
    }

    #[test]
    fn two_maxnet_links_in_series_carry_the_larger_cost() {
        // Link 2 overloaded (its cost rises), link 1 not: a packet through
        // both is marked as link 2 alone would mark it, as MaxNet's path
        // maximum asks; the other order gives the same marks.
        let cfg = PriceConfig::Maxnet(MaxnetConfig::default());
        let mut quiet = PriceMark::new(&cfg, 100e6, ProbeSource::PacketNumber).unwrap();
        let mut busy = PriceMark::new(&cfg, 100e6, ProbeSource::PacketNumber).unwrap();
        // 210 Mb/s into `busy` for 2 s (158-byte packets every 6 us).
        let mut t = 0;
        while t < 2 * dropless_cc::SECOND {
            busy.on_arrival(t, 0, &mut dropless_data(0, 0));
            t += 6_000;
        }
        // One more arrival at t runs the updates due by then: the prices
        // stay put for the packets below, all at t.
        busy.on_arrival(t, 0, &mut dropless_data(0, 0));
        quiet.on_arrival(t, 0, &mut dropless_data(0, 0));
        assert!(busy.rate_bps() < 60e6, "{}", busy.rate_bps());
        assert_eq!(quiet.rate_bps(), 100e6);
        let (pq, pb) = (quiet.price.price(), busy.price.price());
        assert!(pb > pq);
        for seq in 0..4096u64 {
            let mut a = dropless_data(1, seq);
            quiet.on_arrival(t, 0, &mut a);
            busy.on_arrival(t, 0, &mut a);
            let mut b = dropless_data(1, seq);
            busy.on_arrival(t, 0, &mut b);
            quiet.on_arrival(t, 0, &mut b);
            let want = adpm::threshold(seq as u16) < pb;
            assert_eq!(a[1] & 3 == adpm::MARKED, want, "seq {seq}");
            assert_eq!(a, b, "seq {seq}");
        }
    }

    #[test]
    fn bad_parameters_name_the_flag() {
        let m = |c: MaxnetConfig| PriceConfig::Maxnet(c).validate().unwrap_err();
        let d = MaxnetConfig::default();
        assert!(m(MaxnetConfig { target: 0.0, ..d }).starts_with("price-target:"));
        assert!(m(MaxnetConfig { alpha: 3.0, ..d }).starts_with("price-alpha:"));
        assert!(m(MaxnetConfig { interval: 0, ..d }).starts_with("price-interval:"));
        assert!(PriceConfig::Maxnet(d).validate().is_ok());
        let bad = |c: RcpConfig| PriceConfig::Rcp(c).validate().unwrap_err();
        let d = RcpConfig::default();
        assert!(bad(RcpConfig { rtt_s: 0.0, ..d }).starts_with("price-rtt:"));
        assert!(bad(RcpConfig { interval: 0, ..d }).starts_with("price-interval:"));
        assert!(bad(RcpConfig { alpha: -1.0, ..d }).starts_with("price-alpha:"));
        assert!(bad(RcpConfig {
            beta: f64::NAN,
            ..d
        })
        .starts_with("price-beta:"));
        assert!(PriceConfig::Rcp(d).validate().is_ok());
        assert!(PriceConfig::None.validate().is_ok());
    }
}
