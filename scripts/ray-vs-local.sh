#!/usr/bin/env bash
# Ray against local threads, side by side (docs/performance.md): builds the
# command line, then runs python/bench/ray_vs_local.py, which starts its own
# two-CPU Ray cluster with token authentication, times `dropless sweep GRID
# --jobs 2`, `dropless sweep GRID --ray HOST:PORT` and a connected
# dropless.sweep(..., backend="ray") in alternation, checks that the result
# files are byte-identical in every round, and stops the cluster.
#
#   scripts/ray-vs-local.sh [GRID] [--rounds N]      (default: examples/sweep-quickstart.toml, 3 rounds)
#
# Needs the package with Ray: pip install './python[ray]'.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -q -p dropless
exec "${DROPLESS_PYTHON:-python3}" python/bench/ray_vs_local.py "$@"
