//! `dropless send` / `dropless recv`: move a file over UDP with the same
//! transport endpoint and controllers the simulator runs.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use dropless_cc::registry;
use dropless_scenario::units::{self, fmt_rate};
use dropless_transport::AckPolicy;
use dropless_udp::secure::{AllowedPeers, Keys, PrivateKey, Psk, PublicKey};
use dropless_udp::{Interval, RecvOptions, SendOptions, Sink, Source, TransferReport};

use crate::Failure;

pub const SEND_HELP: &str = "\
Sends FILE to a `dropless recv` listening at PEER, or, with --bytes or --time
and no FILE, generated data (memory to memory, as iperf3 measures; `dropless
recv --check` verifies every byte of it). The controller is any name from
`dropless list controllers`, with its parameters as --param NAME=VALUE. Both
sides must use the same --mss. --interval prints goodput, packets sent,
retransmissions, losses, congestion events, the window, the pacing rate and
the mean RTT every interval; --json prints the result (and the intervals) as
one JSON object instead.

FILE may be a directory (encrypted only): it is sent whole in one session,
its directories and regular files with their names, modes and modification
times, into the receiver's --out directory (created if missing; an existing
file there is replaced only with the receiver's --force). A symbolic link or
special file in it is an error.

With -P N the sender opens N connections on one socket, paced by one
host-wide pacer (--no-host-pacing: each paces itself), and prints each
stream's lines and their sum; a `dropless recv --discard/--check` serves all
of them as one transfer.

With -R (reverse mode, as iperf3's) the listener sends: `dropless recv ADDR
--check --allow-reverse` sends the generated data of --bytes/--time to this
end with its own --cc, after the handshake has proven the key (encrypted
only); --check here verifies every byte received. A listener without
--allow-reverse refuses.

Examples:
  dropless recv 127.0.0.1:9000 --out copy.bin
  dropless send data.bin 127.0.0.1:9000
  dropless send photos/ 127.0.0.1:9000
  dropless send data.bin 127.0.0.1:9000 --cc fast --param alpha=100
  dropless recv 127.0.0.1:9000 --check
  dropless send 127.0.0.1:9000 --time 10s --interval 1s --cc cubic
  dropless send 127.0.0.1:9000 --bytes 1GB --json
  dropless send 127.0.0.1:9000 --time 10s -P 4 --cc pda
  dropless send 127.0.0.1:9000 -R --time 10s --check
  dropless send data.bin 192.0.2.7:9000 --identity send.key --peer-key RECEIVER_PUBLIC_KEY";

pub const RECV_HELP: &str = "\
Listens on ADDR for one transfer. With --out the data is written to a
temporary name beside the file and renamed only when the transfer is complete,
so a failed transfer leaves no partial file; when the sender sends a
directory, --out is the directory it is unpacked into (names that would
leave it, `..`, absolute paths or a path through a symbolic link, are
refused before anything is written). --discard only counts the bytes;
--check also verifies every byte against the generated data of `dropless send
--bytes/--time` and fails at the first difference.

With --keep (and --discard or --check) it serves transfers until
interrupted, as an iperf3 server does, several senders at once (at most
--max-clients; each on a socket of its own): a line per transfer (a JSON
object per line with --json), and a failed transfer is reported on stderr
without ending the server. A sender is admitted only once it has shown that
it receives at its address (a cookie) and, encrypted, that it holds the key;
each is dropped after --timeout seconds of silence.

With --identity (a private key from `dropless keygen --pair`) and
--allowed-peers FILE, senders are known by their public keys: only those
listed in FILE (one per line) are answered.

With --resume (and --out and --key) an interrupted transfer is kept, and
`send FILE ADDR --resume` continues it from what the receiver holds; the
whole-file BLAKE3 hash checks the joined result.

With --allow-reverse (and --discard or --check, not --keep) a sender that
proves the key may ask this end to send it generated data (`dropless send -R`),
with --cc (default cubic) and --param; without it such a request is refused.

Examples:
  dropless recv 127.0.0.1:9000 --out copy.bin
  dropless recv 127.0.0.1:9000 --out copy.bin --ack every
  dropless recv 127.0.0.1:9000 --check --json
  dropless recv 0.0.0.0:9000 --discard --keep
  dropless recv 0.0.0.0:9000 --check --allow-reverse --cc cubic
  dropless recv 0.0.0.0:9000 --out copy.bin --key k --resume
  dropless recv 0.0.0.0:9000 --out copy.bin --identity recv.key --allowed-peers peers";

/// Authenticated encryption or an explicit plaintext transfer (`send`,
/// `recv`, `probe`).
#[derive(clap::Args, Debug, Clone)]
pub struct SecurityArgs {
    /// Pre-shared key file (from `dropless keygen`), the same on both ends:
    /// a Noise handshake, then every datagram authenticated and encrypted
    /// (with --identity as well: mixed into the key-pair handshake)
    #[arg(long, value_name = "FILE", conflicts_with = "insecure")]
    pub key: Option<PathBuf>,
    /// Private key file (from `dropless keygen --pair`): both ends are
    /// authenticated by their key pairs (Noise IK); the sender names the
    /// receiver with --peer-key, the receiver lists the senders it admits
    /// with --allowed-peers
    #[arg(long, value_name = "FILE", conflicts_with = "insecure")]
    pub identity: Option<PathBuf>,
    /// send, probe: the receiver's public key (44 base64 characters or 64
    /// hexadecimal digits, as `dropless keygen --pair` printed it), with
    /// --identity
    #[arg(long, value_name = "KEY")]
    pub peer_key: Option<String>,
    /// recv: a file of the senders' public keys it admits, one per line
    /// (blank lines and # comments skipped; a name may follow the key),
    /// with --identity
    #[arg(long, value_name = "FILE")]
    pub allowed_peers: Option<PathBuf>,
    /// Plaintext, without authentication or encryption: anyone on the path
    /// can read, alter, forge or replay the data
    #[arg(long)]
    pub insecure: bool,
}

/// Which end of a transfer the keys are for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// `send`, `probe`: names the receiver's public key.
    Sender,
    /// `recv`: lists the senders it admits.
    Receiver,
}

impl SecurityArgs {
    /// The keys, `None` with --insecure; an input error (one line, naming
    /// the flag) without any, or for a flag of the other role.
    pub fn keys(&self, role: Role) -> Result<Option<Keys>, Failure> {
        if self.insecure && (self.peer_key.is_some() || self.allowed_peers.is_some()) {
            let flag = if self.peer_key.is_some() {
                "--peer-key"
            } else {
                "--allowed-peers"
            };
            return Err(Failure::Input(format!(
                "{flag}: not with --insecure (plaintext authenticates nobody)"
            )));
        }
        match (role, &self.peer_key, &self.allowed_peers) {
            (Role::Sender, _, Some(_)) => {
                return Err(Failure::Input(
                    "--allowed-peers is for `dropless recv`; a sender names its receiver with \
                     --peer-key KEY"
                        .to_string(),
                ))
            }
            (Role::Receiver, Some(_), _) => {
                return Err(Failure::Input(
                    "--peer-key is for `dropless send`/`probe`; a receiver lists the senders it \
                     admits with --allowed-peers FILE"
                        .to_string(),
                ))
            }
            _ => {}
        }
        let psk = match &self.key {
            Some(path) => {
                Some(Psk::from_file(path).map_err(|e| Failure::Input(format!("--key: {e:#}")))?)
            }
            None => None,
        };
        let Some(id) = &self.identity else {
            if self.peer_key.is_some() || self.allowed_peers.is_some() {
                let flag = if self.peer_key.is_some() {
                    "--peer-key"
                } else {
                    "--allowed-peers"
                };
                return Err(Failure::Input(format!(
                    "{flag} needs --identity FILE: this end's private key (make one with \
                     `dropless keygen --pair FILE`)"
                )));
            }
            return match (psk, self.insecure) {
                (Some(psk), _) => Ok(Some(Keys::shared(psk))),
                (None, true) => Ok(None),
                (None, false) => Err(Failure::Input(
                    "transfers are authenticated and encrypted: give --key FILE (make one with \
                     `dropless keygen FILE` and copy it to the other end), or --identity FILE \
                     with key pairs (`dropless keygen --pair FILE`), or --insecure for plaintext"
                        .to_string(),
                )),
            };
        };
        let me =
            PrivateKey::from_file(id).map_err(|e| Failure::Input(format!("--identity: {e:#}")))?;
        match role {
            Role::Sender => {
                let Some(k) = &self.peer_key else {
                    return Err(Failure::Input(
                        "--identity needs --peer-key KEY on a sender: the receiver's public key \
                         (what `dropless keygen --pair` printed on its side)"
                            .to_string(),
                    ));
                };
                let peer =
                    PublicKey::parse(k).map_err(|e| Failure::Input(format!("--peer-key: {e}")))?;
                Ok(Some(Keys::to_peer(me, peer, psk)))
            }
            Role::Receiver => {
                let Some(f) = &self.allowed_peers else {
                    return Err(Failure::Input(
                        "--identity needs --allowed-peers FILE on a receiver: the public keys \
                         of the senders it admits, one per line"
                            .to_string(),
                    ));
                };
                let allowed = AllowedPeers::from_file(f)
                    .map_err(|e| Failure::Input(format!("--allowed-peers: {e:#}")))?;
                Ok(Some(Keys::from_peers(me, allowed, psk)))
            }
        }
    }

    /// Files that hold a key: `--out` must never be one of them.
    pub fn key_files(&self) -> impl Iterator<Item = (&'static str, &PathBuf)> {
        [("--key", &self.key), ("--identity", &self.identity)]
            .into_iter()
            .filter_map(|(n, p)| p.as_ref().map(|p| (n, p)))
    }
}

/// `dropless keygen FILE`: a new random pre-shared key, mode 0600; with
/// `--pair`, a new private key (mode 0600), its public key printed on
/// standard output.
pub fn keygen(path: &Path, pair: bool) -> Result<(), Failure> {
    if path.symlink_metadata().is_ok() {
        return Err(Failure::Input(format!(
            "{}: exists; a new key goes to a new file",
            path.display()
        )));
    }
    if pair {
        let k = PrivateKey::generate().map_err(|e| Failure::Run(format!("{e:#}")))?;
        k.write_new_file(path)
            .map_err(|e| Failure::Run(format!("{e:#}")))?;
        eprintln!(
            "wrote a new private key to {} (keep it secret: --identity); its public key, for \
             the other end's --peer-key or --allowed-peers:",
            path.display()
        );
        println!("{}", k.public());
        return Ok(());
    }
    let k = Psk::generate().map_err(|e| Failure::Run(format!("{e:#}")))?;
    k.write_new_file(path)
        .map_err(|e| Failure::Run(format!("{e:#}")))?;
    eprintln!(
        "wrote a new key to {} (keep it secret; both ends of a transfer use it with --key)",
        path.display()
    );
    Ok(())
}

/// `dropless pubkey FILE`: prints the public key of a private key file.
pub fn pubkey(path: &Path) -> Result<(), Failure> {
    let k = PrivateKey::from_file(path).map_err(|e| Failure::Input(format!("{e:#}")))?;
    println!("{}", k.public());
    Ok(())
}

/// Arguments of `dropless send`.
#[derive(clap::Args, Debug)]
pub struct SendArgs {
    /// File to send (leave out with --bytes or --time)
    pub file: Option<PathBuf>,
    /// Receiver address, e.g. 127.0.0.1:9000
    pub peer: SocketAddr,
    /// Send this many generated bytes instead of a file, e.g. 100MB, 1GiB
    #[arg(long, value_name = "SIZE", conflicts_with_all = ["file", "time"])]
    pub bytes: Option<String>,
    /// Send generated bytes for this long instead of a file, e.g. 10s
    #[arg(long, value_name = "TIME", conflicts_with = "file")]
    pub time: Option<String>,
    /// Report every TIME, e.g. 1s or 200ms
    #[arg(short, long, value_name = "TIME")]
    pub interval: Option<String>,
    /// Print the result as one JSON object (with the intervals, if any)
    #[arg(long)]
    pub json: bool,
    /// Congestion controller (`dropless list` names them all). The default is
    /// CUBIC as Linux runs it (HyStart): on the emulated 1 Gb/s, 80 ms path it
    /// carried 923.5 Mb/s against kernel CUBIC's 928.9, with 5 retransmissions
    /// against 4,089 (docs/reports/pda-real.md). PDA carries far more than
    /// CUBIC under random loss but does not yet meet its real-path bars in
    /// every run, so it is not the default yet.
    #[arg(long, default_value = "cubic")]
    pub cc: String,
    /// Controller parameter (repeatable): NAME=VALUE
    #[arg(short, long = "param", value_name = "NAME=VALUE")]
    pub params: Vec<String>,
    /// Payload bytes per datagram (both sides must agree)
    #[arg(long, default_value_t = dropless_udp::DEFAULT_MSS)]
    pub mss: u32,
    /// Give up after this many seconds without progress
    #[arg(long, default_value_t = 10.0)]
    pub timeout: f64,
    /// Proportional Rate Reduction (RFC 9937) in fast recovery instead of
    /// the pipe-limited RFC 6675 rule
    #[arg(long)]
    pub prr: bool,
    /// Loss by three duplicate ACKs (RFC 6675) instead of RACK's time-based
    /// detection (RFC 8985), which takes reordering within a quarter of the
    /// minimum RTT for what it is
    #[arg(long)]
    pub no_rack: bool,
    /// No tail loss probe (RFC 8985 §7): a lost tail then waits for the
    /// retransmission timeout instead of being probed after 2 SRTT
    #[arg(long)]
    pub no_tlp: bool,
    /// One system call per datagram instead of up to 64 (no UDP
    /// segmentation offload)
    #[arg(long)]
    pub no_gso: bool,
    /// Send ECN-capable (ECT(0)) and react to the congestion marks (CE) the
    /// receiver echoes (RFC 3168)
    #[arg(long)]
    pub ecn: bool,
    /// Write the sender's state every --trace-every to this CSV file (the
    /// simulator's flows.csv columns, then counters and the controller's
    /// variables), once the transfer has ended
    #[arg(long, value_name = "FILE")]
    pub trace: Option<PathBuf>,
    /// Sampling period of --trace, e.g. 1ms
    #[arg(long, value_name = "TIME", default_value = "10ms", requires = "trace")]
    pub trace_every: String,
    /// Parallel streams (1 to 128), each its own connection and controller;
    /// generated data goes whole over each (--bytes is per stream), a FILE
    /// or directory is split over them block by block (encrypted only);
    /// reported per stream and in total, as iperf3's -P
    #[arg(short = 'P', long, value_name = "N", default_value_t = 1)]
    pub parallel: u32,
    /// With -P: each stream paces itself, instead of one pacer for the host
    /// at the sum of the streams' rates in bursts of the smallest of their
    /// bursts (seed 001's pacing at layer 3)
    #[arg(long)]
    pub no_host_pacing: bool,
    /// Show no progress bar (a bar with the rate and the time left is
    /// shown on stderr only when it is a terminal, and never with --json or
    /// --interval)
    #[arg(long)]
    pub no_progress: bool,
    /// Continue an interrupted transfer of FILE: a receiver run with
    /// --resume that holds part of this very file (same size and BLAKE3
    /// hash) says where to start; otherwise the whole file goes
    #[arg(long, requires = "file")]
    pub resume: bool,
    /// Reverse mode, as iperf3's -R: ask the `dropless recv --allow-reverse`
    /// at PEER to send the generated data of --bytes/--time to this end
    /// (encrypted only; the controller is the listener's --cc)
    #[arg(short = 'R', long, conflicts_with_all = [
        "cc", "params", "parallel", "no_host_pacing", "resume", "trace",
        "interval", "prr", "no_rack", "no_tlp", "no_gso", "ecn", "trace_every",
    ])]
    pub reverse: bool,
    /// With -R: check every byte received against the generated data (as
    /// `recv --check`); without it the bytes are counted and dropped
    #[arg(long, requires = "reverse")]
    pub check: bool,
    #[command(flatten)]
    pub security: SecurityArgs,
}

/// How the receiver acknowledges.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum AckArg {
    /// Every packet
    Every,
    /// Delayed ACKs (every second packet, at most 40 ms)
    Delayed,
    /// Only packets carrying the ACK-request bit (TCP-Madison)
    Probe,
}

/// Arguments of `dropless recv`.
#[derive(clap::Args, Debug)]
#[command(group(clap::ArgGroup::new("sink").required(true).args(["out", "discard", "check"])))]
pub struct RecvArgs {
    /// Address to listen on, e.g. 127.0.0.1:9000
    pub addr: SocketAddr,
    /// Where to write the received data
    #[arg(short, long)]
    pub out: Option<PathBuf>,
    /// Count the received bytes and drop them (no file)
    #[arg(long)]
    pub discard: bool,
    /// Check every byte against the generated data of `send --bytes/--time`
    /// (no file)
    #[arg(long)]
    pub check: bool,
    /// Print the result as one JSON object
    #[arg(long)]
    pub json: bool,
    /// Payload bytes per datagram (both sides must agree)
    #[arg(long, default_value_t = dropless_udp::DEFAULT_MSS)]
    pub mss: u32,
    /// Acknowledgement policy
    #[arg(long, value_enum, default_value_t = AckArg::Delayed)]
    pub ack: AckArg,
    /// Give up after this many seconds without data (with --keep: only
    /// within a transfer; the next one is awaited for ever)
    #[arg(long, default_value_t = 30.0)]
    pub timeout: f64,
    /// Serve transfers until interrupted, several senders at once (with
    /// --discard or --check)
    #[arg(long, conflicts_with = "out")]
    pub keep: bool,
    /// With --keep: most senders served at once (others wait and retry)
    #[arg(long, value_name = "N", default_value_t = dropless_udp::DEFAULT_MAX_CLIENTS as u16,
          value_parser = clap::value_parser!(u16).range(1..=1024))]
    pub max_clients: u16,
    /// Keep an interrupted transfer for `send --resume` to continue: the
    /// data goes to .NAME.dropless-part beside the file, with a record of
    /// what it holds (.NAME.dropless-resume); both stay after a failure,
    /// an interrupt, or even a kill, and go when the file is complete
    #[arg(long, requires = "out", conflicts_with_all = ["discard", "check", "keep"])]
    pub resume: bool,
    /// Replace an existing --out file (only a regular file; never a link,
    /// a device or a FIFO)
    #[arg(long, requires = "out", conflicts_with_all = ["discard", "check", "keep"])]
    pub force: bool,
    /// Grant reverse requests (`dropless send -R`): a sender that proves
    /// the key and asks for generated data gets it from this end, sent with
    /// --cc (encrypted only; with --discard or --check, not --keep)
    #[arg(long, conflicts_with_all = ["out", "keep"])]
    pub allow_reverse: bool,
    /// With --allow-reverse: the controller that sends (`dropless list`
    /// names them all; default cubic, as `send`)
    #[arg(long, requires = "allow_reverse")]
    pub cc: Option<String>,
    /// With --allow-reverse: a parameter of --cc (repeatable): NAME=VALUE
    #[arg(
        short,
        long = "param",
        value_name = "NAME=VALUE",
        requires = "allow_reverse"
    )]
    pub params: Vec<String>,
    #[command(flatten)]
    pub security: SecurityArgs,
}

pub(crate) fn parse_params(cc: &str, raw: &[String]) -> Result<Vec<(String, f64)>, Failure> {
    raw.iter()
        .map(|kv| {
            let (k, v) = kv.split_once('=').ok_or_else(|| {
                Failure::Input(format!(
                    "--param {kv:?}: expected NAME=VALUE, e.g. alpha=100"
                ))
            })?;
            let x: f64 = v.trim().parse().map_err(|_| {
                Failure::Input(format!(
                    "--param {k}: found {v:?}, expected a number (controller {cc})"
                ))
            })?;
            Ok((k.trim().to_string(), x))
        })
        .collect()
}

/// Longest time a timeout may be: about 11.6 days (a `Duration` of 1e30 s
/// does not exist, and the transport counts nanoseconds in 64 bits).
const MAX_TIMEOUT_S: f64 = 1e6;

fn duration(what: &str, s: f64) -> Result<Duration, Failure> {
    if s.is_finite() && s > 0.0 && s <= MAX_TIMEOUT_S {
        Ok(Duration::from_secs_f64(s))
    } else {
        Err(Failure::Input(format!(
            "{what}: found {s}, expected a positive number of seconds up to {MAX_TIMEOUT_S}"
        )))
    }
}

pub(crate) fn check_mss(mss: u32) -> Result<(), Failure> {
    if (64..=65000).contains(&mss) {
        Ok(())
    } else {
        Err(Failure::Input(format!(
            "--mss: found {mss}, expected 64 to 65000 bytes"
        )))
    }
}

/// Parses `--NAME VALUE` with a scenario-file unit parser.
pub(crate) fn unit_arg<T>(
    name: &str,
    v: &str,
    parse: fn(&str) -> Result<T, String>,
) -> Result<T, Failure> {
    parse(v).map_err(|e| Failure::Input(format!("--{name}: found {v:?}, expected {e}")))
}

pub(crate) fn positive_time(name: &str, v: &str) -> Result<Duration, Failure> {
    let ns = unit_arg(name, v, units::parse_time)?;
    if ns == 0 {
        return Err(Failure::Input(format!(
            "--{name}: found {v:?}, expected a time above zero"
        )));
    }
    Ok(Duration::from_nanos(ns))
}

pub fn send(a: &SendArgs) -> Result<(), Failure> {
    check_mss(a.mss)?;
    if a.reverse {
        return send_reverse(a);
    }
    // (clap's `requires = "file"` does not fire when FILE is left out.)
    if a.resume && a.file.is_none() {
        return Err(Failure::Input(
            "--resume continues an interrupted transfer of a FILE: not with --bytes or --time"
                .to_string(),
        ));
    }
    let params = parse_params(&a.cc, &a.params)?;
    let encrypted = !a.security.insecure;
    let n = a.parallel as usize;
    if !(1..=dropless_udp::MAX_STREAMS).contains(&n) {
        return Err(Failure::Input(format!(
            "-P/--parallel: found {}, expected 1 to {} streams",
            a.parallel,
            dropless_udp::MAX_STREAMS
        )));
    }
    if n > 1 && a.file.is_some() && a.security.insecure {
        return Err(Failure::Input(
            "--parallel: a FILE is split over parallel streams with encryption only (drop --insecure): the streams are one authenticated session"
                .to_string(),
        ));
    }
    if a.no_host_pacing && n == 1 {
        return Err(Failure::Input(
            "--no-host-pacing: needs --parallel N with N above 1".to_string(),
        ));
    }
    let ccs = (0..n)
        .map(|_| {
            registry::build(
                &a.cc,
                &params,
                &dropless_udp::conn_info_for(a.mss, encrypted),
            )
            .map_err(|e| Failure::Input(format!("--cc: {e}")))
        })
        .collect::<Result<Vec<_>, _>>()?;
    if encrypted && ccs.iter().any(|c| c.wants_price()) {
        // A pricing link reads the probe type from the data header's packet
        // number, which a sealed datagram hides.
        return Err(Failure::Input(format!(
            "--cc: \"{}\" is driven by link prices (ADPM marks), which `dropless emulate --price rcp` or `--price maxnet` puts on plaintext data packets only: add --insecure",
            a.cc
        )));
    }
    let source = match (&a.file, &a.bytes, &a.time) {
        (Some(f), None, None) => {
            if f.is_dir() {
                if a.security.insecure {
                    return Err(Failure::Input(format!(
                        "{}: a directory is sent with encryption only (drop --insecure): its file list travels inside the authenticated session",
                        f.display()
                    )));
                }
            } else if !f.is_file() {
                return Err(Failure::Input(format!(
                    "{}: not a readable file or directory",
                    f.display()
                )));
            }
            Source::File(f)
        }
        (None, Some(b), None) => Source::Bytes(unit_arg("bytes", b, units::parse_size)?),
        (None, None, Some(t)) => Source::Time(positive_time("time", t)?),
        _ => {
            return Err(Failure::Input(
                "give one of: a FILE to send, --bytes SIZE or --time TIME (generated data)"
                    .to_string(),
            ))
        }
    };
    let opts = SendOptions {
        mss: a.mss,
        timeout: duration("--timeout", a.timeout)?,
        prr: a.prr,
        rack: !a.no_rack,
        tlp: !a.no_tlp,
        gso: !a.no_gso,
        ecn: a.ecn,
        interval: a
            .interval
            .as_deref()
            .map(|v| positive_time("interval", v))
            .transpose()?,
        trace_every: match &a.trace {
            Some(path) => {
                // Checked now, not after a long transfer.
                let dir = match path.parent() {
                    Some(d) if !d.as_os_str().is_empty() => d,
                    _ => Path::new("."),
                };
                if !dir.is_dir() {
                    return Err(Failure::Input(format!(
                        "--trace {}: directory {} does not exist",
                        path.display(),
                        dir.display()
                    )));
                }
                Some(positive_time("trace-every", &a.trace_every)?)
            }
            None => None,
        },
        host_pacing: !a.no_host_pacing,
        resume: a.resume,
        // Read last: the other arguments' errors come first.
        key: a.security.keys(Role::Sender)?,
        ..SendOptions::default()
    };
    if a.resume && opts.key.is_none() {
        return Err(Failure::Input(
            "--resume needs --key or --identity: the handshake carries where to resume, and \
             the whole-file hash checks the joined result"
                .to_string(),
        ));
    }
    let mut intervals = Vec::new();
    let mut header = false;
    let json = a.json;
    let mut on_tick = |tick: &[(usize, Interval)]| {
        if json {
            for (k, i) in tick {
                let mut v = interval_json(i);
                if n > 1 {
                    v["stream"] = (*k).into();
                }
                intervals.push(v);
            }
            return;
        }
        if !header {
            println!(
                "{}{:>15}  {:>11}  {:>7}  {:>5}  {:>5}  {:>6}  {:>9}  {:>11}  {:>9}",
                if n > 1 { "stream  " } else { "" },
                "interval s",
                "goodput",
                "sent",
                "retx",
                "lost",
                "events",
                "cwnd pkt",
                "pacing",
                "rtt ms"
            );
            header = true;
        }
        for (k, i) in tick {
            if n > 1 {
                print!("{:>6}  ", format!("[{k}]"));
            }
            println!("{}", interval_line(i));
        }
        if n > 1 {
            println!("{:>6}  {}", "[SUM]", interval_line(&sum_intervals(tick)));
        }
    };
    let shown = !a.no_progress
        && !a.json
        && a.interval.is_none()
        && std::io::IsTerminal::is_terminal(&std::io::stderr());
    let mut opts = opts;
    opts.progress = shown.then(dropless_udp::Progress::default);
    let stop = std::sync::atomic::AtomicBool::new(false);
    let reports = std::thread::scope(|sc| {
        if let Some(p) = &opts.progress {
            sc.spawn(|| progress_bar(p, &stop));
        }
        let r = dropless_udp::send_streams(source, a.peer, ccs, &opts, &mut on_tick);
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        r
    })
    .map_err(|e| Failure::Run(format!("{e:#}")))?;
    if let Some(path) = &a.trace {
        let rows: Vec<(Option<usize>, &Interval)> = reports
            .iter()
            .enumerate()
            .flat_map(|(k, r)| r.trace.iter().map(move |i| ((n > 1).then_some(k), i)))
            .collect();
        write_trace(path, &rows)?;
    }
    if n == 1 {
        let report = &reports[0];
        if json {
            let mut v = report_json(report);
            v["intervals"] = serde_json::Value::Array(intervals);
            println!("{v:#}");
        } else {
            println!("{report}");
        }
        return Ok(());
    }
    let total = sum_reports(&reports);
    if json {
        let v = serde_json::json!({
            "streams": reports.iter().map(report_json).collect::<Vec<_>>(),
            "sum": report_json(&total),
            "host_pacing": opts.host_pacing,
            "intervals": intervals,
        });
        println!("{v:#}");
    } else {
        for (k, r) in reports.iter().enumerate() {
            println!("[{k}] {r}");
        }
        println!("[SUM] {total}");
    }
    Ok(())
}

/// `dropless send -R`: asks the listener at PEER to send generated data
/// and receives it (reverse mode); prints the receiving end's report.
fn send_reverse(a: &SendArgs) -> Result<(), Failure> {
    let amount =
        match (&a.file, &a.bytes, &a.time) {
            (Some(f), _, _) => {
                return Err(Failure::Input(format!(
                "-R: the listener sends generated data (--bytes or --time), not a file: drop {}",
                f.display()
            )))
            }
            (None, Some(b), None) => {
                dropless_udp::secure::Amount::Bytes(unit_arg("bytes", b, units::parse_size)?)
            }
            (None, None, Some(t)) => dropless_udp::secure::Amount::Time(
                positive_time("time", t)?.as_nanos().min(u64::MAX as u128) as u64,
            ),
            _ => return Err(Failure::Input(
                "-R: give --bytes SIZE or --time TIME, the generated data the listener is to send"
                    .to_string(),
            )),
        };
    if a.security.insecure {
        return Err(Failure::Input(
            "-R: not with --insecure: the listener sends only to a peer that proved the key \
             (give --key or --identity)"
                .to_string(),
        ));
    }
    let timeout = duration("--timeout", a.timeout)?;
    let opts = RecvOptions {
        mss: a.mss,
        idle_timeout: timeout,
        start_timeout: Some(timeout),
        key: a.security.keys(Role::Sender)?,
        stop: Some(on_signals()?),
        ..RecvOptions::default()
    };
    let sink = if a.check { Sink::Check } else { Sink::Discard };
    let report = dropless_udp::recv_reverse(a.peer, amount, sink, &opts)
        .map_err(|e| Failure::Run(format!("{e:#}")))?;
    if a.json {
        println!("{:#}", report_json(&report));
    } else {
        println!("{report}");
    }
    Ok(())
}

/// Draws `p` on stderr every 100 ms (bytes acknowledged, rate, and with a
/// known total the bar and the time left) until `stop`, then clears it.
fn progress_bar(p: &dropless_udp::Progress, stop: &std::sync::atomic::AtomicBool) {
    use indicatif::{ProgressBar, ProgressStyle};
    let bar = ProgressBar::new_spinner();
    bar.set_style(
        ProgressStyle::with_template("{spinner} {bytes} {binary_bytes_per_sec} {elapsed}")
            .expect("a valid template"),
    );
    let mut sized = false;
    while !stop.load(std::sync::atomic::Ordering::Relaxed) {
        if let (false, Some(t)) = (sized, p.total()) {
            bar.set_length(t);
            bar.set_style(
                ProgressStyle::with_template(
                    "[{bar:30}] {bytes}/{total_bytes} {binary_bytes_per_sec} ETA {eta}",
                )
                .expect("a valid template")
                .progress_chars("=> "),
            );
            sized = true;
        }
        bar.set_position(p.done());
        std::thread::sleep(Duration::from_millis(100));
    }
    bar.finish_and_clear();
}

/// The streams' intervals of one tick added up: goodput and counters
/// summed, pacing rates summed, windows and RTTs left out.
fn sum_intervals(tick: &[(usize, Interval)]) -> Interval {
    let mut s = Interval {
        start: tick.iter().map(|(_, i)| i.start).min().unwrap_or_default(),
        end: tick.iter().map(|(_, i)| i.end).max().unwrap_or_default(),
        ..Interval::default()
    };
    for (_, i) in tick {
        s.bytes_acked += i.bytes_acked;
        s.goodput_bps += i.goodput_bps;
        s.packets_sent += i.packets_sent;
        s.retransmits += i.retransmits;
        s.packets_lost += i.packets_lost;
        s.congestion_events += i.congestion_events;
        s.rtos += i.rtos;
        s.in_flight += i.in_flight;
        if let Some(r) = i.pacing_rate_bps {
            s.pacing_rate_bps = Some(s.pacing_rate_bps.unwrap_or(0.0) + r);
        }
    }
    s
}

/// The streams' reports added up: bytes and counters summed over the
/// longest stream's duration; the RTTs are the streams' mean (smoothed and
/// mean) and minimum.
fn sum_reports(reports: &[TransferReport]) -> TransferReport {
    let mut t = TransferReport {
        controller: reports[0].controller,
        peer: reports[0].peer,
        encrypted: reports[0].encrypted,
        ..TransferReport::default()
    };
    let mut srtt = Vec::new();
    let mut mean = Vec::new();
    for r in reports {
        t.bytes += r.bytes;
        t.duration = t.duration.max(r.duration);
        t.packets_sent += r.packets_sent;
        t.retransmits += r.retransmits;
        t.packets_lost += r.packets_lost;
        t.congestion_events += r.congestion_events;
        t.rtos += r.rtos;
        t.prr_recoveries += r.prr_recoveries;
        t.ce_marks += r.ce_marks;
        t.acks += r.acks;
        t.debug_dropped += r.debug_dropped;
        t.rejected += r.rejected;
        t.events.extend(r.events.iter().copied());
        srtt.extend(r.srtt);
        mean.extend(r.mean_rtt);
        t.min_rtt = match (t.min_rtt, r.min_rtt) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
    }
    t.events.sort_by_key(|e| e.at);
    let avg = |v: &[Duration]| (!v.is_empty()).then(|| v.iter().sum::<Duration>() / v.len() as u32);
    t.srtt = avg(&srtt);
    t.mean_rtt = avg(&mean);
    let s = t.duration.as_secs_f64();
    t.goodput_bps = if s > 0.0 {
        t.bytes as f64 * 8.0 / s
    } else {
        0.0
    };
    t
}

/// Writes the sender's trace as CSV: the columns of the simulator's
/// `flows.csv` (so the two overlay), then the counters and the
/// controller's variables. Written under a temporary name and renamed, so
/// a failed write leaves no partial file.
/// With parallel streams each row carries its stream in a first column,
/// `stream`.
fn write_trace(path: &Path, trace: &[(Option<usize>, &Interval)]) -> Result<(), Failure> {
    let streams = trace.iter().any(|(k, _)| k.is_some());
    // (name, holds integers)
    let fixed = [
        ("stream", true),
        ("t_s", false),
        ("goodput_bps", false),
        ("cwnd_pkts", false),
        ("pacing_bps", false),
        ("rtt_s", false),
        ("in_flight_pkts", true),
        ("srtt_s", false),
        ("sent", true),
        ("retransmits", true),
        ("lost", true),
        ("congestion_events", true),
    ];
    let fixed = &fixed[usize::from(!streams)..];
    let mut names: Vec<&'static str> = fixed.iter().map(|&(n, _)| n).collect();
    for (_, i) in trace {
        for (k, _) in &i.vars {
            if !names.contains(k) {
                names.push(k);
            }
        }
    }
    let mut cols: Vec<Vec<f64>> = vec![Vec::with_capacity(trace.len()); names.len()];
    let secs = |d: Option<Duration>| d.map_or(f64::NAN, |d| d.as_secs_f64());
    for &(k, i) in trace {
        let row = [
            k.map_or(f64::NAN, |k| k as f64),
            i.end.as_secs_f64(),
            i.goodput_bps,
            i.cwnd.unwrap_or(f64::NAN),
            i.pacing_rate_bps.unwrap_or(f64::NAN),
            secs(i.latest_rtt),
            i.in_flight as f64,
            secs(i.srtt),
            i.packets_sent as f64,
            i.retransmits as f64,
            i.packets_lost as f64,
            i.congestion_events as f64,
        ];
        for (c, v) in cols
            .iter_mut()
            .zip(row.into_iter().skip(usize::from(!streams)))
        {
            c.push(v);
        }
        for (c, name) in cols.iter_mut().zip(&names).skip(fixed.len()) {
            c.push(
                i.vars
                    .iter()
                    .find(|(k, _)| k == name)
                    .map_or(f64::NAN, |(_, v)| *v),
            );
        }
    }
    let mut int_cols: Vec<bool> = fixed.iter().map(|&(_, i)| i).collect();
    int_cols.resize(names.len(), false);
    let table = crate::output::Columns {
        names: names.into_iter().map(String::from).collect(),
        cols,
        int_cols,
    };
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".part");
    let tmp = PathBuf::from(tmp);
    let written = crate::output::write_csv(&tmp, &table).and_then(|()| {
        std::fs::rename(&tmp, path).map_err(|e| format!("renaming to {}: {e}", path.display()))
    });
    written.map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        Failure::Run(format!("writing the trace: {e}"))
    })
}

/// One interval as a text line (the columns of `send`'s header).
fn interval_line(i: &Interval) -> String {
    let opt = |x: Option<f64>, f: fn(f64) -> String| x.map_or("-".to_string(), f);
    format!(
        "{:>7.2}-{:<7.2}  {:>11}  {:>7}  {:>5}  {:>5}  {:>6}  {:>9}  {:>11}  {:>9}",
        i.start.as_secs_f64(),
        i.end.as_secs_f64(),
        fmt_rate(i.goodput_bps),
        i.packets_sent,
        i.retransmits,
        i.packets_lost,
        i.congestion_events,
        opt(i.cwnd, |w| format!("{w:.1}")),
        opt(i.pacing_rate_bps, fmt_rate),
        opt(i.mean_rtt.map(|d| d.as_secs_f64() * 1e3), |r| format!(
            "{r:.3}"
        )),
    )
}

fn secs(d: Option<Duration>) -> serde_json::Value {
    d.map_or(serde_json::Value::Null, |d| d.as_secs_f64().into())
}

fn interval_json(i: &Interval) -> serde_json::Value {
    serde_json::json!({
        "start_s": i.start.as_secs_f64(),
        "end_s": i.end.as_secs_f64(),
        "bytes_acked": i.bytes_acked,
        "goodput_bps": i.goodput_bps,
        "packets_sent": i.packets_sent,
        "retransmits": i.retransmits,
        "packets_lost": i.packets_lost,
        "congestion_events": i.congestion_events,
        "rtos": i.rtos,
        "cwnd_pkts": i.cwnd,
        "pacing_rate_bps": i.pacing_rate_bps,
        "in_flight": i.in_flight,
        "srtt_s": secs(i.srtt),
        "mean_rtt_s": secs(i.mean_rtt),
        "latest_rtt_s": secs(i.latest_rtt),
        "vars": i.vars.iter().map(|&(k, v)| (k.to_string(), serde_json::Value::from(v))).collect::<serde_json::Map<_, _>>(),
    })
}

/// A transfer report as JSON (sender fields for a sender, receiver fields
/// for a receiver).
fn report_json(r: &TransferReport) -> serde_json::Value {
    let mut v = serde_json::json!({
        "bytes": r.bytes,
        "duration_s": r.duration.as_secs_f64(),
        "goodput_bps": r.goodput_bps,
        "peer": r.peer.map(|p| p.to_string()),
        "encrypted": r.encrypted,
        "rejected": r.rejected,
        "resumed_held": r.resumed_held,
    });
    if r.controller.is_empty() {
        v["packets_received"] = r.packets_received.into();
        v["duplicates"] = r.duplicates.into();
        v["acks_sent"] = r.acks.into();
        v["ce_marks"] = r.ce_marks.into();
    } else {
        v["controller"] = r.controller.into();
        v["packets_sent"] = r.packets_sent.into();
        v["retransmits"] = r.retransmits.into();
        v["packets_lost"] = r.packets_lost.into();
        v["congestion_events"] = r.congestion_events.into();
        v["rtos"] = r.rtos.into();
        v["prr_recoveries"] = r.prr_recoveries.into();
        v["ce_marks"] = r.ce_marks.into();
        v["ecn_events"] = r.ecn_events().into();
        v["events"] = r
            .events
            .iter()
            .map(|e| {
                serde_json::json!({
                    "t_s": e.at.as_secs_f64(),
                    "cause": e.kind(),
                    "cwnd_pkts": e.cwnd,
                    "lost": e.lost,
                })
            })
            .collect();
        v["acks_received"] = r.acks.into();
        v["srtt_s"] = secs(r.srtt);
        v["min_rtt_s"] = secs(r.min_rtt);
        v["mean_rtt_s"] = secs(r.mean_rtt);
    }
    v
}

/// A flag that SIGINT, SIGTERM and SIGHUP set instead of killing the
/// process, so that an interrupted receiver removes its temporary file and
/// exits with a message (exit code 1) instead of leaving a hidden part file.
fn on_signals() -> Result<dropless_udp::StopFlag, Failure> {
    let stop = dropless_udp::StopFlag::default();
    for sig in [
        signal_hook::consts::SIGINT,
        signal_hook::consts::SIGTERM,
        signal_hook::consts::SIGHUP,
    ] {
        signal_hook::flag::register(sig, stop.flag())
            .map_err(|e| Failure::Run(format!("installing a signal handler: {e}")))?;
    }
    Ok(stop)
}

pub fn recv(a: &RecvArgs) -> Result<(), Failure> {
    check_mss(a.mss)?;
    if let Some(out) = &a.out {
        use std::os::unix::fs::MetadataExt;
        let same =
            |x: &std::fs::Metadata, y: &std::fs::Metadata| (x.dev(), x.ino()) == (y.dev(), y.ino());
        for (flag, key) in a.security.key_files() {
            if let (Ok(o), Ok(k)) = (std::fs::metadata(out), std::fs::metadata(key)) {
                if same(&o, &k) {
                    return Err(Failure::Input(format!(
                        "--out {} is the {flag} file: refusing to overwrite the key",
                        out.display()
                    )));
                }
            }
        }
    }
    let timeout = duration("--timeout", a.timeout)?;
    let reverse = if a.allow_reverse {
        let cc = a.cc.clone().unwrap_or_else(|| "cubic".to_string());
        let params = parse_params(&cc, &a.params)?;
        let info = dropless_udp::conn_info_for(a.mss, true);
        // Built once now, so that a bad name or parameter is an error at
        // start, not when a sender asks.
        let c = registry::build(&cc, &params, &info)
            .map_err(|e| Failure::Input(format!("--cc: {e}")))?;
        if c.wants_price() {
            return Err(Failure::Input(format!(
                "--cc: \"{cc}\" is driven by link prices, which only plaintext data carries; \
                 reverse mode is encrypted"
            )));
        }
        Some(dropless_udp::ReverseServe {
            controller: std::sync::Arc::new(move || {
                registry::build(&cc, &params, &info).expect("built once at start")
            }),
            send: SendOptions::default(),
        })
    } else {
        None
    };
    let opts = RecvOptions {
        mss: a.mss,
        reverse,
        ack_policy: match a.ack {
            AckArg::Every => AckPolicy::EveryPacket,
            AckArg::Delayed => AckPolicy::DELAYED,
            AckArg::Probe => AckPolicy::ProbeOnly,
        },
        start_timeout: if a.keep { None } else { Some(timeout) },
        // Mid-transfer too: a sender silent this long ends the transfer.
        idle_timeout: timeout,
        require_first_packet: a.keep,
        resume: a.resume,
        force: a.force,
        key: a.security.keys(Role::Receiver)?,
        stop: Some(on_signals()?),
        ..RecvOptions::default()
    };
    // clap's "sink" group makes exactly one of the three present.
    let sink = match (&a.out, a.check) {
        (Some(out), _) => Sink::File(out),
        (None, true) => Sink::Check,
        (None, false) => Sink::Discard,
    };
    if a.resume && opts.key.is_none() {
        return Err(Failure::Input(
            "--resume needs --key or --identity: the handshake carries where to resume, and \
             the whole-file hash checks the joined result"
                .to_string(),
        ));
    }
    if a.allow_reverse && opts.key.is_none() {
        return Err(Failure::Input(
            "--allow-reverse needs --key or --identity: this end sends only to a peer that \
             proved the key"
                .to_string(),
        ));
    }
    if !a.keep {
        let report = dropless_udp::recv(a.addr, sink, &opts).map_err(|e| {
            Failure::Run(if a.resume {
                format!(
                    "{e:#} (any part kept for --resume: the same command and `send --resume` continue it)"
                )
            } else {
                format!("{e:#}")
            })
        })?;
        if a.json {
            println!("{:#}", report_json(&report));
        } else {
            println!("{report}");
        }
        return Ok(());
    }
    let socket = dropless_udp::server_socket(a.addr).map_err(|e| Failure::Run(format!("{e:#}")))?;
    eprintln!(
        "listening on {} (at most {} senders at once; Ctrl-C ends)",
        a.addr, a.max_clients
    );
    let mut on_done = |from: std::net::SocketAddr,
                       r: anyhow::Result<dropless_udp::TransferReport>| {
        match r {
            Ok(r) => {
                if a.json {
                    // One object per line (JSON Lines).
                    println!("{}", report_json(&r));
                } else {
                    println!("from {from}: {r}");
                }
                // A pipe reader sees each transfer as it ends.
                let _ = std::io::Write::flush(&mut std::io::stdout());
            }
            Err(e) => eprintln!("transfer from {from} failed: {e:#}"),
        }
    };
    dropless_udp::serve_on(socket, sink, &opts, a.max_clients.into(), &mut on_done)
        .map_err(|e| Failure::Run(format!("{e:#}")))?;
    Err(Failure::Run("interrupted".to_string()))
}
