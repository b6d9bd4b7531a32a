//! Directories in one session ([`dropless_udp::tree`], issue 34 item 4):
//! a tree arrives byte for byte with its names, modes and modification
//! times, and a hostile sender's names (`../x`, `/etc/x`, a path through a
//! symbolic link in the target) are refused by the receiver with nothing
//! written outside the target directory.

mod common;

use std::fs;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::Path;
use std::time::Duration;

use common::*;
use dropless_udp::secure::{Keys, Psk};
use dropless_udp::tree::{Entry, EntryKind, FileList};
use dropless_udp::{RecvOptions, SendOptions};

fn keyed(k: u8) -> (SendOptions, RecvOptions) {
    let psk = Keys::shared(Psk::from_bytes([k; 32]));
    (
        SendOptions {
            key: Some(psk.clone()),
            timeout: Duration::from_secs(3),
            ..Default::default()
        },
        RecvOptions {
            key: Some(psk),
            start_timeout: Some(Duration::from_secs(3)),
            ..recv_opts()
        },
    )
}

fn set_mtime(p: &Path, secs: i64, nsec: i64) {
    let f = fs::File::open(p).unwrap();
    let t = rustix::fs::Timespec {
        tv_sec: secs,
        tv_nsec: nsec as _,
    };
    rustix::fs::futimens(
        &f,
        &rustix::fs::Timestamps {
            last_access: t,
            last_modification: t,
        },
    )
    .unwrap();
}

/// A name under the root, its mode (with kind), mtime seconds and
/// nanoseconds, and a file's contents.
type Described = (String, u32, i64, i64, Option<Vec<u8>>);

/// Every name under `root` with kind, mode, mtime and (files) contents.
fn describe(root: &Path) -> Vec<Described> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            let m = fs::symlink_metadata(&p).unwrap();
            let rel = p.strip_prefix(root).unwrap().display().to_string();
            let data = if m.is_file() {
                Some(fs::read(&p).unwrap())
            } else {
                stack.push(p.clone());
                None
            };
            out.push((rel, m.mode(), m.mtime(), m.mtime_nsec(), data));
        }
    }
    out.sort();
    out
}

#[test]
fn a_directory_arrives_byte_for_byte_with_modes_and_times() {
    let _g = serial();
    let dir = TempDir::new("tree-copy");
    let src = dir.path("src");
    fs::create_dir_all(src.join("sub/deeper")).unwrap();
    fs::create_dir(src.join("empty")).unwrap();
    write_random_file(&src.join("a.bin"), 1_000_003, 1);
    write_random_file(&src.join("sub/b.bin"), 70_000, 2);
    write_random_file(&src.join("sub/deeper/c"), 1, 3);
    fs::write(src.join("zero"), b"").unwrap();
    fs::set_permissions(src.join("a.bin"), fs::Permissions::from_mode(0o640)).unwrap();
    fs::set_permissions(src.join("sub/b.bin"), fs::Permissions::from_mode(0o755)).unwrap();
    fs::set_permissions(src.join("sub/deeper"), fs::Permissions::from_mode(0o750)).unwrap();
    for (k, p) in [
        "a.bin",
        "sub/b.bin",
        "sub/deeper/c",
        "zero",
        "sub/deeper",
        "sub",
        "empty",
    ]
    .iter()
    .enumerate()
    {
        set_mtime(&src.join(p), 1_600_000_000 + k as i64 * 1000, 123_456_789);
    }
    let dst = dir.path("dst");
    let (s, r) = keyed(41);
    let o = transfer(&src, &dst, Box::new(FixedWindow(64.0)), &s, &r);
    o.send.unwrap();
    o.recv.unwrap();
    let (a, b) = (describe(&src), describe(&dst));
    assert_eq!(a.len(), 7);
    assert_eq!(a, b);
    // Nothing but the target beside it (no part file left).
    assert_eq!(dir.list(), vec!["dst".to_string(), "src".to_string()]);

    // Again into the same directory: every file exists, refused without
    // --force; replaced with it.
    // (One file removed first: the refusal comes before anything is
    // written, so it is not recreated.)
    fs::remove_file(dst.join("a.bin")).unwrap();
    let o = transfer(&src, &dst, Box::new(FixedWindow(64.0)), &s, &r);
    let e = o.recv.unwrap_err().to_string();
    assert!(e.contains("exists (add --force"), "{e}");
    assert!(!dst.join("a.bin").exists());
    let r = RecvOptions { force: true, ..r };
    let o = transfer(&src, &dst, Box::new(FixedWindow(64.0)), &s, &r);
    o.recv.unwrap();
    assert_eq!(describe(&src), describe(&dst));
}

#[test]
fn a_file_is_not_sent_into_a_directory_nor_a_directory_without_a_key() {
    let _g = serial();
    let dir = TempDir::new("tree-mismatch");
    let (src, dst) = (dir.path("in.bin"), dir.path("dst"));
    write_random_file(&src, 10_000, 4);
    fs::create_dir(&dst).unwrap();
    let (s, r) = keyed(42);
    let o = transfer(&src, &dst, Box::new(FixedWindow(64.0)), &s, &r);
    let e = o.recv.unwrap_err().to_string();
    assert!(
        e.contains("is a directory and the sender sends a file"),
        "{e}"
    );
    assert!(fs::read_dir(&dst).unwrap().next().is_none());

    let plain = SendOptions::default();
    let e = dropless_udp::send_file(
        &dir.0,
        "127.0.0.1:9".parse().unwrap(),
        Box::new(FixedWindow(4.0)),
        &plain,
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("a directory is sent with encryption only"),
        "{e}"
    );
}

/// A stream a hostile (but keyed) sender builds by hand: the honest sender
/// never names these.
fn hostile_stream(path: &Path, names: &[&str]) {
    let list = FileList {
        entries: names
            .iter()
            .map(|n| Entry {
                kind: EntryKind::File,
                name: n.as_bytes().to_vec(),
                mode: 0o644,
                mtime: 0,
                mtime_nsec: 0,
                size: 4,
            })
            .collect(),
    };
    let mut b = list.encode().unwrap();
    for _ in names {
        b.extend_from_slice(b"EVIL");
    }
    fs::write(path, b).unwrap();
}

#[test]
fn names_escaping_the_target_are_refused_with_nothing_written_outside() {
    let _g = serial();
    let dir = TempDir::new("tree-hostile");
    let dst = dir.path("box/dst");
    fs::create_dir_all(&dst).unwrap();
    // A link inside the target that points out of it.
    let outside = dir.path("outside");
    fs::create_dir(&outside).unwrap();
    std::os::unix::fs::symlink(&outside, dst.join("link")).unwrap();
    let (s, r) = keyed(43);
    let s = SendOptions { tree: true, ..s };
    let abs = format!("{}/x", outside.display());
    let cases: [&[&str]; 5] = [
        &["ok", "../x"],
        &["/etc/x"],
        &[&abs],
        &["a/../../x"],
        &["link/x"],
    ];
    for (k, names) in cases.iter().enumerate() {
        let stream = dir.path(&format!("stream{k}"));
        hostile_stream(&stream, names);
        let o = transfer(&stream, &dst, Box::new(FixedWindow(64.0)), &s, &r);
        let e = format!("{:#}", o.recv.unwrap_err());
        assert!(
            e.contains("refused") || e.contains("link"),
            "{names:?}: {e}"
        );
        // Nothing outside, nothing new inside (the list is refused
        // before anything is written, or the link is not followed).
        assert!(
            fs::read_dir(&outside).unwrap().next().is_none(),
            "{names:?}"
        );
        assert!(!dir.path("box/x").exists() && !dir.path("x").exists());
        let mut inside: Vec<_> = fs::read_dir(&dst)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        inside.sort();
        assert_eq!(inside, vec!["link"], "{names:?}");
        // And no part file left beside the target.
        assert_eq!(
            fs::read_dir(dir.path("box")).unwrap().count(),
            1,
            "{names:?}"
        );
    }
}
