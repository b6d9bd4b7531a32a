//! The sending event loop.

use std::fs::File;
use std::io;
use std::net::{SocketAddr, UdpSocket};
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::time::Duration;

use anyhow::{bail, Context};
use dropless_cc::Controller;
use dropless_transport::{DataPacket, Sender, SenderConfig};
use dropless_wire::{decode, encode_data, Decoded, DATA_HEADER_LEN};

use crate::{
    check_mss, nanos, random_u32, sys, wire_overhead, Clock, SendOptions, TransferReport, MAX_WAIT,
};

/// Sends the file at `path` to a receiver at `peer`, with congestion
/// control by `controller` (build it with [`crate::conn_info`]`(opts.mss)`).
///
/// Binds a socket as [`SendOptions::bind`] says, then runs
/// [`send_file_on`]. Returns when the receiver has acknowledged the whole
/// file, or fails after [`SendOptions::timeout`] without progress.
pub fn send_file(
    path: &Path,
    peer: SocketAddr,
    controller: Box<dyn Controller>,
    opts: &SendOptions,
) -> anyhow::Result<TransferReport> {
    let bind = opts.bind.unwrap_or_else(|| match peer {
        SocketAddr::V4(_) => SocketAddr::from(([0, 0, 0, 0], 0)),
        SocketAddr::V6(_) => SocketAddr::from(([0u16; 8], 0)),
    });
    let socket = UdpSocket::bind(bind).with_context(|| format!("binding {bind}"))?;
    send_file_on(socket, path, peer, controller, opts)
}

/// Like [`send_file`] on an already bound socket ([`SendOptions::bind`] is
/// ignored). The socket is connected to `peer` and made non-blocking.
pub fn send_file_on(
    socket: UdpSocket,
    path: &Path,
    peer: SocketAddr,
    controller: Box<dyn Controller>,
    opts: &SendOptions,
) -> anyhow::Result<TransferReport> {
    check_mss(opts.mss)?;
    let file = File::open(path).with_context(|| format!("opening {}", path.display()))?;
    let size = file
        .metadata()
        .with_context(|| format!("reading metadata of {}", path.display()))?
        .len();
    socket
        .connect(peer)
        .with_context(|| format!("connecting to {peer}"))?;
    socket.set_nonblocking(true)?;
    sys::set_buffers(&socket, opts.socket_buffer);

    let cfg = SenderConfig {
        conn: opts.conn_id.unwrap_or_else(random_u32),
        mss: opts.mss,
        header: wire_overhead(),
        total_bytes: Some(size),
        initial_rto: opts.initial_rto.as_nanos() as u64,
        min_rto: opts.min_rto.as_nanos() as u64,
        max_window: opts.max_window.max(1),
        prr: opts.prr,
        ..SenderConfig::default()
    };
    let mss = opts.mss as u64;
    let _slack = sys::TimerSlack::fine();
    let clock = Clock::start();
    let mut sender = Sender::new(cfg, controller, clock.now());
    let start = clock.now();
    let mut payload = vec![0u8; opts.mss as usize];
    let mut out = vec![0u8; DATA_HEADER_LEN + opts.mss as usize];
    let mut ack_buf = [0u8; 2048];
    let mut report = TransferReport {
        controller: sender.controller().name(),
        ..Default::default()
    };
    let mut tx_count = 0u64;
    let mut progress = (0u64, start); // (packets delivered, when it last grew)
    let mut last_refused = false;
    let timeout = opts.timeout.as_nanos() as u64;

    let mut transmit = |p: &DataPacket, report: &mut TransferReport| -> anyhow::Result<()> {
        let len = p.len as usize;
        file.read_exact_at(&mut payload[..len], p.seq * mss)
            .with_context(|| format!("reading {} at offset {}", path.display(), p.seq * mss))?;
        let n = encode_data(p, &payload[..len], &mut out)?;
        tx_count += 1;
        if opts
            .debug_drop_every
            .is_some_and(|k| k > 0 && tx_count % k == 0)
        {
            report.debug_dropped += 1;
            return Ok(());
        }
        send_datagram(&socket, &out[..n])
    };

    loop {
        let now = clock.now();
        if sender.poll_timeout().is_some_and(|t| t <= now) {
            sender.handle_timeout(now);
        }
        while let Some(p) = sender.poll_transmit(now) {
            transmit(&p, &mut report)?;
        }
        if sender.is_done() {
            break;
        }
        let delivered = sender.stats().packets_delivered;
        if delivered > progress.0 {
            progress = (delivered, now);
        } else if now - progress.1 > timeout {
            bail!(
                "no progress for {:.1} s: {} of {} bytes acknowledged{}",
                nanos(now - progress.1).as_secs_f64(),
                sender.stats().bytes_acked,
                size,
                if last_refused {
                    " (the peer refuses datagrams: is a receiver listening?)"
                } else {
                    ""
                }
            );
        }

        // Wait for ACKs until the sender's next deadline. The pacer does not
        // make up for a late wake-up, so sleep until SPIN before the deadline
        // and poll the socket for the rest of the time.
        let now = clock.now();
        let wait = match sender.poll_timeout() {
            Some(t) => nanos(t.saturating_sub(now)).min(MAX_WAIT),
            None => MAX_WAIT,
        };
        if wait > SPIN {
            sys::wait(&socket, wait - SPIN, false)?;
        } else if wait > Duration::ZERO {
            std::hint::spin_loop();
        }
        // Drain every ACK that is there.
        loop {
            match socket.recv(&mut ack_buf) {
                Ok(n) => {
                    last_refused = false;
                    if let Ok(Decoded::Ack(a)) = decode(&ack_buf[..n]) {
                        if a.conn == sender.config().conn {
                            report.acks += 1;
                            sender.handle_ack(clock.now(), &a);
                        }
                    }
                    // Anything else (garbage, data, other connections): ignored.
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) if e.kind() == io::ErrorKind::ConnectionRefused => {
                    // ICMP port unreachable from an earlier datagram: the
                    // receiver is not (yet) there; the timeout decides.
                    last_refused = true;
                }
                Err(e) => return Err(e).context("receiving ACKs"),
            }
        }
    }

    let end = clock.now();
    let st = sender.stats();
    report.bytes = size;
    report.duration = nanos(end - start);
    report.packets_sent = st.packets_sent;
    report.retransmits = st.retransmits;
    report.packets_lost = st.packets_lost;
    report.congestion_events = st.congestion_events;
    report.rtos = st.rtos;
    report.prr_recoveries = st.prr_recoveries;
    let rtt = sender.rtt();
    if rtt.has_sample() {
        report.srtt = Some(nanos(rtt.srtt()));
        report.min_rtt = Some(nanos(rtt.min_rtt()));
    }
    if st.rtt_samples > 0 {
        report.mean_rtt = Some(Duration::from_secs_f64(
            st.rtt_sum_s / st.rtt_samples as f64,
        ));
    }
    report.set_goodput();
    Ok(report)
}

/// How long before a deadline the sender stops sleeping and polls instead:
/// about the wake-up latency of a timed wait.
const SPIN: Duration = Duration::from_micros(50);

/// Sends one datagram on a non-blocking connected socket, waiting for buffer
/// space if the socket is full. A refused datagram (ICMP port unreachable)
/// or one the stack has no buffer for (`ENOBUFS`) counts as sent: to the
/// transport it is simply lost.
fn send_datagram(socket: &UdpSocket, buf: &[u8]) -> anyhow::Result<()> {
    loop {
        match socket.send(buf) {
            Ok(_) => return Ok(()),
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                sys::wait(socket, MAX_WAIT, true)?;
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) if e.kind() == io::ErrorKind::ConnectionRefused => return Ok(()),
            // No buffer space in the network stack: the datagram is lost.
            Err(e) if e.raw_os_error() == Some(libc::ENOBUFS) => return Ok(()),
            Err(e) => return Err(e).context("sending a data packet"),
        }
    }
}
