//! The receiving event loop and the temporary output file.

use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io;
use std::net::{SocketAddr, UdpSocket};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{bail, Context};
use dropless_cc::{PacketFlags, Time};
use dropless_transport::ranges::RangeSet;
use dropless_transport::{DataPacket, Ecn, Receiver};
use dropless_wire::{decode, encode_ack, Decoded, MAX_ACK_LEN};

use crate::files::{self, Dir, Kind};
use crate::held::{Gaps, Held, MAX_HELD_RANGES};
use crate::io::{ArrivalClock, Received, Socket};
use crate::secure::{self, Channel, SEAL_OVERHEAD};
use crate::split::Split;
use crate::tree;
use crate::{check_mss, nanos, pattern, random_u32, sys, Clock, RecvOptions, Sink, TransferReport};

/// Packets beyond the next one expected in order that a receiver accepts
/// (twice the sender's default window, [`crate::SendOptions::max_window`]):
/// a packet further ahead is dropped and counted in
/// [`TransferReport::rejected`], so that no sender can make the output
/// file a sparse terabyte with one packet of a high sequence number.
pub const RECV_WINDOW: u64 = 1 << 17;

/// Longest single wait of the receiver loop (timeouts are checked at least
/// this often).
const MAX_RECV_WAIT: Duration = Duration::from_millis(100);

/// Binds `bind`, receives one file into `out` and returns when it is
/// complete and the linger period is over. See [`recv_file_on`].
pub fn recv_file(
    bind: SocketAddr,
    out: &Path,
    opts: &RecvOptions,
) -> anyhow::Result<TransferReport> {
    recv(bind, Sink::File(out), opts)
}

/// Receives one file into `out` on an already bound socket (tests bind port
/// 0 and read the port with `local_addr` before handing the socket over).
/// See [`recv_on`].
pub fn recv_file_on(
    socket: UdpSocket,
    out: &Path,
    opts: &RecvOptions,
) -> anyhow::Result<TransferReport> {
    recv_on(socket, Sink::File(out), opts)
}

/// Binds `bind` and receives one transfer into `sink`; see [`recv_on`].
pub fn recv(
    bind: SocketAddr,
    sink: Sink<'_>,
    opts: &RecvOptions,
) -> anyhow::Result<TransferReport> {
    let socket = UdpSocket::bind(bind).with_context(|| format!("binding {bind}"))?;
    recv_on(socket, sink, opts)
}

/// Receives one transfer into `sink` on an already bound socket.
///
/// Waits for the first data packet (up to [`RecvOptions::start_timeout`]),
/// then accepts only datagrams of that connection from that address (and,
/// for generated data, the parallel streams of the same sender: see the
/// crate docs). With
/// [`Sink::File`] the data goes to a temporary file in the destination's
/// directory that is renamed into place once every byte has arrived; on any
/// error the temporary file is removed and the destination is left
/// untouched. With [`Sink::Check`] every new payload is compared with the
/// generated stream ([`crate::pattern`]) and the first difference is an
/// error. After completion the receiver lingers ([`RecvOptions::linger`])
/// to re-acknowledge retransmissions. With
/// [`RecvOptions::require_first_packet`] (a server calling this in a loop on
/// clones of one socket) the linger ends as soon as another transfer's
/// first packet is waiting, and that packet is left on the socket for the
/// next call: a sender that starts right after the previous one is not
/// ignored until its retransmission timeout.
pub fn recv_on(
    socket: UdpSocket,
    sink: Sink<'_>,
    opts: &RecvOptions,
) -> anyhow::Result<TransferReport> {
    recv_session(socket, sink, opts, Vec::new(), None, false)
}

/// How often a reverse-mode asker repeats its key confirmation until the
/// first data packet arrives (a lost confirmation must not stall it).
const KNOCK_EVERY: Time = 200_000_000;

/// Reverse mode (`dropless send -R`, as iperf3's `-R`): asks the receiver
/// listening at `peer` (which must have opted in,
/// [`RecvOptions::reverse`]) to send `amount` of generated data, and
/// receives it into `sink` ([`Sink::Discard`] or [`Sink::Check`]).
///
/// Needs [`RecvOptions::key`]: the request travels in the first handshake
/// message, the listener answers whether it grants it, and it sends
/// nothing until this end has confirmed the key with a sealed datagram
/// (repeated every 200 ms until data arrives). The handshake gives up
/// after [`RecvOptions::idle_timeout`], as does the wait for the first
/// data packet unless [`RecvOptions::start_timeout`] says otherwise.
pub fn recv_reverse(
    peer: SocketAddr,
    amount: secure::Amount,
    sink: Sink<'_>,
    opts: &RecvOptions,
) -> anyhow::Result<TransferReport> {
    check_mss(opts.mss)?;
    let Some(keys) = &opts.key else {
        bail!("reverse mode needs a key: the listener sends only to a peer that proved it");
    };
    if matches!(sink, Sink::File(_)) {
        bail!("reverse mode receives generated data: the sink is discard or check");
    }
    let bind = match peer {
        SocketAddr::V4(_) => SocketAddr::from(([0, 0, 0, 0], 0)),
        SocketAddr::V6(_) => SocketAddr::from(([0u16; 8], 0)),
    };
    let udp = UdpSocket::bind(bind).with_context(|| format!("binding {bind}"))?;
    udp.connect(peer)
        .with_context(|| format!("connecting to {peer}"))?;
    let hs_sock = Socket::new(udp.try_clone().context("cloning the socket")?)
        .context("setting up the socket")?;
    let mut buf = hs_sock.recv_buffer(2048);
    let mut rejected = 0u64;
    let chan = crate::send::handshake(
        &hs_sock,
        &mut buf,
        keys,
        secure::Terms {
            reverse: Some(amount),
            ..secure::Terms::default()
        },
        peer,
        opts.idle_timeout,
        &mut rejected,
    )
    .map_err(|e| {
        anyhow::anyhow!(
            "{e:#} (a reverse request, -R, is answered only by a dropless recv that knows \
             reverse mode)"
        )
    })?;
    drop(hs_sock);
    if !chan.reverse_granted() {
        bail!(
            "the receiver at {peer} refuses to send (reverse mode, -R): it must be started \
             with --allow-reverse"
        );
    }
    let mut o = opts.clone();
    o.start_timeout = Some(opts.start_timeout.unwrap_or(opts.idle_timeout));
    o.reverse = None;
    let established = Pending {
        peer,
        response: Vec::new(),
        channel: chan,
    };
    let mut r = recv_session(udp, sink, &o, Vec::new(), Some(established), true)?;
    r.rejected += rejected;
    Ok(r)
}

/// [`recv_on`], with datagrams that arrived elsewhere first (a server's
/// listening socket: [`crate::serve`]) taken before anything on `socket`,
/// in order. `established`: a session whose handshake the server completed
/// and whose sender has proven the key (its first sealed datagram, among
/// `preload`, authenticated).
pub(crate) fn recv_session(
    socket: UdpSocket,
    sink: Sink<'_>,
    opts: &RecvOptions,
    mut preload: Vec<(SocketAddr, Vec<u8>)>,
    established: Option<Pending>,
    knock: bool,
) -> anyhow::Result<TransferReport> {
    check_mss(opts.mss)?;
    preload.reverse();
    sys::set_buffers(&socket, opts.socket_buffer);
    let socket = Socket::new(socket).context("setting up the socket")?;
    let mut part = match sink {
        Sink::File(out) => Some(PartFile::create(
            out,
            opts.resume && opts.key.is_some(),
            opts.force,
        )?),
        Sink::Discard | Sink::Check => None,
    };
    let check = sink == Sink::Check;
    let mut scratch = if check {
        vec![0u8; opts.mss as usize]
    } else {
        Vec::new()
    };
    let clock = Clock::start();
    let mss = opts.mss as u64;
    let plain_max = dropless_wire::DATA_HEADER_LEN + opts.mss as usize;
    let mut buf = socket.recv_buffer(plain_max + SEAL_OVERHEAD);
    let mut ack_buf = AckOut {
        buf: [0u8; MAX_ACK_LEN + SEAL_OVERHEAD],
        chan: None,
    };
    // With a key: the session's sender, its handshake response (repeated
    // for a repeated first message), opened datagrams, and how many
    // unauthenticated datagrams were dropped.
    let mut session_peer: Option<SocketAddr> = None;
    let mut hs_resp: Vec<u8> = Vec::new();
    let mut rejected = 0u64;
    // Address validation, the replay filter and the handshake (see the
    // `secure` module): no state before a sender has shown it receives at
    // its address, and a session answered is only *pending* until its
    // first sealed datagram proves the key: it displaces no session and
    // touches no resume state before that.
    let mut responder = match opts.key {
        Some(_) => Some(secure::Responder::generate()?),
        None => None,
    };
    // Reverse requests are granted only by a receiver of generated data
    // that opted in (RecvOptions::reverse).
    if let Some(r) = responder.as_mut() {
        r.allow_reverse(opts.reverse.is_some() && part.is_none());
    }
    let mut knock_next: Time = 0;
    let mut pending: Option<Pending> = None;
    let mut mismatch = Mismatch::default();
    if let Some(e) = established {
        session_peer = Some(e.peer);
        hs_resp = e.response;
        ack_buf.chan = Some(e.channel);
    }
    let mut report = TransferReport::default();
    // The connections served: one for a file; for generated data, the
    // parallel streams of one sender (`send -P N`), opened while the
    // first is still running, from its address, by their first packet.
    let mut conns: Vec<Conn> = Vec::new();
    let multi = part.is_none();
    let start_timeout = opts.start_timeout.map(|d| d.as_nanos() as Time);
    let idle = opts.idle_timeout.as_nanos() as Time;
    let linger = opts.linger.as_nanos() as Time;
    let mut ack_count = 0u64;
    let mut ect_count = 0u64;
    let mut arrivals = ArrivalClock::new(clock.now());
    let mut last_data_at: Time = 0;

    loop {
        if opts.stop.as_ref().is_some_and(|f| f.is_set()) {
            // (The part file, if any, is removed as this returns.)
            bail!("interrupted");
        }
        // Timers.
        let now = clock.now();
        let deadline = if conns.is_empty() {
            if let Some(t) = start_timeout {
                if now >= t {
                    bail!(
                        "no data packet arrived within {:.1} s on {}{}",
                        nanos(t).as_secs_f64(),
                        socket.sock.local_addr()?,
                        mismatch.hint(opts.key.is_some())
                    );
                }
            }
            start_timeout
        } else {
            let mut deadline = Time::MAX;
            // (A file is complete once saved: its streams may not all
            // have opened when the first ones end.)
            let complete = conns.iter().all(|c| c.complete_at.is_some()) && part.is_none();
            let last_heard = conns.iter().map(|c| c.last_heard).max().unwrap_or(0);
            if !complete && conns.iter().all(|c| c.complete_at.is_some()) {
                if now.saturating_sub(last_heard) > idle {
                    bail!(
                        "the sender at {} has been silent for {:.1} s ({} of its file's streams arrived, all complete)",
                        conns[0].peer,
                        nanos(now.saturating_sub(last_heard)).as_secs_f64(),
                        conns.len()
                    );
                }
                deadline = deadline.min(last_heard + idle + 1);
            }
            for c in conns.iter_mut() {
                if c.rx.poll_timeout().is_some_and(|t| t <= now) {
                    c.rx.handle_timeout(now);
                    c.flush_acks(
                        &socket,
                        now,
                        &mut ack_buf,
                        opts,
                        &mut report,
                        &mut ack_count,
                    );
                }
                if c.complete_at.is_none() {
                    if now.saturating_sub(c.last_heard) > idle {
                        bail!(
                            "the sender at {} has been silent for {:.1} s ({} bytes received in order)",
                            c.peer,
                            nanos(now.saturating_sub(c.last_heard)).as_secs_f64(),
                            c.rx.rcv_nxt() * mss
                        );
                    }
                    deadline = deadline.min(c.last_heard + idle + 1);
                }
                if let Some(t) = c.rx.poll_timeout() {
                    deadline = deadline.min(t);
                }
            }
            if complete {
                if now.saturating_sub(last_heard) >= linger {
                    break;
                }
                deadline = deadline.min(last_heard + linger);
            }
            Some(deadline)
        };

        // Reverse mode's asker: the key confirmation, until data comes.
        let knocking = knock && conns.is_empty();
        if knocking && now >= knock_next {
            if let (Some(c), Some(to)) = (ack_buf.chan.as_mut(), session_peer) {
                let mut d = [0u8; SEAL_OVERHEAD];
                let n = c.seal(&[], &mut d)?;
                let _ = socket.sock.send_to(&d[..n], to);
            }
            knock_next = now + KNOCK_EVERY;
        }
        let mut wait = deadline.map_or(MAX_RECV_WAIT, |d| {
            nanos(d.saturating_sub(now)).min(MAX_RECV_WAIT)
        });
        if knocking {
            wait = wait.min(nanos(knock_next.saturating_sub(now)));
        }
        if wait > Duration::ZERO && preload.is_empty() {
            sys::wait(&socket.sock, wait, false)?;
        }

        // Drain the socket.
        let mut next_transfer = false;
        loop {
            // A stream that never pauses must not keep a signal waiting.
            if opts.stop.as_ref().is_some_and(|f| f.is_set()) {
                bail!("interrupted");
            }
            if opts.require_first_packet
                && !conns.is_empty()
                && part.is_none()
                && conns.iter().all(|c| c.complete_at.is_some())
            {
                // Lingering: the first packet of another transfer ends
                // the linger and is left on the socket for it.
                if let Some((n, src)) = socket.peek(&mut buf)? {
                    // (A coalesced peek holds several datagrams: decode the
                    // first one's length only.)
                    let first = &buf[..n.min(plain_max)];
                    let next = match &ack_buf.chan {
                        // Another session's handshake.
                        Some(c) => matches!(secure::peek(first),
                            Some((secure::TYPE_HS_INIT, s)) if s != c.session() || Some(src) != session_peer),
                        None => matches!(decode(first), Ok(Decoded::Data(p, _))
                            if p.seq == 0 && !conns.iter().any(|c| c.id == p.conn && c.peer == src)),
                    };
                    if next {
                        next_transfer = true;
                        break;
                    }
                }
            }
            // (A datagram the server received for this session is taken
            // first; its address was validated there.)
            let preloaded = preload.pop().map(|(src, d)| {
                let n = d.len().min(buf.len());
                buf[..n].copy_from_slice(&d[..n]);
                Received {
                    src,
                    len: n,
                    stride: n.max(1),
                    ecn: Ecn::NotEct,
                }
            });
            let Received {
                src,
                len: n,
                stride,
                ecn,
            } = match preloaded.map_or_else(|| socket.recv(&mut buf), |r| Ok(Some(r))) {
                Ok(Some(r)) => r,
                Ok(None) => break,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                // ICMP errors for our ACKs (the sender is gone) and the like.
                Err(e) if e.kind() == io::ErrorKind::ConnectionRefused => continue,
                Err(e) if e.kind() == io::ErrorKind::ConnectionReset => continue,
                Err(e) => return Err(e).context("receiving data"),
            };
            // A lone datagram is timed by the kernel's receive timestamp
            // (packet-pair dispersion must not depend on when this loop woke
            // up); the datagrams of a GRO batch share one arrival, so they
            // take the loop's clock.
            // (Never before the previous datagram's time: a pair's
            // dispersion is a difference of the two.)
            let arrival = (n == stride).then(|| arrivals.stamp(&socket, clock.now(), last_data_at));
            // One datagram, or several of one source `stride` bytes apart (GRO).
            for dgram in buf[..n].chunks_mut(stride) {
                let dgram: &[u8] = match &opts.key {
                    None => {
                        if secure::peek(dgram).is_some() {
                            mismatch.sealed += 1;
                        }
                        dgram
                    }
                    Some(psk) => {
                        let kind = secure::peek(dgram);
                        if kind.is_none() && decode(dgram).is_ok() {
                            mismatch.plaintext += 1;
                        }
                        let confirms = matches!((kind, &pending),
                            (Some((secure::TYPE_SEALED, s)), Some(p))
                                if p.peer == src && p.channel.session() == s);
                        if confirms && conns.is_empty() {
                            // The pending session's first sealed datagram:
                            // if it opens, its sender holds the key and
                            // wrote the first message we answered. Only now
                            // does it replace the session before it and
                            // begin (or start over) the resume part.
                            let p = pending.as_mut().expect("matched");
                            if p.channel.open_in_place(dgram).is_none() {
                                rejected += 1;
                                continue;
                            }
                            let p = pending.take().expect("matched");
                            if let Some(amount) = p.channel.terms().reverse {
                                // A reverse request, its asker now proven:
                                // this end becomes the sender (if it
                                // granted the request; the asker was told).
                                if !p.channel.reverse_granted() {
                                    rejected += 1;
                                    continue;
                                }
                                let sock = socket.sock.try_clone().context("cloning the socket")?;
                                return crate::send::serve_reverse(
                                    sock, p.peer, p.channel, amount, opts,
                                );
                            }
                            if let Some(part) = part.as_mut() {
                                part.begin(p.channel.terms(), p.channel.held())?;
                            }
                            session_peer = Some(p.peer);
                            hs_resp = p.response;
                            ack_buf.chan = Some(p.channel);
                            // (Opened above: decode it below.)
                            let n = dgram.len() - secure::TAG_LEN;
                            &dgram[secure::SEAL_HEADER_LEN..n]
                        } else {
                            match (kind, &mut ack_buf.chan) {
                                (Some((secure::TYPE_SEALED, _)), Some(c))
                                    if Some(src) == session_peer =>
                                {
                                    match c.open_in_place(dgram) {
                                        Some(d) => d,
                                        None => {
                                            rejected += 1;
                                            continue;
                                        }
                                    }
                                }
                                (Some((secure::TYPE_HS_INIT, _)), chan) => {
                                    let Some(responder) = responder.as_mut() else {
                                        continue;
                                    };
                                    let mut offer = |id: &secure::FileId| {
                                        part.as_mut().map_or(Held::none(), |p| p.offer(id))
                                    };
                                    let t = clock.now();
                                    match responder.on_init(psk, src, dgram, t, &mut offer) {
                                        secure::InitOutcome::Retry(r) => {
                                            let _ = socket.sock.send_to(&r, src);
                                        }
                                        secure::InitOutcome::Repeated(s) => {
                                            // Our response was lost: say it
                                            // again, to the session's own
                                            // address only.
                                            if let Some(p) = pending.as_ref().filter(|p| {
                                                p.peer == src && p.channel.session() == s
                                            }) {
                                                let _ = socket.sock.send_to(&p.response, src);
                                            } else if chan
                                                .as_ref()
                                                .is_some_and(|c| c.session() == s)
                                                && Some(src) == session_peer
                                            {
                                                let _ = socket.sock.send_to(&hs_resp, src);
                                            } else {
                                                rejected += 1;
                                            }
                                        }
                                        secure::InitOutcome::Accepted {
                                            response, channel, ..
                                        } if conns.is_empty() => {
                                            // A new session before any data of
                                            // the previous one (a sender that
                                            // started over): pending until it
                                            // proves the key.
                                            let _ = socket.sock.send_to(&response, src);
                                            pending = Some(Pending {
                                                peer: src,
                                                response,
                                                channel: *channel,
                                            });
                                        }
                                        _ => rejected += 1,
                                    }
                                    continue;
                                }
                                _ => {
                                    rejected += 1;
                                    continue;
                                }
                            }
                        }
                    }
                };
                let Ok(Decoded::Data(mut p, payload)) = decode(dgram) else {
                    continue; // not ours, malformed, or an ACK: ignore
                };
                // What counts is the IP header's ECN field, which a router
                // may have set to CE, not the codepoint the sender wrote.
                // The written one says whether the sender is driven by
                // prices: it sends ECT(1), ADPM's unmarked codepoint.
                let price_driven = p.ecn == Ecn::Ect1;
                p.ecn = ecn;
                if matches!(ecn, Ecn::Ect0 | Ecn::Ect1) {
                    ect_count += 1;
                    if opts
                        .debug_mark_ce_every
                        .is_some_and(|k| k > 0 && ect_count % k == 0)
                    {
                        p.ecn = Ecn::Ce;
                    }
                }
                let now = arrival.unwrap_or_else(|| clock.now());
                let k = match conns.iter().position(|c| c.peer == src && c.id == p.conn) {
                    Some(k) => k,
                    None => {
                        // An encrypted file's stream may be split over
                        // several connections of the session, named by
                        // their ids (the `split` module): the first
                        // connection's id sets the split, and only the
                        // rest of that split may join, from its address.
                        let split = if part.is_some()
                            && ack_buf.chan.as_ref().is_some_and(|c| c.terms().hashed)
                        {
                            match Split::from_conn(p.conn) {
                                Some(s) => Some(s),
                                None => {
                                    rejected += 1;
                                    continue;
                                }
                            }
                        } else {
                            None
                        };
                        let opens = if conns.is_empty() {
                            !opts.require_first_packet || p.seq == 0
                        } else if let (Some(s), Some(first)) = (split, conns[0].split) {
                            src == conns[0].peer
                                && s.same_transfer(&first)
                                && (conns.len() as u64) < first.n
                        } else {
                            // Another stream of the same sender: from its
                            // address, by its first packet, while the
                            // transfer runs, up to the limit.
                            multi
                                && p.seq == 0
                                && src == conns[0].peer
                                && conns.len() < crate::MAX_STREAMS
                                && conns.iter().any(|c| c.complete_at.is_none())
                        };
                        if !opens {
                            continue;
                        }
                        let mut rx = Receiver::new(p.conn, opts.mss, opts.ack_policy);
                        if price_driven {
                            // ADPM's decoder: the path's price from the
                            // marks (ECN 01 / 10), back in every ACK.
                            rx.decode_prices();
                        }
                        conns.push(Conn {
                            peer: src,
                            id: p.conn,
                            rx,
                            fin: None,
                            max_seq: 0,
                            bytes: 0,
                            first_at: now,
                            last_heard: now,
                            complete_at: None,
                            split,
                        });
                        conns.len() - 1
                    }
                };
                let c = &mut conns[k];
                if p.seq >= c.rx.rcv_nxt().saturating_add(RECV_WINDOW) {
                    // Beyond the receive window: a sender may not make the
                    // receiver hold (or a file grow) more than this ahead
                    // of what has arrived in order.
                    rejected += 1;
                    continue;
                }
                c.check(&p, mss)?;
                c.last_heard = now;
                last_data_at = now;
                c.rx.set_arrivals_timed(arrival.is_some());
                let arrival = c.rx.handle_data(now, &p);
                if arrival.is_new && !payload.is_empty() {
                    if let Some(part) = &mut part {
                        let off = match c.split {
                            Some(s) => s.stream_offset(p.seq, mss).with_context(|| {
                                format!("packet {} lies beyond any possible file length", p.seq)
                            })?,
                            None => p.seq * mss,
                        };
                        part.write(off, payload)?;
                    } else if check {
                        if let Some(o) = pattern::first_mismatch(p.seq * mss, payload, &mut scratch)
                        {
                            bail!(
                                "byte {o} (packet {}) differs from the generated stream: \
                                 the sender is not sending generated data, or it was corrupted",
                                p.seq
                            );
                        }
                    }
                }
                if c.complete_at.is_none() && c.rx.is_complete() {
                    c.complete_at = Some(now);
                    let (fin_seq, fin_len) = c.fin.expect("complete implies a FIN");
                    let len = fin_seq * mss + fin_len as u64;
                    // A hashed stream's last bytes are the BLAKE3 hash of
                    // the file, not part of it.
                    let hashed = ack_buf.chan.as_ref().is_some_and(|ch| ch.terms().hashed);
                    if let Some(s) = c.split {
                        c.bytes = len;
                        // The file is whole once every stream of the split
                        // is: the stream's length is the sum of theirs.
                        let done = conns.len() as u64 == s.n
                            && conns.iter().all(|c| c.complete_at.is_some());
                        if done {
                            if let Some(part) = part.take() {
                                finish_split(part, &mut conns, mss, opts.sync)?;
                            }
                        }
                    } else {
                        if hashed && len < secure::HASH_LEN {
                            bail!("the stream is {len} bytes, too short to end in its BLAKE3 hash");
                        }
                        c.bytes = if hashed { len - secure::HASH_LEN } else { len };
                        if let Some(mut part) = part.take() {
                            // (A resumed file's stream leaves out what the
                            // part held: where the stream ends in the file.)
                            let len = part.gaps.file_offset(c.bytes);
                            if hashed {
                                if let Err(e) = part.verify_blake3(len) {
                                    // Not the file: nothing of it is worth
                                    // resuming either.
                                    part.abandon();
                                    return Err(e);
                                }
                            }
                            part.finish(len, opts.sync)?;
                        }
                    }
                }
                let c = &mut conns[k];
                c.flush_acks(
                    &socket,
                    now,
                    &mut ack_buf,
                    opts,
                    &mut report,
                    &mut ack_count,
                );
            }
        }
        if next_transfer {
            break;
        }
    }

    // Every stream is complete: the transfer's bytes, from the first
    // packet of any stream to the completion of the last.
    let first = conns
        .iter()
        .map(|c| c.first_at)
        .min()
        .expect("the loop ends only after completion");
    let last = conns
        .iter()
        .filter_map(|c| c.complete_at)
        .max()
        .expect("complete");
    report.duration = nanos(last - first);
    for c in &conns {
        let st = c.rx.stats();
        report.bytes += c.bytes;
        report.packets_received += st.packets_received;
        report.duplicates += st.duplicates;
        report.ce_marks += st.ce_received;
    }
    report.streams = conns.len() as u32;
    report.encrypted = opts.key.is_some();
    report.resumed_held = ack_buf.chan.as_ref().map_or(0, |c| c.held().total());
    report.rejected = rejected;
    report.acks = ack_count;
    report.peer = Some(conns[0].peer);
    report.set_goodput();
    Ok(report)
}

/// Saves a file whose stream was split over `conns` (every one complete,
/// its `bytes` its stream's length): checks that their lengths make one
/// stream, verifies the whole file's BLAKE3 hash once, and renames the
/// part into place. Each connection's `bytes` become the file's bytes it
/// carried.
fn finish_split(
    mut part: PartFile,
    conns: &mut [Conn],
    mss: u64,
    sync: bool,
) -> anyhow::Result<()> {
    let total: u64 = conns.iter().map(|c| c.bytes).sum();
    for c in conns.iter() {
        let s = c.split.expect("a split's connections");
        if s.carried(total, mss) != c.bytes {
            part.abandon();
            bail!(
                "stream {} of {} carries {} bytes, which does not fit a stream of {total} \
                 bytes split over {} streams",
                s.k,
                s.n,
                c.bytes,
                s.n
            );
        }
    }
    if total < secure::HASH_LEN {
        part.abandon();
        bail!("the stream is {total} bytes, too short to end in its BLAKE3 hash");
    }
    let stream_len = total - secure::HASH_LEN;
    for c in conns.iter_mut() {
        c.bytes = c.split.expect("checked").carried(stream_len, mss);
    }
    // (A resumed file's stream leaves out what the part held.)
    let len = part.gaps.file_offset(stream_len);
    if let Err(e) = part.verify_blake3(len) {
        part.abandon();
        return Err(e);
    }
    part.finish(len, sync)
}

/// Datagrams of the other mode that arrived before any data: plaintext
/// dropless datagrams at a receiver with a key, handshake or sealed ones at
/// a receiver with `--insecure`; they name the cause of a start timeout.
#[derive(Default)]
struct Mismatch {
    plaintext: u64,
    sealed: u64,
}

impl Mismatch {
    fn hint(&self, keyed: bool) -> String {
        match (keyed, self.plaintext, self.sealed) {
            (true, n, _) if n > 0 => format!(
                " ({n} plaintext dropless datagrams arrived: is the sender using --insecure? \
                 both ends must)"
            ),
            (false, _, n) if n > 0 => format!(
                " ({n} encrypted dropless datagrams arrived: the sender uses --key; give the \
                 receiver the same --key)"
            ),
            _ => String::new(),
        }
    }
}

/// A session whose handshake response was sent, waiting for its sender
/// to prove the key with its first sealed datagram.
pub(crate) struct Pending {
    /// The sender's address.
    pub(crate) peer: SocketAddr,
    /// The response (repeated for a repeated first message).
    pub(crate) response: Vec<u8>,
    /// The receiver's end of the session.
    pub(crate) channel: Channel,
}

/// A connection the receiver serves.
struct Conn {
    peer: SocketAddr,
    id: u32,
    rx: Receiver,
    /// `(seq, len)` of the FIN packet once seen.
    fin: Option<(u64, u32)>,
    /// Highest packet number seen.
    max_seq: u64,
    /// Its length once complete.
    bytes: u64,
    first_at: Time,
    last_heard: Time,
    complete_at: Option<Time>,
    /// Which part of a file's split stream it carries (`None`: the whole
    /// stream).
    split: Option<Split>,
}

impl Conn {
    /// Rejects packets that contradict the conventions (see the crate docs).
    fn check(&mut self, p: &DataPacket, mss: u64) -> anyhow::Result<()> {
        let is_fin = p.flags.contains(PacketFlags::FIN);
        if !is_fin && p.len as u64 != mss {
            bail!(
                "packet {} from {} carries {} payload bytes but the mss is {}: \
                 sender and receiver must use the same mss",
                p.seq,
                self.peer,
                p.len,
                mss
            );
        }
        if is_fin && p.len as u64 > mss {
            bail!(
                "final packet {} carries {} bytes, more than the mss {}",
                p.seq,
                p.len,
                mss
            );
        }
        if p.seq
            .checked_mul(mss)
            .and_then(|o| o.checked_add(mss))
            .is_none()
        {
            bail!("packet {} lies beyond any possible file length", p.seq);
        }
        if is_fin {
            match self.fin {
                Some(f) if f != (p.seq, p.len) => bail!(
                    "conflicting end of file: packet {} ({} bytes) after packet {} ({} bytes)",
                    p.seq,
                    p.len,
                    f.0,
                    f.1
                ),
                _ => self.fin = Some((p.seq, p.len)),
            }
        }
        self.max_seq = self.max_seq.max(p.seq);
        if let Some((fs, _)) = self.fin {
            if self.max_seq > fs {
                bail!(
                    "packet {} lies beyond the final packet {}",
                    self.max_seq,
                    fs
                );
            }
        }
        Ok(())
    }

    /// Sends every ACK the receiver owes. Send failures are ignored: a lost
    /// ACK is repaired by later ACKs or the sender's retransmission.
    fn flush_acks(
        &mut self,
        socket: &Socket,
        now: Time,
        out: &mut AckOut,
        opts: &RecvOptions,
        report: &mut TransferReport,
        count: &mut u64,
    ) {
        while let Some(a) = self.rx.poll_ack(now) {
            // Encoded where the ciphertext goes (behind the seal's header
            // when encrypted), then sealed in place: no copy.
            let at = if out.chan.is_some() {
                secure::SEAL_HEADER_LEN
            } else {
                0
            };
            let Ok(n) = encode_ack(&a, &mut out.buf[at..]) else {
                debug_assert!(false, "the receiver produced an unencodable ACK: {a:?}");
                continue;
            };
            let k = self.rx.stats().acks_sent;
            if opts
                .debug_drop_ack_every
                .is_some_and(|d| d > 0 && k % d == 0)
            {
                report.debug_dropped += 1;
                continue;
            }
            let dgram = match &mut out.chan {
                Some(c) => match c.seal_in_place(&mut out.buf, n) {
                    Ok(m) => &out.buf[..m],
                    Err(_) => continue,
                },
                None => &out.buf[..n],
            };
            if socket.sock.send_to(dgram, self.peer).is_ok() {
                *count += 1;
            }
        }
    }
}

/// How ACKs leave: encoded into `buf` (at its start in plaintext, behind
/// the seal's header when the transfer is encrypted) and sealed there.
struct AckOut {
    buf: [u8; MAX_ACK_LEN + SEAL_OVERHEAD],
    chan: Option<Channel>,
}

/// The hidden temporary file the data goes to; removed on drop unless
/// [`PartFile::finish`] renamed it into place, or it is resumable. Every
/// name is resolved in the destination's directory, opened once
/// ([`crate::files::Dir`]): no symbolic link planted there is followed.
struct PartFile {
    file: File,
    dir: Dir,
    /// The part file's name in `dir`, and its path for messages.
    tmp_name: OsString,
    tmp: PathBuf,
    dest_name: OsString,
    dest: PathBuf,
    /// Replace an existing destination.
    force: bool,
    done: bool,
    /// A resumable part file's record ([`RecvOptions::resume`]).
    resume: Option<ResumeRecord>,
    /// The destination is an existing directory (only a directory can
    /// go there).
    dest_dir: bool,
    /// The session sends a directory ([`secure::Terms::tree`]): unpacked
    /// into the destination.
    tree: bool,
    /// Where the stream's bytes go in the file: all of it from the start,
    /// or for a resumed file the gaps between what the part held.
    gaps: Gaps,
}

/// What a resumable part file holds: byte ranges of the file `id`
/// ([`Held`]), written beside it as `.NAME.dropless-resume`. During a
/// session, what it held when the session began plus every range of the
/// stream written since (in order or not), mapped to the file.
struct ResumeRecord {
    name: OsString,
    path: PathBuf,
    /// The file whose bytes the part holds (`None`: no file yet, or a
    /// sender that did not ask to resume, whose data cannot be resumed).
    id: Option<secure::FileId>,
    /// What the part held when the session began (or as read from the
    /// record before one).
    base: Held,
    /// Bytes of `base`.
    base_bytes: u64,
    /// Byte ranges of this session's stream written to the part, and
    /// their bytes.
    got: RangeSet,
    got_bytes: u64,
    /// Bytes written since the record was last saved.
    fresh: u64,
}

/// First line of a resume record (version 1 recorded a prefix only: a
/// `held N` line, read as the range `0-N`).
const RECORD_MAGIC: &str = "dropless resume 2";
const RECORD_MAGIC_V1: &str = "dropless resume 1";

impl ResumeRecord {
    /// Reads the record `name` in `dir`; `None` for a missing, unreadable
    /// or malformed record, or one that is not a regular file (the part
    /// file then starts over).
    fn read(dir: &Dir, name: &OsStr) -> Option<(secure::FileId, Held)> {
        let text = dir.read_small(name, 8192)?;
        let mut lines = text.lines();
        let v1 = match lines.next()? {
            RECORD_MAGIC => false,
            RECORD_MAGIC_V1 => true,
            _ => return None,
        };
        let mut field = |name: &str| {
            lines
                .next()?
                .strip_prefix(name)?
                .strip_prefix(' ')
                .map(str::to_owned)
        };
        let size: u64 = field("size")?.parse().ok()?;
        let hex = field("blake3")?;
        if hex.len() != 64 {
            return None;
        }
        let mut hash = [0u8; secure::HASH_LEN as usize];
        for (i, b) in hash.iter_mut().enumerate() {
            *b = u8::from_str_radix(hex.get(2 * i..2 * i + 2)?, 16).ok()?;
        }
        let mut ranges = Vec::new();
        if v1 {
            let held: u64 = field("held")?.parse().ok()?;
            ranges.push((0, held));
        } else {
            for r in field("held")?.split_whitespace() {
                let (a, b) = r.split_once('-')?;
                ranges.push((a.parse().ok()?, b.parse().ok()?));
            }
        }
        if ranges.len() > MAX_HELD_RANGES || ranges.iter().any(|&(a, b)| a > b || b > size) {
            return None;
        }
        Some((
            secure::FileId { size, hash },
            Held::from_ranges(ranges, size),
        ))
    }

    /// What the part holds now: the session's base and its stream's
    /// ranges, in the file (the largest [`MAX_HELD_RANGES`]).
    fn held(&self, gaps: &Gaps) -> Held {
        let Some(id) = self.id else {
            return Held::none();
        };
        let mut r = self.base.ranges().to_vec();
        for &(s, e) in self.got.ranges() {
            gaps.file_ranges(s, e, &mut r);
        }
        Held::from_ranges(r, id.size)
    }

    /// Writes the record (a new file with a random name, created
    /// exclusively, renamed over the old one: never half written, and no
    /// link at either name is followed).
    fn save(&mut self, dir: &Dir, gaps: &Gaps) -> anyhow::Result<()> {
        use std::io::Write;
        let Some(id) = self.id else {
            return Ok(());
        };
        let hex: String = id.hash.iter().map(|b| format!("{b:02x}")).collect();
        let ranges: Vec<String> = self
            .held(gaps)
            .ranges()
            .iter()
            .map(|(a, b)| format!("{a}-{b}"))
            .collect();
        let text = format!(
            "{RECORD_MAGIC}\nsize {}\nblake3 {hex}\nheld {}\n",
            id.size,
            ranges.join(" ")
        );
        let mut new = self.name.clone();
        new.push(format!(".{:08x}.new", random_u32()));
        let written = dir
            .create_new(&new)
            .and_then(|mut f| f.write_all(text.as_bytes()))
            .and_then(|_| dir.rename(&new, &self.name, true));
        if let Err(e) = written {
            let _ = dir.remove(&new);
            return Err(e).with_context(|| format!("writing {}", self.path.display()));
        }
        self.fresh = 0;
        Ok(())
    }
}

/// Whether `name` is a part file a receiver into `dest_name` leaves
/// (`.NAME.XXXXXXXX.dropless-part`).
fn is_random_part_of(name: &OsStr, dest_name: &str) -> bool {
    let Some(n) = name.to_str() else {
        return false;
    };
    n.strip_prefix('.')
        .and_then(|n| n.strip_prefix(dest_name))
        .and_then(|n| n.strip_prefix('.'))
        .and_then(|n| n.strip_suffix(".dropless-part"))
        .is_some_and(|x| x.len() == 8 && x.bytes().all(|b| b.is_ascii_hexdigit()))
}

impl PartFile {
    /// A fresh part file with a random name, or with `resume` the one
    /// named after `dest` (`.NAME.dropless-part`), as an interrupted
    /// transfer left it, with its record. An existing `dest` is an error
    /// unless `force` (and then it must be a regular file). Random-named
    /// part files of the same destination that no running receiver holds
    /// (a killed receiver's) are removed.
    fn create(dest: &Path, resume: bool, force: bool) -> anyhow::Result<PartFile> {
        let dest_name = dest
            .file_name()
            .with_context(|| format!("--out {} does not name a file", dest.display()))?
            .to_os_string();
        let dir_path = match dest.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        let dir = Dir::open(dir_path).with_context(|| {
            format!(
                "--out {}: opening its directory {}",
                dest.display(),
                dir_path.display()
            )
        })?;
        let dest_dir = match dir
            .kind(&dest_name)
            .with_context(|| format!("reading {}", dest.display()))?
        {
            Kind::Missing => false,
            // (A directory sent into it; a file sent there is refused at
            // the handshake.)
            Kind::Directory => true,
            Kind::Regular if force => false,
            Kind::Regular => bail!(
                "--out {} exists (add --force to replace it)",
                dest.display()
            ),
            Kind::Other(what) => bail!(
                "--out {} is {what}: only a regular file is ever replaced",
                dest.display()
            ),
        };
        let name = dest_name.to_string_lossy().into_owned();
        // A killed receiver's part files: removed if no receiver holds
        // them (each running one holds a lock on its own).
        for stale in dir.names() {
            if is_random_part_of(&stale, &name) {
                if let Ok(f) = dir.open_or_create(&stale) {
                    if files::try_lock(&f) {
                        let _ = dir.remove(&stale);
                    }
                }
            }
        }
        if resume {
            let tmp_name = OsString::from(format!(".{name}.dropless-part"));
            let rec_name = OsString::from(format!(".{name}.dropless-resume"));
            let tmp = dir.join(&tmp_name);
            let file = dir
                .open_or_create(&tmp_name)
                .with_context(|| format!("opening {}", tmp.display()))?;
            if !files::try_lock(&file) {
                bail!(
                    "{} is in use by another receiver (one resumable transfer per destination)",
                    tmp.display()
                );
            }
            let len = file
                .metadata()
                .with_context(|| format!("reading metadata of {}", tmp.display()))?
                .len();
            // A record is believed only as far as the part file reaches.
            let (id, held) = match ResumeRecord::read(&dir, &rec_name) {
                Some((id, held)) if held.ranges().last().is_none_or(|r| r.1 <= len) => {
                    (Some(id), held)
                }
                _ => (None, Held::none()),
            };
            let path = dir.join(&rec_name);
            return Ok(PartFile {
                file,
                dir,
                tmp_name,
                tmp,
                dest_name,
                dest: dest.to_path_buf(),
                force,
                done: false,
                resume: Some(ResumeRecord {
                    name: rec_name,
                    path,
                    id,
                    base_bytes: held.total(),
                    base: held,
                    got: RangeSet::new(),
                    got_bytes: 0,
                    fresh: 0,
                }),
                dest_dir,
                tree: false,
                gaps: Gaps::new(&Held::none(), u64::MAX),
            });
        }
        let tmp_name = OsString::from(format!(".{name}.{:08x}.dropless-part", random_u32()));
        let tmp = dir.join(&tmp_name);
        let file = dir
            .create_new(&tmp_name)
            .with_context(|| format!("creating {}", tmp.display()))?;
        // (Held while this receiver runs: see the stale part files above.)
        files::try_lock(&file);
        Ok(PartFile {
            file,
            dir,
            tmp_name,
            tmp,
            dest_name,
            dest: dest.to_path_buf(),
            force,
            done: false,
            resume: None,
            dest_dir,
            tree: false,
            gaps: Gaps::new(&Held::none(), u64::MAX),
        })
    }

    /// What the part holds of the file `id`, offered to a sender that
    /// asks to resume it: nothing if it holds another file (and the part
    /// starts over for this one).
    fn offer(&mut self, id: &secure::FileId) -> Held {
        match &self.resume {
            Some(r) if r.id == Some(*id) => r.base.clone(),
            _ => Held::none(),
        }
    }

    /// A session for the file `id` begins (after [`PartFile::offer`]), in
    /// which the sender leaves out `held`: the part keeps what it holds of
    /// that file, or starts over empty (for another file, or for a sender
    /// that did not name its file, `None`, whose data cannot be resumed
    /// later).
    fn begin(&mut self, terms: secure::Terms, held: &Held) -> anyhow::Result<()> {
        if self.dest_dir && !terms.tree {
            bail!(
                "--out {} is a directory and the sender sends a file: only a directory is sent into a directory",
                self.dest.display()
            );
        }
        self.tree = terms.tree;
        let id = terms.resume;
        let Some(r) = &mut self.resume else {
            return Ok(());
        };
        r.got.clear();
        r.got_bytes = 0;
        r.fresh = 0;
        if let Some(f) = id.filter(|_| id == r.id && !held.is_empty()) {
            // (What was offered: the channel agreed on it.)
            r.base = held.clone();
            r.base_bytes = held.total();
            self.gaps = Gaps::new(held, f.size);
            return Ok(());
        }
        self.gaps = Gaps::new(&Held::none(), u64::MAX);
        self.file
            .set_len(0)
            .with_context(|| format!("truncating {}", self.tmp.display()))?;
        r.id = id;
        r.base = Held::none();
        r.base_bytes = 0;
        match id {
            Some(_) => r.save(&self.dir, &self.gaps)?,
            None => {
                let _ = self.dir.remove(&r.name);
            }
        }
        Ok(())
    }

    /// Writes the stream's bytes at `off` where they go in the file, and
    /// for a resumable part notes them; the record is saved when what it
    /// would say has grown by 1 % (at least 64 KiB, at most 4 MiB), so
    /// that a receiver killed with SIGKILL (which saves nothing more) has
    /// recorded all but about 1 % of what it held.
    fn write(&mut self, off: u64, payload: &[u8]) -> anyhow::Result<()> {
        let file = &self.file;
        self.gaps
            .pieces(off, payload.len(), |at, r| {
                file.write_all_at(&payload[r], at)
            })
            .with_context(|| format!("writing {}", self.tmp.display()))?;
        let Some(r) = &mut self.resume else {
            return Ok(());
        };
        if r.id.is_none() {
            return Ok(());
        }
        let mut new = 0;
        r.got
            .insert_with(off, off + payload.len() as u64, |a, b| new += b - a);
        r.got_bytes += new;
        r.fresh += new;
        let step = ((r.base_bytes + r.got_bytes) / 100).clamp(64 << 10, 4 << 20);
        if r.fresh >= step {
            // A record that cannot be written costs only resumability.
            let _ = r.save(&self.dir, &self.gaps);
        }
        Ok(())
    }

    /// Removes the part file and its record (their data is not the file).
    fn abandon(&mut self) {
        if let Some(r) = &self.resume {
            let _ = self.dir.remove(&r.name);
        }
        let _ = self.dir.remove(&self.tmp_name);
        self.done = true;
    }

    /// Checks that the file's first `len` bytes hash (BLAKE3) to the
    /// [`secure::HASH_LEN`] bytes that follow them.
    fn verify_blake3(&self, len: u64) -> anyhow::Result<()> {
        let mut want = [0u8; secure::HASH_LEN as usize];
        self.file
            .read_exact_at(&mut want, len)
            .with_context(|| format!("reading the hash from {}", self.tmp.display()))?;
        let mut h = blake3::Hasher::new();
        let mut buf = vec![0u8; 1 << 20];
        let mut off = 0u64;
        while off < len {
            let n = self
                .file
                .read_at(&mut buf[..((len - off).min(1 << 20)) as usize], off)
                .with_context(|| format!("reading {}", self.tmp.display()))?;
            if n == 0 {
                bail!("{} ended at {off} of {len} bytes", self.tmp.display());
            }
            h.update(&buf[..n]);
            off += n as u64;
        }
        if h.finalize().as_bytes() != &want {
            bail!(
                "the received file's BLAKE3 hash differs from the sender's: not saved ({} bytes)",
                len
            );
        }
        Ok(())
    }

    /// Sets the final length, optionally syncs, and renames into place.
    fn finish(mut self, len: u64, sync: bool) -> anyhow::Result<()> {
        self.file
            .set_len(len)
            .with_context(|| format!("truncating {}", self.tmp.display()))?;
        if sync {
            self.file
                .sync_all()
                .with_context(|| format!("syncing {}", self.tmp.display()))?;
        }
        if self.tree {
            // The list is checked before anything is written; a refused
            // one is not worth resuming.
            let unpacked = tree::unpack(&self.file, len, &self.dest, self.force);
            self.abandon();
            unpacked?;
            return Ok(());
        }
        match self.dir.rename(&self.tmp_name, &self.dest_name, self.force) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => bail!(
                "--out {} appeared during the transfer (add --force to replace it); the data stays in {}",
                self.dest.display(),
                self.tmp.display()
            ),
            Err(e) => {
                return Err(e).with_context(|| {
                    format!("renaming {} to {}", self.tmp.display(), self.dest.display())
                })
            }
        }
        if let Some(r) = &self.resume {
            let _ = self.dir.remove(&r.name);
        }
        self.done = true;
        Ok(())
    }
}

impl Drop for PartFile {
    fn drop(&mut self) {
        if self.done {
            return;
        }
        match &mut self.resume {
            // Resumable: the record says what it holds.
            Some(r) if r.id.is_some() => {
                if r.fresh > 0 {
                    let _ = r.save(&self.dir, &self.gaps);
                }
            }
            _ => {
                if let Some(r) = &self.resume {
                    let _ = self.dir.remove(&r.name);
                }
                let _ = self.dir.remove(&self.tmp_name);
            }
        }
    }
}
