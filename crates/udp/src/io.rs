//! Datagram I/O through `quinn-udp`: segmentation offload (GSO) out, receive
//! offload (GRO) in, where the platform has them.
//!
//! Sending one `sendmsg` per 1458-byte datagram costs the sender a system
//! call per packet; at 1.5 Gb/s on loopback that was all of one core (2.6 s
//! of system time in 3 s). With GSO the kernel takes up to 64 equal-sized
//! datagrams in one call and splits them itself; with GRO the receiver gets
//! consecutive datagrams of a flow in one buffer, `stride` bytes apart.
//! `quinn-udp` (the UDP layer of the quinn QUIC stack) does both, falls back
//! to one datagram per call where they are missing, and also sets the
//! socket to never fragment (IP_PMTUDISC_PROBE): a datagram larger than the
//! interface MTU is an error instead of a train of IP fragments.

use std::io;
use std::net::{SocketAddr, UdpSocket};

use dropless_cc::Time;
use dropless_transport::Ecn;
use quinn_udp::{EcnCodepoint, RecvMeta, Transmit, UdpSocketState};

use crate::{sys, MAX_WAIT};

/// A non-blocking UDP socket with its offload state.
pub(crate) struct Socket {
    pub(crate) sock: UdpSocket,
    state: UdpSocketState,
}

impl Socket {
    /// Takes over `sock` (made non-blocking, GRO enabled where possible).
    pub(crate) fn new(sock: UdpSocket) -> io::Result<Socket> {
        let state = UdpSocketState::new((&sock).into())?;
        let s = Socket { sock, state };
        // The first SIOCGSTAMPNS turns the socket's receive timestamps on
        // (the kernel does it asynchronously, within milliseconds). Made
        // now, not after the first datagram, it lets the first datagrams be
        // timed too: before, the first packet pair of a connection got the
        // times the loop read its two packets, and TCP-Madison's first
        // capacity estimate came from that pair.
        s.last_arrival_realtime();
        Ok(s)
    }

    /// When the kernel received the datagram last read, as nanoseconds of
    /// `CLOCK_REALTIME` (Linux `SIOCGSTAMPNS`; the first call turns receive
    /// timestamps on, which [`Socket::new`] does). Unlike the
    /// time the event loop gets to a datagram, this does not depend on when
    /// the loop woke up, which is what timing a packet pair needs.
    pub(crate) fn last_arrival_realtime(&self) -> Option<u64> {
        #[cfg(any(target_os = "linux", target_os = "android"))]
        {
            /// `SIOCGSTAMPNS` of `asm-generic/sockios.h` (not in libc).
            const SIOCGSTAMPNS: libc::c_ulong = 0x8907;
            let mut ts = libc::timespec {
                tv_sec: 0,
                tv_nsec: 0,
            };
            // SAFETY: a valid socket and a pointer to a timespec the ioctl
            // fills.
            let r = unsafe {
                libc::ioctl(
                    std::os::fd::AsRawFd::as_raw_fd(&self.sock),
                    SIOCGSTAMPNS as _,
                    &mut ts,
                )
            };
            if r == 0 && ts.tv_sec > 0 {
                return Some(ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64);
            }
        }
        None
    }

    /// Most datagrams one [`Socket::send`] may carry (1 without GSO).
    pub(crate) fn max_segments(&self) -> usize {
        self.state.max_gso_segments().max(1)
    }

    /// A receive buffer large enough for one GRO batch of datagrams of at
    /// most `datagram` bytes.
    pub(crate) fn recv_buffer(&self, datagram: usize) -> Vec<u8> {
        vec![0u8; (self.state.gro_segments().max(1) * datagram).max(1 << 16)]
    }

    /// Sends `contents`, datagrams of `segment` bytes each (the last may be
    /// shorter), to `dest` in one system call, waiting while the socket
    /// buffer is full. Errors other than a full buffer are returned as the
    /// kernel gave them.
    pub(crate) fn send(
        &self,
        dest: SocketAddr,
        contents: &[u8],
        segment: usize,
        ecn: Ecn,
    ) -> io::Result<()> {
        let t = Transmit {
            destination: dest,
            ecn: match ecn {
                Ecn::NotEct => None,
                Ecn::Ect0 => Some(EcnCodepoint::Ect0),
                Ecn::Ect1 => Some(EcnCodepoint::Ect1),
                Ecn::Ce => Some(EcnCodepoint::Ce),
            },
            contents,
            segment_size: (contents.len() > segment).then_some(segment),
            src_ip: None,
        };
        loop {
            match self.state.try_send((&self.sock).into(), &t) {
                Ok(()) => return Ok(()),
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    sys::wait(&self.sock, MAX_WAIT, true)?;
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
    }

    /// Copies the next waiting datagram (or GRO buffer) into `buf` without
    /// taking it off the socket, with its sender; `None` when nothing is
    /// waiting.
    pub(crate) fn peek(&self, buf: &mut [u8]) -> io::Result<Option<(usize, SocketAddr)>> {
        // SAFETY: `MaybeUninit<u8>` has the layout of `u8`, and the kernel
        // only writes initialised bytes into it.
        let uninit = unsafe {
            std::slice::from_raw_parts_mut(
                buf.as_mut_ptr().cast::<std::mem::MaybeUninit<u8>>(),
                buf.len(),
            )
        };
        // The socket is non-blocking (quinn-udp makes it so).
        match socket2::SockRef::from(&self.sock).peek_from(uninit) {
            Ok((n, from)) => Ok(from.as_socket().map(|a| (n, a))),
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// Receives one buffer of datagrams into `buf`: the datagrams are
    /// `buf[..len].chunks(stride)`, all from `src` with the IP header's ECN
    /// codepoint `ecn` (GRO merges only datagrams with equal headers).
    /// `None` when nothing is waiting.
    pub(crate) fn recv(&self, buf: &mut [u8]) -> io::Result<Option<Received>> {
        let mut meta = [RecvMeta::default()];
        let mut bufs = [io::IoSliceMut::new(buf)];
        match self.state.recv((&self.sock).into(), &mut bufs, &mut meta) {
            Ok(0) => Ok(None),
            Ok(_) => {
                let m = meta[0];
                let stride = if m.stride == 0 { m.len } else { m.stride };
                Ok(Some(Received {
                    src: m.addr,
                    len: m.len,
                    stride: stride.max(1),
                    ecn: match m.ecn {
                        None => Ecn::NotEct,
                        Some(EcnCodepoint::Ect0) => Ecn::Ect0,
                        Some(EcnCodepoint::Ect1) => Ecn::Ect1,
                        Some(EcnCodepoint::Ce) => Ecn::Ce,
                    },
                }))
            }
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => Ok(None),
            Err(e) => Err(e),
        }
    }
}

/// Places the kernel's receive timestamps ([`Socket::last_arrival_realtime`])
/// on the loop's time line.
pub(crate) struct ArrivalClock {
    /// `CLOCK_REALTIME` minus the loop's clock, in nanoseconds (differences
    /// between timestamps, such as a pair's dispersion, do not depend on it).
    offset: u64,
    /// The last time handed out.
    last: Time,
}

impl ArrivalClock {
    /// Calibrated against the loop's clock reading `now`.
    pub(crate) fn new(now: Time) -> ArrivalClock {
        let rt = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64);
        ArrivalClock {
            offset: rt.saturating_sub(now),
            last: 0,
        }
    }

    /// When the datagram just read from `socket` (at `read_at`) arrived:
    /// its kernel timestamp, kept within `[max(floor, previous), read_at]`
    /// so that time never runs backwards for the endpoint it is given to
    /// (`floor`: the latest time already passed to it) nor into the future;
    /// `read_at` without a timestamp.
    pub(crate) fn stamp(&mut self, socket: &Socket, read_at: Time, floor: Time) -> Time {
        let t = match socket.last_arrival_realtime() {
            Some(rt) => self.place(rt, read_at, floor),
            None => read_at,
        };
        self.last = t;
        t
    }

    fn place(&self, rt: u64, read_at: Time, floor: Time) -> Time {
        rt.saturating_sub(self.offset)
            .clamp(floor.max(self.last).min(read_at), read_at)
    }
}

/// What one [`Socket::recv`] got.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Received {
    /// Sender of every datagram in the buffer.
    pub(crate) src: SocketAddr,
    /// Bytes in the buffer.
    pub(crate) len: usize,
    /// Datagram size (the last may be shorter).
    pub(crate) stride: usize,
    /// ECN codepoint of the IP header (Not-ECT where it cannot be read).
    pub(crate) ecn: Ecn,
}

/// Outgoing datagrams gathered for one [`Socket::send`]: all but the last of
/// the same size, at most `max` of them and 64 KB in all (the limit of one
/// GSO send).
pub(crate) struct Batch {
    buf: Vec<u8>,
    segment: usize,
    count: usize,
    max: usize,
    /// The last datagram was shorter than `segment`: nothing may follow.
    closed: bool,
    /// The reordering test hook's datagram ([`Batch::hold`]) and how many
    /// more datagrams go before it.
    held: Option<(Vec<u8>, u32)>,
}

/// Largest total of one GSO send (a UDP payload length is 16 bits).
const GSO_BYTES: usize = 65_000;

impl Batch {
    /// A batch for datagrams of up to `datagram` bytes on `socket`.
    /// With `gso` false every datagram is sent by itself.
    pub(crate) fn new(socket: &Socket, datagram: usize, gso: bool) -> Batch {
        Batch::with_max(if gso { socket.max_segments() } else { 1 }, datagram)
    }

    /// A batch of at most `max` datagrams of up to `datagram` bytes.
    fn with_max(max: usize, datagram: usize) -> Batch {
        let max = max.min(GSO_BYTES / datagram.max(1)).max(1);
        Batch {
            buf: Vec::with_capacity(max * datagram),
            segment: 0,
            count: 0,
            max,
            closed: false,
            held: None,
        }
    }

    /// Whether a datagram of `len` bytes can join the batch; if not, send
    /// the batch first ([`Batch::flush`]).
    pub(crate) fn fits(&self, len: usize) -> bool {
        self.count == 0 || !(self.closed || self.count == self.max || len > self.segment)
    }

    /// Room for a datagram of `len` bytes at the end of the batch (which
    /// must [fit](Batch::fits)). Fill it, then call [`Batch::commit`] or
    /// [`Batch::discard`].
    pub(crate) fn slot(&mut self, len: usize) -> &mut [u8] {
        debug_assert!(self.fits(len));
        let at = self.buf.len();
        self.buf.resize(at + len, 0);
        &mut self.buf[at..]
    }

    /// Keeps the datagram written into the last [`Batch::slot`].
    pub(crate) fn commit(&mut self, len: usize) {
        self.commit_one(len);
        if let Some((_, left)) = &mut self.held {
            *left = left.saturating_sub(1);
            if *left == 0 {
                self.release();
            }
        }
    }

    fn commit_one(&mut self, len: usize) {
        if self.count == 0 {
            self.segment = len;
        } else if len < self.segment {
            self.closed = true;
        }
        self.count += 1;
    }

    /// Forgets the datagram written into the last [`Batch::slot`] (the loss
    /// test hook).
    pub(crate) fn discard(&mut self, len: usize) {
        self.buf.truncate(self.buf.len() - len);
    }

    /// **Test hook** (reordering): holds the datagram written into the
    /// last [`Batch::slot`] back until `behind` more datagrams have joined
    /// the batch, or until the batch is sent, whichever comes first (so it
    /// is reordered by at most `behind` positions and never delayed past
    /// the sender's current burst). One at a time: a second is committed.
    pub(crate) fn hold(&mut self, len: usize, behind: u32) {
        if self.held.is_some() {
            self.commit(len);
            return;
        }
        let d = self.buf.split_off(self.buf.len() - len);
        self.held = Some((d, behind));
    }

    /// Appends the held datagram if it fits.
    fn release(&mut self) -> bool {
        let Some((d, _)) = self.held.take() else {
            return true;
        };
        if !self.fits(d.len()) {
            self.held = Some((d, 0));
            return false;
        }
        let len = d.len();
        self.slot(len).copy_from_slice(&d);
        self.commit_one(len);
        true
    }

    /// Sends what is gathered.
    pub(crate) fn flush(&mut self, socket: &Socket, dest: SocketAddr, ecn: Ecn) -> io::Result<()> {
        if !self.release() {
            // The held datagram did not fit: the batch, then it alone.
            self.send_gathered(socket, dest, ecn)?;
            self.release();
        }
        self.send_gathered(socket, dest, ecn)
    }

    fn send_gathered(&mut self, socket: &Socket, dest: SocketAddr, ecn: Ecn) -> io::Result<()> {
        if self.count == 0 {
            return Ok(());
        }
        let r = socket.send(dest, &self.buf, self.segment, ecn);
        self.buf.clear();
        self.count = 0;
        self.closed = false;
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn push(b: &mut Batch, len: usize, byte: u8) {
        assert!(b.fits(len));
        b.slot(len).fill(byte);
        b.commit(len);
    }

    #[test]
    fn kernel_timestamps_map_onto_the_loop_clock_within_bounds() {
        // Realtime 1_000_000 ns ahead of the loop's clock.
        let mut c = ArrivalClock {
            offset: 1_000_000,
            last: 0,
        };
        assert_eq!(c.place(1_000_500, 900, 0), 500);
        // Never after the read, never before the floor or the previous time.
        assert_eq!(c.place(1_002_000, 900, 0), 900);
        assert_eq!(c.place(1_000_100, 900, 400), 400);
        c.last = 450;
        assert_eq!(c.place(1_000_100, 900, 400), 450);
        // A floor after the read (cannot happen) yields the read.
        assert_eq!(c.place(1_000_100, 300, 400), 300);
    }

    /// The very first datagram a socket receives carries its kernel
    /// timestamp too: the first packet pair of a connection is timed like
    /// every other (TCP-Madison takes its first capacity estimate from it).
    #[cfg(target_os = "linux")]
    #[test]
    fn the_first_datagram_is_timestamped_on_arrival() {
        let rx = Socket::new(UdpSocket::bind("127.0.0.1:0").unwrap()).unwrap();
        let tx = UdpSocket::bind("127.0.0.1:0").unwrap();
        // The kernel turns timestamping on asynchronously (a deferred
        // static key); a receiver starts well before its first datagram.
        std::thread::sleep(std::time::Duration::from_millis(100));
        tx.send_to(b"first", rx.sock.local_addr().unwrap()).unwrap();
        std::thread::sleep(std::time::Duration::from_millis(50));
        let mut buf = rx.recv_buffer(100);
        let got = rx.recv(&mut buf).unwrap().expect("a datagram is waiting");
        assert_eq!(&buf[..got.len], b"first");
        let read = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos() as u64;
        let stamp = rx
            .last_arrival_realtime()
            .expect("the first datagram has a kernel timestamp");
        // Sent 50 ms before it was read: the stamp is the arrival, not the
        // read (that is, not within 40 ms of the read).
        let before = read as i128 - stamp as i128;
        assert!(
            before >= 40_000_000,
            "stamped {} ms before the read",
            before as f64 / 1e6
        );
    }

    #[test]
    fn batch_takes_equal_datagrams_then_one_shorter_and_respects_its_limits() {
        let mut b = Batch::with_max(4, 100);
        push(&mut b, 100, 1);
        push(&mut b, 100, 2);
        assert!(!b.fits(101), "a longer datagram cannot join");
        assert!(b.fits(100) && b.fits(40));
        push(&mut b, 40, 3);
        assert!(!b.fits(40) && !b.fits(100), "nothing follows a short one");
        assert_eq!(b.buf.len(), 240);
        // The count limit, and the 64 KB limit of one send.
        let mut b = Batch::with_max(2, 100);
        push(&mut b, 100, 0);
        push(&mut b, 100, 0);
        assert!(!b.fits(100));
        assert_eq!(Batch::with_max(64, 1430).max, 45);
        assert_eq!(Batch::with_max(64, 70_000).max, 1);
        // A discarded datagram leaves no trace.
        let mut b = Batch::with_max(4, 100);
        push(&mut b, 100, 1);
        b.slot(100).fill(9);
        b.discard(100);
        push(&mut b, 100, 2);
        assert_eq!(b.count, 2);
        assert!(b.buf[..100].iter().all(|&x| x == 1) && b.buf[100..].iter().all(|&x| x == 2));
    }

    /// Through real loopback sockets, with GSO and GRO where the kernel has
    /// them: every datagram arrives whole, in order, with its boundaries.
    #[test]
    fn batches_arrive_as_the_datagrams_they_were() {
        let rx = Socket::new(UdpSocket::bind("127.0.0.1:0").unwrap()).unwrap();
        let tx = Socket::new(UdpSocket::bind("127.0.0.1:0").unwrap()).unwrap();
        let dest = rx.sock.local_addr().unwrap();
        let mut b = Batch::new(&tx, 1000, true);
        let mut sent = Vec::new();
        // Three batches: 30 full + 1 short; 5 full; 1 short alone.
        for (i, len) in (0..30)
            .map(|_| 1000)
            .chain([700])
            .chain((0..5).map(|_| 1000))
            .chain([10])
            .enumerate()
        {
            if !b.fits(len) {
                b.flush(&tx, dest, Ecn::Ect0).unwrap();
            }
            b.slot(len).fill(i as u8);
            b.commit(len);
            sent.push((i as u8, len));
        }
        b.flush(&tx, dest, Ecn::Ect0).unwrap();
        let mut buf = rx.recv_buffer(1000);
        let mut got = Vec::new();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
        while got.len() < sent.len() && std::time::Instant::now() < deadline {
            match rx.recv(&mut buf).unwrap() {
                Some(r) => {
                    assert_eq!(r.src, tx.sock.local_addr().unwrap());
                    // The IP header's ECN field made the round trip.
                    assert_eq!(r.ecn, Ecn::Ect0);
                    for d in buf[..r.len].chunks(r.stride) {
                        assert!(d.iter().all(|&x| x == d[0]), "datagram mixed up");
                        got.push((d[0], d.len()));
                    }
                }
                None => {
                    sys::wait(&rx.sock, std::time::Duration::from_millis(50), false).unwrap();
                }
            }
        }
        assert_eq!(got, sent);
    }
}
