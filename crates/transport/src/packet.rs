//! Packets as plain structs. The simulator moves them as they are; the wire
//! codec (`dropless-wire`) serialises them for real sockets.

use dropless_cc::{PacketFlags, Time};

/// Most SACK blocks one ACK carries.
pub const MAX_SACK: usize = 4;

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
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
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
    /// Timestamp of the data packet that triggered this ACK; 0 means "no
    /// echo" (probe-only ACKs that only report SACK state).
    ///
    /// Known limitation (found 2026-11-22, not yet fixed): because 0 is the
    /// "no echo" value, a data packet sent at exactly t = 0 yields no RTT
    /// sample, so a flow that starts at t = 0 takes its first samples (and
    /// its minimum RTT) from later packets, which may have queued behind its
    /// initial window. A fix (a separate sentinel) changes the results of
    /// every experiment with a flow starting at t = 0 and needs the reports
    /// regenerated with it; thesis chapter 4 item 9 starts its first flow at
    /// 1 ms for this reason.
    pub ts_echo: Time,
    /// Packet number of the data packet that triggered this ACK.
    pub echo_seq: u64,
    /// Flags of the data packet that triggered this ACK.
    pub echo_flags: PacketFlags,
    /// Total CE-marked packets received on this connection (like QUIC's ECN counts).
    pub ce_count: u64,
    /// Arrival dispersion of the latest packet pair, 0 if none is reported.
    pub pair_dispersion: Time,
}

impl AckPacket {
    /// The valid SACK blocks.
    pub fn sack_blocks(&self) -> &[(u64, u64)] {
        &self.sack[..self.n_sack as usize]
    }
}
