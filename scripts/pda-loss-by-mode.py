#!/usr/bin/env python3
"""Where PDA flows sharing a link lose their packets: in start-up, or while
balancing against each other (issue 33, experiments/pda/shuffle.toml).

Runs shuffle.toml's cases in the simulator with flow series every 20 ms and
splits the bottleneck's drops by what the flows were doing in each interval,
from the controller's own trace columns in flows.csv (`phase`: 0 start-up,
1 drain, 2 cruise; `competing`: 1 while the flow balances against a
competitor it takes for one that does not yield):

* start-up/drain: some flow was still in start-up or drain;
* balancing: every flow in cruise, at least one balancing;
* other: every flow in cruise, none balancing.

    scripts/pda-loss-by-mode.py                    (the cases below)
    scripts/pda-loss-by-mode.py 8:80ms:0s 4:80ms:10s   (flows:rtt:stagger)
    scripts/pda-loss-by-mode.py --set flows[0].params.count_yield=true
                                        (more --set, passed to dropless run)

Needs `dropless` on PATH or target/release/dropless (cargo build --release).
"""

import collections
import csv
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CASES = ["8:20ms:0s", "8:80ms:0s", "8:200ms:0s", "4:20ms:0s", "3:200ms:0s", "4:80ms:10s"]


def dropless():
    local = os.path.join(ROOT, "target", "release", "dropless")
    if os.path.exists(local):
        return local
    found = shutil.which("dropless")
    if not found:
        sys.exit("pda-loss-by-mode.py: no dropless binary (run cargo build --release)")
    return found


def case(spec, out, sets):
    try:
        n, rtt, stagger = spec.split(":")
        n = int(n)
    except ValueError:
        sys.exit(f"pda-loss-by-mode.py: case {spec!r}: expected flows:rtt:stagger, e.g. 8:80ms:0s")
    # Measured 10-15 s after the last flow joined, as shuffle.toml.
    last = (n - 1) * float(stagger.rstrip("s") or 0)
    args = [
        dropless(), "run", os.path.join(ROOT, "experiments", "pda", "shuffle.toml"),
        "--set", f"flows[0].count={n}", "--set", f"flows[0].rtt={rtt}",
        "--set", f"flows[0].stagger={stagger}", "--set", f"duration={last + 15:g}s",
        "--set", "flow_series=true", "--set", "sample=20ms",
        "-o", out, "-f", "--no-plots", "--series", "csv", "-q",
    ]
    for kv in sets:
        args += ["--set", kv]
    if subprocess.run(args, stdout=subprocess.DEVNULL).returncode != 0:
        sys.exit(f"pda-loss-by-mode.py: dropless run failed for case {spec} (its message is above)")
    by = collections.defaultdict(list)
    for r in csv.DictReader(open(os.path.join(out, "flows.csv"))):
        by[r["t_s"]].append(r)
    split = collections.Counter()
    prev = 0
    for r in csv.DictReader(open(os.path.join(out, "links.csv"))):
        d = int(r["drops"]) - prev
        prev = int(r["drops"])
        fs = by[r["t_s"]]
        if any(f["phase"] in ("0", "1") for f in fs):
            split["start-up/drain"] += d
        elif any(f["competing"] == "1" for f in fs):
            split["balancing"] += d
        else:
            split["other"] += d
    total = max(prev, 1)
    parts = ", ".join(f"{k} {split[k] / total:6.1%}" for k in ("start-up/drain", "balancing", "other"))
    print(f"{n} flows, RTT {rtt}, {stagger} apart: {prev:7d} dropped: {parts}")


def main():
    cases, sets = [], []
    args = sys.argv[1:]
    while args:
        a = args.pop(0)
        if a == "--set":
            if not args:
                sys.exit("pda-loss-by-mode.py: --set needs KEY=VALUE")
            sets.append(args.pop(0))
        else:
            cases.append(a)
    with tempfile.TemporaryDirectory() as tmp:
        for i, spec in enumerate(cases or CASES):
            case(spec, os.path.join(tmp, f"case{i}"), sets)


if __name__ == "__main__":
    main()
