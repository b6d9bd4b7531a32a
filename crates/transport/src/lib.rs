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

#![warn(missing_docs)]

pub mod host_pacer;
pub mod pacer;
pub mod packet;
pub mod ranges;
pub mod receiver;
pub mod rtt;
pub mod sender;

pub use host_pacer::HostPacer;
pub use packet::{
    price_code, AckPacket, DataPacket, Ecn, MAX_SACK, NO_ECHO, NO_PRICE, PRICE_SCALE,
};
pub use receiver::{AckPolicy, Arrival, Receiver, ReceiverStats};
pub use sender::{EventRecord, LostSeqs, Sender, SenderConfig, SenderStats, LOST_SEQS_CAP};
