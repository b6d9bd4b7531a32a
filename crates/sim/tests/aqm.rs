//! CoDel, PIE, REM and step-marking links in whole simulations: seeded runs are
//! bit-identical, ECN-capable flows are marked rather than dropped once the
//! start-up is over, and bad parameters are refused naming their key.

mod common;
use common::*;
use dropless_cc::{MILLISECOND, SECOND};
use dropless_sim::codel::CodelConfig;
use dropless_sim::pie::PieConfig;
use dropless_sim::rem::RemConfig;
use dropless_sim::step_mark::StepConfig;
use dropless_sim::{Buffer, FlowSpec, QueueKind, SimConfig, Simulation};

fn cfg(queue: QueueKind, cc: &str, seed: u64) -> SimConfig {
    let rtt = 20 * MILLISECOND;
    let flows = (0..3)
        .map(|i| {
            let mut f = FlowSpec::bulk(cc, rtt);
            f.ecn = true;
            f.start = i * 200 * MILLISECOND;
            f
        })
        .collect();
    let mut c = dumbbell(20e6, 5 * MILLISECOND, Buffer::Packets(200), flows);
    if let dropless_sim::Topology::Dumbbell { bottleneck, .. } = &mut c.topology {
        bottleneck.queue = queue;
    }
    c.seed = seed;
    c.duration = 6 * SECOND;
    c
}

fn queues() -> [(QueueKind, &'static str); 4] {
    [
        (
            QueueKind::Codel(CodelConfig {
                ecn: true,
                ..CodelConfig::default()
            }),
            "newreno",
        ),
        (
            QueueKind::Pie(PieConfig {
                ecn: true,
                ..PieConfig::default()
            }),
            "cubic",
        ),
        (QueueKind::Step(StepConfig { k: 10, ecn: true }), "dctcp"),
        (
            QueueKind::Rem(RemConfig {
                ecn: true,
                ..RemConfig::default()
            }),
            "newreno",
        ),
    ]
}

#[test]
fn seeded_runs_are_bit_identical() {
    for (q, cc) in queues() {
        let a = Simulation::new(cfg(q, cc, 7)).unwrap().run();
        let b = Simulation::new(cfg(q, cc, 7)).unwrap().run();
        assert_eq!(
            serde_json::to_string(&a).unwrap(),
            serde_json::to_string(&b).unwrap(),
            "{q:?}"
        );
        assert_eq!(
            serde_json::to_string(&a.series).unwrap(),
            serde_json::to_string(&b.series).unwrap()
        );
    }
}

#[test]
fn ecn_capable_flows_are_marked_and_the_queue_stays_short() {
    for (q, cc) in queues() {
        let r = Simulation::new(cfg(q, cc, 1)).unwrap().run();
        let l = &r.links[0];
        assert!(l.marks > 0, "{q:?}: no marks");
        // Marking only: no early drop of an ECN-capable packet below
        // PIE's 10 % (its probability stays far below it here).
        assert_eq!(l.aqm_drops, 0, "{q:?}");
        let s = l.mean_sojourn_s.expect("an AQM link reports its sojourn");
        // The drop-tail buffer alone would allow 200 packets, 120 ms.
        assert!(s < 0.04, "{q:?}: mean sojourn {s} s");
        assert!(l.utilization > 0.8, "{q:?}: utilization {}", l.utilization);
    }
}

#[test]
fn bad_parameters_are_refused_naming_the_key() {
    let bad = [
        (
            QueueKind::Codel(CodelConfig {
                target: 0,
                ..CodelConfig::default()
            }),
            "codel_target",
        ),
        (
            QueueKind::Pie(PieConfig {
                target: 0,
                ..PieConfig::default()
            }),
            "pie_target",
        ),
        (QueueKind::Step(StepConfig { k: 0, ecn: true }), "step_k"),
        (
            QueueKind::Rem(RemConfig {
                phi: 0.5,
                ..RemConfig::default()
            }),
            "rem_phi",
        ),
    ];
    for (q, key) in bad {
        let e = Simulation::new(cfg(q, "newreno", 1))
            .err()
            .expect("refused");
        let msg = e.to_string();
        assert!(msg.contains(key), "{msg}");
        assert_eq!(msg.lines().count(), 1, "{msg}");
    }
}
