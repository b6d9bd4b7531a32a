"""Ray against local threads, side by side in one run (docs/performance.md).

    python python/bench/ray_vs_local.py [GRID] [--rounds 3]

Runs GRID (default examples/sweep-quickstart.toml, 200 runs of the quick
start) alternately with `dropless sweep --jobs 2` and through Ray, checks
that the result files are byte-identical, and prints the wall times and
their ratio (median of the rounds):

- "ray, cluster up": `dropless sweep --ray auto` against a local Ray
  cluster started once before the rounds (`ray start --head`, two CPUs),
  as a user with a cluster runs it;
- "ray, driver connected": `dropless.sweep(GRID, backend="ray")` from a
  Python process already connected to that cluster (a notebook's case:
  no interpreter start, no `import ray`, no connection per sweep);
- "ray, cold": `dropless sweep --ray`, which starts a local cluster for the
  sweep and stops it after (start-up included).
"""

from __future__ import annotations

import argparse
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]


def timed(cmd, env=None):
    t0 = time.monotonic()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, env=env)
    return time.monotonic() - t0


def same(a: pathlib.Path, b: pathlib.Path):
    for f in ("results.csv", "results.parquet"):
        if (a / f).read_bytes() != (b / f).read_bytes():
            sys.exit(f"DIFFERENT: {a / f} and {b / f}")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("grid", nargs="?", default=str(ROOT / "examples" / "sweep-quickstart.toml"))
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--bin", default=os.environ.get("DROPLESS_BIN", str(ROOT / "target" / "release" / "dropless")))
    a = p.parse_args()
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="ray-bench-"))
    port = 6391
    subprocess.run(
        ["ray", "start", "--head", f"--port={port}", "--num-cpus=2", "--include-dashboard=false", "--disable-usage-stats"],
        check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    # "auto": the cluster this machine runs (an explicit HOST:PORT also needs
    # the cluster's token since Ray 2.59's token authentication).
    address = "auto"
    times = {"local --jobs 2": [], "ray, cluster up": [], "ray, driver connected": [], "ray, cold": []}
    import ray

    import dropless

    connected = False
    try:
        # A warm-up of each (page cache, Ray's worker processes).
        timed([a.bin, "sweep", a.grid, "--jobs", "2", "--out", tmp / "w1", "--force", "-q"])
        timed([a.bin, "sweep", a.grid, "--ray", address, "--out", tmp / "w2", "--force"])
        for r in range(a.rounds):
            loc, up, cold = tmp / f"local{r}", tmp / f"up{r}", tmp / f"cold{r}"
            times["local --jobs 2"].append(timed([a.bin, "sweep", a.grid, "--jobs", "2", "--out", loc, "-q"]))
            times["ray, cluster up"].append(timed([a.bin, "sweep", a.grid, "--ray", address, "--out", up]))
            same(loc, up)
            if not connected:
                ray.init(address=address, logging_level="ERROR", log_to_driver=False)
                dropless.sweep(a.grid, backend="ray", out=tmp / "w4", force=True, progress=False)
                connected = True
            t0 = time.monotonic()
            dropless.sweep(a.grid, backend="ray", out=tmp / f"drv{r}", progress=False)
            times["ray, driver connected"].append(time.monotonic() - t0)
            same(loc, tmp / f"drv{r}")
            if r == 0:
                ray.shutdown()
                connected = False
                # The cold start once: a second cluster beside the first would share the 2 cores.
                subprocess.run(["ray", "stop"], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                times["ray, cold"].append(timed([a.bin, "sweep", a.grid, "--ray", "--out", cold]))
                same(loc, cold)
                subprocess.run(
                    ["ray", "start", "--head", f"--port={port}", "--num-cpus=2", "--include-dashboard=false", "--disable-usage-stats"],
                    check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                )
                timed([a.bin, "sweep", a.grid, "--ray", address, "--out", tmp / "w3", "--force"])
    finally:
        subprocess.run(["ray", "stop"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = statistics.median(times["local --jobs 2"])
    print(f"grid {a.grid}, {a.rounds} rounds, results byte-identical in every round")
    print(f"{'backend':<18} {'median s':>9} {'runs':>30} {'ratio':>6}")
    for k, v in times.items():
        m = statistics.median(v)
        print(f"{k:<18} {m:>9.2f} {' '.join(f'{x:.2f}' for x in v):>30} {m / base:>6.2f}")


if __name__ == "__main__":
    main()
