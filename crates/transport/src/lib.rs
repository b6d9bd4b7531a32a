//! The reliable transport endpoint of dropless, sans-IO.
//!
//! [`Sender`] and [`Receiver`] never read a clock and never touch a socket:
//! the caller passes `now` and packets in and takes packets and wake-up times
//! out, in the style of `quinn-proto` and `smoltcp`. The packet-level
//! simulator (`dropless-sim`) and the UDP driver (`dropless-udp`) are thin
//! shells around exactly this code.
//!
//! Sequence numbers count packets of `mss` payload bytes. The sender keeps a
//! SACK scoreboard, declares a transmission lost once `dupthresh` later
//! transmissions have been delivered (RFC 6675's DupThresh, applied in
//! transmission order so that lost retransmissions are found too), runs one
//! recovery episode per window of data (RFC 6582's recovery point), sends
//! while packets in flight are below the controller's window (RFC 6675
//! "pipe"), backs off its RFC 6298 timer, and paces departures at the
//! controller's rate in trains of the controller's burst size.
//!
//! Loss recovery is one module per algorithm, each a small state struct the
//! [`Sender`] owns and calls at the same points (a transmission leaves, a
//! packet is delivered, an ACK has been processed, a recovery episode
//! starts), each answering one question, while the scoreboard stays the
//! sender's: [`rack`] (RFC 8985 §6: when a passed transmission counts as
//! lost; without it RFC 6675's DupThresh in transmission order, in the
//! sender's loss detection), [`prr`] (RFC 9937: how much the pipe may hold
//! during fast recovery; without it RFC 6675's `pipe < cwnd`), [`tlp`] (RFC
//! 8985 §7: when a tail loss probe leaves), [`ns2_recovery`] (the ns-2 FAST TCP
//! module's pipe and timer in fast recovery, which chapter 4's reproductions
//! select).

#![warn(missing_docs)]

pub mod host_pacer;
pub mod ns2_recovery;
pub mod pacer;
pub mod packet;
pub mod prr;
pub mod rack;
pub mod ranges;
pub mod receiver;
pub mod rtt;
pub mod sender;
pub mod tlp;

pub use host_pacer::HostPacer;
pub use packet::{
    price_code, AckPacket, DataPacket, Ecn, MAX_SACK, NO_ECHO, NO_PRICE, PRICE_SCALE,
};
pub use receiver::{AckPolicy, Arrival, Receiver, ReceiverStats};
pub use sender::{EventRecord, LostSeqs, Sender, SenderConfig, SenderStats, LOST_SEQS_CAP};
