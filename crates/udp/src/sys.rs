//! The few socket operations std does not offer: waiting for readability with
//! a fine-grained timeout, and socket buffer sizes.
//!
//! Why not `UdpSocket::set_read_timeout`? `SO_RCVTIMEO` is rounded up to the
//! kernel tick: on a `HZ=100`-ish kernel a 50 µs timeout sleeps ~8 ms, far too
//! coarse for pacing or for prompt retransmission timers. `ppoll(2)` uses
//! high-resolution timers (late by at most the thread's timer slack, 50 µs by
//! default).

use std::io;
use std::net::UdpSocket;
use std::os::unix::io::AsRawFd;
use std::time::Duration;

/// Waits until `sock` is readable (`write = false`) or writable (`write =
/// true`), or `timeout` has passed. Returns whether the socket is ready.
/// An interrupted wait returns `Ok(false)`.
pub(crate) fn wait(sock: &UdpSocket, timeout: Duration, write: bool) -> io::Result<bool> {
    let mut pfd = libc::pollfd {
        fd: sock.as_raw_fd(),
        events: if write { libc::POLLOUT } else { libc::POLLIN },
        revents: 0,
    };
    let r = poll_one(&mut pfd, timeout);
    if r < 0 {
        let e = io::Error::last_os_error();
        if e.kind() == io::ErrorKind::Interrupted {
            return Ok(false);
        }
        return Err(e);
    }
    Ok(r > 0)
}

#[cfg(any(target_os = "linux", target_os = "android", target_os = "freebsd"))]
fn poll_one(pfd: &mut libc::pollfd, timeout: Duration) -> libc::c_int {
    let ts = libc::timespec {
        tv_sec: timeout.as_secs().min(i32::MAX as u64) as libc::time_t,
        tv_nsec: timeout.subsec_nanos() as _,
    };
    // SAFETY: `pfd` points to one valid pollfd, `ts` to a valid timespec, and
    // a null signal mask means "leave the mask alone".
    unsafe { libc::ppoll(pfd, 1, &ts, std::ptr::null()) }
}

#[cfg(not(any(target_os = "linux", target_os = "android", target_os = "freebsd")))]
fn poll_one(pfd: &mut libc::pollfd, timeout: Duration) -> libc::c_int {
    // poll(2) takes milliseconds: round up so a short wait is not a busy loop.
    let ms = timeout.as_nanos().div_ceil(1_000_000).min(i32::MAX as u128) as libc::c_int;
    // SAFETY: `pfd` points to one valid pollfd.
    unsafe { libc::poll(pfd, 1, ms) }
}

/// Asks for `bytes` of receive and send buffer (the kernel may cap it at
/// `net.core.rmem_max` / `wmem_max`). Failures are ignored: the defaults
/// still work, only with more loss under bursts.
pub(crate) fn set_buffers(sock: &UdpSocket, bytes: usize) {
    if bytes == 0 {
        return;
    }
    let v = bytes.min(i32::MAX as usize) as libc::c_int;
    for opt in [libc::SO_RCVBUF, libc::SO_SNDBUF] {
        // SAFETY: the fd is a valid socket for the lifetime of `sock`, and we
        // pass a pointer to a c_int together with its size.
        unsafe {
            libc::setsockopt(
                sock.as_raw_fd(),
                libc::SOL_SOCKET,
                opt,
                &v as *const libc::c_int as *const libc::c_void,
                std::mem::size_of::<libc::c_int>() as libc::socklen_t,
            );
        }
    }
}

/// Lowers this thread's timer slack to 1 ns while alive (Linux), so that
/// timed waits end when asked instead of up to 50 µs later; the previous
/// value is restored on drop. A no-op elsewhere.
pub(crate) struct TimerSlack(#[allow(dead_code)] Option<libc::c_ulong>);

impl TimerSlack {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    pub(crate) fn fine() -> TimerSlack {
        // SAFETY: PR_GET/SET_TIMERSLACK take and return plain integers and
        // only affect the calling thread.
        unsafe {
            let old = libc::prctl(libc::PR_GET_TIMERSLACK, 0, 0, 0, 0);
            if old <= 0 {
                return TimerSlack(None);
            }
            libc::prctl(libc::PR_SET_TIMERSLACK, 1 as libc::c_ulong, 0, 0, 0);
            TimerSlack(Some(old as libc::c_ulong))
        }
    }
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    pub(crate) fn fine() -> TimerSlack {
        TimerSlack(None)
    }
}

impl Drop for TimerSlack {
    fn drop(&mut self) {
        #[cfg(any(target_os = "linux", target_os = "android"))]
        if let Some(old) = self.0 {
            // SAFETY: as in `fine`.
            unsafe {
                libc::prctl(libc::PR_SET_TIMERSLACK, old, 0, 0, 0);
            }
        }
    }
}
