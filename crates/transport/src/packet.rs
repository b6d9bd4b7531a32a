//! Packets as plain structs. The simulator moves them as they are; the wire
//! codec (`dropless-wire`) serialises them for real sockets.

use dropless_cc::{PacketFlags, Time};

/// Most SACK blocks one ACK carries.
pub const MAX_SACK: usize = 4;

/// [`AckPacket::ts_echo`] of an ACK that echoes no timestamp (`Time::MAX`,
/// all ones; no packet is ever sent at that time). It is also the field's
/// [`Default`].
pub const NO_ECHO: Time = Time::MAX;

pub use dropless_cc::adpm::{price_code, NO_PRICE, PRICE_SCALE};

/// ECN codepoint of a data packet (RFC 3168).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Ecn {
    /// Not ECN-capable transport.
    #[default]
    NotEct = 0,
    /// ECN-capable, codepoint ECT(1).
    Ect1 = 1,
    /// ECN-capable, codepoint ECT(0).
    Ect0 = 2,
    /// Congestion experienced.
    Ce = 3,
}

impl Ecn {
    /// True for ECT(0) and ECT(1).
    pub fn is_ect(self) -> bool {
        matches!(self, Ecn::Ect0 | Ecn::Ect1)
    }
}

/// A data segment. Sequence numbers count packets, not bytes; packet `seq`
/// carries bytes `[seq*mss, seq*mss + len)` of the stream.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DataPacket {
    /// Connection identifier.
    pub conn: u32,
    /// Packet number.
    pub seq: u64,
    /// Payload bytes.
    pub len: u32,
    /// Flags (probe, pair, FIN).
    pub flags: PacketFlags,
    /// ECN codepoint, set by the sender and possibly marked by the network.
    pub ecn: Ecn,
    /// Sender's timestamp at transmission, echoed by the receiver.
    pub ts: Time,
}

/// A selective acknowledgement.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AckPacket {
    /// Connection identifier.
    pub conn: u32,
    /// Next packet number expected in order (everything below has arrived).
    pub cum_ack: u64,
    /// SACK blocks as half-open packet-number ranges `[start, end)`, the block
    /// holding the most recent arrival first (RFC 2018).
    pub sack: [(u64, u64); MAX_SACK],
    /// Number of valid entries in `sack`.
    pub n_sack: u8,
    /// Timestamp of the data packet that triggered this ACK, or [`NO_ECHO`]
    /// when the ACK echoes none (the probe-only receiver policy's ACKs that
    /// only report SACK state). Every other value, 0 included, is a real
    /// echo: a packet sent at t = 0 yields an RTT sample like any other.
    /// [`AckPacket::echoed_ts`] reads the field as an `Option`.
    pub ts_echo: Time,
    /// Packet number of the data packet that triggered this ACK.
    pub echo_seq: u64,
    /// Flags of the data packet that triggered this ACK.
    pub echo_flags: PacketFlags,
    /// Total CE-marked packets received on this connection (like QUIC's ECN counts).
    pub ce_count: u64,
    /// Arrival dispersion of the latest packet pair, 0 if none is reported.
    pub pair_dispersion: Time,
    /// The receiver's ADPM estimate of the path's price as a code
    /// ([`price_code`]), or [`NO_PRICE`]; the wire codec carries it as the
    /// ACK's last two bytes (wire version 5).
    pub price: u16,
    /// How long the receiver held this ACK after the echoed packet arrived
    /// (nanoseconds; 0 for an ACK sent on arrival): a delayed ACK sent by
    /// its timer waited up to `max_delay` for a second packet, and the RTT
    /// sample of its echo would include that wait (QUIC's ACK Delay, RFC
    /// 9000 §19.3; the sender subtracts it as RFC 9002 §5.3 does). The wire
    /// codec carries it as a 32-bit count of nanoseconds (wire version 8),
    /// saturating at about 4.3 s.
    pub ack_delay: Time,
}

impl Default for AckPacket {
    /// All zero, except `ts_echo` = [`NO_ECHO`].
    fn default() -> Self {
        AckPacket {
            conn: 0,
            cum_ack: 0,
            sack: [(0, 0); MAX_SACK],
            n_sack: 0,
            ts_echo: NO_ECHO,
            echo_seq: 0,
            echo_flags: PacketFlags::NONE,
            ce_count: 0,
            pair_dispersion: 0,
            price: NO_PRICE,
            ack_delay: 0,
        }
    }
}

impl AckPacket {
    /// The echoed timestamp, `None` if the ACK echoes none ([`NO_ECHO`]).
    pub fn echoed_ts(&self) -> Option<Time> {
        (self.ts_echo != NO_ECHO).then_some(self.ts_echo)
    }

    /// The valid SACK blocks.
    pub fn sack_blocks(&self) -> &[(u64, u64)] {
        &self.sack[..self.n_sack as usize]
    }
}
