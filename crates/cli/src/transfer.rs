//! `dropless send` / `dropless recv`: move a file over UDP with the same
//! transport endpoint and controllers the simulator runs.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use dropless_cc::registry;
use dropless_transport::AckPolicy;
use dropless_udp::{RecvOptions, SendOptions};

use crate::Failure;

pub const SEND_HELP: &str = "\
Sends FILE to a `dropless recv` listening at PEER. The controller is any name
from `dropless list controllers`, with its parameters as --param NAME=VALUE.
Both sides must use the same --mss.

Examples:
  dropless recv 127.0.0.1:9000 --out copy.bin
  dropless send data.bin 127.0.0.1:9000
  dropless send data.bin 127.0.0.1:9000 --cc fast --param alpha=100";

pub const RECV_HELP: &str = "\
Listens on ADDR for one transfer and writes it to --out. The file is written
to a temporary name beside --out and renamed only when the transfer is
complete, so a failed transfer leaves no partial file.

Examples:
  dropless recv 127.0.0.1:9000 --out copy.bin
  dropless recv 127.0.0.1:9000 --out copy.bin --ack every";

/// Arguments of `dropless send`.
#[derive(clap::Args, Debug)]
pub struct SendArgs {
    /// File to send
    pub file: PathBuf,
    /// Receiver address, e.g. 127.0.0.1:9000
    pub peer: SocketAddr,
    /// Congestion controller
    #[arg(long, default_value = "newreno")]
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
pub struct RecvArgs {
    /// Address to listen on, e.g. 127.0.0.1:9000
    pub addr: SocketAddr,
    /// Where to write the received file
    #[arg(short, long)]
    pub out: PathBuf,
    /// Payload bytes per datagram (both sides must agree)
    #[arg(long, default_value_t = dropless_udp::DEFAULT_MSS)]
    pub mss: u32,
    /// Acknowledgement policy
    #[arg(long, value_enum, default_value_t = AckArg::Delayed)]
    pub ack: AckArg,
    /// Give up after this many seconds without data
    #[arg(long, default_value_t = 30.0)]
    pub timeout: f64,
}

fn parse_params(cc: &str, raw: &[String]) -> Result<Vec<(String, f64)>, Failure> {
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

fn duration(what: &str, s: f64) -> Result<Duration, Failure> {
    if s.is_finite() && s > 0.0 {
        Ok(Duration::from_secs_f64(s))
    } else {
        Err(Failure::Input(format!(
            "{what}: found {s}, expected a positive number of seconds"
        )))
    }
}

fn check_mss(mss: u32) -> Result<(), Failure> {
    if (64..=65000).contains(&mss) {
        Ok(())
    } else {
        Err(Failure::Input(format!(
            "--mss: found {mss}, expected 64 to 65000 bytes"
        )))
    }
}

pub fn send(a: &SendArgs) -> Result<(), Failure> {
    check_mss(a.mss)?;
    let params = parse_params(&a.cc, &a.params)?;
    let cc = registry::build(&a.cc, &params, &dropless_udp::conn_info(a.mss))
        .map_err(|e| Failure::Input(format!("--cc: {e}")))?;
    if !a.file.is_file() {
        return Err(Failure::Input(format!(
            "{}: not a readable file",
            a.file.display()
        )));
    }
    let opts = SendOptions {
        mss: a.mss,
        timeout: duration("--timeout", a.timeout)?,
        prr: a.prr,
        ..SendOptions::default()
    };
    let report = dropless_udp::send_file(&a.file, a.peer, cc, &opts)
        .map_err(|e| Failure::Run(format!("{e:#}")))?;
    println!("{report}");
    Ok(())
}

pub fn recv(a: &RecvArgs) -> Result<(), Failure> {
    check_mss(a.mss)?;
    let opts = RecvOptions {
        mss: a.mss,
        ack_policy: match a.ack {
            AckArg::Every => AckPolicy::EveryPacket,
            AckArg::Delayed => AckPolicy::DELAYED,
            AckArg::Probe => AckPolicy::ProbeOnly,
        },
        start_timeout: Some(duration("--timeout", a.timeout)?),
        ..RecvOptions::default()
    };
    let report = dropless_udp::recv_file(a.addr, &a.out, &opts)
        .map_err(|e| Failure::Run(format!("{e:#}")))?;
    println!("{report}");
    Ok(())
}
