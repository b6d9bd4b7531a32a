//! The receiver's output file (issue 34 item 4): an existing `--out` is
//! replaced only with `force`, and never when it is not a regular file; a
//! killed receiver's hidden part files are removed by the next receiver
//! into the same destination.

mod common;

use std::net::UdpSocket;
use std::os::unix::fs::symlink;
use std::path::Path;
use std::time::Duration;

use common::*;
use dropless_udp::secure::{Keys, Psk};
use dropless_udp::{recv_file_on, send_file, RecvOptions, SendOptions, TransferReport};

fn run(src: &Path, out: &Path, force: bool) -> anyhow::Result<TransferReport> {
    let psk = Keys::shared(Psk::from_bytes([51; 32]));
    let sock = UdpSocket::bind("127.0.0.1:0").unwrap();
    let addr = sock.local_addr().unwrap();
    let opts = RecvOptions {
        key: Some(psk.clone()),
        force,
        start_timeout: Some(Duration::from_secs(3)),
        linger: Duration::from_millis(100),
        ..recv_opts()
    };
    let o = out.to_path_buf();
    let h = std::thread::spawn(move || recv_file_on(sock, &o, &opts));
    let sopts = SendOptions {
        key: Some(psk),
        timeout: Duration::from_secs(2),
        ..Default::default()
    };
    let _ = send_file(src, addr, Box::new(FixedWindow(64.0)), &sopts);
    h.join().unwrap()
}

#[test]
fn an_existing_output_is_replaced_only_with_force() {
    let dir = TempDir::new("out-exists");
    let src = dir.path("src");
    write_random_file(&src, 50_000, 1);
    let out = dir.path("out");
    std::fs::write(&out, b"old").unwrap();
    let e = run(&src, &out, false).unwrap_err();
    assert!(format!("{e:#}").contains("--force"), "{e:#}");
    assert_eq!(std::fs::read(&out).unwrap(), b"old");
    run(&src, &out, true).unwrap();
    assert_same_file(&src, &out);
}

#[test]
fn a_link_or_a_fifo_at_the_output_is_never_replaced() {
    let dir = TempDir::new("out-link");
    let src = dir.path("src");
    write_random_file(&src, 50_000, 2);
    let victim = dir.path("victim");
    std::fs::write(&victim, b"precious").unwrap();
    let out = dir.path("out");
    symlink(&victim, &out).unwrap();
    for force in [false, true] {
        let e = run(&src, &out, force).unwrap_err();
        assert!(format!("{e:#}").contains("symbolic link"), "{e:#}");
    }
    assert_eq!(std::fs::read(&victim).unwrap(), b"precious");
    assert!(std::fs::symlink_metadata(&out)
        .unwrap()
        .file_type()
        .is_symlink());
    let fifo = dir.path("fifo");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: a valid C string.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let e = run(&src, &fifo, true).unwrap_err();
    assert!(format!("{e:#}").contains("FIFO"), "{e:#}");
}

#[test]
fn a_killed_receivers_part_file_is_removed_by_the_next() {
    let dir = TempDir::new("out-stale");
    let src = dir.path("src");
    write_random_file(&src, 50_000, 3);
    let stale = dir.path(".out.0badc0de.dropless-part");
    std::fs::write(&stale, vec![0u8; 10_000]).unwrap();
    let other = dir.path(".other.0badc0de.dropless-part");
    std::fs::write(&other, b"x").unwrap();
    run(&src, &dir.path("out"), false).unwrap();
    assert!(!stale.exists(), "the stale part file was removed");
    assert!(other.exists(), "another destination's is left alone");
    assert_same_file(&src, &dir.path("out"));
}
