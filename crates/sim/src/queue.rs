//! The event queue: a monotone priority queue keyed by (time, insertion number).
//!
//! One `u128` per event packs time (64 bits), the insertion number (40 bits)
//! and the payload (24 bits: event kind and index), so ties break by
//! insertion order, one integer comparison orders two events, and a heap
//! entry is 16 bytes.
//! The queue holds O(links + flows) entries (see the engine), so a binary
//! heap is small and cache-resident. A radix heap (the `radix-heap` crate)
//! was measured as a replacement and was 15% slower on the 100-flow
//! benchmark: with a few hundred entries the binary heap's log n is small
//! and the radix heap's bucket redistribution costs more.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use dropless_cc::Time;

/// Payloads must be below this (24 bits).
pub(crate) const PAYLOAD_LIMIT: u64 = 1 << 24;
const SEQ_MASK: u128 = (1 << 40) - 1;

/// Events ordered by time, then by insertion.
pub(crate) struct EventQueue {
    heap: BinaryHeap<Reverse<u128>>,
    seq: u64,
}

impl EventQueue {
    pub(crate) fn new() -> Self {
        EventQueue {
            heap: BinaryHeap::new(),
            seq: 0,
        }
    }

    /// Schedules `payload` (below [`PAYLOAD_LIMIT`]) at `time` (never before
    /// the last popped time).
    #[inline]
    pub(crate) fn push(&mut self, time: Time, payload: u64) {
        debug_assert!(payload < PAYLOAD_LIMIT);
        self.seq += 1;
        // 40 bits of insertion number: 10^12 events, a day at 12 M events/s.
        let key = ((time as u128) << 64) | ((self.seq as u128 & SEQ_MASK) << 24) | payload as u128;
        self.heap.push(Reverse(key));
    }

    /// Removes and returns the earliest event if it is due by `until`.
    #[inline]
    pub(crate) fn pop_until(&mut self, until: Time) -> Option<(Time, u64)> {
        let &Reverse(key) = self.heap.peek()?;
        let time = (key >> 64) as Time;
        if time > until {
            return None;
        }
        self.heap.pop();
        Some((time, (key as u64) & (PAYLOAD_LIMIT - 1)))
    }

    pub(crate) fn len(&self) -> usize {
        self.heap.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pops_in_time_then_insertion_order() {
        let mut q = EventQueue::new();
        q.push(5, 1);
        q.push(3, 2);
        q.push(5, 3);
        q.push(3, 4);
        assert_eq!(q.pop_until(100), Some((3, 2)));
        assert_eq!(q.pop_until(100), Some((3, 4)));
        q.push(4, 5);
        assert_eq!(q.pop_until(4), Some((4, 5)));
        assert_eq!(q.pop_until(4), None);
        assert_eq!(q.len(), 2);
        assert_eq!(q.pop_until(5), Some((5, 1)));
        assert_eq!(q.pop_until(5), Some((5, 3)));
        assert_eq!(q.pop_until(5), None);
    }
}
