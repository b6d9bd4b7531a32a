//! The generated payload of memory-to-memory transfers ([`crate::Source::Bytes`],
//! [`crate::Source::Time`]) and its check ([`crate::Sink::Check`]).
//!
//! Byte `o` of the stream is byte `o % 8` (little-endian) of
//! `splitmix64(o / 8)`: a function of the offset alone, so the receiver can
//! check every packet without any state, and a packet delivered at the wrong
//! offset (or a stale one from another transfer) fails the check whatever
//! the mss. A period such as `o % 251` would not do: with an mss that is a
//! multiple of the period, a packet shifted by whole packets would still
//! match. Filling costs one hash per 8 bytes (about 175 per 1400-byte
//! packet), far below a `sendmsg`.

/// The 64-bit finaliser of SplitMix64 (Steele, Lea and Flood 2014), a
/// bijection that spreads consecutive word indices over all 64 bits.
#[inline]
fn splitmix64(i: u64) -> u64 {
    let mut z = i.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Writes the stream's bytes `[offset, offset + buf.len())` into `buf`.
pub fn fill(offset: u64, buf: &mut [u8]) {
    let mut o = offset;
    let mut rest = buf;
    // Head: up to the next multiple of 8.
    let head = ((8 - (o % 8)) % 8).min(rest.len() as u64) as usize;
    if head > 0 {
        let w = splitmix64(o / 8).to_le_bytes();
        let s = (o % 8) as usize;
        rest[..head].copy_from_slice(&w[s..s + head]);
        rest = &mut rest[head..];
        o += head as u64;
    }
    let mut chunks = rest.chunks_exact_mut(8);
    for c in &mut chunks {
        c.copy_from_slice(&splitmix64(o / 8).to_le_bytes());
        o += 8;
    }
    let tail = chunks.into_remainder();
    if !tail.is_empty() {
        let n = tail.len();
        tail.copy_from_slice(&splitmix64(o / 8).to_le_bytes()[..n]);
    }
}

/// The first offset in `[offset, offset + data.len())` whose byte differs
/// from the stream's, if any. `scratch` must be at least `data.len()` long.
pub fn first_mismatch(offset: u64, data: &[u8], scratch: &mut [u8]) -> Option<u64> {
    let expect = &mut scratch[..data.len()];
    fill(offset, expect);
    if expect == data {
        return None;
    }
    data.iter()
        .zip(expect.iter())
        .position(|(a, b)| a != b)
        .map(|i| offset + i as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The byte at `o`, straight from the definition.
    fn byte(o: u64) -> u8 {
        splitmix64(o / 8).to_le_bytes()[(o % 8) as usize]
    }

    #[test]
    fn fill_matches_the_definition_at_any_offset_and_length() {
        for offset in [0u64, 1, 7, 8, 9, 1399, 1400, 1 << 40] {
            for len in [0usize, 1, 5, 8, 13, 1400] {
                let mut b = vec![0u8; len];
                fill(offset, &mut b);
                let want: Vec<u8> = (0..len as u64).map(|i| byte(offset + i)).collect();
                assert_eq!(b, want, "offset {offset}, len {len}");
            }
        }
    }

    #[test]
    fn a_packet_at_the_wrong_offset_fails_the_check_whatever_the_mss() {
        let mut scratch = vec![0u8; 4096];
        for mss in [8u64, 251, 1255, 1400, 4096] {
            let mut p = vec![0u8; mss as usize];
            fill(3 * mss, &mut p);
            assert_eq!(first_mismatch(3 * mss, &p, &mut scratch), None);
            for wrong in [0, 2 * mss, 4 * mss, 3 * mss + 1] {
                assert!(
                    first_mismatch(wrong, &p, &mut scratch).is_some(),
                    "mss {mss}: packet of offset {} accepted at {wrong}",
                    3 * mss
                );
            }
        }
        // The first differing byte is reported.
        let mut p = vec![0u8; 100];
        fill(1000, &mut p);
        p[37] ^= 1;
        assert_eq!(first_mismatch(1000, &p, &mut scratch), Some(1037));
    }
}
