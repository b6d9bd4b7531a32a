//! `kind = "trunk"`: the DWDM trunk of thesis chapter 3 in scenario files.

use dropless_scenario::from_str;
use dropless_sim::Topology;

const TRUNK: &str = r#"
name = "t"
duration = "5s"
[topology]
kind = "trunk"
access_rate = "100Mbps"
[topology.trunk]
rate = "40Gbps"
delay = "1ms"
buffer = "10pkt"
channels = 16
inputs = 32
[[flows]]
cc = "newreno"
count = 100
rtt = "100ms"
"#;

fn err(sets: &[&str]) -> String {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    match from_str(TRUNK, "t.toml", &sets) {
        Ok(_) => panic!("{sets:?} accepted"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn full_conversion_is_one_group_of_k_channels() {
    let s = from_str(TRUNK, "t.toml", &[]).expect("valid");
    let Topology::Trunk {
        groups,
        inputs,
        input_rate_bps,
        ..
    } = &s.config.topology
    else {
        panic!("a trunk");
    };
    assert_eq!(groups.len(), 1);
    assert_eq!(groups[0].channels, 16);
    assert_eq!(*inputs, 32);
    assert_eq!(*input_rate_bps, 40e9);
    assert!(s.config.flows.iter().all(|f| f.path == (0, 0)));
    s.simulation().expect("builds");
}

#[test]
fn without_conversion_each_wavelength_is_a_group_fed_by_its_inputs() {
    let s = from_str(
        TRUNK,
        "t.toml",
        &[
            "topology.trunk.conversion=none".into(),
            "topology.trunk.fibres=2".into(),
        ],
    )
    .expect("valid");
    let Topology::Trunk { groups, .. } = &s.config.topology else {
        panic!("a trunk");
    };
    assert_eq!(groups.len(), 8, "16 channels = 2 fibres x 8 wavelengths");
    assert!(groups.iter().all(|g| g.channels == 2));
    // Flow i enters on input i mod 32, wavelength (i mod 32) mod 8.
    for (i, f) in s.config.flows.iter().enumerate() {
        assert_eq!(f.path.0, (i % 32) % 8);
    }
}

#[test]
fn bufferless_trunks_are_allowed() {
    let s = from_str(TRUNK, "t.toml", &["topology.trunk.buffer=0pkt".into()]).expect("valid");
    assert_eq!(
        s.config.topology.links()[0].buffer,
        dropless_sim::Buffer::Packets(0)
    );
}

#[test]
fn impossible_trunks_are_one_line_errors() {
    for (sets, want) in [
        (
            &["topology.trunk.channels=0"][..],
            "topology.trunk.channels: found 0",
        ),
        (
            &["topology.trunk.buffer=-1pkt"][..],
            "topology.trunk.buffer",
        ),
        (
            &["topology.trunk.inputs=0"][..],
            "topology.trunk.inputs: found 0",
        ),
        (
            &["topology.trunk.conversion=none", "topology.trunk.inputs=8"][..],
            "at least channels (16) input links",
        ),
        (
            &["topology.trunk.conversion=none", "topology.trunk.fibres=3"][..],
            "a divisor of channels (16)",
        ),
        (
            &["topology.trunk.fibres=2"][..],
            "no fibres with full conversion",
        ),
        (
            &["topology.trunk.conversion=partial"][..],
            "topology.trunk.conversion",
        ),
        (&["topology.trunk.queue=red"][..], "a drop-tail trunk"),
        (&["flows[0].path=0"][..], "no path on a trunk"),
        (
            &["topology.trunk.access_buffer=-3pkt"][..],
            "topology.trunk.access_buffer",
        ),
    ] {
        let e = err(sets);
        assert!(e.contains(want), "{sets:?}: {e}");
        assert!(!e.contains('\n'), "{e}");
    }
}

/// The trunk's access buffer with these overrides.
fn access_buffer(sets: &[&str]) -> Option<dropless_sim::Buffer> {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    let s = from_str(TRUNK, "t.toml", &sets).expect("valid");
    let Topology::Trunk { access_buffer, .. } = s.config.topology else {
        panic!("a trunk");
    };
    access_buffer
}

#[test]
fn access_buffers_are_unbounded_unless_written() {
    assert_eq!(access_buffer(&[]), None);
    assert_eq!(
        access_buffer(&["topology.trunk.access_buffer=50pkt"]),
        Some(dropless_sim::Buffer::Packets(50))
    );
    // 1 BDP of a 100 Mb/s access link at the reference RTT (100 ms,
    // 1500-byte packets): 833.3 packets.
    assert_eq!(
        access_buffer(&["topology.trunk.access_buffer=1bdp"]),
        Some(dropless_sim::Buffer::Packets(833))
    );
}

#[test]
fn the_memory_check_counts_what_the_access_links_can_send() {
    // 16 x 40 Gb/s x 200 ms is 1.07e7 packets of 1500 bytes, over the
    // 1e7 limit; 100 flows of 100 Mb/s access hold 1667 packets each.
    let s = from_str(TRUNK, "t.toml", &["flows[0].rtt=200ms".into()]);
    assert!(s.is_ok(), "{:?}", s.err().map(|e| e.to_string()));
    let e = match from_str(
        TRUNK,
        "t.toml",
        &[
            "flows[0].rtt=200ms".into(),
            "topology.access_rate=100Tbps".into(),
        ],
    ) {
        Ok(_) => panic!("accepted"),
        Err(e) => e.to_string(),
    };
    assert!(e.contains("topology.trunk.rate"), "{e}");
    assert!(e.contains("packets in flight"), "{e}");
}
