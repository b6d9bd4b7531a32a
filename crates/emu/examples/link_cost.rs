//! The cost of one emulated link's packet path without the shell: PACKETS
//! (default 1,000,000) 1500-byte IPv4 packets, Not-ECT, offered to a
//! 100 Mb/s drop-tail link (25 ms, 625 kB buffer) at 110 % of its rate on
//! a fake clock, each delivered when due. Prints the counters, so the
//! instruction count of the whole run (Valgrind's, as docs/performance.md
//! measures) divided by the packets is the cost of `push` and `pop` per
//! packet. With `QUEUE=codel` (or red, pie, step) the link has that
//! discipline instead, and with `LOSS=0.01` that random loss, for
//! comparison.
//!
//! ```text
//! cargo build --release -p dropless-emu --example link_cost
//! valgrind --tool=cachegrind --cache-sim=no target/release/examples/link_cost 1000000
//! ```

use dropless_cc::{Time, MILLISECOND};
use dropless_emu::{Link, LinkConfig};

fn main() {
    let packets: u64 = std::env::args()
        .nth(1)
        .map(|a| a.parse().expect("PACKETS: a whole number"))
        .unwrap_or(1_000_000);
    let mut cfg = LinkConfig {
        rate_bps: 100e6,
        delay: 25 * MILLISECOND,
        buffer_bytes: 625_000,
        loss: 0.0,
        mark_above: None,
        seed: 1,
        reorder: 0.0,
        reorder_delay: 0,
        cross: None,
        queue: Default::default(),
        price: Default::default(),
        probe: Default::default(),
    };
    if let Ok(q) = std::env::var("QUEUE") {
        use dropless_emu::QueueConfig as Q;
        cfg.queue = match q.as_str() {
            "red" => Q::Red(Default::default()),
            "codel" => Q::Codel(Default::default()),
            "pie" => Q::Pie(Default::default()),
            "step" => Q::Step(Default::default()),
            _ => Q::DropTail,
        };
    }
    if let Ok(l) = std::env::var("LOSS") {
        cfg.loss = l.parse().expect("LOSS: a probability");
    }
    cfg.validate().expect("a valid link");
    let mut link = Link::new(cfg);
    // A minimal IPv4 header (Not-ECT), the rest zeros.
    let mut template = vec![0u8; 1500];
    template[..20].copy_from_slice(&[
        0x45, 0, 0x05, 0xdc, 0, 0, 0x40, 0, 64, 17, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2,
    ]);
    // 1500 bytes at 110 Mb/s: one every 109,090 ns.
    let gap: Time = 109_091;
    let mut delivered = 0u64;
    for i in 0..packets {
        let now = i * gap;
        while let Some(p) = link.pop(now) {
            delivered += 1;
            link.recycle(p);
        }
        let mut b = link.buffer();
        b.extend_from_slice(&template);
        let _ = link.push(now, b);
    }
    while let Some(t) = link.next_delivery() {
        while let Some(p) = link.pop(t) {
            delivered += 1;
            link.recycle(p);
        }
    }
    let s = link.stats();
    println!(
        "{packets} offered, {delivered} delivered, {} dropped at the full buffer, {} by the queue discipline, {} marked",
        s.overflows, s.aqm_drops, s.marked
    );
}
