//! Seal + open cost per message of the AEAD candidates for the data path (issue 34):
//! `ring` AES-256-GCM (today's), `aws-lc-rs` AES-256-GCM, AEGIS-128L (in use since wire version 6, for ACKs since 7)
//! and AEGIS-128X2 and AEGIS-128X4 (`aegis` crate; X4 for long datagrams since wire version 7),
//! at a data datagram's plaintext (1,430 bytes) and an ACK's (52 bytes).
//! Prints ns per message, the median of 9 runs of 20,000 messages each.

use std::hint::black_box;
use std::time::Instant;

const RUNS: usize = 9;
const PER_RUN: u32 = 20_000;

fn median_ns<F: FnMut()>(mut f: F) -> f64 {
    let mut runs: Vec<f64> = (0..RUNS)
        .map(|_| {
            let t = Instant::now();
            for _ in 0..PER_RUN {
                f();
            }
            t.elapsed().as_nanos() as f64 / f64::from(PER_RUN)
        })
        .collect();
    runs.sort_by(f64::total_cmp);
    runs[RUNS / 2]
}

fn nonce12(ctr: u64) -> [u8; 12] {
    let mut n = [0u8; 12];
    n[4..].copy_from_slice(&ctr.to_be_bytes());
    n
}

fn main() {
    let key256 = [7u8; 32];
    let key128 = [7u8; 16];
    let ring_key = ring::aead::LessSafeKey::new(
        ring::aead::UnboundKey::new(&ring::aead::AES_256_GCM, &key256).expect("key"),
    );
    let lc_key = aws_lc_rs::aead::LessSafeKey::new(
        aws_lc_rs::aead::UnboundKey::new(&aws_lc_rs::aead::AES_256_GCM, &key256).expect("key"),
    );
    println!("bytes  ring-AES-256-GCM  aws-lc-rs-AES-256-GCM  AEGIS-128L  AEGIS-128X2  AEGIS-128X4   (ns per seal+open)");
    for len in [1430usize, 52] {
        let mut buf = vec![0u8; len + 16];
        let mut ctr = 0u64;
        let ring_ns = median_ns(|| {
            ctr += 1;
            let n = ring::aead::Nonce::assume_unique_for_key(nonce12(ctr));
            let tag = ring_key
                .seal_in_place_separate_tag(n, ring::aead::Aad::empty(), &mut buf[..len])
                .expect("seal");
            buf[len..].copy_from_slice(tag.as_ref());
            let n = ring::aead::Nonce::assume_unique_for_key(nonce12(ctr));
            ring_key
                .open_in_place(n, ring::aead::Aad::empty(), &mut buf[..])
                .expect("open");
            black_box(&buf);
        });
        let lc_ns = median_ns(|| {
            ctr += 1;
            let n = aws_lc_rs::aead::Nonce::assume_unique_for_key(nonce12(ctr));
            let tag = lc_key
                .seal_in_place_separate_tag(n, aws_lc_rs::aead::Aad::empty(), &mut buf[..len])
                .expect("seal");
            buf[len..].copy_from_slice(tag.as_ref());
            let n = aws_lc_rs::aead::Nonce::assume_unique_for_key(nonce12(ctr));
            lc_key
                .open_in_place(n, aws_lc_rs::aead::Aad::empty(), &mut buf[..])
                .expect("open");
            black_box(&buf);
        });
        let aegis_ns = median_ns(|| {
            ctr += 1;
            let mut n = [0u8; 16];
            n[8..].copy_from_slice(&ctr.to_be_bytes());
            let tag = aegis::aegis128l::Aegis128L::<16>::new(&key128, &n)
                .encrypt_in_place(&mut buf[..len], &[]);
            aegis::aegis128l::Aegis128L::<16>::new(&key128, &n)
                .decrypt_in_place(&mut buf[..len], &tag, &[])
                .expect("open");
            black_box(&buf);
        });
        let x2_ns = median_ns(|| {
            ctr += 1;
            let mut n = [0u8; 16];
            n[8..].copy_from_slice(&ctr.to_be_bytes());
            let tag = aegis::aegis128x2::Aegis128X2::<16>::new(&key128, &n)
                .encrypt_in_place(&mut buf[..len], &[]);
            aegis::aegis128x2::Aegis128X2::<16>::new(&key128, &n)
                .decrypt_in_place(&mut buf[..len], &tag, &[])
                .expect("open");
            black_box(&buf);
        });
        let x4_ns = median_ns(|| {
            ctr += 1;
            let mut n = [0u8; 16];
            n[8..].copy_from_slice(&ctr.to_be_bytes());
            let tag = aegis::aegis128x4::Aegis128X4::<16>::new(&key128, &n)
                .encrypt_in_place(&mut buf[..len], &[]);
            aegis::aegis128x4::Aegis128X4::<16>::new(&key128, &n)
                .decrypt_in_place(&mut buf[..len], &tag, &[])
                .expect("open");
            black_box(&buf);
        });
        println!(
            "{len:>5}  {ring_ns:>16.0}  {lc_ns:>21.0}  {aegis_ns:>10.0}  {x2_ns:>11.0}  {x4_ns:>11.0}"
        );
    }
}
