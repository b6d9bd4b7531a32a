//! `dropless send` / `dropless recv` over loopback, and `dropless model`.

use std::process::{Command, Stdio};

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_dropless")
}

fn free_port() -> u16 {
    std::net::UdpSocket::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

#[test]
fn send_and_recv_move_a_file_byte_identical() {
    let dir = std::env::temp_dir().join(format!("dropless-cli-transfer-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let src = dir.join("src.bin");
    let dst = dir.join("dst.bin");
    // 3 MB of xorshift bytes.
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    let data: Vec<u8> = (0..3_000_000)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect();
    std::fs::write(&src, &data).unwrap();
    for cc in ["newreno", "fast"] {
        let _ = std::fs::remove_file(&dst);
        let addr = format!("127.0.0.1:{}", free_port());
        let mut rx = Command::new(bin())
            .args(["recv", &addr, "--out"])
            .arg(&dst)
            .args(["--timeout", "20"])
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(200));
        let tx = Command::new(bin())
            .arg("send")
            .arg(&src)
            .arg(&addr)
            .args(["--cc", cc])
            .output()
            .unwrap();
        assert!(
            tx.status.success(),
            "{cc}: {}",
            String::from_utf8_lossy(&tx.stderr)
        );
        let out = String::from_utf8_lossy(&tx.stdout);
        assert!(out.contains("3000000 bytes"), "{out}");
        assert!(out.contains(cc), "{out}");
        assert!(rx.wait().unwrap().success());
        assert!(std::fs::read(&dst).unwrap() == data, "{cc}: file differs");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn send_rejects_unknown_controllers_and_parameters() {
    let out = Command::new(bin())
        .args(["send", "Cargo.toml", "127.0.0.1:9", "--cc", "rneo"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(e.contains("--cc") && e.contains("newreno"), "{e}");
    let out = Command::new(bin())
        .args([
            "send",
            "Cargo.toml",
            "127.0.0.1:9",
            "--cc",
            "fast",
            "--param",
            "alpha=x",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--param alpha"));
}

#[test]
fn model_fast_prints_the_thesis_equilibria() {
    let out = Command::new(bin())
        .args([
            "model",
            "fast",
            "persistent",
            "--flows",
            "2",
            "--alpha",
            "200",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    let s = String::from_utf8_lossy(&out.stdout);
    // Two FAST flows: queue 523.6 packets (thesis Appendix B1 theory).
    assert!(s.contains("523.6"), "{s}");
    let bad = Command::new(bin())
        .args(["model", "fast", "nonsense"])
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
}
