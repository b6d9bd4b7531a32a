//! The hot path allocates nothing per packet: a counting global allocator
//! measures allocations during a steady-state stretch of a run.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicU64, Ordering};

use dropless_cc::{MILLISECOND, SECOND};
use dropless_sim::{Buffer, FlowSpec, LinkSpec, SimConfig, Simulation, Topology};

struct Counting;
static ALLOCS: AtomicU64 = AtomicU64::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        ALLOCS.fetch_add(1, Ordering::Relaxed);
        System.alloc(l)
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        System.dealloc(p, l)
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, n: usize) -> *mut u8 {
        ALLOCS.fetch_add(1, Ordering::Relaxed);
        System.realloc(p, l, n)
    }
}

#[global_allocator]
static A: Counting = Counting;

#[test]
fn steady_state_allocates_nothing_per_packet() {
    for cc in ["newreno", "cubic", "highspeed", "fast", "vegas"] {
        let rtt = 20 * MILLISECOND;
        let cfg = SimConfig {
            seed: 3,
            duration: 20 * SECOND,
            topology: Topology::Dumbbell {
                bottleneck: LinkSpec::new(1e9, rtt / 2, Buffer::Packets(800)),
                access_rate_bps: None,
            },
            flows: (0..20).map(|_| FlowSpec::bulk(cc, rtt)).collect(),
            cross: vec![],
            sample_interval: 0,
            flow_series: false,
        };
        let mut sim = Simulation::new(cfg).unwrap();
        sim.run_until(10 * SECOND);
        let a0 = ALLOCS.load(Ordering::Relaxed);
        let p0 = sim.data_packets();
        sim.run_until(20 * SECOND);
        let allocs = ALLOCS.load(Ordering::Relaxed) - a0;
        let pkts = sim.data_packets() - p0;
        eprintln!("{cc}: {allocs} allocations over {pkts} packets");
        assert!(pkts > 500_000, "{cc}: only {pkts} packets");
        // Congestion-event records and ring buffers reaching a new high-water
        // mark may allocate now and then; nothing may scale with packets.
        assert!(
            (allocs as f64) < 1e-3 * pkts as f64,
            "{cc}: {allocs} allocations for {pkts} packets"
        );
    }
}
