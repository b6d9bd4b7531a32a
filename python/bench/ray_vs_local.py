"""Ray against local threads, side by side in one run (docs/performance.md).

    python python/bench/ray_vs_local.py [GRID] [--rounds 3]
    scripts/ray-vs-local.sh [GRID] [--rounds 3]

Runs GRID (default examples/sweep-quickstart.toml, 200 runs of the quick
start) alternately with `dropless sweep --jobs 2` and through Ray, checks
that the result files are byte-identical, and prints the wall times and
their ratio (median of the rounds):

- "ray, cluster up": `dropless sweep --ray HOST:PORT` (with RAY_AUTH_TOKEN)
  against a local Ray cluster started once before the rounds (`ray start
  --head --block`, two CPUs, token authentication, its own ports and
  temporary directory), as a user with a cluster runs it;
- "ray, driver connected": `dropless.sweep(GRID, backend="ray")` from a
  Python process already connected to that cluster (a notebook's case:
  no interpreter start, no `import ray`, no connection per sweep).

The cluster is stopped by ending its process group (`ray stop` would end
every Ray cluster on the machine).
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


def start_cluster(tmp: pathlib.Path, token: str):
    """A two-CPU Ray head with token authentication in its own session
    (process group, temporary directory, ports): (process, GCS port)."""
    import socket

    def free():
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            return s.getsockname()[1]

    gcs = free()
    env = {k: v for k, v in os.environ.items() if not k.startswith("RAY_")}
    env.update(RAY_AUTH_MODE="token", RAY_AUTH_TOKEN=token)
    head = subprocess.Popen(
        ["ray", "start", "--head", "--block", "--node-ip-address=127.0.0.1", f"--port={gcs}",
         f"--dashboard-agent-listen-port={free()}", "--num-cpus=2", "--include-dashboard=false",
         "--disable-usage-stats", f"--temp-dir={tmp}"],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
    )
    deadline = time.monotonic() + 180
    while True:
        try:
            socket.create_connection(("127.0.0.1", gcs), timeout=1).close()
            break
        except OSError:
            if head.poll() is not None or time.monotonic() > deadline:
                sys.exit("ray start --head did not come up")
            time.sleep(0.5)
    return head, gcs


def stop_cluster(head):
    """Ends this cluster only (`ray stop` would end every cluster on the machine)."""
    import signal

    try:
        os.killpg(head.pid, signal.SIGTERM)
        head.wait(60)
    except (ProcessLookupError, subprocess.TimeoutExpired):
        try:
            os.killpg(head.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def main():
    import secrets

    p = argparse.ArgumentParser()
    p.add_argument("grid", nargs="?", default=str(ROOT / "examples" / "sweep-quickstart.toml"))
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--bin", default=os.environ.get("DROPLESS_BIN", str(ROOT / "target" / "release" / "dropless")))
    a = p.parse_args()
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="dlbench"))
    times = {"local --jobs 2": [], "ray, cluster up": [], "ray, driver connected": []}
    token = secrets.token_hex(32)
    head, port = start_cluster(tmp / "r", token)
    # A user's shell: the cluster's address and token (docs/python.md).
    address = f"127.0.0.1:{port}"
    os.environ.pop("RAY_AUTH_MODE", None)
    os.environ["RAY_AUTH_TOKEN"] = token
    import dropless  # not Ray: dropless.sweep imports it once the token mode is set

    try:
        # A warm-up of each (page cache, Ray's worker processes).
        timed([a.bin, "sweep", a.grid, "--jobs", "2", "--out", tmp / "w1", "--force", "-q"])
        timed([a.bin, "sweep", a.grid, "--ray", address, "--out", tmp / "w2", "--force"])
        dropless.sweep(a.grid, backend="ray", address=address, out=tmp / "w3", force=True, progress=False)
        for r in range(a.rounds):
            loc, up, drv = tmp / f"local{r}", tmp / f"up{r}", tmp / f"drv{r}"
            times["local --jobs 2"].append(timed([a.bin, "sweep", a.grid, "--jobs", "2", "--out", loc, "-q"]))
            times["ray, cluster up"].append(timed([a.bin, "sweep", a.grid, "--ray", address, "--out", up]))
            same(loc, up)
            t0 = time.monotonic()
            dropless.sweep(a.grid, backend="ray", out=drv, progress=False)
            times["ray, driver connected"].append(time.monotonic() - t0)
            same(loc, drv)
    finally:
        if "ray" in sys.modules:
            sys.modules["ray"].shutdown()
        stop_cluster(head)
    base = statistics.median(times["local --jobs 2"])
    print(f"grid {a.grid}, {a.rounds} rounds, results byte-identical in every round")
    print(f"{'backend':<22} {'median s':>9} {'runs':>40} {'ratio':>6}")
    for k, v in times.items():
        m = statistics.median(v)
        print(f"{k:<22} {m:>9.2f} {' '.join(f'{x:.2f}' for x in v):>40} {m / base:>6.2f}")


if __name__ == "__main__":
    main()
