#!/usr/bin/env bash
# Encrypted against plaintext goodput over loopback, side by side in one run
# (issue 34: the encrypted transfer is to be at least 0.9 of --insecure).
# Each round runs one encrypted and one plaintext memory-to-memory transfer
# (`recv --discard`, `send --bytes SIZE --cc cubic --json`), the order
# alternating from round to round so that a change in the machine's load
# falls on both alike; it prints each pair's goodputs and ratio, then the
# medians and the median of the pair ratios.
#
#   scripts/encrypted-vs-plaintext.sh [ROUNDS]     (default 7)
#
# Environment: DROPLESS (binary; default target/release/dropless), SIZE
# (default 2GB), CC (default cubic).
set -euo pipefail
DROPLESS=${DROPLESS:-target/release/dropless}
SIZE=${SIZE:-2GB}
CC=${CC:-cubic}
ROUNDS=${1:-7}
dir=$(mktemp -d "${TMPDIR:-/tmp}/dropless-enc.XXXXXX")
trap 'rm -rf "$dir"' EXIT
"$DROPLESS" keygen "$dir/key" 2>/dev/null

# One transfer; prints its goodput in Gb/s (from the sender's JSON).
one() {
  local mode=$1 port keyargs
  port=$(python3 -c 'import socket; s=socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  if [ "$mode" = enc ]; then keyargs=(--key "$dir/key"); else keyargs=(--insecure); fi
  "$DROPLESS" recv "127.0.0.1:$port" --discard "${keyargs[@]}" --timeout 5 >/dev/null 2>&1 &
  local rpid=$!
  sleep 0.2
  "$DROPLESS" send --bytes "$SIZE" "127.0.0.1:$port" --cc "$CC" "${keyargs[@]}" --json >"$dir/$mode.json"
  wait "$rpid"
  python3 -c "import json; print(f\"{json.load(open('$dir/$mode.json'))['goodput_bps'] / 1e9:.3f}\")"
}

printf '%-6s %12s %12s %8s\n' round "enc Gb/s" "plain Gb/s" ratio
: >"$dir/rows"
for r in $(seq "$ROUNDS"); do
  if [ $((r % 2)) -eq 1 ]; then e=$(one enc); p=$(one plain); else p=$(one plain); e=$(one enc); fi
  ratio=$(python3 -c "print(f'{$e / $p:.3f}')")
  printf '%-6s %12s %12s %8s\n' "$r" "$e" "$p" "$ratio"
  echo "$e $p $ratio" >>"$dir/rows"
done
python3 - "$dir/rows" <<'PY'
import statistics, sys
rows = [tuple(map(float, l.split())) for l in open(sys.argv[1])]
e, p, q = zip(*rows)
print(f"median   {statistics.median(e):12.3f} {statistics.median(p):12.3f} {statistics.median(q):8.3f}"
      f"   (ratio of medians {statistics.median(e) / statistics.median(p):.3f})")
PY
