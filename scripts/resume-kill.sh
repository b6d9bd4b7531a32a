#!/usr/bin/env bash
# Issue 21's resume bar: a 1 GB encrypted transfer over loopback, SIGKILLed
# at a random point (the receiver, then the sender), then resumed with
# `recv --resume` / `send --resume`. For each kill it prints how many bytes
# the receiver's record says it holds, in how many ranges (issue 34: every
# range, not only a prefix), how many 1430-byte blocks had arrived
# (blocks of the part file equal to the source's: the source is random, so
# a block never written cannot match), how many of those lie outside the
# recorded ranges and were therefore sent again,
# and whether the receiver's whole-file BLAKE3 check passed and the copy is
# byte-identical.
#
#   scripts/resume-kill.sh [RUNS]       (default 3 runs of each victim)
#
# Environment: DROPLESS (binary; default target/release/dropless), SIZE
# (bytes, default 1e9), RATE (the first attempt's cbr rate, bits/s, default
# 2e9: 4 s for 1 GB, so that a random instant falls mid-transfer), LOAD
# (busy processes started for the whole run, e.g. LOAD=2 on two cores;
# default 0).
set -euo pipefail
DROPLESS=${DROPLESS:-target/release/dropless}
SIZE=${SIZE:-1000000000}
RATE=${RATE:-2e9}
RUNS=${1:-3}
LOAD=${LOAD:-0}
dir=$(mktemp -d "${TMPDIR:-/tmp}/dropless-resume.XXXXXX")
load_pids=()
for _ in $(seq "$LOAD"); do (while :; do :; done) & load_pids+=($!); done
cleanup() { for p in "${load_pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$dir"; }
trap cleanup EXIT
head -c "$SIZE" /dev/urandom >"$dir/in.bin"
"$DROPLESS" keygen "$dir/key" 2>/dev/null
secs=$(python3 -c "print($SIZE * 8 / $RATE)")
printf '%-7s %8s %14s %7s %14s %10s %9s %8s %6s\n' victim "kill s" "held bytes" ranges "recv blocks" "re-sent" "re-sent %" blake3 same
for run in $(seq "$RUNS"); do
  for victim in recv send; do
    rm -f "$dir/out.bin"
    port=$(python3 -c 'import socket; s=socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    "$DROPLESS" recv "127.0.0.1:$port" --out "$dir/out.bin" --resume --key "$dir/key" --timeout 2 >/dev/null 2>&1 &
    rpid=$!
    sleep 0.3
    "$DROPLESS" send "$dir/in.bin" "127.0.0.1:$port" --resume --key "$dir/key" --cc cbr --param "rate=$RATE" --timeout 2 >/dev/null 2>&1 &
    spid=$!
    # A random instant in the middle 80 % of the transfer (after the
    # sender's hashing, ~1 s for 1 GB).
    at=$(python3 -c "import random; print(round(1.0 + random.uniform(0.1, 0.9) * $secs, 3))")
    sleep "$at"
    if [ "$victim" = recv ]; then kill -9 "$rpid"; wait "$rpid" 2>/dev/null || true; wait "$spid" 2>/dev/null || true
    else kill -9 "$spid"; wait "$spid" 2>/dev/null || true; wait "$rpid" 2>/dev/null || true; fi
    stats=$(python3 - "$dir" <<'EOF'
import sys
d = sys.argv[1]
rec = dict(l.split(" ", 1) for l in open(f"{d}/.out.bin.dropless-resume").read().splitlines()[1:])
ranges = [tuple(map(int, r.split("-"))) for r in rec["held"].split()]
held = sum(b - a for a, b in ranges)
src = open(f"{d}/in.bin", "rb").read()
part = open(f"{d}/.out.bin.dropless-part", "rb").read()
m = 1430
allb = beyond = 0
for at in range(0, len(src), m):
    blk = src[at:at + m]
    if part[at:at + m] == blk:
        allb += 1
        beyond += not any(a <= at and at + len(blk) <= b for a, b in ranges)
print(held, len(ranges), allb, beyond)
EOF
)
    read -r held nranges allb beyond <<<"$stats"
    "$DROPLESS" recv "127.0.0.1:$port" --out "$dir/out.bin" --resume --key "$dir/key" --timeout 5 --json >"$dir/recv.json" 2>"$dir/recv.err" &
    rpid=$!
    sleep 0.3
    "$DROPLESS" send "$dir/in.bin" "127.0.0.1:$port" --resume --key "$dir/key" --timeout 5 >/dev/null
    if wait "$rpid"; then ok=pass; else ok=FAIL; cat "$dir/recv.err" >&2; fi
    from=$(python3 -c "import json; print(json.load(open('$dir/recv.json'))['resumed_held'])" 2>/dev/null || echo -)
    [ "$from" = "$held" ] || { echo "resumed with $from bytes held, record said $held" >&2; ok=FAIL; }
    if cmp -s "$dir/in.bin" "$dir/out.bin"; then same=yes; else same=NO; fi
    pct=$(python3 -c "print(f'{100 * $beyond / max($allb, 1):.2f}')")
    printf '%-7s %8s %14s %7s %14s %10s %9s %8s %6s\n' "$victim" "$at" "$held" "$nranges" "$allb" "$beyond" "$pct" "$ok" "$same"
  done
done
