//! Round trips and every rejection path of the wire codec.

use dropless_cc::PacketFlags;
use dropless_wire::*;

fn data_pkt(len: u32) -> DataPacket {
    DataPacket {
        conn: 0xDEAD_BEEF,
        seq: 0x0102_0304_0506_0708,
        len,
        flags: PacketFlags::FIN | PacketFlags::ACK_REQUEST,
        ecn: Ecn::Ce,
        ts: 123_456_789_012,
    }
}

fn ack_pkt(n: u8) -> AckPacket {
    let mut a = AckPacket {
        conn: 7,
        cum_ack: 1000,
        n_sack: n,
        ts_echo: 55,
        echo_seq: 1234,
        echo_flags: PacketFlags::PAIR_SECOND,
        ce_count: 3,
        pair_dispersion: 12_000,
        price: 0xA1B2,
        ack_delay: 39_000_123,
        ..Default::default()
    };
    for i in 0..n as usize {
        a.sack[i] = (2000 + 10 * i as u64, 2005 + 10 * i as u64);
    }
    a
}

fn encoded_data(len: u32) -> Vec<u8> {
    let payload: Vec<u8> = (0..len).map(|i| i as u8).collect();
    let mut buf = vec![0u8; data_len(len as usize)];
    let n = encode_data(&data_pkt(len), &payload, &mut buf).unwrap();
    assert_eq!(n, buf.len());
    buf
}

fn encoded_ack(n_sack: u8) -> Vec<u8> {
    let mut buf = [0u8; MAX_ACK_LEN];
    let n = encode_ack(&ack_pkt(n_sack), &mut buf).unwrap();
    buf[..n].to_vec()
}

#[test]
fn data_round_trip() {
    for len in [0u32, 1, 100, 1400] {
        let payload: Vec<u8> = (0..len).map(|i| (i * 7) as u8).collect();
        let mut buf = [0u8; 2000];
        let n = encode_data(&data_pkt(len), &payload, &mut buf).unwrap();
        assert_eq!(n, DATA_HEADER_LEN + len as usize);
        match decode(&buf[..n]).unwrap() {
            Decoded::Data(p, pl) => {
                assert_eq!(p, data_pkt(len));
                assert_eq!(pl, &payload[..]);
            }
            other => panic!("decoded {other:?}"),
        }
    }
}

#[test]
fn data_layout_is_big_endian_as_documented() {
    let b = encoded_data(2);
    assert_eq!(&b[0..4], b"DL\x08\x01");
    assert_eq!(&b[4..8], &[0xDE, 0xAD, 0xBE, 0xEF]);
    assert_eq!(&b[8..16], &[1, 2, 3, 4, 5, 6, 7, 8]);
    assert_eq!(&b[16..20], &[0, 0, 0, 2]);
    assert_eq!(b[20], 9); // ACK_REQUEST | FIN
    assert_eq!(b[21], 3); // CE
    assert_eq!(&b[22..30], &123_456_789_012u64.to_be_bytes());
    assert_eq!(&b[30..], &[0, 1]);
}

#[test]
fn ack_round_trip_every_sack_count() {
    for n in 0..=MAX_SACK as u8 {
        let b = encoded_ack(n);
        assert_eq!(b.len(), ack_len(n as usize));
        assert_eq!(&b[0..4], b"DL\x08\x02");
        // the price, then the ACK delay, the last field, both big-endian
        assert_eq!(&b[b.len() - 6..b.len() - 4], &[0xA1, 0xB2]);
        assert_eq!(&b[b.len() - 4..], &39_000_123u32.to_be_bytes());
        assert_eq!(b[16], n);
        assert_eq!(decode(&b).unwrap(), Decoded::Ack(ack_pkt(n)));
    }
    assert_eq!(encoded_ack(MAX_SACK as u8).len(), MAX_ACK_LEN);
}

#[test]
fn ts_echo_no_echo_and_zero_round_trip() {
    // "No echo" is all ones on the wire; 0 is a real echo (a packet sent at
    // t = 0) and stays distinct from it.
    let mut buf = [0u8; MAX_ACK_LEN];
    for (ts, bytes) in [(NO_ECHO, [0xFF; 8]), (0, [0; 8])] {
        let a = AckPacket {
            ts_echo: ts,
            ..ack_pkt(2)
        };
        let n = encode_ack(&a, &mut buf).unwrap();
        let off = 17 + 16 * 2;
        assert_eq!(&buf[off..off + 8], &bytes);
        let Decoded::Ack(d) = decode(&buf[..n]).unwrap() else {
            panic!()
        };
        assert_eq!(d, a);
        assert_eq!(d.echoed_ts(), (ts != NO_ECHO).then_some(ts));
    }
    // The default ACK echoes nothing, and says so on the wire.
    let n = encode_ack(&AckPacket::default(), &mut buf).unwrap();
    assert_eq!(&buf[17..25], &[0xFF; 8]);
    let Decoded::Ack(d) = decode(&buf[..n]).unwrap() else {
        panic!()
    };
    assert_eq!(d.echoed_ts(), None);
}

#[test]
fn unused_sack_entries_are_not_sent_and_decode_as_zero() {
    let mut a = ack_pkt(1);
    a.sack[3] = (99, 1); // garbage beyond n_sack: ignored
    let mut buf = [0u8; MAX_ACK_LEN];
    let n = encode_ack(&a, &mut buf).unwrap();
    let Decoded::Ack(d) = decode(&buf[..n]).unwrap() else {
        panic!()
    };
    assert_eq!(d.sack[3], (0, 0));
    assert_eq!(d.sack_blocks(), a.sack_blocks());
}

#[test]
fn truncated_data_at_every_length_is_rejected() {
    let full = encoded_data(50);
    for cut in 0..full.len() {
        let e = decode(&full[..cut]).unwrap_err();
        if cut < DATA_HEADER_LEN {
            assert!(
                matches!(e, WireError::TooShort { got, .. } if got == cut),
                "{cut}: {e}"
            );
        } else {
            assert_eq!(
                e,
                WireError::LengthMismatch {
                    declared: 50,
                    actual: (cut - DATA_HEADER_LEN) as u64
                }
            );
        }
    }
}

#[test]
fn truncated_ack_at_every_length_is_rejected() {
    for n in 0..=MAX_SACK as u8 {
        let full = encoded_ack(n);
        for cut in 0..full.len() {
            let e = decode(&full[..cut]).unwrap_err();
            assert!(
                matches!(e, WireError::TooShort { got, need } if got == cut && need > cut),
                "{n} {cut}: {e}"
            );
        }
    }
}

#[test]
fn bad_magic_version_and_type() {
    let mut b = encoded_data(3);
    b[0] = b'X';
    assert_eq!(decode(&b).unwrap_err(), WireError::BadMagic([b'X', b'L']));
    let mut b = encoded_ack(1);
    b[2] = 9;
    assert_eq!(decode(&b).unwrap_err(), WireError::UnsupportedVersion(9));
    // version 7 (ACKs without the ACK delay) is refused
    b[2] = 7;
    assert_eq!(decode(&b).unwrap_err(), WireError::UnsupportedVersion(7));
    // version 6 (every sealed datagram AEGIS-128L) is refused
    b[2] = 6;
    assert_eq!(decode(&b).unwrap_err(), WireError::UnsupportedVersion(6));
    // version 5 (sealed with AES-256-GCM) is refused
    b[2] = 5;
    assert_eq!(decode(&b).unwrap_err(), WireError::UnsupportedVersion(5));
    // version 4 (ACKs without the price) is refused
    b[2] = 4;
    assert_eq!(decode(&b).unwrap_err(), WireError::UnsupportedVersion(4));
    // version 3 (a resume response named one offset, before issue 34's
    // held ranges) is refused
    b[2] = 3;
    assert_eq!(decode(&b).unwrap_err(), WireError::UnsupportedVersion(3));
    // version 2 (the sealed handshake before issue 34) is refused
    b[2] = 2;
    assert_eq!(decode(&b).unwrap_err(), WireError::UnsupportedVersion(2));
    // version 1 (0 meant "no echo") is no longer accepted
    b[2] = 1;
    assert_eq!(decode(&b).unwrap_err(), WireError::UnsupportedVersion(1));
    b[2] = 0;
    assert_eq!(decode(&b).unwrap_err(), WireError::UnsupportedVersion(0));
    let mut b = encoded_ack(1);
    for t in [0u8, 3, 255] {
        b[3] = t;
        assert_eq!(decode(&b).unwrap_err(), WireError::UnknownType(t));
    }
    // messages are readable
    assert!(WireError::UnsupportedVersion(4)
        .to_string()
        .contains("version 4"));
    assert!(WireError::BadMagic(*b"XL").to_string().contains("magic"));
}

#[test]
fn too_many_sack_blocks() {
    let mut b = encoded_ack(MAX_SACK as u8);
    b[16] = MAX_SACK as u8 + 1;
    assert_eq!(
        decode(&b).unwrap_err(),
        WireError::BadSack(SackProblem::TooMany(MAX_SACK as u8 + 1))
    );
    b[16] = 255;
    assert!(matches!(decode(&b).unwrap_err(), WireError::BadSack(_)));
    // the encoder refuses too
    let mut a = ack_pkt(1);
    a.n_sack = MAX_SACK as u8 + 1;
    let mut out = [0u8; 1024];
    assert_eq!(
        encode_ack(&a, &mut out).unwrap_err(),
        WireError::BadSack(SackProblem::TooMany(MAX_SACK as u8 + 1))
    );
}

#[test]
fn empty_or_reversed_sack_block() {
    for (s, e) in [(5u64, 5u64), (6, 5), (u64::MAX, 0)] {
        // encoder
        let mut a = ack_pkt(2);
        a.sack[1] = (s, e);
        let mut out = [0u8; MAX_ACK_LEN];
        let want = WireError::BadSack(SackProblem::EmptyBlock {
            index: 1,
            start: s,
            end: e,
        });
        assert_eq!(encode_ack(&a, &mut out).unwrap_err(), want);
        // decoder: patch a valid encoding
        let mut b = encoded_ack(2);
        let off = 17 + SACK_BLOCK_LEN;
        b[off..off + 8].copy_from_slice(&s.to_be_bytes());
        b[off + 8..off + 16].copy_from_slice(&e.to_be_bytes());
        assert_eq!(decode(&b).unwrap_err(), want);
        assert!(want.to_string().contains("start must be below end"));
    }
}

#[test]
fn payload_length_mismatch() {
    let mut out = [0u8; 100];
    let p = data_pkt(10);
    assert_eq!(
        encode_data(&p, &[0u8; 9], &mut out).unwrap_err(),
        WireError::LengthMismatch {
            declared: 10,
            actual: 9
        }
    );
    assert_eq!(
        encode_data(&p, &[0u8; 11], &mut out).unwrap_err(),
        WireError::LengthMismatch {
            declared: 10,
            actual: 11
        }
    );
    // a header claiming more than is there
    let mut b = encoded_data(10);
    b[16..20].copy_from_slice(&11u32.to_be_bytes());
    assert_eq!(
        decode(&b).unwrap_err(),
        WireError::LengthMismatch {
            declared: 11,
            actual: 10
        }
    );
    b[16..20].copy_from_slice(&u32::MAX.to_be_bytes());
    assert!(matches!(
        decode(&b).unwrap_err(),
        WireError::LengthMismatch { .. }
    ));
}

#[test]
fn trailing_garbage_is_rejected() {
    let mut b = encoded_ack(2);
    b.push(0);
    assert_eq!(decode(&b).unwrap_err(), WireError::TrailingBytes(1));
    b.extend_from_slice(&[1, 2, 3]);
    assert_eq!(decode(&b).unwrap_err(), WireError::TrailingBytes(4));
    let mut b = encoded_data(4);
    b.push(0xff);
    assert_eq!(
        decode(&b).unwrap_err(),
        WireError::LengthMismatch {
            declared: 4,
            actual: 5
        }
    );
}

#[test]
fn unknown_flags_and_bad_ecn() {
    let mut out = [0u8; 200];
    let mut p = data_pkt(0);
    p.flags = PacketFlags(0x10 | 1);
    assert_eq!(
        encode_data(&p, &[], &mut out).unwrap_err(),
        WireError::BadFlags(0x10)
    );
    let mut a = ack_pkt(0);
    a.echo_flags = PacketFlags(0x80);
    assert_eq!(
        encode_ack(&a, &mut out).unwrap_err(),
        WireError::BadFlags(0x80)
    );

    let mut b = encoded_data(0);
    b[20] = 0xf0;
    assert_eq!(decode(&b).unwrap_err(), WireError::BadFlags(0xf0));
    let mut b = encoded_data(0);
    b[21] = 4;
    assert_eq!(decode(&b).unwrap_err(), WireError::BadEcn(4));
    let mut b = encoded_ack(1);
    b[17 + SACK_BLOCK_LEN + 16] = 0x20; // echo_flags
    assert_eq!(decode(&b).unwrap_err(), WireError::BadFlags(0x20));
}

#[test]
fn output_buffer_too_small() {
    let payload = [0u8; 10];
    let p = data_pkt(10);
    for have in [0usize, 4, DATA_HEADER_LEN, DATA_HEADER_LEN + 9] {
        let mut out = vec![0u8; have];
        assert_eq!(
            encode_data(&p, &payload, &mut out).unwrap_err(),
            WireError::BufferTooSmall {
                need: DATA_HEADER_LEN + 10,
                have
            }
        );
    }
    let a = ack_pkt(3);
    let mut out = [0u8; ACK_MIN_LEN + 2 * SACK_BLOCK_LEN];
    assert_eq!(
        encode_ack(&a, &mut out).unwrap_err(),
        WireError::BufferTooSmall {
            need: ack_len(3),
            have: out.len()
        }
    );
    // a larger buffer is fine: only the prefix is written
    let mut big = [0xAAu8; 4096];
    let n = encode_ack(&a, &mut big).unwrap();
    assert_eq!(n, ack_len(3));
    assert_eq!(big[n], 0xAA);
}

/// xorshift64* for reproducible pseudo-random tests.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

#[test]
fn property_random_packets_round_trip_and_corruption_never_panics() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let ecns = [Ecn::NotEct, Ecn::Ect1, Ecn::Ect0, Ecn::Ce];
    let mut buf = [0u8; 2048];
    let mut payload = [0u8; 1500];
    for _ in 0..20_000 {
        let len = match rng.below(4) {
            0 => 0,
            1 => 1500,
            _ => rng.below(1501),
        } as usize;
        let (wire_len, expect_data, expect_ack);
        if rng.below(2) == 0 {
            for b in payload[..len].iter_mut() {
                *b = rng.next() as u8;
            }
            let p = DataPacket {
                conn: rng.next() as u32,
                seq: rng.next(),
                len: len as u32,
                flags: PacketFlags(rng.next() as u8 & KNOWN_FLAGS),
                ecn: ecns[rng.below(4) as usize],
                ts: rng.next(),
            };
            wire_len = encode_data(&p, &payload[..len], &mut buf).unwrap();
            assert_eq!(wire_len, data_len(len));
            assert_eq!(
                decode(&buf[..wire_len]).unwrap(),
                Decoded::Data(p, &payload[..len])
            );
            expect_data = Some(p);
            expect_ack = None;
        } else {
            let mut a = AckPacket {
                conn: rng.next() as u32,
                cum_ack: rng.next(),
                n_sack: rng.below(MAX_SACK as u64 + 1) as u8,
                ts_echo: rng.next(),
                echo_seq: rng.next(),
                echo_flags: PacketFlags(rng.next() as u8 & KNOWN_FLAGS),
                ce_count: rng.next(),
                pair_dispersion: rng.next(),
                price: rng.next() as u16,
                ..Default::default()
            };
            for i in 0..a.n_sack as usize {
                let s = rng.below(u64::MAX - 1);
                let e = s + 1 + rng.below(u64::MAX - s - 1);
                a.sack[i] = (s, e);
            }
            wire_len = encode_ack(&a, &mut buf).unwrap();
            assert!(wire_len <= MAX_ACK_LEN);
            assert_eq!(decode(&buf[..wire_len]).unwrap(), Decoded::Ack(a));
            expect_data = None;
            expect_ack = Some(a);
        }
        // Corrupt one random byte: the decoder must either reject it or
        // return something that re-encodes to exactly the corrupted bytes.
        let i = rng.below(wire_len as u64) as usize;
        let orig = buf[i];
        buf[i] ^= 1 + rng.below(255) as u8;
        let mut again = [0u8; 2048];
        match decode(&buf[..wire_len]) {
            Ok(Decoded::Data(p, pl)) => {
                let n = encode_data(&p, pl, &mut again).unwrap();
                assert_eq!(&again[..n], &buf[..wire_len]);
                assert_ne!(Some(p), expect_data.filter(|_| i < DATA_HEADER_LEN));
            }
            Ok(Decoded::Ack(a)) => {
                let n = encode_ack(&a, &mut again).unwrap();
                assert_eq!(&again[..n], &buf[..wire_len]);
                assert_ne!(Some(a), expect_ack);
            }
            Err(_) => {}
        }
        buf[i] = orig;
        // Random truncation is always rejected.
        let cut = rng.below(wire_len as u64) as usize;
        assert!(decode(&buf[..cut]).is_err());
    }
}

#[test]
fn random_garbage_never_panics() {
    let mut rng = Rng(42);
    let mut buf = [0u8; 200];
    for _ in 0..50_000 {
        let n = rng.below(200) as usize;
        for b in buf[..n].iter_mut() {
            *b = rng.next() as u8;
        }
        // give the header a fair chance to be valid
        if rng.below(2) == 0 && n >= 4 {
            buf[0..3].copy_from_slice(b"DL\x04");
            buf[3] = 1 + rng.below(2) as u8;
        }
        let _ = decode(&buf[..n]);
    }
}

#[test]
fn ack_delay_saturates_at_32_bits() {
    // A hold longer than 2^32 - 1 ns (about 4.3 s; RFC 5681 allows 500 ms)
    // goes as all ones and decodes as that.
    let mut buf = [0u8; MAX_ACK_LEN];
    let a = AckPacket {
        ack_delay: 10_000_000_000,
        ..ack_pkt(0)
    };
    let n = encode_ack(&a, &mut buf).unwrap();
    assert_eq!(&buf[n - 4..n], &[0xFF; 4]);
    match decode(&buf[..n]).unwrap() {
        Decoded::Ack(d) => assert_eq!(d.ack_delay, u32::MAX as u64),
        other => panic!("decoded {other:?}"),
    }
}

#[test]
fn the_fuzzer_seeds_decode() {
    // fuzz/seeds/wire_decode/ start the fuzzer past the framing; a version
    // bump or a new field that they miss would leave it at the magic again.
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../fuzz/seeds/wire_decode");
    let mut kinds = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let bytes = std::fs::read(entry.unwrap().path()).unwrap();
        match decode(&bytes).unwrap() {
            Decoded::Data(..) => kinds.push("data"),
            Decoded::Ack(a) => {
                assert!(a.n_sack > 0 && a.ack_delay > 0, "{a:?}");
                kinds.push("ack")
            }
        }
    }
    kinds.sort();
    assert_eq!(kinds, ["ack", "data"]);
}
