//! The event queue: a monotone priority queue keyed by (time, insertion number).
//!
//! One `u128` per event packs time (64 bits), the insertion number (40 bits)
//! and the payload (24 bits: event kind and index), so ties break by
//! insertion order, one integer comparison orders two events, and a heap
//! entry is 16 bytes.
//! The queue holds O(links + flows) entries (see the engine). With a few
//! hundred entries any heap is cache-resident and std's binary heap is the
//! cheapest in instructions. With thousands of flows (bench case D: 6400
//! paced flows, about 20,000 entries, 320 KB) the binary heap's sift-down
//! missed the cache on most of its 15 levels and took 17 % of the run, so
//! large simulations use a 4-ary heap: half the levels, a node's four
//! children adjacent (64 bytes). On 1.5 s of scenarios/large/core-trunk.toml
//! it took 180.7 s of user time against 268.4 s; on case A (100 flows) it
//! cost 11.7 % more instructions, hence the two (the dispatch between them
//! costs case A 1.07 % instructions: 4,079,034,083 against 4,035,931,992). Keys are unique (the
//! insertion number), so both pop the same order: results are identical
//! whichever is used. A radix heap (the `radix-heap` crate) was measured too
//! and was 15 % slower on the 100-flow benchmark. The 4-ary heap is written
//! here (thirty lines) because it needs nothing but this `u128` min-heap.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use dropless_cc::Time;

/// Payloads must be below this (24 bits).
pub(crate) const PAYLOAD_LIMIT: u64 = 1 << 24;
const SEQ_MASK: u128 = (1 << 40) - 1;

/// Events ordered by time, then by insertion.
pub(crate) struct EventQueue {
    heap: Heap,
    seq: u64,
    /// The top of the heap was returned by [`EventQueue::pop_until`] but is
    /// still in place: the next push overwrites it and sifts down once
    /// (most events schedule exactly one successor, so a pop and a push
    /// become one sift), or the next pop removes it first.
    top_taken: bool,
}

/// Flows from which a simulation uses the 4-ary heap.
pub(crate) const QUAD_FROM_FLOWS: usize = 2000;

enum Heap {
    Binary(BinaryHeap<Reverse<u128>>),
    /// A 4-ary min-heap: the children of `i` are `4i + 1 ..= 4i + 4`.
    Quad(Vec<u128>),
}

impl EventQueue {
    /// A queue for a simulation of `flows` flows.
    pub(crate) fn new(flows: usize) -> Self {
        EventQueue {
            heap: if flows >= QUAD_FROM_FLOWS {
                Heap::Quad(Vec::new())
            } else {
                Heap::Binary(BinaryHeap::new())
            },
            seq: 0,
            top_taken: false,
        }
    }

    /// Schedules `payload` (below [`PAYLOAD_LIMIT`]) at `time` (never before
    /// the last popped time).
    #[inline(always)]
    pub(crate) fn push(&mut self, time: Time, payload: u64) {
        debug_assert!(payload < PAYLOAD_LIMIT);
        self.seq += 1;
        // 40 bits of insertion number: 10^12 events, a day at 12 M events/s.
        let key = ((time as u128) << 64) | ((self.seq as u128 & SEQ_MASK) << 24) | payload as u128;
        if self.top_taken {
            // Keys are unique and every key pushed is above the taken one,
            // so replacing it and sifting down leaves the heap of the
            // others plus `key`: the pop order is the same.
            self.top_taken = false;
            match &mut self.heap {
                Heap::Binary(b) => {
                    if let Some(mut top) = b.peek_mut() {
                        *top = Reverse(key);
                    }
                }
                Heap::Quad(h) => quad_replace_top(h, key),
            }
            return;
        }
        match &mut self.heap {
            Heap::Binary(b) => b.push(Reverse(key)),
            Heap::Quad(h) => quad_push(h, key),
        }
    }

    /// Removes the top taken by the last pop, if still there.
    #[inline(always)]
    fn drop_taken(&mut self) {
        if self.top_taken {
            self.top_taken = false;
            match &mut self.heap {
                Heap::Binary(b) => {
                    b.pop();
                }
                Heap::Quad(h) => quad_pop(h),
            }
        }
    }

    /// Removes and returns the earliest event if it is due by `until`.
    #[inline]
    pub(crate) fn pop_until(&mut self, until: Time) -> Option<(Time, u64)> {
        self.drop_taken();
        let key = match &self.heap {
            Heap::Binary(b) => b.peek()?.0,
            Heap::Quad(h) => *h.first()?,
        };
        let time = (key >> 64) as Time;
        if time > until {
            return None;
        }
        self.top_taken = true;
        Some((time, (key as u64) & (PAYLOAD_LIMIT - 1)))
    }

    pub(crate) fn len(&self) -> usize {
        let n = match &self.heap {
            Heap::Binary(b) => b.len(),
            Heap::Quad(h) => h.len(),
        };
        n - self.top_taken as usize
    }
}

/// Adds `key` to a 4-ary heap (out of line: the binary heap's callers
/// stay as small as they were).
#[inline(never)]
fn quad_push(h: &mut Vec<u128>, key: u128) {
    let mut i = h.len();
    h.push(key);
    while i > 0 {
        let parent = (i - 1) / 4;
        if h[parent] <= key {
            break;
        }
        h[i] = h[parent];
        i = parent;
    }
    h[i] = key;
}

/// Removes the smallest key of a non-empty 4-ary heap.
#[inline(never)]
fn quad_pop(h: &mut Vec<u128>) {
    let last = h.pop().expect("not empty");
    if !h.is_empty() {
        sift_down_root(h, last);
    }
}

/// Replaces the smallest key of a non-empty 4-ary heap by `key`.
#[inline(never)]
fn quad_replace_top(h: &mut [u128], key: u128) {
    sift_down_root(h, key);
}

/// Sifts `last` down from the root (whose key is discarded) into its place.
#[inline(always)]
fn sift_down_root(h: &mut [u128], last: u128) {
    let n = h.len();
    let mut i = 0;
    loop {
        let first = 4 * i + 1;
        if first >= n {
            break;
        }
        let end = (first + 4).min(n);
        let mut m = first;
        for c in first + 1..end {
            if h[c] < h[m] {
                m = c;
            }
        }
        if last <= h[m] {
            break;
        }
        h[i] = h[m];
        i = m;
    }
    h[i] = last;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pops_in_time_then_insertion_order() {
        for flows in [0, QUAD_FROM_FLOWS] {
            pops_in_order(EventQueue::new(flows));
        }
    }

    fn pops_in_order(mut q: EventQueue) {
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

    #[test]
    fn pops_what_a_binary_heap_would() {
        for flows in [0, QUAD_FROM_FLOWS] {
            pops_like_reference(EventQueue::new(flows));
        }
    }

    fn pops_like_reference(mut q: EventQueue) {
        // Random pushes and pops (a fixed xorshift stream) against the
        // standard library's heap of (time, insertion number, payload).
        use std::cmp::Reverse;
        use std::collections::BinaryHeap;
        let mut reference = BinaryHeap::new();
        let (mut x, mut seq, mut now) = (0x9e37_79b9_7f4a_7c15u64, 0u64, 0 as Time);
        for step in 0..200_000u64 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            if x % 3 != 0 || reference.is_empty() {
                let t = now + (x >> 40) % 1000;
                let payload = step % PAYLOAD_LIMIT;
                seq += 1;
                q.push(t, payload);
                reference.push(Reverse((t, seq, payload)));
            } else {
                let Reverse((t, _, p)) = reference.pop().expect("not empty");
                assert_eq!(q.pop_until(Time::MAX), Some((t, p)), "step {step}");
                now = t;
            }
            assert_eq!(q.len(), reference.len());
        }
        while let Some(Reverse((t, _, p))) = reference.pop() {
            assert_eq!(q.pop_until(Time::MAX), Some((t, p)));
        }
        assert_eq!(q.pop_until(Time::MAX), None);
    }
}
