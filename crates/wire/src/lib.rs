//! The dropless wire format: [`DataPacket`] and [`AckPacket`] as UDP datagram
//! payloads, with a versioned header, and a decoder that rejects malformed
//! input instead of guessing.
//!
//! Encoding and decoding never allocate: [`encode_data`] and [`encode_ack`]
//! write into a caller-supplied buffer, and [`decode`] returns the packet by
//! value together with a borrowed slice of the payload.
//!
//! ```
//! use dropless_wire::{decode, encode_data, Decoded, DataPacket, DATA_HEADER_LEN};
//! let p = DataPacket { conn: 1, seq: 7, len: 3, ..Default::default() };
//! let mut buf = [0u8; DATA_HEADER_LEN + 3];
//! let n = encode_data(&p, b"abc", &mut buf).unwrap();
//! assert_eq!(decode(&buf[..n]).unwrap(), Decoded::Data(p, b"abc"));
//! assert!(decode(&buf[..n - 1]).is_err());
//! ```
//!
//! # Format
//!
//! All integers are big-endian (network order). Every datagram starts with a
//! 4-byte common header:
//!
//! | offset | size | field | value |
//! |---:|---:|---|---|
//! | 0 | 2 | magic | `"DL"` (`0x44 0x4C`) |
//! | 2 | 1 | version | [`VERSION`] (= 8; see [Versions](#versions)) |
//! | 3 | 1 | type | [`TYPE_DATA`] (= 1) or [`TYPE_ACK`] (= 2) |
//!
//! ## Data (type 1), [`DATA_HEADER_LEN`] = 30 bytes + payload
//!
//! | offset | size | field | notes |
//! |---:|---:|---|---|
//! | 4 | 4 | `conn` | connection id |
//! | 8 | 8 | `seq` | packet number |
//! | 16 | 4 | `len` | payload bytes that follow the header |
//! | 20 | 1 | `flags` | [`PacketFlags`] bits; only bits in [`KNOWN_FLAGS`] may be set |
//! | 21 | 1 | `ecn` | 0 Not-ECT, 1 ECT(1), 2 ECT(0), 3 CE (the [`Ecn`] discriminants) |
//! | 22 | 8 | `ts` | sender timestamp, nanoseconds |
//! | 30 | `len` | payload | exactly `len` bytes |
//!
//! ## Ack (type 2), [`ACK_MIN_LEN`] = 56 bytes + 16 per SACK block, at most [`MAX_ACK_LEN`] = 120
//!
//! | offset | size | field | notes |
//! |---:|---:|---|---|
//! | 4 | 4 | `conn` | connection id |
//! | 8 | 8 | `cum_ack` | next packet expected in order |
//! | 16 | 1 | `n_sack` | number of SACK blocks, at most [`MAX_SACK`] |
//! | 17 | 16 × `n_sack` | SACK blocks | each `start: u64, end: u64`, half-open, `start < end` |
//! | 17+16n | 8 | `ts_echo` | echoed sender timestamp, nanoseconds; all ones ([`NO_ECHO`], `u64::MAX`) = no echo, 0 is a real echo |
//! | 25+16n | 8 | `echo_seq` | packet number that triggered the ACK |
//! | 33+16n | 1 | `echo_flags` | flags of that packet; only [`KNOWN_FLAGS`] bits |
//! | 34+16n | 8 | `ce_count` | CE-marked packets received so far |
//! | 42+16n | 8 | `pair_dispersion` | nanoseconds, 0 = none |
//! | 50+16n | 2 | `price` | the receiver's ADPM price estimate as a code ([`dropless_transport::price_code`]); all ones ([`NO_PRICE`]) = the receiver decodes no prices |
//! | 52+16n | 4 | `ack_delay` | nanoseconds the receiver held the ACK after the echoed packet arrived (its delayed-ACK timer), 0 = sent on arrival; a longer hold is sent as all ones (about 4.3 s) |
//!
//! Unused entries of [`AckPacket::sack`] (index `n_sack` and above) are not
//! sent; a decoded ACK has them set to `(0, 0)`.
//!
//! ## Versions
//!
//! * **8** (current): the ACK gains its last field, `ack_delay` (4 bytes),
//!   how long the receiver held it after the echoed packet arrived (QUIC's
//!   ACK Delay, RFC 9000 §19.3): a sender subtracts it from the RTT sample
//!   its controller sees (RFC 9002 §5.3), so that a delayed ACK sent by its
//!   timer does not read as a queue of up to 40 ms (issue 33). A version-7
//!   peer would reject the four bytes as trailing, so the version was
//!   bumped; the data packet is unchanged.
//! * **7**: the data and ACK layouts of version 5, unchanged.
//!   Bumped with `dropless-udp`'s sealed datagrams, whose plaintexts of 256
//!   bytes or more (full data datagrams) are now sealed with AEGIS-128X4
//!   under a key of their own, shorter ones (ACKs) still with AEGIS-128L
//!   (same framing): a version-6 peer could not open the long ones (issue
//!   34).
//! * **6**: the data and ACK layouts of version 5, unchanged.
//!   Bumped with `dropless-udp`'s sealed datagrams, whose AEAD is now
//!   AEGIS-128L instead of AES-256-GCM (same framing: header, nonce,
//!   ciphertext, 16-byte tag): a version-5 peer could not open them, and
//!   with the bump each refuses the other as
//!   [`WireError::UnsupportedVersion`] at the first datagram instead of
//!   failing authentication without saying why (issue 34).
//! * **5**: the ACK gains its last field, `price` (2 bytes), the
//!   path price a price-driven sender's receiver decodes from ADPM marks
//!   (issue 35); every other field and the data packet are as in version 4.
//!   The field is always present (all ones when the receiver decodes no
//!   prices), so an ACK's length still follows from `n_sack` alone. A
//!   version-4 peer would reject the two bytes as trailing, so the version
//!   was bumped and each refuses the other as
//!   [`WireError::UnsupportedVersion`] at the first datagram.
//! * **4**: the data and ACK layouts of version 2, unchanged.
//!   Bumped with `dropless-udp`'s resume of every held range: the
//!   handshake response to a sender that asks to resume lists the byte
//!   ranges the receiver holds (a version-3 response carried one offset),
//!   and the stream is the file's bytes outside them, which a version-3
//!   peer would take for a prefix. With the bump either version refuses
//!   the other's datagrams as [`WireError::UnsupportedVersion`] (issue 34).
//! * **3**: the data and ACK layouts of version 2, unchanged.
//!   Bumped with the sealed framing of `dropless-udp` (its handshake types
//!   3-6 share this header): a first handshake message now binds its
//!   session id and address-validation cookie into the Noise handshake,
//!   a receiver admits a sender only after its first sealed datagram, and
//!   a version-2 peer's handshake would fail authentication with no clear
//!   cause. With the bump, a datagram of either version is refused by the
//!   other as [`WireError::UnsupportedVersion`] (issue 34).
//! * **2**: `ts_echo` = [`NO_ECHO`] (all ones) means "no echo";
//!   every other value, 0 included, is an echoed timestamp.
//! * **1**: the same layout, but `ts_echo` = 0 meant "no echo", so a packet
//!   sent at t = 0 could not be echoed. The version was bumped because the
//!   meaning of a field changed: a version-1 peer would read a version-2
//!   "no echo" as a timestamp and vice versa. Version-1 datagrams are
//!   rejected ([`WireError::UnsupportedVersion`]), so mixing builds fails
//!   at once instead of producing wrong RTT samples.
//!
//! # Validation policy
//!
//! A datagram is exactly one packet. The decoder checks, in this order:
//! length of the common header ([`WireError::TooShort`]), magic
//! ([`WireError::BadMagic`]), version ([`WireError::UnsupportedVersion`]),
//! type ([`WireError::UnknownType`]), then the fields of that type.
//!
//! * **Truncation**: a datagram shorter than its fixed fields is
//!   [`WireError::TooShort`]; a data packet whose payload is shorter or longer
//!   than its `len` field is [`WireError::LengthMismatch`].
//! * **Trailing bytes are rejected**: an ACK followed by any extra byte is
//!   [`WireError::TrailingBytes`] (and a data packet with extra bytes is a
//!   [`WireError::LengthMismatch`]). Future versions extend the format by
//!   bumping [`VERSION`], not by appending fields, so extra bytes can only
//!   mean corruption or a foreign sender.
//! * **Flags and ECN**: unknown flag bits are [`WireError::BadFlags`], an ECN
//!   value above 3 is [`WireError::BadEcn`].
//! * **SACK**: more than [`MAX_SACK`] blocks, or a block with
//!   `start >= end`, is [`WireError::BadSack`]. Blocks are not required to be
//!   sorted or disjoint (the sender tolerates overlap).
//!
//! The encoder applies the same checks to what it is given, so anything it
//! writes decodes back to an equal packet.

#![warn(missing_docs)]

use dropless_cc::PacketFlags;
pub use dropless_transport::{AckPacket, DataPacket, Ecn, MAX_SACK, NO_ECHO, NO_PRICE};

/// The two magic bytes that start every datagram: `"DL"`.
pub const MAGIC: [u8; 2] = *b"DL";
/// The format version this crate writes and accepts (see the
/// [Versions](crate#versions) list).
pub const VERSION: u8 = 8;
/// Type byte of a data packet.
pub const TYPE_DATA: u8 = 1;
/// Type byte of an acknowledgement.
pub const TYPE_ACK: u8 = 2;
/// Bytes of the common header (magic, version, type).
pub const COMMON_HEADER_LEN: usize = 4;
/// Bytes of a data packet before its payload.
pub const DATA_HEADER_LEN: usize = COMMON_HEADER_LEN + 4 + 8 + 4 + 1 + 1 + 8;
/// Bytes of one SACK block on the wire.
pub const SACK_BLOCK_LEN: usize = 16;
/// Bytes of an acknowledgement without SACK blocks.
pub const ACK_MIN_LEN: usize = COMMON_HEADER_LEN + 4 + 8 + 1 + 8 + 8 + 1 + 8 + 8 + 2 + 4;
/// Bytes of an acknowledgement with [`MAX_SACK`] blocks: the largest ACK.
pub const MAX_ACK_LEN: usize = ACK_MIN_LEN + MAX_SACK * SACK_BLOCK_LEN;
/// Every flag bit defined by [`PacketFlags`]; any other bit is rejected.
pub const KNOWN_FLAGS: u8 = PacketFlags::ACK_REQUEST.0
    | PacketFlags::PAIR.0
    | PacketFlags::PAIR_SECOND.0
    | PacketFlags::FIN.0;

/// Bytes a data packet with `payload_len` payload bytes occupies on the wire.
#[inline]
pub const fn data_len(payload_len: usize) -> usize {
    DATA_HEADER_LEN + payload_len
}

/// Bytes an acknowledgement with `n_sack` SACK blocks occupies on the wire.
#[inline]
pub const fn ack_len(n_sack: usize) -> usize {
    ACK_MIN_LEN + n_sack * SACK_BLOCK_LEN
}

/// Why a packet could not be encoded or decoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum WireError {
    /// The datagram ends before its fixed fields do.
    #[error("datagram too short: {got} bytes, need at least {need}")]
    TooShort {
        /// Bytes needed for the fields read so far.
        need: usize,
        /// Bytes in the datagram.
        got: usize,
    },
    /// The first two bytes are not `"DL"`.
    #[error("bad magic {0:02x?}: not a dropless datagram")]
    BadMagic([u8; 2]),
    /// The version byte is not [`VERSION`].
    #[error("unsupported wire version {0} (this build speaks version {VERSION})")]
    UnsupportedVersion(u8),
    /// The type byte is neither [`TYPE_DATA`] nor [`TYPE_ACK`].
    #[error("unknown packet type {0}")]
    UnknownType(u8),
    /// The payload length does not match the `len` field (decode), or the
    /// payload slice does not match [`DataPacket::len`] (encode).
    #[error("payload length mismatch: header says {declared} bytes, {actual} present")]
    LengthMismatch {
        /// Length in the header / packet struct.
        declared: u64,
        /// Payload bytes actually present / supplied.
        actual: u64,
    },
    /// An ACK is followed by extra bytes.
    #[error("{0} unexpected trailing bytes after the acknowledgement")]
    TrailingBytes(usize),
    /// More than [`MAX_SACK`] SACK blocks, or a block with `start >= end`.
    #[error("bad SACK: {0}")]
    BadSack(SackProblem),
    /// Flag bits outside [`KNOWN_FLAGS`] are set.
    #[error("unknown flag bits set: {0:#04x}")]
    BadFlags(u8),
    /// The ECN byte is not 0..=3.
    #[error("bad ECN codepoint {0}")]
    BadEcn(u8),
    /// The output buffer cannot hold the encoded packet.
    #[error("output buffer too small: need {need} bytes, have {have}")]
    BufferTooSmall {
        /// Bytes needed.
        need: usize,
        /// Bytes available.
        have: usize,
    },
}

/// What is wrong with the SACK part of an acknowledgement.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SackProblem {
    /// `n_sack` exceeds [`MAX_SACK`].
    TooMany(u8),
    /// Block `index` has `start >= end`.
    EmptyBlock {
        /// Index of the block.
        index: u8,
        /// Its start.
        start: u64,
        /// Its end.
        end: u64,
    },
}

impl std::fmt::Display for SackProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            SackProblem::TooMany(n) => write!(f, "{n} blocks, at most {MAX_SACK} allowed"),
            SackProblem::EmptyBlock { index, start, end } => {
                write!(
                    f,
                    "block {index} is [{start}, {end}), start must be below end"
                )
            }
        }
    }
}

/// A decoded datagram.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decoded<'a> {
    /// A data packet and its payload (exactly `len` bytes, borrowed from the input).
    Data(DataPacket, &'a [u8]),
    /// An acknowledgement.
    Ack(AckPacket),
}

// ---------------------------------------------------------------- encoding

/// Sequential big-endian writer over a buffer already checked to be large enough.
struct Writer<'a> {
    buf: &'a mut [u8],
    pos: usize,
}

impl Writer<'_> {
    #[inline]
    fn put(&mut self, bytes: &[u8]) {
        self.buf[self.pos..self.pos + bytes.len()].copy_from_slice(bytes);
        self.pos += bytes.len();
    }
    #[inline]
    fn u8(&mut self, v: u8) {
        self.put(&[v]);
    }
    #[inline]
    fn u16(&mut self, v: u16) {
        self.put(&v.to_be_bytes());
    }
    #[inline]
    fn u32(&mut self, v: u32) {
        self.put(&v.to_be_bytes());
    }
    #[inline]
    fn u64(&mut self, v: u64) {
        self.put(&v.to_be_bytes());
    }
    #[inline]
    fn header(&mut self, ty: u8) {
        self.put(&MAGIC);
        self.u8(VERSION);
        self.u8(ty);
    }
}

fn check_flags(f: PacketFlags) -> Result<(), WireError> {
    if f.0 & !KNOWN_FLAGS != 0 {
        Err(WireError::BadFlags(f.0 & !KNOWN_FLAGS))
    } else {
        Ok(())
    }
}

fn check_sack(n_sack: u8, blocks: &[(u64, u64)]) -> Result<(), WireError> {
    if n_sack as usize > MAX_SACK {
        return Err(WireError::BadSack(SackProblem::TooMany(n_sack)));
    }
    for (i, &(start, end)) in blocks.iter().take(n_sack as usize).enumerate() {
        if start >= end {
            return Err(WireError::BadSack(SackProblem::EmptyBlock {
                index: i as u8,
                start,
                end,
            }));
        }
    }
    Ok(())
}

/// Writes data packet `p` followed by `payload` into `out`; returns the bytes
/// written ([`data_len`]`(payload.len())`).
///
/// Fails with [`WireError::LengthMismatch`] if `payload.len() != p.len`,
/// [`WireError::BadFlags`] for unknown flag bits, and
/// [`WireError::BufferTooSmall`] if `out` is too short.
pub fn encode_data(p: &DataPacket, payload: &[u8], out: &mut [u8]) -> Result<usize, WireError> {
    if payload.len() as u64 != p.len as u64 {
        return Err(WireError::LengthMismatch {
            declared: p.len as u64,
            actual: payload.len() as u64,
        });
    }
    check_flags(p.flags)?;
    let need = data_len(payload.len());
    if out.len() < need {
        return Err(WireError::BufferTooSmall {
            need,
            have: out.len(),
        });
    }
    let mut w = Writer { buf: out, pos: 0 };
    w.header(TYPE_DATA);
    w.u32(p.conn);
    w.u64(p.seq);
    w.u32(p.len);
    w.u8(p.flags.0);
    w.u8(p.ecn as u8);
    w.u64(p.ts);
    w.put(payload);
    debug_assert_eq!(w.pos, need);
    Ok(need)
}

/// Writes acknowledgement `a` into `out`; returns the bytes written
/// ([`ack_len`]`(a.n_sack)`, at most [`MAX_ACK_LEN`]).
///
/// Fails with [`WireError::BadSack`] if `a.n_sack > MAX_SACK` or a valid block
/// is empty, [`WireError::BadFlags`] for unknown bits in `echo_flags`, and
/// [`WireError::BufferTooSmall`] if `out` is too short.
pub fn encode_ack(a: &AckPacket, out: &mut [u8]) -> Result<usize, WireError> {
    check_sack(a.n_sack, &a.sack)?;
    check_flags(a.echo_flags)?;
    let need = ack_len(a.n_sack as usize);
    if out.len() < need {
        return Err(WireError::BufferTooSmall {
            need,
            have: out.len(),
        });
    }
    let mut w = Writer { buf: out, pos: 0 };
    w.header(TYPE_ACK);
    w.u32(a.conn);
    w.u64(a.cum_ack);
    w.u8(a.n_sack);
    for &(s, e) in a.sack_blocks() {
        w.u64(s);
        w.u64(e);
    }
    w.u64(a.ts_echo);
    w.u64(a.echo_seq);
    w.u8(a.echo_flags.0);
    w.u64(a.ce_count);
    w.u64(a.pair_dispersion);
    w.u16(a.price);
    w.u32(a.ack_delay.min(u32::MAX as u64) as u32);
    debug_assert_eq!(w.pos, need);
    Ok(need)
}

// ---------------------------------------------------------------- decoding

/// Sequential big-endian reader that reports truncation as [`WireError::TooShort`].
struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    #[inline]
    fn take(&mut self, n: usize) -> Result<&'a [u8], WireError> {
        let end = self.pos + n;
        if end > self.buf.len() {
            return Err(WireError::TooShort {
                need: end,
                got: self.buf.len(),
            });
        }
        let s = &self.buf[self.pos..end];
        self.pos = end;
        Ok(s)
    }
    #[inline]
    fn u8(&mut self) -> Result<u8, WireError> {
        Ok(self.take(1)?[0])
    }
    #[inline]
    fn u16(&mut self) -> Result<u16, WireError> {
        let b = self.take(2)?;
        Ok(u16::from_be_bytes([b[0], b[1]]))
    }
    #[inline]
    fn u32(&mut self) -> Result<u32, WireError> {
        let b = self.take(4)?;
        Ok(u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    }
    #[inline]
    fn u64(&mut self) -> Result<u64, WireError> {
        let b = self.take(8)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        Ok(u64::from_be_bytes(a))
    }
    fn rest(&self) -> &'a [u8] {
        &self.buf[self.pos..]
    }
}

fn flags(v: u8) -> Result<PacketFlags, WireError> {
    let f = PacketFlags(v);
    check_flags(f)?;
    Ok(f)
}

fn ecn(v: u8) -> Result<Ecn, WireError> {
    Ok(match v {
        0 => Ecn::NotEct,
        1 => Ecn::Ect1,
        2 => Ecn::Ect0,
        3 => Ecn::Ce,
        other => return Err(WireError::BadEcn(other)),
    })
}

/// Parses one datagram. See the [crate docs](crate) for the checks applied.
pub fn decode(buf: &[u8]) -> Result<Decoded<'_>, WireError> {
    if buf.len() < COMMON_HEADER_LEN {
        return Err(WireError::TooShort {
            need: COMMON_HEADER_LEN,
            got: buf.len(),
        });
    }
    if buf[0..2] != MAGIC {
        return Err(WireError::BadMagic([buf[0], buf[1]]));
    }
    if buf[2] != VERSION {
        return Err(WireError::UnsupportedVersion(buf[2]));
    }
    let mut r = Reader {
        buf,
        pos: COMMON_HEADER_LEN,
    };
    match buf[3] {
        TYPE_DATA => {
            let conn = r.u32()?;
            let seq = r.u64()?;
            let len = r.u32()?;
            let fl = flags(r.u8()?)?;
            let e = ecn(r.u8()?)?;
            let ts = r.u64()?;
            let payload = r.rest();
            if payload.len() as u64 != len as u64 {
                return Err(WireError::LengthMismatch {
                    declared: len as u64,
                    actual: payload.len() as u64,
                });
            }
            Ok(Decoded::Data(
                DataPacket {
                    conn,
                    seq,
                    len,
                    flags: fl,
                    ecn: e,
                    ts,
                },
                payload,
            ))
        }
        TYPE_ACK => {
            let mut a = AckPacket {
                conn: r.u32()?,
                cum_ack: r.u64()?,
                ..Default::default()
            };
            let n = r.u8()?;
            if n as usize > MAX_SACK {
                return Err(WireError::BadSack(SackProblem::TooMany(n)));
            }
            for i in 0..n as usize {
                a.sack[i] = (r.u64()?, r.u64()?);
            }
            a.n_sack = n;
            check_sack(n, &a.sack)?;
            a.ts_echo = r.u64()?;
            a.echo_seq = r.u64()?;
            a.echo_flags = flags(r.u8()?)?;
            a.ce_count = r.u64()?;
            a.pair_dispersion = r.u64()?;
            a.price = r.u16()?;
            a.ack_delay = u64::from(r.u32()?);
            let extra = r.rest().len();
            if extra != 0 {
                return Err(WireError::TrailingBytes(extra));
            }
            Ok(Decoded::Ack(a))
        }
        other => Err(WireError::UnknownType(other)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_match_the_table() {
        assert_eq!(DATA_HEADER_LEN, 30);
        assert_eq!(ACK_MIN_LEN, 56);
        assert_eq!(MAX_ACK_LEN, 120);
        assert_eq!(KNOWN_FLAGS, 0x0f);
    }
}
