//! ADPM probe types taken from the real IPv4 header's IP ID (thesis
//! L6749-6767 and L7010-7028; reference note §2.3 and §8 E14), and a
//! recorder that measures, per flow, whether the IP IDs a host really
//! sends are usable as probe types.
//!
//! The thesis maps a packet's 16-bit IPid `v` to the probe type
//! `F(v) = bitrev16(v) / 2^16` ([`dropless_cc::adpm::threshold`]): a
//! sequential counter then gives bit-reversed counting, which after `k`
//! packets leaves uncertainty intervals of about `1/k`. A router reads the
//! two bytes of the field either as the header carries them (network
//! order, big-endian) or swapped (host order of a little-endian machine),
//! and "many existing IP implementations set IPid either sequentially or
//! using byte-swapped counting": read in the wrong order, a sequential
//! counter's slowly changing byte sets the top bits of the probe type. The
//! thesis's remedy is a map of both bytes; as printed,
//! `f(A + 256 (A xor B))` fails for byte-swapped counters, and the variant
//! `f((A xor B) + 256 A)` works for both orders (reference note §2.3,
//! experiment `thesis-ch5/e14-ipid-byte-order`). [`ProbeRecorder`]
//! measures all three on real headers.

use dropless_cc::adpm;

/// How the two bytes of the IP ID field are read as a number.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum IpIdOrder {
    /// As the header carries them: big-endian (the default).
    #[default]
    Network,
    /// Little-endian, the host order of x86 and ARM Linux machines: the
    /// header's bytes swapped.
    Host,
}

impl IpIdOrder {
    /// The IP ID of an IPv4 packet read in this order; `None` if `p` is not
    /// an IPv4 header.
    #[inline]
    pub fn ip_id(self, p: &[u8]) -> Option<u16> {
        if p.len() < 20 || p[0] >> 4 != 4 {
            return None;
        }
        let b = [p[4], p[5]];
        Some(match self {
            IpIdOrder::Network => u16::from_be_bytes(b),
            IpIdOrder::Host => u16::from_le_bytes(b),
        })
    }
}

/// Where a pricing link takes a packet's ADPM probe type from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ProbeSource {
    /// The bit-reversed low 16 bits of the dropless packet number in a
    /// plaintext data header (what `dropless recv` decodes with; the
    /// default).
    #[default]
    PacketNumber,
    /// `F(v)` of the IPv4 header's IP ID `v` read in the given order, as
    /// the thesis's routers do; any IPv4 packet with ECN 01 is
    /// ADPM-capable. A UDP socket's receiver cannot read the IP ID, so
    /// `dropless recv` decodes these marks with the wrong probe types: this
    /// source is for measuring real IP IDs (E14) and for receivers that
    /// read IP headers.
    IpId(IpIdOrder),
}

/// The thesis's byte-order-robust variant `f((A xor B) + 256 A)` of a value
/// `v = A + 256 B` (reference note §2.3 [DERIVED]): the 16-bit number whose
/// bit reversal is the probe type.
#[inline]
pub fn xor_variant(v: u16) -> u16 {
    let (a, b) = (v & 0xff, v >> 8);
    (a ^ b) | (a << 8)
}

/// Packets per window over which [`ProbeRecorder`] computes the estimator's
/// error: E14's `k = 1024` (reference note §8 E14).
pub const WINDOW: u32 = 1024;

/// Bins of the recorded histograms: probe types in `[j/1024, (j+1)/1024)`,
/// the uncertainty intervals `WINDOW` bit-reversed-counting probes leave.
pub const BINS: usize = 1024;

/// Flows [`ProbeRecorder`] keeps apart; packets of later flows are only
/// counted.
pub const MAX_FLOWS: usize = 64;

/// The probe-type maps recorded, with their names: the IP ID read in
/// network order, in host order, and the variant map of the network-order
/// value (the same for a counter in either order).
pub const MAPS: [&str; 3] = ["network", "host", "xor-variant"];

/// A flow: IPv4 source and destination, protocol, and the TCP or UDP ports
/// (0 for other protocols and later fragments).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FlowKey {
    /// Source address.
    pub src: [u8; 4],
    /// Destination address.
    pub dst: [u8; 4],
    /// IP protocol number.
    pub proto: u8,
    /// Source port.
    pub sport: u16,
    /// Destination port.
    pub dport: u16,
}

impl FlowKey {
    /// The flow of an IPv4 packet (`None` if it is not one).
    pub fn of(p: &[u8]) -> Option<FlowKey> {
        if p.len() < 20 || p[0] >> 4 != 4 {
            return None;
        }
        let ihl = usize::from(p[0] & 0x0f) * 4;
        let first = u16::from_be_bytes([p[6], p[7]]) & 0x1fff == 0;
        let ports = match p.get(ihl..ihl + 4) {
            Some(l4) if first && (p[9] == 6 || p[9] == 17) => (
                u16::from_be_bytes([l4[0], l4[1]]),
                u16::from_be_bytes([l4[2], l4[3]]),
            ),
            _ => (0, 0),
        };
        Some(FlowKey {
            src: p[12..16].try_into().ok()?,
            dst: p[16..20].try_into().ok()?,
            proto: p[9],
            sport: ports.0,
            dport: ports.1,
        })
    }
}

impl std::fmt::Display for FlowKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let [a, b, c, d] = self.src;
        let [e, g, h, i] = self.dst;
        let proto = match self.proto {
            6 => "tcp".to_string(),
            17 => "udp".to_string(),
            n => format!("proto {n}"),
        };
        write!(
            f,
            "{a}.{b}.{c}.{d}:{} > {e}.{g}.{h}.{i}:{} {proto}",
            self.sport, self.dport
        )
    }
}

/// One map's record of one flow.
#[derive(Clone, Debug)]
pub struct MapRecord {
    /// Packets per probe-type bin ([`BINS`] bins).
    pub hist: Vec<u64>,
    /// Probe types seen in the open window: one bit per 16-bit probe code
    /// (the bit-reversed value), in ascending order of probe type.
    seen: Vec<u64>,
    /// Packets in the open window.
    in_window: u32,
    /// Windows of [`WINDOW`] packets closed.
    pub windows: u64,
    /// Sum over the closed windows of the estimator's mean error.
    pub error_sum: f64,
    /// The largest window error.
    pub error_max: f64,
}

impl MapRecord {
    fn new() -> MapRecord {
        MapRecord {
            hist: vec![0; BINS],
            seen: vec![0; 65536 / 64],
            in_window: 0,
            windows: 0,
            error_sum: 0.0,
            error_max: 0.0,
        }
    }

    /// A packet whose probe type is `F(v)`.
    #[inline]
    fn record(&mut self, v: u16) {
        let code = v.reverse_bits();
        self.hist[usize::from(code) * BINS / 65536] += 1;
        self.seen[usize::from(code / 64)] |= 1 << (code % 64);
        self.in_window += 1;
        if self.in_window == WINDOW {
            let e = window_error(&self.seen);
            self.error_sum += e;
            self.error_max = self.error_max.max(e);
            self.windows += 1;
            self.in_window = 0;
            self.seen.iter_mut().for_each(|w| *w = 0);
        }
    }

    /// The mean over the closed windows of the estimator's error (`None`
    /// before the first window closes).
    pub fn mean_error(&self) -> Option<f64> {
        (self.windows > 0).then(|| self.error_sum / self.windows as f64)
    }

    /// Pearson's chi-square of the histogram against the uniform
    /// distribution, divided by its degrees of freedom (`BINS - 1`): about
    /// 1 for independent uniform probe types, near 0 for a counter that
    /// covers the bins evenly, far above 1 for a skewed one.
    pub fn chi2_per_df(&self) -> Option<f64> {
        let n: u64 = self.hist.iter().sum();
        if n == 0 {
            return None;
        }
        let e = n as f64 / BINS as f64;
        let chi2: f64 = self.hist.iter().map(|&o| (o as f64 - e).powi(2) / e).sum();
        Some(chi2 / (BINS - 1) as f64)
    }
}

/// ADPM's mean absolute error, over a price uniform on [0, 1), once the
/// receiver has seen the probe types whose codes are set in `seen`: the
/// decoder started at 0 ends at the largest probe type below the price
/// (thesis L6655-6659), so a price in a gap of width `g` between
/// consecutive probe types (or between 0 and the smallest, or the largest
/// and 1) is underestimated by `g/2` on average, and the mean error is
/// `sum g^2 / 2` — the quantity E14 estimates by Monte Carlo.
pub fn window_error(seen: &[u64]) -> f64 {
    let mut last: u64 = 0;
    let mut sum: u64 = 0;
    for (w, &bits) in seen.iter().enumerate() {
        let mut b = bits;
        while b != 0 {
            let t = w as u64 * 64 + u64::from(b.trailing_zeros());
            sum += (t - last) * (t - last);
            last = t;
            b &= b - 1;
        }
    }
    sum += (65536 - last) * (65536 - last);
    sum as f64 / (2.0 * adpm::THRESHOLDS * adpm::THRESHOLDS)
}

/// The probe types a link derived from real IP IDs, per flow and per map
/// ([`MAPS`]). Allocates when a flow first appears (at most
/// [`MAX_FLOWS`]), never per packet.
#[derive(Clone, Debug, Default)]
pub struct ProbeRecorder {
    /// The flows, in order of appearance, each with one record per map.
    pub flows: Vec<FlowRecord>,
    /// IPv4 packets of flows beyond [`MAX_FLOWS`], not recorded.
    pub untracked: u64,
}

/// One flow's records.
#[derive(Clone, Debug)]
pub struct FlowRecord {
    /// The flow.
    pub key: FlowKey,
    /// Its IPv4 packets seen.
    pub packets: u64,
    /// Of those, packets whose IP ID is 0 (Linux's choice for some
    /// datagrams with DF set).
    pub zero_ids: u64,
    /// One record per map of [`MAPS`].
    pub maps: [MapRecord; 3],
}

impl ProbeRecorder {
    /// Records an IPv4 packet's IP ID under every map; anything else is
    /// ignored.
    pub fn record(&mut self, p: &[u8]) {
        let (Some(key), Some(net)) = (FlowKey::of(p), IpIdOrder::Network.ip_id(p)) else {
            return;
        };
        let i = match self.flows.iter().position(|f| f.key == key) {
            Some(i) => i,
            None if self.flows.len() < MAX_FLOWS => {
                self.flows.push(FlowRecord {
                    key,
                    packets: 0,
                    zero_ids: 0,
                    maps: [MapRecord::new(), MapRecord::new(), MapRecord::new()],
                });
                self.flows.len() - 1
            }
            None => {
                self.untracked += 1;
                return;
            }
        };
        let f = &mut self.flows[i];
        f.packets += 1;
        f.zero_ids += u64::from(net == 0);
        f.maps[0].record(net);
        f.maps[1].record(net.swap_bytes());
        f.maps[2].record(xor_variant(net));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An IPv4/UDP header from 10.0.0.1:1000 to 10.0.0.2:2000 whose IP ID
    /// field holds the bytes `id` (as on the wire).
    fn header(id: [u8; 2]) -> Vec<u8> {
        let mut p = vec![0u8; 28];
        p[0] = 0x45;
        p[4..6].copy_from_slice(&id);
        p[8] = 64;
        p[9] = 17;
        p[12..16].copy_from_slice(&[10, 0, 0, 1]);
        p[16..20].copy_from_slice(&[10, 0, 0, 2]);
        p[20..22].copy_from_slice(&1000u16.to_be_bytes());
        p[22..24].copy_from_slice(&2000u16.to_be_bytes());
        p
    }

    #[test]
    fn reads_the_ip_id_in_either_byte_order() {
        let p = header([0x12, 0x34]);
        assert_eq!(IpIdOrder::Network.ip_id(&p), Some(0x1234));
        assert_eq!(IpIdOrder::Host.ip_id(&p), Some(0x3412));
        // IPv6 and short packets have no IP ID
        let mut q = p.clone();
        q[0] = 0x60;
        assert_eq!(IpIdOrder::Network.ip_id(&q), None);
        assert_eq!(IpIdOrder::Host.ip_id(&p[..19]), None);
    }

    #[test]
    fn maps_known_headers_to_probe_types_in_both_orders() {
        // Wire bytes 00 01: 1 in network order, F(1) = 1/2; 256 in host
        // order, whose bit 8 reversed is bit 7: F(256) = 128/65536.
        let p = header([0x00, 0x01]);
        let f = |o: IpIdOrder| adpm::threshold(o.ip_id(&p).unwrap());
        assert_eq!(f(IpIdOrder::Network), 0.5);
        assert_eq!(f(IpIdOrder::Host), 128.0 / 65536.0);
        // Wire bytes 01 00: the other way round.
        let p = header([0x01, 0x00]);
        let f = |o: IpIdOrder| adpm::threshold(o.ip_id(&p).unwrap());
        assert_eq!(f(IpIdOrder::Network), 128.0 / 65536.0);
        assert_eq!(f(IpIdOrder::Host), 0.5);
        // Wire bytes 00 03 and 00 02 (network 3 and 2): 3/4 and 1/4, the
        // thesis's R(3) and R(2); in host order 3 * 2^-9 and 2^-9.
        let p3 = header([0x00, 0x03]);
        let p2 = header([0x00, 0x02]);
        let n = IpIdOrder::Network;
        let h = IpIdOrder::Host;
        assert_eq!(adpm::threshold(n.ip_id(&p3).unwrap()), 0.75);
        assert_eq!(adpm::threshold(n.ip_id(&p2).unwrap()), 0.25);
        assert_eq!(adpm::threshold(h.ip_id(&p3).unwrap()), 192.0 / 65536.0);
        assert_eq!(adpm::threshold(h.ip_id(&p2).unwrap()), 64.0 / 65536.0);
    }

    #[test]
    fn the_variant_map_spreads_a_counter_in_either_order() {
        // A = 0x34, B = 0x12: (A xor B) + 256 A.
        assert_eq!(xor_variant(0x1234), 0x3426);
        assert_eq!(xor_variant(0x3412), 0x1226);
        // Consecutive counts differ in the variant's low byte whichever way
        // the counter's bytes are read, so their probe types differ in the
        // top bits.
        for c in [0x1234u16, 0x12ff, 0xabcd] {
            let d = c.wrapping_add(1);
            for (x, y) in [(c, d), (c.swap_bytes(), d.swap_bytes())] {
                assert_ne!(xor_variant(x) & 0xff, xor_variant(y) & 0xff, "{c:#x}");
            }
        }
    }

    #[test]
    fn window_error_is_half_the_sum_of_squared_gaps() {
        let mut seen = vec![0u64; 1024];
        // no probe: the decoder stays at 0, mean error 1/2
        assert_eq!(window_error(&seen), 0.5);
        // probe 1/2 alone: gaps 1/2 and 1/2, error 1/4
        seen[32768 / 64] |= 1;
        assert_eq!(window_error(&seen), 0.25);
        // 1024 evenly spaced probes 0, 1/1024, ...: 1/2048
        let mut seen = vec![0u64; 1024];
        for j in 0..1024u32 {
            let t = j * 64;
            seen[(t / 64) as usize] |= 1 << (t % 64);
        }
        assert!((window_error(&seen) - 1.0 / 2048.0).abs() < 1e-15);
    }

    #[test]
    fn window_error_matches_the_decoder() {
        // The decoder of crates/cc started at 0, over a grid of prices,
        // against the closed form, for a few awkward probe sets.
        let sets: [&[u16]; 3] = [&[1, 2, 3], &[0x8000, 7, 0x00ff, 0xfff0], &[0]];
        for set in sets {
            let mut seen = vec![0u64; 1024];
            for &v in set {
                let c = v.reverse_bits();
                seen[usize::from(c / 64)] |= 1 << (c % 64);
            }
            let n = 1 << 16;
            let mut sum = 0.0;
            for j in 0..n {
                let p = (j as f64 + 0.5) / n as f64;
                let mut d = adpm::Decoder::new(0.0);
                for &v in set {
                    let i = adpm::threshold(v);
                    d.observe(i, adpm::marks(p, i));
                }
                sum += (p - d.estimate).abs();
            }
            let mc = sum / n as f64;
            assert!((mc - window_error(&seen)).abs() < 1e-9, "{set:?}");
        }
    }

    #[test]
    fn a_network_order_counter_is_usable_and_its_swapped_reading_is_not() {
        // A Linux-style per-socket counter from a random start, written in
        // network order: read in network order it is bit-reversed
        // counting (error near E14's 5.6e-4); read in host order the
        // slowly changing byte sets the top bits (error near 0.1 or
        // worse); the variant map is good either way.
        let mut r = ProbeRecorder::default();
        let start = 0xbeefu16;
        for t in 0..(4 * WINDOW) {
            let c = start.wrapping_add(t as u16);
            r.record(&header(c.to_be_bytes()));
        }
        assert_eq!(r.flows.len(), 1);
        let f = &r.flows[0];
        assert_eq!(f.packets, u64::from(4 * WINDOW));
        let e: Vec<f64> = f.maps.iter().map(|m| m.mean_error().unwrap()).collect();
        assert!(e[0] < 6.5e-4, "{e:?}");
        assert!(e[1] > 0.05, "{e:?}");
        assert!(e[2] < 6.5e-4, "{e:?}");
        // the same counter byte-swapped on the wire: the roles swap
        let mut r = ProbeRecorder::default();
        for t in 0..(4 * WINDOW) {
            let c = start.wrapping_add(t as u16);
            r.record(&header(c.to_le_bytes()));
        }
        let f = &r.flows[0];
        let e: Vec<f64> = f.maps.iter().map(|m| m.mean_error().unwrap()).collect();
        assert!(e[0] > 0.05 && e[1] < 6.5e-4 && e[2] < 6.5e-4, "{e:?}");
    }

    #[test]
    fn flows_are_kept_apart_and_capped() {
        let mut r = ProbeRecorder::default();
        for port in 0..(MAX_FLOWS as u16 + 3) {
            let mut p = header([0, 1]);
            p[20..22].copy_from_slice(&port.to_be_bytes());
            r.record(&p);
            r.record(&p);
        }
        assert_eq!(r.flows.len(), MAX_FLOWS);
        assert!(r.flows.iter().all(|f| f.packets == 2 && f.zero_ids == 0));
        assert_eq!(r.untracked, 6);
        assert_eq!(r.flows[5].key.sport, 5);
        assert_eq!(r.flows[5].key.to_string(), "10.0.0.1:5 > 10.0.0.2:2000 udp");
        // not IPv4: ignored
        r.record(&[0x60; 40]);
        assert_eq!(r.untracked, 6);
    }
}
