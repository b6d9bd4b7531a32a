//! Moves a file over UDP with the dropless transport.
//!
//! The sender runs exactly [`dropless_transport::Sender`] with whatever
//! [`Controller`] it is given, and the receiver exactly
//! [`dropless_transport::Receiver`]; this crate only adds the socket, the
//! file, the clock and the [`dropless_wire`] codec around them. Each side is a
//! single-threaded event loop.
//!
//! # Protocol conventions
//!
//! * **Packet size**: both sides must use the same `mss` (payload bytes per
//!   datagram, default [`DEFAULT_MSS`]). Packet `seq` carries file bytes
//!   `[seq*mss, seq*mss + len)`. The receiver rejects the connection with an
//!   error if a packet other than the last has `len != mss`, so a mismatch
//!   is reported at the first packet instead of producing a corrupt file.
//! * **Length**: the last packet carries [`PacketFlags::FIN`]; its `seq` and
//!   `len` give the file length `seq*mss + len`. An empty file is one empty
//!   FIN packet, and so is the end of a timed stream ([`Source::Time`]),
//!   which follows the last full packet.
//! * **Generated data**: [`Source::Bytes`] and [`Source::Time`] send the
//!   [`pattern`] stream instead of a file (memory to memory, as iperf3
//!   measures); the receiver can drop it ([`Sink::Discard`]) or check every
//!   byte ([`Sink::Check`]).
//! * **Connection id**: the sender picks a random `conn` (or
//!   [`SendOptions::conn_id`]); the receiver locks onto the `conn` and source
//!   address of the first data packet it gets and ignores every other
//!   datagram, as the sender ignores ACKs for other connections.
//! * **Parallel streams** ([`send_streams`], `dropless send -P N`): one
//!   socket carries N connections with consecutive ids, each a full
//!   [`dropless_transport::Sender`] with its own controller, sharing one
//!   host-wide pacer ([`dropless_transport::HostPacer`]) unless
//!   [`SendOptions::host_pacing`] is off. A receiver of generated data
//!   serves them all: while its first connection runs, the first packet
//!   (sequence number 0) of another connection id from the same address
//!   opens another stream, up to [`MAX_STREAMS`]; the transfer ends when
//!   every stream is complete. An encrypted file's (or directory's) stream
//!   is instead split over the N connections block by block, the
//!   connection ids naming the split (the `split` module); the receiver
//!   writes every stream into the one part file and checks the hash once.
//! * **Ending**: the sender is done when everything is acknowledged. The
//!   receiver renames its temporary file into place as soon as all data has
//!   arrived, then *lingers* ([`RecvOptions::linger`]) re-acknowledging any
//!   retransmission, so that a lost final ACK is repaired by the sender's
//!   retransmission timer instead of hanging the sender. The linger should
//!   exceed the sender's retransmission timeout (≥ its `min_rto`).
//! * **Output**: the receiver writes into a hidden temporary file in the
//!   destination directory with positioned writes and renames it to the
//!   destination only on success; a failed transfer leaves no output file.
//! * **Socket I/O** goes through `quinn-udp` (see the `io` module): the
//!   sender hands the kernel up to 64 datagrams per system call (GSO,
//!   [`SendOptions::gso`]) and the receiver takes coalesced ones (GRO); the
//!   sockets never fragment, so an mss above the path MTU is an error.
//!   Between batches of at most 64 packets the sender reads the ACKs that
//!   arrived meanwhile.
//! * **ECN**: with [`SendOptions::ecn`] data leaves as ECT(0); the receiver
//!   takes each packet's codepoint from its IP header (so a router's CE mark
//!   counts) and echoes CE marks, to which the controller reacts.
//! * **Security**: with a key ([`SendOptions::key`], [`RecvOptions::key`];
//!   the CLI's default) a transfer opens with a Noise handshake and every
//!   datagram after it, data and ACK, headers included, travels sealed
//!   with AEGIS-128X4 (long) or AEGIS-128L (short), each nonce accepted
//!   once ([`secure`]); everything else is dropped and counted ([`TransferReport::rejected`]). Without a
//!   key there is no handshake and the datagrams above travel in clear.
//!   Either way there is no rejection message: a receiver that refuses a
//!   connection (wrong mss, wrong key) just stops answering, and the
//!   sender fails after [`SendOptions::timeout`].
//! * **Bounds**: a receiver drops data more than [`RECV_WINDOW`] packets
//!   ahead of what it holds in order, and a sender ends the transfer when
//!   acknowledged beyond what it sent.
//!
//! # Time
//!
//! The transport works in [`Time`] nanoseconds; each side's time is
//! nanoseconds since its transfer started, read from [`std::time::Instant`] in
//! one place (`Clock::now`). Waits use `ppoll(2)` on the socket with the
//! deadline from `poll_timeout` (see the `sys` module for why not
//! `SO_RCVTIMEO`), capped at [`MAX_WAIT`].
//!
//! # Example
//!
//! ```no_run
//! use dropless_udp::{conn_info, recv_file, send_file, RecvOptions, SendOptions};
//! # fn controller(_: dropless_cc::ConnInfo) -> Box<dyn dropless_cc::Controller> { unimplemented!() }
//! # fn main() -> anyhow::Result<()> {
//! // receiver
//! let report = recv_file("127.0.0.1:9000".parse()?, "out.bin".as_ref(), &RecvOptions::default())?;
//! // sender (elsewhere)
//! let opts = SendOptions::default();
//! let cc = controller(conn_info(opts.mss)); // e.g. from dropless_cc::registry
//! let report = send_file("in.bin".as_ref(), "127.0.0.1:9000".parse()?, cc, &opts)?;
//! println!("{report}");
//! # Ok(()) }
//! ```

#![warn(missing_docs)]

use std::fmt;
use std::time::{Duration, Instant};

use dropless_cc::{CongestionCause, ConnInfo, Time};
use dropless_transport::AckPolicy;

mod files;
pub mod held;
pub mod identity;
mod io;
pub mod pattern;
mod recv;
pub mod secure;
mod send;
mod server;
mod split;
mod sys;
pub mod tree;

pub use recv::{recv, recv_file, recv_file_on, recv_on, recv_reverse, RECV_WINDOW};
pub use send::{
    send, send_file, send_file_on, send_on, send_streams, send_streams_on, MAX_STREAMS,
};
pub use server::{serve_on, server_socket, ServeStats, DEFAULT_MAX_CLIENTS};

#[doc(no_inline)]
pub use dropless_cc::{Controller, PacketFlags};

/// Default payload bytes per datagram: 1400 + 30 header + 8 UDP + 20 IPv4
/// = 1458 bytes, below a 1500-byte MTU with room for tunnels.
pub const DEFAULT_MSS: u32 = 1400;
/// Bytes of UDP and IPv4 headers added to every datagram.
pub const UDP_IPV4_OVERHEAD: u32 = 28;
/// Largest UDP payload over IPv4; `DATA_HEADER_LEN + mss` must not exceed it.
pub const MAX_DATAGRAM: usize = 65_507;
/// Longest single wait in either event loop; timeouts are checked at least
/// this often.
pub const MAX_WAIT: Duration = Duration::from_millis(10);

/// Per-packet bytes on an IPv4 wire beyond the payload: the dropless data
/// header plus UDP and IPv4.
pub const fn wire_overhead() -> u32 {
    dropless_wire::DATA_HEADER_LEN as u32 + UDP_IPV4_OVERHEAD
}

/// The [`ConnInfo`] a controller for a UDP transfer with payload `mss` should
/// be built with (`wire_size` counts the dropless, UDP and IPv4 headers).
pub fn conn_info(mss: u32) -> ConnInfo {
    ConnInfo {
        mss,
        wire_size: mss + wire_overhead(),
        seed: 0,
    }
}

/// [`conn_info`] for a transfer sealed with [`secure`] (`encrypted`),
/// whose datagrams carry [`secure::SEAL_OVERHEAD`] more bytes.
pub fn conn_info_for(mss: u32, encrypted: bool) -> ConnInfo {
    let mut i = conn_info(mss);
    if encrypted {
        i.wire_size += secure::SEAL_OVERHEAD as u32;
    }
    i
}

/// Sender settings.
#[derive(Clone, Debug, PartialEq)]
pub struct SendOptions {
    /// Payload bytes per datagram; must equal the receiver's
    /// [`RecvOptions::mss`]. Default [`DEFAULT_MSS`].
    pub mss: u32,
    /// Give up (with an error) when nothing new has been acknowledged for
    /// this long. Default 10 s.
    pub timeout: Duration,
    /// Local address to bind; default: the unspecified address of the
    /// peer's family with an ephemeral port. Ignored by [`send_file_on`].
    pub bind: Option<std::net::SocketAddr>,
    /// Connection id; default a random one.
    pub conn_id: Option<u32>,
    /// Retransmission timeout before the first RTT sample (RFC 6298: 1 s).
    pub initial_rto: Duration,
    /// Floor of the retransmission timeout. Default 200 ms (Linux).
    pub min_rto: Duration,
    /// Send window cap in packets beyond the oldest unacknowledged one (the
    /// receiver advertises no window; this bounds the scoreboard). A
    /// receiver drops packets more than [`RECV_WINDOW`] (131,072) ahead of
    /// what it has in order. Default 65 536.
    pub max_window: u64,
    /// Requested `SO_SNDBUF`/`SO_RCVBUF` in bytes (the kernel may cap it);
    /// 0 keeps the system default. Default 4 MiB.
    pub socket_buffer: usize,
    /// Proportional Rate Reduction in fast recovery
    /// ([`dropless_transport::SenderConfig::prr`], RFC 9937). Default off
    /// (RFC 6675 pipe-limited recovery).
    pub prr: bool,
    /// RACK time-based loss detection
    /// ([`dropless_transport::SenderConfig::rack`], RFC 8985): reordering
    /// within a quarter of the minimum RTT is not taken for loss. Default
    /// true (real paths reorder; the simulator's default is off, for the
    /// reproductions).
    pub rack: bool,
    /// Tail loss probes ([`dropless_transport::SenderConfig::tlp`], RFC 8985
    /// §7): a transfer whose last packets are lost recovers about 2 SRTT
    /// after its tail instead of after the retransmission timeout. Default
    /// true (the simulator's default is off, for the reproductions).
    pub tlp: bool,
    /// Send data ECN-capable (ECT(0) in the IP header, RFC 3168): a router
    /// may then mark congestion (CE) instead of dropping, the receiver
    /// echoes the marks and the controller reacts once per window as to a
    /// loss. Default false.
    pub ecn: bool,
    /// Hand the kernel up to 64 datagrams per system call (UDP generic
    /// segmentation offload, where the platform has it). The kernel or NIC
    /// splits them into separate datagrams that leave back to back, as the
    /// transport sent them; a queue discipline on the sending host (e.g.
    /// tbf) may however drop such a batch as one unit. Default true.
    pub gso: bool,
    /// Report an [`Interval`] this often to the callback of [`send`] /
    /// [`send_on`] (iperf3's `--interval`); `None` reports none. Default
    /// `None`.
    pub interval: Option<Duration>,
    /// Record an [`Interval`] this often in [`TransferReport::trace`] (a
    /// fine-grained series, independent of `interval`; the CLI's
    /// `--trace`); `None` records none. Default `None`.
    pub trace_every: Option<Duration>,
    /// The keys (a pre-shared key of the receiver, or this sender's key
    /// pair and the receiver's public key): the transfer starts with a Noise
    /// handshake and every datagram is sealed with authenticated encryption
    /// ([`secure`]). `None` sends plaintext, which anyone on the path can
    /// read, alter, forge or replay: the CLI asks for `--insecure` to allow
    /// it. Default `None`.
    pub key: Option<secure::Keys>,
    /// With parallel streams ([`send_streams`]), pace them all with one
    /// host-wide pacer at the sum of their rates, in bursts of the smallest
    /// of their bursts ([`dropless_transport::HostPacer`], seed 001's
    /// "pacing at layer 3"), instead of each stream pacing itself. No
    /// effect on one stream. Default true.
    pub host_pacing: bool,
    /// Ask the receiver to continue an interrupted transfer of this file
    /// (with [`SendOptions::key`] and [`Source::File`] only): the first
    /// handshake message names the file by its size and BLAKE3 hash, and a
    /// receiver that holds part of it ([`RecvOptions::resume`]) answers
    /// with the byte to start from; the whole-file hash then checks the
    /// joined result. A receiver that holds nothing of it, or does not
    /// resume, gets the whole file. Default false.
    pub resume: bool,
    /// The [`Source::File`] is a directory stream already packed by
    /// [`tree::pack`] (a file list, then the files): it is sent as a
    /// directory (the receiver unpacks it). Not needed for a directory
    /// itself, which is packed and sent as one. Default false.
    pub tree: bool,
    /// **Test hook**, leave `None` in real use: when `Some(n)`, every `n`-th
    /// data transmission (counting retransmissions) is silently not sent, to
    /// emulate deterministic loss of ~1/n of the packets.
    pub debug_drop_every: Option<u64>,
    /// **Test hook**, leave `None` in real use: when `Some(n)`, every `n`-th
    /// data transmission is held back and sent after the three that
    /// follow it (reordering by three positions, with no loss).
    pub debug_reorder_every: Option<u64>,
    /// Where the sender keeps what it has done, for a progress display on
    /// another thread (`dropless send` shows a bar on a terminal). `None`
    /// (the default) costs nothing.
    pub progress: Option<Progress>,
}

/// What a running send has done, readable from another thread: bytes of
/// the stream acknowledged (all streams), and how many there are to send
/// once the handshake has settled it (less what a resumed receiver held).
/// Updated once per round of the sender's loop, not per packet.
#[derive(Clone, Debug, Default)]
pub struct Progress(std::sync::Arc<[std::sync::atomic::AtomicU64; 2]>);

/// Two handles are equal when they share one record.
impl PartialEq for Progress {
    fn eq(&self, other: &Progress) -> bool {
        std::sync::Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Progress {
    /// Bytes acknowledged so far.
    pub fn done(&self) -> u64 {
        self.0[0].load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Bytes to send in all, once known (`None` before the handshake, and
    /// for a transfer that runs for a time).
    pub fn total(&self) -> Option<u64> {
        Some(self.0[1].load(std::sync::atomic::Ordering::Relaxed)).filter(|&t| t > 0)
    }

    pub(crate) fn set_done(&self, n: u64) {
        self.0[0].store(n, std::sync::atomic::Ordering::Relaxed);
    }

    pub(crate) fn set_total(&self, n: u64) {
        self.0[1].store(n, std::sync::atomic::Ordering::Relaxed);
    }
}

impl Default for SendOptions {
    fn default() -> Self {
        SendOptions {
            mss: DEFAULT_MSS,
            timeout: Duration::from_secs(10),
            bind: None,
            conn_id: None,
            initial_rto: Duration::from_secs(1),
            min_rto: Duration::from_millis(200),
            max_window: 1 << 16,
            socket_buffer: 4 << 20,
            prr: false,
            rack: true,
            tlp: true,
            ecn: false,
            gso: true,
            interval: None,
            trace_every: None,
            host_pacing: true,
            key: None,
            resume: false,
            tree: false,
            debug_drop_every: None,
            debug_reorder_every: None,
            progress: None,
        }
    }
}

/// What a sender sends.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Source<'a> {
    /// The file at this path; the receiver gets an identical copy. A
    /// directory is sent whole (with a key only): its directories and
    /// regular files with their names, modes and modification times, into
    /// the receiver's target directory ([`tree`]).
    File(&'a std::path::Path),
    /// This many generated bytes ([`pattern`]), memory to memory as iperf3
    /// measures: no disk on either side.
    Bytes(u64),
    /// Generated bytes for this long: after this time (from the first
    /// transmission) no new data is sent, the stream is closed where it
    /// stands ([`dropless_transport::Sender::finish`]) and the sender
    /// returns once all of it is acknowledged.
    Time(Duration),
}

/// Where a receiver puts the data.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Sink<'a> {
    /// Into this file, written under a temporary name and renamed into place
    /// only when complete. When the sender sends a directory ([`tree`]),
    /// this is the directory it is unpacked into (created if missing).
    File(&'a std::path::Path),
    /// Nowhere: the bytes are counted and dropped (a memory-to-memory test).
    Discard,
    /// Nowhere, but every byte is checked against the generated stream of
    /// [`Source::Bytes`] / [`Source::Time`]; the first difference fails the
    /// transfer with its offset.
    Check,
}

/// One congestion event of a transfer, as the sender saw it (the
/// transport's [`dropless_transport::EventRecord`] with its time relative
/// to the first transmission).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CongestionRecord {
    /// When it was detected, from the first transmission.
    pub at: Duration,
    /// Loss or CE marks; a retransmission timeout has `rto`.
    pub cause: CongestionCause,
    /// A retransmission timeout.
    pub rto: bool,
    /// Congestion window just before it, packets.
    pub cwnd: f64,
    /// Packets declared lost in it (until its recovery ended).
    pub lost: u32,
}

impl CongestionRecord {
    /// `"loss"`, `"ecn"` or `"timeout"`.
    pub fn kind(&self) -> &'static str {
        match (self.rto, self.cause) {
            (true, _) => "timeout",
            (false, CongestionCause::Loss) => "loss",
            (false, CongestionCause::Ecn) => "ecn",
        }
    }
}

/// What happened during one reporting interval of a sender
/// ([`SendOptions::interval`]); counters are the interval's increments.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Interval {
    /// Start of the interval, from the first transmission.
    pub start: Duration,
    /// End of the interval (the last one ends when the transfer does).
    pub end: Duration,
    /// Stream bytes newly acknowledged in the interval.
    pub bytes_acked: u64,
    /// `bytes_acked * 8 / (end - start)`, bits per second.
    pub goodput_bps: f64,
    /// Data packets transmitted, retransmissions included.
    pub packets_sent: u64,
    /// Retransmitted packets.
    pub retransmits: u64,
    /// Packets declared lost.
    pub packets_lost: u64,
    /// Congestion events (loss recoveries, ECN reactions, RTOs).
    pub congestion_events: u64,
    /// Retransmission timeouts.
    pub rtos: u64,
    /// The controller's window at the end of the interval, in packets
    /// (`None` for a pure rate controller).
    pub cwnd: Option<f64>,
    /// The controller's pacing rate at the end, bits per second (`None`
    /// when ACK clocked).
    pub pacing_rate_bps: Option<f64>,
    /// Packets in flight at the end.
    pub in_flight: u32,
    /// Smoothed RTT at the end.
    pub srtt: Option<Duration>,
    /// Mean of the interval's RTT samples (`None` without any).
    pub mean_rtt: Option<Duration>,
    /// The latest RTT sample at the end (`None` before the first).
    pub latest_rtt: Option<Duration>,
    /// The controller's trace variables at the end
    /// ([`dropless_cc::Controller::trace_vars`]: FAST's alpha and base RTT,
    /// Madison's path estimates, ...), as the simulator records them.
    pub vars: Vec<(&'static str, f64)>,
}

/// One stream's [`Interval`] in a report of parallel streams
/// ([`send_streams`]): the stream's index, from 0, and its interval.
pub type StreamInterval = (usize, Interval);

/// A flag that ends a transfer when set ([`RecvOptions::stop`]), shared
/// with whoever sets it (a signal handler: `signal_hook::flag::register`
/// takes [`StopFlag::flag`]). Two flags are equal when they are the same
/// flag.
#[derive(Clone, Debug, Default)]
pub struct StopFlag(pub std::sync::Arc<std::sync::atomic::AtomicBool>);

impl StopFlag {
    /// The shared boolean.
    pub fn flag(&self) -> std::sync::Arc<std::sync::atomic::AtomicBool> {
        self.0.clone()
    }

    /// True once set.
    pub fn is_set(&self) -> bool {
        self.0.load(std::sync::atomic::Ordering::Relaxed)
    }
}

impl PartialEq for StopFlag {
    fn eq(&self, other: &Self) -> bool {
        std::sync::Arc::ptr_eq(&self.0, &other.0)
    }
}

/// Receiver settings.
#[derive(Clone, Debug, PartialEq)]
pub struct RecvOptions {
    /// Payload bytes per datagram; must equal the sender's
    /// [`SendOptions::mss`]. Default [`DEFAULT_MSS`].
    pub mss: u32,
    /// When to acknowledge. Default [`AckPolicy::DELAYED`].
    pub ack_policy: AckPolicy,
    /// How long to wait for the first data packet; `None` waits forever.
    /// Default `None`.
    pub start_timeout: Option<Duration>,
    /// Fail when the sender has been silent this long mid-transfer.
    /// Default 10 s.
    pub idle_timeout: Duration,
    /// After the file is complete, keep re-acknowledging retransmissions
    /// until the sender has been silent this long. Should exceed the
    /// sender's retransmission timeout. Default 500 ms.
    pub linger: Duration,
    /// `fsync` the file before renaming it into place. Default true.
    pub sync: bool,
    /// Requested `SO_RCVBUF`/`SO_SNDBUF` in bytes (the kernel may cap it);
    /// 0 keeps the system default. Default 4 MiB.
    pub socket_buffer: usize,
    /// Open a connection only with its first packet (sequence number 0;
    /// the sender retransmits it until it is acknowledged). A server that
    /// receives one transfer after another on the same socket sets it, so
    /// that late packets of the previous transfer, or of one that failed
    /// part-way, cannot open the next (and the linger ends when the next
    /// transfer's first packet arrives, see [`recv_on`]). Default false (any
    /// packet opens).
    pub require_first_packet: bool,
    /// The pre-shared key senders must hold, or this receiver's key pair and
    /// the senders it admits ([`SendOptions::key`]): only
    /// a valid Noise handshake opens a transfer and only sealed datagrams
    /// of its session are read; everything else is dropped and counted in
    /// [`TransferReport::rejected`]. `None` reads plaintext from anyone.
    /// Default `None`.
    pub key: Option<secure::Keys>,
    /// Set to true (by a signal handler, say) to end the transfer: it
    /// fails with "interrupted" within [`MAX_WAIT`]-ish (the loop wakes at
    /// least every 100 ms), removing its temporary file. `None`: only the
    /// process's death ends it early. Default `None`.
    pub stop: Option<StopFlag>,
    /// Keep an interrupted file transfer for a later one to continue
    /// (with [`RecvOptions::key`] and [`Sink::File`] only): the data goes
    /// to `.NAME.dropless-part` beside the destination, with a record of
    /// how much of which file it holds in `.NAME.dropless-resume`
    /// (updated as the data arrives, so that even a killed receiver leaves
    /// an accurate one). A failed or interrupted transfer leaves both; a
    /// sender that asks to resume the same file (same size and BLAKE3
    /// hash) is told to start where the part file's verified-in-order
    /// prefix ends; any other file starts the part over. Default false
    /// (a failed transfer leaves nothing).
    pub resume: bool,
    /// Replace an existing destination file ([`Sink::File`]). Default
    /// false: an existing file is an error, checked before the transfer
    /// and again, atomically, when the file is renamed into place. Never
    /// anything but a regular file (a link, a device or a FIFO at the
    /// destination is always an error).
    pub force: bool,
    /// Grant reverse requests (`dropless send -R`, [`recv_reverse`]): an
    /// asker that holds the key and names an amount of generated data gets
    /// it from this receiver, sent with this controller and these settings.
    /// Only a receiver of generated data ([`Sink::Discard`],
    /// [`Sink::Check`]) grants them; without this (the default, `None`)
    /// a reverse request is refused, and the asker is told so in the
    /// handshake response.
    pub reverse: Option<ReverseServe>,
    /// **Test hook**, leave `None` in real use: when `Some(n)`, every `n`-th
    /// ACK is silently not sent.
    pub debug_drop_ack_every: Option<u64>,
    /// **Test hook**, leave `None` in real use: when `Some(n)`, every `n`-th
    /// data packet that arrives ECN-capable is taken as CE-marked, as a
    /// marking router would leave it (Not-ECT packets cannot be marked).
    pub debug_mark_ce_every: Option<u64>,
}

impl Default for RecvOptions {
    fn default() -> Self {
        RecvOptions {
            mss: DEFAULT_MSS,
            ack_policy: AckPolicy::DELAYED,
            start_timeout: None,
            idle_timeout: Duration::from_secs(10),
            linger: Duration::from_millis(500),
            sync: true,
            socket_buffer: 4 << 20,
            require_first_packet: false,
            key: None,
            stop: None,
            resume: false,
            force: false,
            reverse: None,
            debug_drop_ack_every: None,
            debug_mark_ce_every: None,
        }
    }
}

/// How a receiver sends when it grants a reverse request
/// ([`RecvOptions::reverse`]).
#[derive(Clone)]
pub struct ReverseServe {
    /// Builds the controller of one reverse transfer.
    pub controller: std::sync::Arc<dyn Fn() -> Box<dyn Controller> + Send + Sync>,
    /// The sender's settings; its mss, keys and timeout are the
    /// receiver's ([`RecvOptions::mss`], [`RecvOptions::key`],
    /// [`RecvOptions::idle_timeout`]).
    pub send: SendOptions,
}

impl fmt::Debug for ReverseServe {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ReverseServe")
            .field("send", &self.send)
            .finish_non_exhaustive()
    }
}

/// Equal when they build controllers with the same function and send
/// alike.
impl PartialEq for ReverseServe {
    fn eq(&self, other: &Self) -> bool {
        std::sync::Arc::ptr_eq(&self.controller, &other.controller) && self.send == other.send
    }
}

/// What a transfer did. Sender-only and receiver-only fields are zero (or
/// `None`) on the other side.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TransferReport {
    /// File bytes transferred.
    pub bytes: u64,
    /// Sender: first transmission until everything was acknowledged.
    /// Receiver: first data packet until the file was complete.
    pub duration: Duration,
    /// `bytes * 8 / duration`, bits per second.
    pub goodput_bps: f64,
    /// Name of the congestion controller (sender only).
    pub controller: &'static str,
    /// The other endpoint (receiver: the sender's address).
    pub peer: Option<std::net::SocketAddr>,
    /// Sender: the series [`SendOptions::trace_every`] asked for.
    pub trace: Vec<Interval>,
    /// Data packets transmitted, retransmissions included (sender).
    pub packets_sent: u64,
    /// Retransmitted packets (sender).
    pub retransmits: u64,
    /// Packets the sender declared lost (sender).
    pub packets_lost: u64,
    /// Congestion events: loss recoveries, ECN reactions and RTOs (sender).
    pub congestion_events: u64,
    /// Retransmission timeouts (sender).
    pub rtos: u64,
    /// Fast recoveries run under Proportional Rate Reduction
    /// ([`SendOptions::prr`]; sender, 0 without it).
    pub prr_recoveries: u64,
    /// CE-marked data packets: received (receiver) or echoed by the
    /// receiver (sender).
    pub ce_marks: u64,
    /// The sender's congestion events, oldest first (sender).
    pub events: Vec<CongestionRecord>,
    /// Smoothed RTT at the end (sender; `None` without any sample).
    pub srtt: Option<Duration>,
    /// Smallest RTT seen (sender).
    pub min_rtt: Option<Duration>,
    /// Mean of every RTT sample of the transfer (sender; `None` without
    /// any). Unlike `srtt`, which is the smoothed value at the end, it
    /// weighs the whole transfer.
    pub mean_rtt: Option<Duration>,
    /// Data packets received, duplicates included (receiver).
    pub packets_received: u64,
    /// Duplicate data packets (receiver).
    pub duplicates: u64,
    /// ACKs sent (receiver) or received and accepted (sender).
    pub acks: u64,
    /// Connections served (receiver: more than one for a sender's parallel
    /// streams; 0 on a sender).
    pub streams: u32,
    /// The transfer ran under authenticated encryption ([`secure`]).
    pub encrypted: bool,
    /// Datagrams dropped because they were not authenticated: forged,
    /// altered, replayed, of another session, or plaintext on an encrypted
    /// transfer.
    pub rejected: u64,
    /// Datagrams discarded by the test hooks (`debug_drop_every`,
    /// `debug_drop_ack_every`).
    pub debug_dropped: u64,
    /// A resumed file transfer ([`SendOptions::resume`],
    /// [`RecvOptions::resume`]): bytes of the file the receiver already
    /// held from an interrupted transfer, in any ranges ([`held::Held`]),
    /// which this one did not carry again (`bytes` counts only what it
    /// carried). 0 for a transfer that sent the whole file.
    pub resumed_held: u64,
}

impl TransferReport {
    /// Congestion events started by CE marks rather than losses (sender).
    pub fn ecn_events(&self) -> u64 {
        self.events
            .iter()
            .filter(|e| !e.rto && e.cause == CongestionCause::Ecn)
            .count() as u64
    }

    fn set_goodput(&mut self) {
        let s = self.duration.as_secs_f64();
        self.goodput_bps = if s > 0.0 {
            self.bytes as f64 * 8.0 / s
        } else {
            0.0
        };
    }
}

impl fmt::Display for TransferReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} bytes in {:.3} s: {:.1} Mbit/s",
            self.bytes,
            self.duration.as_secs_f64(),
            self.goodput_bps / 1e6
        )?;
        if !self.controller.is_empty() {
            write!(
                f,
                "; {}: {} packets sent, {} retransmitted, {} lost, {} congestion events, {} RTOs",
                self.controller,
                self.packets_sent,
                self.retransmits,
                self.packets_lost,
                self.congestion_events,
                self.rtos
            )?;
            if self.prr_recoveries > 0 {
                write!(f, ", {} with PRR", self.prr_recoveries)?;
            }
            if self.ce_marks > 0 {
                write!(
                    f,
                    ", {} CE marks echoed ({} ECN events)",
                    self.ce_marks,
                    self.ecn_events()
                )?;
            }
            if let Some(s) = self.srtt {
                write!(f, ", srtt {:.1} µs", s.as_secs_f64() * 1e6)?;
            }
            if let Some(m) = self.min_rtt {
                write!(f, ", min rtt {:.1} µs", m.as_secs_f64() * 1e6)?;
            }
            if let Some(m) = self.mean_rtt {
                write!(f, ", mean rtt {:.1} µs", m.as_secs_f64() * 1e6)?;
            }
        } else {
            write!(
                f,
                "; {} packets received, {} duplicates, {} ACKs",
                self.packets_received, self.duplicates, self.acks
            )?;
            if self.streams > 1 {
                write!(f, ", {} streams", self.streams)?;
            }
            if self.ce_marks > 0 {
                write!(f, ", {} CE-marked", self.ce_marks)?;
            }
        }
        if self.resumed_held > 0 {
            write!(f, "; resumed, {} bytes already held", self.resumed_held)?;
        }
        if self.encrypted {
            write!(f, "; encrypted")?;
        } else {
            write!(f, "; PLAINTEXT (--insecure)")?;
        }
        if self.rejected > 0 {
            write!(f, "; {} unauthenticated datagrams dropped", self.rejected)?;
        }
        if self.debug_dropped > 0 {
            write!(f, "; {} dropped by test hook", self.debug_dropped)?;
        }
        Ok(())
    }
}

/// The one place a clock is read: nanoseconds since the transfer started.
struct Clock(Instant);

impl Clock {
    fn start() -> Self {
        Clock(Instant::now())
    }
    /// Current [`Time`], from 0 (an echoed 0 is a real echo; "no echo" is
    /// `dropless_transport::NO_ECHO`).
    fn now(&self) -> Time {
        self.0.elapsed().as_nanos() as Time
    }
}

fn nanos(t: Time) -> Duration {
    Duration::from_nanos(t)
}

fn check_mss(mss: u32) -> anyhow::Result<()> {
    let max = MAX_DATAGRAM - dropless_wire::DATA_HEADER_LEN - secure::SEAL_OVERHEAD;
    anyhow::ensure!(
        mss >= 1 && mss as usize <= max,
        "mss {mss} out of range: must be 1..={max} so a datagram fits in UDP"
    );
    Ok(())
}

/// A random 32-bit value without reading a clock (std's per-process random
/// hash keys).
fn random_u32() -> u32 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u32(std::process::id());
    h.finish() as u32
}
