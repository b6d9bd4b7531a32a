//! Thesis chapter 4 (FAST TCP) experiments, shortened for CI: one test per
//! item of the reference note §8 (1-20). Each asserts the stated outcome
//! within the stated tolerance. The definitions, scales and tolerances live
//! in `thesis_ch4_exps/mod.rs`; the full-length runs and the report come
//! from `cargo run --release -p dropless-sim --example thesis_ch4`.
//!
//! Every FAST flow uses the ns-2 FAST module's loss recovery, the chapter's
//! set-up (`thesis_ch4_exps::CHAPTER_MODULE_RECOVERY`). To check the items
//! with the transport's default recovery instead:
//! `THESIS_CH4_RECOVERY=default cargo test --release -p dropless-sim --test
//! thesis_ch4 -- --include-ignored` (items 7, 12, 14, 15 and 16 fail
//! with both recoveries at full length; `docs/reports/thesis-ch4.md`).

mod thesis_ch4_exps;
use thesis_ch4_exps::{run_experiment, Scale};

fn check(id: u32) {
    let o = run_experiment(id, Scale::Ci, false);
    for c in &o.checks {
        eprintln!("{}", c.describe());
    }
    for n in &o.notes {
        eprintln!("{n}");
    }
    eprintln!("experiment {id}: {:.1} s", o.wall_s);
    assert!(
        o.pass(),
        "experiment {id} ({}): {:?}",
        o.title,
        o.failures()
    );
}

/// Items 14-16 run on B5's link; their round trip includes the ns-2
/// topology's transmission times (egress access link, ACKs on the reverse
/// links), not only the propagation delay.
#[test]
fn b5_round_trip_matches_the_ns2_topology() {
    let d = thesis_ch4_exps::b5_base_rtt();
    assert!((d - 0.1000864).abs() < 1e-8, "base RTT {d}");
}

macro_rules! exps {
    ($($name:ident = $id:expr;)*) => {
        $(#[test] fn $name() { check($id); })*
    };
}

// Items that do not reproduce at full length (reasons in
// docs/reports/thesis-ch4.md and `thesis_ch4_exps::explain`): the tests
// stay, ignored, so `cargo test -- --ignored` shows the current state.
macro_rules! not_reproduced {
    ($($name:ident = $id:expr;)*) => {
        $(#[test]
        #[ignore = "does not reproduce; see docs/reports/thesis-ch4.md"]
        fn $name() { check($id); })*
    };
}

exps! {
    e01_fast_single_flow = 1;
    e02_fast_flows_true_d = 2;
    e03_fast_persistent_b1 = 3;
    e04_fast_vs_theory = 4;
    e05_vegas_2475_vs_theory = 5;
    e06_vegas_250_vs_theory = 6;
    e08_buffer_growth = 8;
    e09_pathological_vegas = 9;
    e10_two_flow_closed_forms = 10;
    e11_new_flow_pure_fast = 11;
    e13_four_phase_three_flows = 13;
    e17_alpha_adjusting_rtts = 17;
    e18_alpha_adjusting_alphas = 18;
    e19_random_loss = 19;
    e20_multi_bottleneck = 20;
}

not_reproduced! {
    e07_fairness_ordering = 7;
    e12_four_phase = 12;
    e14_overflow_original = 14;
    e15_decrease_pacing = 15;
    e16_alpha_adjusting = 16;
}

/// Item 14 with a phase-breaking send jitter (each send delayed by up to
/// one bottleneck packet time; not the chapter's set-up): the report found
/// one flow dominating in each of seeds 1-13 (best share 0.53-0.89, Jain
/// 0.41-0.77 over 40-140 s). This test replicates that on seeds 14-16,
/// which had not been run when it was written, at the CI length (140 s,
/// the same 40-140 s window), with item 14's own thresholds. Measured on
/// its first run: best share 0.785 / 0.903 / 0.804, Jain 0.521 / 0.406 /
/// 0.498.
#[test]
fn e14_send_jitter_dominance_on_fresh_seeds() {
    for seed in [14, 15, 16] {
        let (_, x) = thesis_ch4_exps::e14_jittered(seed, Scale::Ci);
        let best = thesis_ch4_exps::best_share(&x);
        let jain = dropless_sim::jain(&x);
        eprintln!("seed {seed}: rates {x:?}, best share {best:.3}, Jain {jain:.3}");
        assert!(
            best >= 0.40 && jain <= 0.95,
            "seed {seed}: best share {best:.3} (>= 0.40), Jain {jain:.3} (<= 0.95)"
        );
    }
}
