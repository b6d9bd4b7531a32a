//! Buffer sizing for TCP over core DWDM switches: the analytic half of the
//! thesis's chapter 3 (Cui, seed 003; reference note
//! `thesis_ch3_buffer_sizing.md`).
//!
//! * [`rules`]: the thesis's rule (3.23)/(3.24), the single-link rule (3.27),
//!   BDP, BDP/sqrt(N) (Appenzeller's erf rule), Enachescu's O(log W) and the
//!   full-utilization condition B > mu max RTT.
//! * [`tables`]: Tables 3.1-3.4 regenerated.
//!
//! Units: link rates in packets/s (1040-byte packets, note §1.4), delays in
//! seconds, buffers in packets.

pub mod math;
pub mod rules;
pub mod tables;
