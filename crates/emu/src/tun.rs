//! The shell around two [`Link`]s: two TUN devices and one event loop.
//!
//! Packets the kernel routes into TUN device `a` go through the `a -> b`
//! link and are written into device `b`, which hands them to its network
//! stack as if they had arrived from a wire; the reverse direction likewise.
//! Put each device in its own network namespace (the devices can be moved
//! while open, see `scripts/netns-path.sh`) and the two namespaces talk over
//! the emulated path.

use std::fs::File;
use std::io::{self, Read, Write};
use std::os::fd::{AsRawFd, FromRawFd};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use anyhow::{bail, Context};
use dropless_cc::Time;

use crate::Link;

/// A TUN device (IP packets, no packet-information header).
pub struct Tun {
    file: File,
    name: String,
}

impl Tun {
    /// Creates (or attaches to) the TUN device `name`; needs CAP_NET_ADMIN.
    pub fn create(name: &str) -> anyhow::Result<Tun> {
        if name.is_empty() || name.len() >= libc::IFNAMSIZ {
            bail!(
                "TUN device name {name:?}: expected 1 to {} bytes",
                libc::IFNAMSIZ - 1
            );
        }
        let path = c"/dev/net/tun";
        // SAFETY: opening a path given as a valid C string.
        let fd = unsafe {
            libc::open(
                path.as_ptr(),
                libc::O_RDWR | libc::O_NONBLOCK | libc::O_CLOEXEC,
            )
        };
        if fd < 0 {
            return Err(io::Error::last_os_error()).context("opening /dev/net/tun");
        }
        // SAFETY: `fd` is a freshly opened descriptor we own.
        let file = unsafe { File::from_raw_fd(fd) };
        // SAFETY: ifreq is plain old data; all-zero is a valid value.
        let mut req: libc::ifreq = unsafe { std::mem::zeroed() };
        for (d, s) in req.ifr_name.iter_mut().zip(name.bytes()) {
            *d = s as libc::c_char;
        }
        req.ifr_ifru.ifru_flags = (libc::IFF_TUN | libc::IFF_NO_PI) as libc::c_short;
        // SAFETY: TUNSETIFF takes a pointer to an ifreq, valid for the call.
        if unsafe { libc::ioctl(file.as_raw_fd(), libc::TUNSETIFF, &mut req) } < 0 {
            return Err(io::Error::last_os_error())
                .with_context(|| format!("creating TUN device {name} (needs root)"));
        }
        Ok(Tun {
            file,
            name: name.to_string(),
        })
    }

    /// The device's name.
    pub fn name(&self) -> &str {
        &self.name
    }
}

/// Set by SIGINT/SIGTERM: the loop ends and [`run`] returns the counters.
static STOP: AtomicBool = AtomicBool::new(false);

extern "C" fn on_signal(_: libc::c_int) {
    STOP.store(true, Ordering::Relaxed);
}

/// Moves packets `a -> b` through `ab` and `b -> a` through `ba` until
/// SIGINT or SIGTERM (the links' counters then say what happened).
///
/// Within `spin` of the next delivery the loop polls the devices without
/// sleeping. A timed sleep wakes late: on the 2-core VM this was written on,
/// with a sender and a receiver on the same machine, by a median 7-10 us
/// and a 99th percentile of 24-700 us (varying from run to run and hour to
/// hour; up to 6 ms at most), which compresses and stretches the spacing of
/// packets behind the link. Spinning the last 100 us brought it to a median
/// 0.4 us and a 99th percentile of 10-20 us in every run
/// ([`Link::lateness`] measures it in every run). Running the loop at
/// real-time priority instead was tried and not kept: it cut the 99th
/// percentile only to 40-130 us, and together with spinning it let the
/// kernel's real-time throttling stop the loop for tens of milliseconds.
pub fn run(
    a: &mut Tun,
    b: &mut Tun,
    ab: &mut Link,
    ba: &mut Link,
    spin: Time,
) -> anyhow::Result<()> {
    // SAFETY: installing a handler that only stores to an atomic.
    unsafe {
        libc::signal(
            libc::SIGINT,
            on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t,
        );
        libc::signal(
            libc::SIGTERM,
            on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t,
        );
    }
    // Timed waits end when asked, not up to the default 50 us timer slack
    // later: a late wake-up delays a delivery, and packet spacing (a packet
    // pair's dispersion, 117 us at 100 Mb/s) would carry that jitter.
    // SAFETY: PR_SET_TIMERSLACK takes a plain integer and affects only this
    // thread.
    unsafe {
        libc::prctl(libc::PR_SET_TIMERSLACK, 1 as libc::c_ulong, 0, 0, 0);
    }
    let start = Instant::now();
    let now = || start.elapsed().as_nanos() as Time;
    let mut buf = vec![0u8; 65_536];
    while !STOP.load(Ordering::Relaxed) {
        // Deliver what is due.
        let t = now();
        deliver(ab, b, t)?;
        deliver(ba, a, t)?;
        // Wait for packets or the next delivery.
        let next = [ab.next_delivery(), ba.next_delivery()]
            .into_iter()
            .flatten()
            .min();
        let mut timeout_ns = next.map_or(100_000_000, |d| d.saturating_sub(now()).min(100_000_000));
        if timeout_ns <= spin {
            // Close to a delivery: poll without sleeping.
            timeout_ns = 0;
        } else {
            timeout_ns -= spin;
        }
        let mut fds = [
            libc::pollfd {
                fd: a.file.as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            },
            libc::pollfd {
                fd: b.file.as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            },
        ];
        let ts = libc::timespec {
            tv_sec: (timeout_ns / 1_000_000_000) as libc::time_t,
            tv_nsec: (timeout_ns % 1_000_000_000) as _,
        };
        // SAFETY: two valid pollfds, a valid timespec, no signal mask change.
        let r = unsafe { libc::ppoll(fds.as_mut_ptr(), 2, &ts, std::ptr::null()) };
        if r < 0 {
            let e = io::Error::last_os_error();
            if e.kind() == io::ErrorKind::Interrupted {
                continue;
            }
            return Err(e).context("waiting for packets");
        }
        if fds[0].revents != 0 {
            ingest(a, ab, &mut buf, &now)?;
        }
        if fds[1].revents != 0 {
            ingest(b, ba, &mut buf, &now)?;
        }
    }
    Ok(())
}

/// Reads every packet waiting on `tun` into `link`.
fn ingest(
    tun: &mut Tun,
    link: &mut Link,
    buf: &mut [u8],
    now: &dyn Fn() -> Time,
) -> anyhow::Result<()> {
    loop {
        match tun.file.read(buf) {
            Ok(0) => return Ok(()),
            Ok(n) => {
                let mut p = link.buffer();
                p.extend_from_slice(&buf[..n]);
                link.push(now(), p);
            }
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(()),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e).with_context(|| format!("reading from {}", tun.name)),
        }
    }
}

/// Writes every packet `link` has due by `now` into `tun`. A packet the
/// device refuses (its queue full, or the interface down) is lost, as on a
/// wire.
fn deliver(link: &mut Link, tun: &mut Tun, now: Time) -> anyhow::Result<()> {
    while let Some(p) = link.pop(now) {
        match tun.file.write(&p) {
            Ok(_) => {}
            Err(e)
                if matches!(
                    e.raw_os_error(),
                    Some(libc::EAGAIN) | Some(libc::ENOBUFS) | Some(libc::EIO) | Some(libc::EINVAL)
                ) => {}
            Err(e) => return Err(e).with_context(|| format!("writing to {}", tun.name)),
        }
        link.recycle(p);
    }
    Ok(())
}
