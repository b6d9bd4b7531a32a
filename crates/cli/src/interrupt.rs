//! Stopping a long simulation on request: Ctrl-C on the command line,
//! "interrupt kernel" in Jupyter, a cancelled sweep.
//!
//! A simulation runs in chunks of simulated time ([`simulate`]) and asks
//! its `stop` callback between chunks. The chunks adapt to the run's speed
//! so that one takes about a tenth of a second of wall time whatever the
//! scenario's size, and a request is answered within a chunk. Chunking does
//! not change results: the engine processes the same events in the same
//! order whether it runs to the end at once or in steps
//! (`tests::chunked_runs_are_bit_identical`).
//!
//! The request itself is a process-wide flag: the command line sets it from
//! SIGINT/SIGTERM ([`install_signal_handlers`]; a second Ctrl-C exits at
//! once, with 130), the Python package from its own signal check or from
//! [`cancel`] when a sweep is interrupted.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

use dropless_cc::secs;
use dropless_sim::{SimResult, Simulation};

static CANCELLED: AtomicBool = AtomicBool::new(false);

/// Asks every simulation in this process to stop at its next chunk
/// (`true`), or clears the request (`false`, before a new sweep).
pub fn cancel(on: bool) {
    CANCELLED.store(on, Ordering::SeqCst);
}

/// Whether a stop was requested ([`cancel`] or a signal).
pub fn cancelled() -> bool {
    CANCELLED.load(Ordering::Relaxed)
}

/// Makes SIGINT and SIGTERM request a stop instead of killing the process;
/// a second one while the first is pending exits at once with code 130.
pub(crate) fn install_signal_handlers() {
    #[cfg(unix)]
    {
        use signal_hook::consts::{SIGINT, SIGTERM};
        let flag = Arc::new(AtomicBool::new(false));
        for sig in [SIGINT, SIGTERM] {
            // The conditional shutdown goes first: it sees the flag the
            // first signal set and exits on the second.
            let _ = signal_hook::flag::register_conditional_shutdown(sig, 130, Arc::clone(&flag));
            let _ = signal_hook::flag::register(sig, Arc::clone(&flag));
        }
        // Mirror the handler's flag into the process-wide one.
        std::thread::Builder::new()
            .name("dropless-signals".into())
            .spawn(move || loop {
                if flag.load(Ordering::SeqCst) {
                    cancel(true);
                    return;
                }
                std::thread::sleep(std::time::Duration::from_millis(20));
            })
            .ok();
    }
}

/// A run stopped before its end: the simulated time it reached.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Interrupted {
    /// Simulated time reached, ns.
    pub at: u64,
    /// The run's full duration, ns.
    pub duration: u64,
}

impl Interrupted {
    /// The one-line message: where the run stopped and that nothing of it
    /// was kept.
    pub fn message(&self, what: &str) -> String {
        format!(
            "interrupted: {what} stopped at {:.3} of {:.3} simulated seconds; nothing was written",
            secs(self.at),
            secs(self.duration)
        )
    }
}

/// Wall time one chunk aims at, seconds.
const CHUNK_WALL: f64 = 0.1;

/// Runs `sim` to `duration` in chunks, calling `stop` between chunks and
/// `each(t, wall)` after each (for a progress bar). Returns the result and
/// the wall time, or where the run stopped if `stop` said so.
pub(crate) fn simulate(
    mut sim: Simulation,
    duration: u64,
    stop: &dyn Fn() -> bool,
    each: &mut dyn FnMut(&Simulation, u64, f64),
) -> Result<(SimResult, f64), Interrupted> {
    let t0 = Instant::now();
    let first = (duration / 400).max(1);
    let mut step = first;
    let mut t = 0u64;
    while t < duration {
        let c0 = Instant::now();
        t = t.saturating_add(step).min(duration);
        sim.run_until(t);
        let took = c0.elapsed().as_secs_f64();
        each(&sim, t, t0.elapsed().as_secs_f64());
        if t < duration && stop() {
            return Err(Interrupted { at: t, duration });
        }
        // Aim at CHUNK_WALL per chunk: shrink at once when a chunk is slow
        // (a large scenario), grow back slowly, never past the first step.
        if took > 2.0 * CHUNK_WALL {
            step = (step / 4).max(1_000);
        } else if took < CHUNK_WALL / 4.0 && step < first {
            step = (step * 2).min(first);
        }
    }
    let r = sim.finish();
    Ok((r, t0.elapsed().as_secs_f64()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use dropless_scenario::Scenario;

    fn scenario() -> Scenario {
        let text = r#"
name = "chunks"
duration = "3s"
seed = 3
[topology]
kind = "dumbbell"
bottleneck = { rate = "50Mbps", delay = "5ms", buffer = "0.5bdp" }
[[flows]]
cc = "cubic"
rtt = "30ms"
send_jitter = "100us"
[[flows]]
cc = "newreno"
rtt = "50ms"
start = "1s"
"#;
        dropless_scenario::from_str(text, "chunks.toml", &[]).unwrap()
    }

    #[test]
    fn chunked_runs_are_bit_identical() {
        let s = scenario();
        let whole = s.simulation().unwrap().run();
        let (chunked, _) = simulate(
            s.simulation().unwrap(),
            s.config.duration,
            &|| false,
            &mut |_, _, _| {},
        )
        .unwrap();
        let a = serde_json::to_string(&whole.flows).unwrap();
        let b = serde_json::to_string(&chunked.flows).unwrap();
        assert_eq!(a, b);
        assert_eq!(whole.events, chunked.events);
        assert_eq!(whole.data_packets, chunked.data_packets);
    }

    #[test]
    fn a_stop_request_ends_the_run_at_the_next_chunk() {
        let s = scenario();
        let calls = std::cell::Cell::new(0);
        let r = simulate(
            s.simulation().unwrap(),
            s.config.duration,
            &|| {
                calls.set(calls.get() + 1);
                calls.get() >= 3
            },
            &mut |_, _, _| {},
        );
        let i = r.unwrap_err();
        assert_eq!(calls.get(), 3);
        assert!(i.at > 0 && i.at < i.duration, "{i:?}");
        assert!(i.message("run").starts_with("interrupted: run stopped at "));
    }
}
