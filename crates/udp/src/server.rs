//! A server that receives from several senders at once (`recv --keep`), as
//! an iperf3 server does, without letting any one of them hold up the
//! others.
//!
//! One listening socket takes the first datagram of each sender. A sender
//! is admitted only when it has proved its address (encrypted: the
//! handshake's cookie, see [`crate::secure`]) and, encrypted, when its
//! first message authenticates under the key; admitted, it gets a socket of
//! its own, bound to the same address and port (`SO_REUSEPORT`) and
//! connected to the sender, on which the kernel delivers that sender's
//! datagrams from then on, and a thread that runs [`crate::recv_on`]'s
//! loop on it. A cap bounds the senders served at once; each is dropped by
//! its own idle timeout ([`RecvOptions::idle_timeout`], also before its
//! first data packet). Why threads and kernel demultiplexing, not one loop
//! over many connections: each transfer's loop is the one already
//! measured, and a slow or hostile sender costs one parked thread.
//!
//! Datagrams of an admitted sender that were already queued on the
//! listening socket when its own socket was connected are handed to its
//! session first, so that the start of a transfer is not lost.

use std::collections::{HashMap, HashSet, VecDeque};
use std::io;
use std::net::{SocketAddr, UdpSocket};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use dropless_wire::{decode, Decoded};
use socket2::{Domain, Protocol, Socket as Socket2, Type};

use crate::held::Held;
use crate::recv::{recv_session, Pending};
use crate::{secure, sys, RecvOptions, Sink, TransferReport};

/// Default for [`serve_on`]'s `max_clients`: senders served at once.
pub const DEFAULT_MAX_CLIENTS: usize = 16;

/// A UDP socket bound to `addr` that other sockets may bind as well
/// (`SO_REUSEPORT`), as [`serve_on`] needs for its per-sender sockets.
pub fn server_socket(addr: SocketAddr) -> anyhow::Result<UdpSocket> {
    shared_socket(addr).with_context(|| format!("binding {addr}"))
}

fn shared_socket(addr: SocketAddr) -> io::Result<UdpSocket> {
    let s = Socket2::new(Domain::for_address(addr), Type::DGRAM, Some(Protocol::UDP))?;
    s.set_reuse_port(true)?;
    s.bind(&addr.into())?;
    Ok(s.into())
}

/// What [`serve_on`] did with datagrams that opened no transfer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ServeStats {
    /// Transfers admitted.
    pub admitted: u64,
    /// Address-validation replies sent.
    pub retries: u64,
    /// Datagrams that opened nothing: unauthenticated, malformed, not a
    /// first datagram, or late datagrams of an admitted sender.
    pub dropped: u64,
    /// First datagrams refused because `max_clients` senders were being
    /// served (the sender retries).
    pub busy: u64,
}

/// Serves transfers on `listener` (from [`server_socket`]), up to
/// `max_clients` at once, until [`RecvOptions::stop`] is set: then waits
/// for the transfers under way to end (they see the same flag, and fail
/// with "interrupted") and returns what it did. `on_done` gets each transfer's sender and outcome as
/// it ends. Only [`Sink::Discard`] and [`Sink::Check`]: a server writes no
/// files.
pub fn serve_on(
    listener: UdpSocket,
    sink: Sink<'_>,
    opts: &RecvOptions,
    max_clients: usize,
    on_done: &mut dyn FnMut(SocketAddr, anyhow::Result<TransferReport>),
) -> anyhow::Result<ServeStats> {
    if matches!(sink, Sink::File(_)) {
        bail!("a server counts or checks data; it writes no files");
    }
    if max_clients == 0 {
        bail!("a server must admit at least one sender at once");
    }
    let local = listener.local_addr().context("reading the bound address")?;
    listener
        .set_nonblocking(true)
        .context("setting up the socket")?;
    let mut responder = match opts.key {
        Some(_) => Some(secure::Responder::generate()?),
        None => None,
    };
    // Sessions answered but not yet confirmed (their sender has not yet
    // proven the key with a sealed datagram): they hold no slot, and the
    // oldest is forgotten when there are too many.
    let max_pending = (4 * max_clients).clamp(64, 4096);
    let mut waiting: HashMap<SocketAddr, (u64, Pending)> = HashMap::new();
    let session_opts = RecvOptions {
        start_timeout: Some(opts.idle_timeout),
        require_first_packet: true,
        ..opts.clone()
    };
    let started = Instant::now();
    let mut stats = ServeStats::default();
    let mut buf = vec![0u8; 1 << 16];
    std::thread::scope(|scope| -> anyhow::Result<()> {
        let (tx, rx) = mpsc::channel::<(SocketAddr, anyhow::Result<TransferReport>)>();
        let mut active: HashSet<SocketAddr> = HashSet::new();
        // Datagrams read while admitting a sender that belong to others.
        let mut pending: VecDeque<(SocketAddr, Vec<u8>)> = VecDeque::new();
        loop {
            while let Ok((src, r)) = rx.try_recv() {
                active.remove(&src);
                on_done(src, r);
            }
            if opts.stop.as_ref().is_some_and(|f| f.is_set()) {
                while !active.is_empty() {
                    let Ok((src, r)) = rx.recv() else { break };
                    active.remove(&src);
                    on_done(src, r);
                }
                return Ok(());
            }
            if pending.is_empty() {
                sys::wait(&listener, Duration::from_millis(100), false)?;
            }
            loop {
                let (src, n) = match pending.pop_front() {
                    Some((src, d)) => {
                        buf[..d.len()].copy_from_slice(&d);
                        (src, d.len())
                    }
                    None => match listener.recv_from(&mut buf) {
                        Ok((n, src)) => (src, n),
                        Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                        Err(e)
                            if matches!(
                                e.kind(),
                                io::ErrorKind::Interrupted
                                    | io::ErrorKind::ConnectionRefused
                                    | io::ErrorKind::ConnectionReset
                            ) =>
                        {
                            continue
                        }
                        Err(e) => return Err(e).context("receiving"),
                    },
                };
                let d = &buf[..n];
                if active.contains(&src) {
                    // Queued before its own socket was connected, and read
                    // after the hand-over (the sender retransmits).
                    stats.dropped += 1;
                    continue;
                }
                let now = started.elapsed().as_nanos() as u64;
                let idle = opts.idle_timeout.as_nanos() as u64;
                waiting.retain(|_, (at, _)| now.saturating_sub(*at) <= idle);
                let mut established = None;
                let opens = match (&opts.key, responder.as_mut()) {
                    (Some(psk), Some(r)) => match secure::peek(d) {
                        Some((secure::TYPE_HS_INIT, _)) => {
                            if active.len() >= max_clients && r.cookie_valid(src, d, now) {
                                // Full: "busy" (the sender retries, and
                                // names it if it gives up).
                                if let Some(b) = secure::busy_reply(d) {
                                    let _ = listener.send_to(&b, src);
                                }
                                stats.busy += 1;
                                continue;
                            }
                            match r.on_init(psk, src, d, now, &mut |_| Held::none()) {
                                secure::InitOutcome::Retry(b) => {
                                    let _ = listener.send_to(&b, src);
                                    stats.retries += 1;
                                }
                                secure::InitOutcome::Repeated(s) => match waiting.get(&src) {
                                    Some((_, p)) if p.channel.session() == s => {
                                        let _ = listener.send_to(&p.response, src);
                                    }
                                    _ => stats.dropped += 1,
                                },
                                secure::InitOutcome::Accepted {
                                    response, channel, ..
                                } => {
                                    let _ = listener.send_to(&response, src);
                                    if waiting.len() >= max_pending && !waiting.contains_key(&src) {
                                        let oldest = waiting
                                            .iter()
                                            .min_by_key(|(_, (at, _))| *at)
                                            .map(|(a, _)| *a);
                                        if let Some(a) = oldest {
                                            waiting.remove(&a);
                                        }
                                    }
                                    waiting.insert(
                                        src,
                                        (
                                            now,
                                            Pending {
                                                peer: src,
                                                response,
                                                channel: *channel,
                                            },
                                        ),
                                    );
                                }
                                secure::InitOutcome::Dropped => stats.dropped += 1,
                            }
                            continue;
                        }
                        // Key confirmation: the pending session's first
                        // sealed datagram opens; only now does it take a
                        // slot.
                        Some((secure::TYPE_SEALED, s)) => match waiting.get(&src) {
                            Some((_, p))
                                if p.channel.session() == s && p.channel.authenticates(d) =>
                            {
                                if active.len() >= max_clients {
                                    stats.busy += 1;
                                    continue;
                                }
                                established = waiting.remove(&src).map(|(_, p)| p);
                                true
                            }
                            _ => false,
                        },
                        _ => false,
                    },
                    _ => matches!(decode(d), Ok(Decoded::Data(p, _)) if p.seq == 0),
                };
                if !opens {
                    stats.dropped += 1;
                    continue;
                }
                if active.len() >= max_clients {
                    stats.busy += 1;
                    continue;
                }
                // Its own socket first, so that what it sends from now on
                // goes there; then what is already queued here.
                let sock = match shared_socket(local).and_then(|s| s.connect(src).map(|_| s)) {
                    Ok(s) => s,
                    Err(e) => {
                        on_done(
                            src,
                            Err(anyhow::Error::new(e).context("opening a socket for the sender")),
                        );
                        continue;
                    }
                };
                let mut preload = vec![(src, d.to_vec())];
                let mut more = vec![0u8; 1 << 16];
                loop {
                    match listener.recv_from(&mut more) {
                        Ok((m, s)) if s == src => preload.push((s, more[..m].to_vec())),
                        Ok((m, s)) => pending.push_back((s, more[..m].to_vec())),
                        Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                        Err(_) => break,
                    }
                }
                let tx = tx.clone();
                let session_opts = &session_opts;
                let spawned = std::thread::Builder::new()
                    .name(format!("recv {src}"))
                    .spawn_scoped(scope, move || {
                        let r = recv_session(sock, sink, session_opts, preload, established, false);
                        let _ = tx.send((src, r));
                    });
                match spawned {
                    Ok(_) => {
                        active.insert(src);
                        stats.admitted += 1;
                    }
                    Err(e) => on_done(
                        src,
                        Err(anyhow::Error::new(e).context("starting a thread for the sender")),
                    ),
                }
            }
        }
    })?;
    Ok(stats)
}
