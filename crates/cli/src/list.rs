//! `dropless list`: controllers, queues, traffic kinds, topologies, units.

use dropless_cc::registry;
use dropless_scenario::catalog::{self, KindDoc};

use crate::ListWhat;

fn fmt_default(v: f64) -> String {
    if v.is_infinite() {
        "inf".to_string()
    } else {
        format!("{v}")
    }
}

fn kinds(title: &str, key: &str, list: &[KindDoc]) {
    println!("{title} ({key} = ...):");
    for k in list {
        println!("  {:<12} {}", k.name, k.help);
        for p in k.params {
            println!("      {:<10} default {:<10} {}", p.name, p.default, p.help);
        }
    }
    println!();
}

/// Prints the catalogue (or one section of it).
pub fn list(what: Option<ListWhat>) {
    let all = what.is_none();
    let want = |w: ListWhat| all || what == Some(w);
    if want(ListWhat::Controllers) {
        println!(
            "Congestion controllers ([[flows]] cc = \"...\", parameters in params = {{ ... }}):"
        );
        println!();
        for c in registry::all() {
            println!("{}: {}", c.name, c.help);
            let wn = c.params.iter().map(|p| p.name.len()).max().unwrap_or(0);
            let wd = c
                .params
                .iter()
                .map(|p| fmt_default(p.default).len())
                .max()
                .unwrap_or(0)
                .max("default".len());
            println!("  {:<wn$}  {:<wd$}  meaning", "parameter", "default");
            for p in c.params {
                println!(
                    "  {:<wn$}  {:<wd$}  {}",
                    p.name,
                    fmt_default(p.default),
                    p.help
                );
            }
            println!();
        }
    }
    if want(ListWhat::Queues) {
        kinds(
            "Queue disciplines",
            "[topology.bottleneck] queue",
            catalog::QUEUE_KINDS,
        );
        kinds(
            "Link prices (explicit congestion signalling)",
            "[topology.bottleneck] price",
            catalog::PRICE_KINDS,
        );
    }
    if want(ListWhat::Traffic) {
        kinds(
            "Cross-traffic kinds",
            "[[cross_traffic]] kind",
            catalog::TRAFFIC_KINDS,
        );
        println!("  every kind: rate (required), packet_size (default \"1500B\"), link (0), start (0s), stop (end)");
        println!();
    }
    if want(ListWhat::Topologies) {
        kinds("Topologies", "[topology] kind", catalog::TOPOLOGY_KINDS);
        kinds("ACK policies", "[[flows]] ack", catalog::ACK_POLICIES);
    }
    if want(ListWhat::Units) {
        println!("Units:");
        println!("  rate    bps, kbps, Mbps, Gbps, Tbps (also Mb/s; bytes: B/s, kB/s, MB/s, GB/s)  e.g. \"100Mbps\"");
        println!("  time    ns, us, ms, s, min, h                                              e.g. \"20ms\"");
        println!("  size    B, kB, MB, GB, TB, KiB, MiB, GiB, TiB                              e.g. \"1500B\"");
        println!("  buffer  a size, or pkt, or bdp (rate x bdp_rtt)                           e.g. \"1000pkt\", \"0.5bdp\"");
        println!();
        println!("Scenario format: docs/scenario-format.md");
    }
}
