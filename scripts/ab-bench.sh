#!/usr/bin/env bash
# Wall-clock ratio of two dropless binaries side by side: runs
# `OLD bench-one CASE --scale S` and `NEW bench-one CASE --scale S`
# alternately ROUNDS times (the order flips every round, so a change of load
# weighs on both), checks that both simulated the same data packets and
# events, and prints each round's wall times and the median ratio NEW/OLD
# of simulated data packets per wall-clock second (above 1: NEW is faster).
#
#   scripts/ab-bench.sh OLD NEW [CASE] [SCALE] [ROUNDS]
#   scripts/ab-bench.sh old/dropless target/release/dropless A 0.2 9
#
# Build OLD from an earlier commit in a worktree of its own
# (`git worktree add ../old COMMIT && cargo build --release` there).
# Wall clock on a shared machine is noisy: read the ratio beside the load
# average it prints, and instruction counts
# (`valgrind --tool=cachegrind --cache-sim=no`) for small differences.
set -euo pipefail

usage() { echo "usage: scripts/ab-bench.sh OLD NEW [CASE A|B|C|D] [SCALE > 0] [ROUNDS >= 1]" >&2; exit 2; }
[ $# -ge 2 ] && [ $# -le 5 ] || usage
old=$1 new=$2 case=${3:-A} scale=${4:-0.2} rounds=${5:-9}
for b in "$old" "$new"; do
  [ -x "$b" ] || { echo "ab-bench: $b is not an executable dropless binary" >&2; exit 2; }
done
case "$case" in A|B|C|D) ;; *) echo "ab-bench: CASE must be A, B, C or D, not '$case'" >&2; exit 2;; esac
[[ "$rounds" =~ ^[1-9][0-9]*$ ]] || { echo "ab-bench: ROUNDS must be a whole number >= 1, not '$rounds'" >&2; exit 2; }

one() { "$1" bench-one "$case" --scale "$scale"; }
field() { python3 -c "import json,sys; print(json.loads(sys.argv[1])[sys.argv[2]])" "$1" "$2"; }

ratios=()
for ((i = 1; i <= rounds; i++)); do
  if ((i % 2)); then o=$(one "$old"); n=$(one "$new"); else n=$(one "$new"); o=$(one "$old"); fi
  for k in data_packets events; do
    if [ "$(field "$o" $k)" != "$(field "$n" $k)" ]; then
      echo "ab-bench: round $i: $k differ ($(field "$o" $k) old, $(field "$n" $k) new): not the same simulation" >&2
    fi
  done
  ow=$(field "$o" wall_s) nw=$(field "$n" wall_s)
  r=$(python3 -c "print(f'{$ow/$nw:.3f}')")
  ratios+=("$r")
  echo "round $i: old ${ow} s, new ${nw} s, ratio ${r}, load $(cut -d' ' -f1 /proc/loadavg)"
done
python3 - "${ratios[@]}" <<'PY'
import statistics, sys
r = sorted(float(x) for x in sys.argv[1:])
print(f"median ratio (old wall / new wall) {statistics.median(r):.3f} over {len(r)} rounds (min {r[0]:.3f}, max {r[-1]:.3f})")
PY
