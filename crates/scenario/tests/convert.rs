//! Scenario files become the simulator configuration the format promises.

use dropless_cc::{MILLISECOND, SECOND};
use dropless_scenario::{from_str, MAX_SERIES_VALUES};
use dropless_sim::{Buffer, CrossKind, Topology};
use dropless_transport::AckPolicy;

const DUMBBELL: &str = r#"
name = "t"
duration = "10s"
[topology]
kind = "dumbbell"
[topology.bottleneck]
rate = "100Mbps"
delay = "5ms"
buffer = "1bdp"
"#;

fn with(flows: &str) -> String {
    format!("{DUMBBELL}\n{flows}")
}

#[test]
fn count_and_stagger_expand_flows() {
    let s = from_str(
        &with(
            r#"
[[flows]]
cc = "fast"
rtt = "40ms"
count = 3
start = "1s"
stagger = "2s"
params = { alpha = 50, gamma = 1 }
[[flows]]
cc = "newreno"
label = "reno"
"#,
        ),
        "t.toml",
        &[],
    )
    .unwrap();
    let f = &s.config.flows;
    assert_eq!(f.len(), 4);
    assert_eq!(
        f.iter().map(|x| x.start).collect::<Vec<_>>(),
        [SECOND, 3 * SECOND, 5 * SECOND, 0]
    );
    assert_eq!(
        f[2].params,
        vec![("alpha".into(), 50.0), ("gamma".into(), 1.0)]
    );
    assert_eq!(f[2].rtt, Some(40 * MILLISECOND));
    // Default RTT: twice the path's one-way delay.
    assert_eq!(f[3].rtt, Some(10 * MILLISECOND));
    assert_eq!(s.flows[3].entry, 1);
    assert_eq!(s.flows[3].label, "reno");
    assert_eq!(s.flows[1].label, "fast #1");
    assert_eq!(s.entries(), 2);
    assert!(s.simulation().is_ok());
}

#[test]
fn bdp_buffers_use_the_longest_rtt_or_bdp_rtt() {
    let flows = r#"
[[flows]]
cc = "newreno"
rtt = "20ms"
[[flows]]
cc = "newreno"
rtt = "120ms"
"#;
    let s = from_str(&with(flows), "t.toml", &[]).unwrap();
    // 100 Mb/s x 120 ms / (1500 B x 8) = 1000 packets.
    assert_eq!(s.links[0].buffer_pkts, Some(1000));
    assert_eq!(s.links[0].bdp_rtt, 120 * MILLISECOND);
    let Topology::Dumbbell { bottleneck, .. } = &s.config.topology else {
        panic!()
    };
    assert_eq!(bottleneck.buffer, Buffer::Packets(1000));

    let s = from_str(
        &with(flows),
        "t.toml",
        &[
            "topology.bdp_rtt=60ms".into(),
            "topology.bottleneck.buffer=0.5bdp".into(),
        ],
    )
    .unwrap();
    assert_eq!(s.links[0].buffer_pkts, Some(250));

    let s = from_str(
        &with(flows),
        "t.toml",
        &["topology.bottleneck.buffer=1MiB".into()],
    )
    .unwrap();
    assert_eq!(s.links[0].buffer_bytes, Some(1 << 20));

    // Jumbo frames: BDP counted in the flows' wire size.
    let s = from_str(&with(flows), "t.toml", &["flows[*].mss=8960B".into()]).unwrap();
    assert_eq!(s.links[0].wire_size, 9000);
    assert_eq!(s.links[0].buffer_pkts, Some(167));
}

#[test]
fn parking_lot_paths_and_rtts() {
    let text = r#"
name = "p"
duration = "5s"
[topology]
kind = "parking-lot"
access_rate = "1Gbps"
[[topology.links]]
rate = "100Mbps"
delay = "10ms"
buffer = "100pkt"
[[topology.links]]
rate = "50Mbps"
delay = "20ms"
buffer = "200pkt"
loss = 0.001
[[flows]]
cc = "vegas"
[[flows]]
cc = "vegas"
path = 1
[[flows]]
cc = "vegas"
path = [0, 0]
rtt = "50ms"
"#;
    let s = from_str(text, "p.toml", &[]).unwrap();
    let f = &s.config.flows;
    assert_eq!(f[0].path, (0, 1));
    assert_eq!(f[0].rtt, Some(60 * MILLISECOND));
    assert_eq!(f[1].path, (1, 1));
    assert_eq!(f[1].rtt, Some(40 * MILLISECOND));
    assert_eq!(f[2].path, (0, 0));
    let Topology::ParkingLot {
        links,
        access_rate_bps,
    } = &s.config.topology
    else {
        panic!()
    };
    assert_eq!(*access_rate_bps, Some(1e9));
    assert_eq!(links[1].loss, 0.001);
    assert_eq!(links[1].rate_bps, 50e6);
    assert!(s.simulation().is_ok());
}

#[test]
fn flow_options_and_cross_traffic() {
    let s = from_str(
        &with(
            r#"
[[flows]]
cc = "newreno"
rtt = "20ms"
mss = "8960B"
header = "52B"
ack = "delayed"
min_rto = "1s"
initial_rto = "60s"
max_rto = "100000s"
size = "100pkt"
stop = "8s"
max_window = "172KB"
prr = true
send_jitter = "41.6us"
ack_jitter = "50us"
[[cross_traffic]]
kind = "pareto"
rate = "10Mbps"
packet_size = "576B"
start = "1s"
stop = "2s"
mean_on = "100ms"
[[cross_traffic]]
kind = "constant"
rate = "1Mbps"
"#,
        ),
        "t.toml",
        &[],
    )
    .unwrap();
    let f = &s.config.flows[0];
    assert_eq!((f.mss, f.header), (8960, 52));
    assert_eq!(f.ack_policy, AckPolicy::DELAYED);
    assert_eq!(f.min_rto, SECOND);
    assert_eq!((f.initial_rto, f.max_rto), (60 * SECOND, 100_000 * SECOND));
    assert_eq!(f.size, Some(896_000));
    assert_eq!(f.stop, Some(8 * SECOND));
    assert_eq!(f.max_window, Some(20)); // 172000 / 8960, rounded up
    assert!(f.prr && !f.ns2_recovery);
    assert_eq!(f.send_jitter, 41_600);
    assert_eq!(f.ack_jitter, 50_000);
    let plain = from_str(&with("[[flows]]\ncc = \"newreno\""), "t.toml", &[]).unwrap();
    assert_eq!(plain.config.flows[0].send_jitter, 0, "off by default");
    assert_eq!(plain.config.flows[0].ack_jitter, 0, "off by default");
    let c = &s.config.cross;
    assert_eq!(c.len(), 2);
    assert_eq!(
        c[0].kind,
        CrossKind::ParetoOnOff {
            shape: 1.5,
            mean_on: 100 * MILLISECOND,
            mean_off: 500 * MILLISECOND
        }
    );
    assert_eq!(c[0].packet_size, 576);
    assert_eq!((c[0].start, c[0].stop), (SECOND, Some(2 * SECOND)));
    assert_eq!(c[1].kind, CrossKind::Constant);
    assert_eq!(c[1].packet_size, 1500);
}

#[test]
fn sampling_defaults_and_flow_series_limit() {
    let s = from_str(&with("[[flows]]\ncc = \"newreno\""), "t.toml", &[]).unwrap();
    assert_eq!(s.config.sample_interval, 10 * MILLISECOND); // 10 s / 1000
    assert!(s.config.flow_series);
    let s = from_str(
        &with("[[flows]]\ncc = \"newreno\"\ncount = 65"),
        "t.toml",
        &[],
    )
    .unwrap();
    assert!(!s.config.flow_series, "off above 64 flows");
    let s = from_str(
        &with("[[flows]]\ncc = \"newreno\"\ncount = 65"),
        "t.toml",
        &["flow_series=true".into(), "sample=1ms".into()],
    )
    .unwrap();
    assert!(s.config.flow_series);
    // 10,001 samples x (1 + 4 + 5 x 1000) columns is over the limit.
    let e = from_str(
        &with("[[flows]]\ncc = \"newreno\"\ncount = 1000"),
        "t.toml",
        &["flow_series=true".into(), "sample=1ms".into()],
    )
    .unwrap_err();
    assert_eq!(e.path, "sample");
    assert!(
        e.to_string().contains(&MAX_SERIES_VALUES.to_string()),
        "{e}"
    );
}

#[test]
fn errors_name_file_path_found_and_allowed() {
    let e = from_str(
        &with("[[flows]]\ncc = \"newreno\"\nrtt = \"20 parsecs\""),
        "scenarios/x.toml",
        &[],
    )
    .unwrap_err();
    assert_eq!(e.file, "scenarios/x.toml");
    assert_eq!(e.path, "flows[0].rtt");
    assert_eq!(e.found.as_deref(), Some("\"20 parsecs\""));
    assert!(e.expected.starts_with("a time like \"20ms\""));
    assert!(e.to_string().starts_with(
        "scenarios/x.toml: flows[0].rtt: found \"20 parsecs\", expected a time like \"20ms\""
    ));

    // Syntax errors give the line and column.
    let e = from_str("name = \"x\"\nduration = 5s\n", "y.toml", &[]).unwrap_err();
    assert!(
        e.to_string()
            .starts_with("y.toml: line 2, column 13: not valid TOML"),
        "{e}"
    );
    assert_eq!(e.to_string().lines().count(), 1);

    // A send jitter is a time.
    let e = from_str(
        &with("[[flows]]\ncc = \"newreno\"\nsend_jitter = \"fast\""),
        "t.toml",
        &[],
    )
    .unwrap_err();
    assert_eq!(e.path, "flows[0].send_jitter");
    let e = from_str(
        &with("[[flows]]\ncc = \"newreno\"\nack_jitter = \"-1ms\""),
        "t.toml",
        &[],
    )
    .unwrap_err();
    assert_eq!(e.path, "flows[0].ack_jitter");

    // PRR and the ns-2 module's recovery exclude each other.
    let e = from_str(
        &with("[[flows]]\ncc = \"fast\"\nns2_recovery = true\nprr = true"),
        "t.toml",
        &[],
    )
    .unwrap_err();
    assert_eq!(e.path, "flows[0].prr");
    assert!(e.expected.contains("ns2_recovery"), "{e}");

    // Errors the simulator finds name the [[flows]] entry, not the copy.
    let s = from_str(
        &with("[[flows]]\ncc = \"newreno\"\n[[flows]]\ncc = \"fast\"\ncount = 3"),
        "t.toml",
        &[],
    )
    .unwrap();
    assert_eq!(s.config.flows.len(), 4);
    assert!(s.simulation().is_ok());
}

#[test]
fn hosts_are_numbered_by_first_appearance_and_refused_with_send_jitter() {
    let s = from_str(
        &with(
            r#"
[[flows]]
cc = "pda"
host = "b"
count = 2
[[flows]]
cc = "pda"
[[flows]]
cc = "pda"
host = "a"
[[flows]]
cc = "pda"
host = "b"
"#,
        ),
        "t.toml",
        &[],
    )
    .unwrap();
    let hosts: Vec<Option<u32>> = s.config.flows.iter().map(|f| f.host).collect();
    assert_eq!(hosts, [Some(0), Some(0), None, Some(1), Some(0)]);
    assert!(s.simulation().is_ok());

    let e = from_str(
        &with("[[flows]]\ncc = \"pda\"\nhost = \"a\"\nsend_jitter = \"10us\""),
        "t.toml",
        &[],
    )
    .unwrap_err();
    assert_eq!(e.path, "flows[0].host");
    assert_eq!(e.to_string().lines().count(), 1);
    let e = from_str(&with("[[flows]]\ncc = \"pda\"\nhost = 3"), "t.toml", &[]).unwrap_err();
    assert_eq!(e.path, "flows[0].host");
}

#[test]
fn red_keys_need_queue_red_and_ordered_thresholds() {
    let red = |keys: &str| {
        from_str(
            &format!(
                "name = \"t\"\nduration = \"1s\"\n[topology]\nkind = \"dumbbell\"\n[topology.bottleneck]\nrate = \"100Mbps\"\ndelay = \"5ms\"\nbuffer = \"100pkt\"\n{keys}\n[[flows]]\ncc = \"newreno\"\n"
            ),
            "t.toml",
            &[],
        )
        .map_err(Box::new)
    };
    let s = red("queue = \"red\"\nred_min_th = 10\nred_max_th = 30\nred_ecn = true").unwrap();
    match s.config.topology.links()[0].queue {
        dropless_sim::QueueKind::Red(c) => {
            assert_eq!(
                (c.min_th, c.max_th, c.max_p, c.ecn, c.gentle, c.min_queue),
                (10.0, 30.0, 0.1, true, true, 2)
            );
        }
        q => panic!("{q:?}"),
    }
    assert!(s.simulation().is_ok());
    let e = red("red_min_th = 10").unwrap_err();
    assert_eq!(e.path, "topology.bottleneck.red_min_th");
    assert!(e.expected.contains("queue = \"red\""), "{e}");
    let e = red("queue = \"red\"\nred_min_th = 10\nred_max_th = 10").unwrap_err();
    assert_eq!(e.path, "topology.bottleneck.red_max_th");
    let e = red("queue = \"red\"\nred_max_p = 1.5").unwrap_err();
    assert_eq!(e.path, "topology.bottleneck.red_max_p");
    assert_eq!(e.to_string().lines().count(), 1);
    for bad in ["-1", "1.5", "\"2\"", "2000000"] {
        let e = red(&format!("queue = \"red\"\nred_min_queue = {bad}")).unwrap_err();
        assert_eq!(e.path, "topology.bottleneck.red_min_queue", "{bad}");
        assert!(e.expected.contains("0 to 1000000"), "{e}");
        assert_eq!(e.to_string().lines().count(), 1);
    }
    let e = red("queue = \"codel\"\nred_min_queue = 2").unwrap_err();
    assert_eq!(e.path, "topology.bottleneck.red_min_queue");
    let e = red("queue = \"fq_codel\"").unwrap_err();
    assert_eq!(e.path, "topology.bottleneck.queue");
    for name in ["droptail", "red", "codel", "pie", "step"] {
        assert!(e.expected.contains(name), "{e}");
    }
    assert_eq!(e.to_string().lines().count(), 1);
}

#[test]
fn codel_pie_and_step_keys_are_read_and_checked() {
    let link = |keys: &str| {
        from_str(
            &format!(
                "name = \"t\"\nduration = \"1s\"\n[topology]\nkind = \"dumbbell\"\n[topology.bottleneck]\nrate = \"100Mbps\"\ndelay = \"5ms\"\nbuffer = \"100pkt\"\n{keys}\n[[flows]]\ncc = \"newreno\"\necn = true\n"
            ),
            "t.toml",
            &[],
        )
        .map_err(Box::new)
    };
    use dropless_cc::MILLISECOND as MS;
    use dropless_sim::QueueKind;
    let s = link("queue = \"codel\"\ncodel_target = \"2ms\"\ncodel_ecn = true").unwrap();
    match s.config.topology.links()[0].queue {
        QueueKind::Codel(c) => assert_eq!((c.target, c.interval, c.ecn), (2 * MS, 100 * MS, true)),
        q => panic!("{q:?}"),
    }
    assert!(s.simulation().is_ok());
    let s = link("queue = \"pie\"\npie_target = \"20ms\"\npie_alpha = 0.25").unwrap();
    match s.config.topology.links()[0].queue {
        QueueKind::Pie(c) => {
            assert_eq!(
                (c.target, c.t_update, c.alpha, c.beta),
                (20 * MS, 15 * MS, 0.25, 1.25)
            )
        }
        q => panic!("{q:?}"),
    }
    let s = link("queue = \"step\"\nstep_k = 65").unwrap();
    match s.config.topology.links()[0].queue {
        QueueKind::Step(c) => assert_eq!((c.k, c.ecn), (65, true)),
        q => panic!("{q:?}"),
    }
    let s = link("queue = \"rem\"\nrem_target = 40\nrem_phi = 1.01\nrem_ecn = true").unwrap();
    match s.config.topology.links()[0].queue {
        QueueKind::Rem(c) => assert_eq!(
            (c.gamma, c.alpha, c.target, c.phi, c.interval, c.ecn),
            (0.001, 0.1, 40.0, 1.01, 2 * MS, true)
        ),
        q => panic!("{q:?}"),
    }
    assert!(s.simulation().is_ok());
    // Out of range: a one-line error naming the key.
    for (keys, key) in [
        ("queue = \"codel\"\ncodel_target = \"0ms\"", "codel_target"),
        (
            "queue = \"codel\"\ncodel_target = \"100ms\"",
            "codel_target",
        ),
        (
            "queue = \"codel\"\ncodel_interval = \"3ms\"",
            "codel_target",
        ),
        (
            "queue = \"codel\"\ncodel_interval = \"0s\"",
            "codel_interval",
        ),
        (
            "queue = \"codel\"\ncodel_interval = \"20s\"",
            "codel_interval",
        ),
        ("queue = \"pie\"\npie_target = \"0ms\"", "pie_target"),
        ("queue = \"pie\"\npie_target = \"11s\"", "pie_target"),
        ("queue = \"pie\"\npie_t_update = \"0ms\"", "pie_t_update"),
        ("queue = \"pie\"\npie_alpha = 0", "pie_alpha"),
        ("queue = \"pie\"\npie_beta = \"x\"", "pie_beta"),
        ("queue = \"step\"\nstep_k = 0", "step_k"),
        ("queue = \"step\"\nstep_k = 2.5", "step_k"),
        ("codel_target = \"5ms\"", "codel_target"),
        ("queue = \"red\"\npie_target = \"5ms\"", "pie_target"),
        ("queue = \"codel\"\nstep_k = 5", "step_k"),
        ("queue = \"rem\"\nrem_gamma = 0", "rem_gamma"),
        ("queue = \"rem\"\nrem_alpha = -1", "rem_alpha"),
        ("queue = \"rem\"\nrem_target = -5", "rem_target"),
        ("queue = \"rem\"\nrem_phi = 1", "rem_phi"),
        ("queue = \"rem\"\nrem_phi = \"e\"", "rem_phi"),
        ("queue = \"rem\"\nrem_interval = \"0s\"", "rem_interval"),
        ("queue = \"pie\"\nrem_target = 20", "rem_target"),
    ] {
        let e = link(keys).unwrap_err();
        assert_eq!(e.path, format!("topology.bottleneck.{key}"), "{keys}: {e}");
        assert_eq!(e.to_string().lines().count(), 1, "{e}");
    }
}

#[test]
fn link_prices_are_checked_and_their_keys_need_a_price() {
    let link = |keys: &str| {
        from_str(
            &format!(
                "name = \"t\"\nduration = \"1s\"\n[topology]\nkind = \"dumbbell\"\n[topology.bottleneck]\nrate = \"100Mbps\"\ndelay = \"5ms\"\nbuffer = \"100pkt\"\n{keys}\n[[flows]]\ncc = \"rcp\"\n"
            ),
            "t.toml",
            &[],
        )
        .map_err(Box::new)
    };
    let s = link("price = \"rcp\"\nprice_rtt = \"40ms\"\nprice_alpha = 0.3").unwrap();
    match s.config.topology.links()[0].price {
        dropless_sim::config::PriceKind::Rcp(c) => {
            assert_eq!((c.rtt_s, c.alpha, c.beta), (0.04, 0.3, 1.0));
            assert_eq!(c.interval, 10 * dropless_cc::MILLISECOND);
            assert_eq!(c.queue, dropless_sim::rcp_price::RcpQueue::Instant);
        }
        p => panic!("{p:?}"),
    }
    assert!(s.simulation().is_ok());
    let s = link("price = \"rcp\"\nprice_queue = \"min\"").unwrap();
    match s.config.topology.links()[0].price {
        dropless_sim::config::PriceKind::Rcp(c) => {
            assert_eq!(c.queue, dropless_sim::rcp_price::RcpQueue::Min)
        }
        p => panic!("{p:?}"),
    }
    let s = link("price = \"maxnet\"\nprice_rtt = \"40ms\"\nprice_target = 0.9").unwrap();
    match s.config.topology.links()[0].price {
        dropless_sim::config::PriceKind::Maxnet(c) => {
            assert_eq!((c.rtt_s, c.alpha, c.target), (0.04, 0.1, 0.9));
            assert_eq!(c.interval, 10 * dropless_cc::MILLISECOND);
        }
        p => panic!("{p:?}"),
    }
    assert!(s.simulation().is_ok());
    for (keys, path, want) in [
        ("price = \"rem\"", "price", "rcp"),
        ("price = \"rem\"", "price", "maxnet"),
        ("price_target = 0.9", "price_target", "price = \"maxnet\""),
        (
            "price = \"rcp\"\nprice_target = 0.9",
            "price_target",
            "price = \"maxnet\"",
        ),
        (
            "price = \"maxnet\"\nprice_beta = 1",
            "price_beta",
            "price = \"rcp\"",
        ),
        (
            "price = \"maxnet\"\nprice_queue = \"min\"",
            "price_queue",
            "price = \"rcp\"",
        ),
        (
            "price = \"maxnet\"\nprice_target = 0",
            "price_target",
            "(0, 1]",
        ),
        (
            "price = \"maxnet\"\nprice_target = 1.01",
            "price_target",
            "(0, 1]",
        ),
        (
            "price = \"maxnet\"\nprice_alpha = 3",
            "price_alpha",
            "(0, 2]",
        ),
        (
            "price = \"maxnet\"\nprice_rtt = \"10ms\"\nprice_interval = \"20ms\"",
            "price_interval",
            "at most price_rtt",
        ),
        ("price_rtt = \"40ms\"", "price_rtt", "price = \"rcp\""),
        ("price = \"rcp\"\nprice_alpha = 0", "price_alpha", "(0, 2]"),
        ("price = \"rcp\"\nprice_beta = -1", "price_beta", "[0, 2]"),
        (
            "price = \"rcp\"\nprice_queue = \"max\"",
            "price_queue",
            "\"min\"",
        ),
        ("price_queue = \"min\"", "price_queue", "price = \"rcp\""),
        ("price = \"rcp\"\nprice_rtt = \"0s\"", "price_rtt", "1ns"),
        (
            "price = \"rcp\"\nprice_rtt = \"10ms\"\nprice_interval = \"20ms\"",
            "price_interval",
            "at most price_rtt",
        ),
    ] {
        let e = link(keys).unwrap_err();
        assert_eq!(e.path, format!("topology.bottleneck.{path}"), "{keys}: {e}");
        assert!(e.to_string().contains(want), "{keys}: {e}");
        assert_eq!(e.to_string().lines().count(), 1, "{keys}: {e}");
    }
}

#[test]
fn ecn_is_a_flow_key() {
    let s = from_str(
        &with("[[flows]]\ncc = \"newreno\"\necn = true\n[[flows]]\ncc = \"newreno\""),
        "t.toml",
        &[],
    )
    .unwrap();
    assert!(s.config.flows[0].ecn);
    assert!(!s.config.flows[1].ecn);
    let e = from_str(&with("[[flows]]\ncc = \"newreno\"\necn = 1"), "t.toml", &[]).unwrap_err();
    assert_eq!(e.path, "flows[0].ecn");
}
