#!/usr/bin/env bash
# Encrypted against plaintext goodput over loopback, side by side in one run
# (issue 34: the encrypted transfer is to be at least 0.9 of --insecure).
# Each round runs one encrypted and one plaintext memory-to-memory transfer
# (`recv --discard`, `send --bytes SIZE --cc cubic --json`), the order
# alternating from round to round so that a change in the machine's load
# falls on both alike; it prints each pair's goodputs and ratio, then the
# medians and the median of the pair ratios. With /usr/bin/time it also
# prints the CPU seconds (user + system) of both ends of each transfer and
# the pair's CPU ratio, plaintext / encrypted: on loopback both ends are
# CPU-bound, so that ratio is what the goodput ratio would be with the CPU
# to themselves, and the machine's load moves it less than the goodputs.
#
#   scripts/encrypted-vs-plaintext.sh [ROUNDS]     (default 7)
#
# Environment: DROPLESS (binary; default target/release/dropless), SIZE
# (default 2GB), CC (default cubic), MSS (payload bytes per datagram;
# default the binary's).
set -euo pipefail
DROPLESS=${DROPLESS:-target/release/dropless}
SIZE=${SIZE:-2GB}
CC=${CC:-cubic}
MSS=${MSS:-}
ROUNDS=${1:-7}
mssargs=()
if [ -n "$MSS" ]; then mssargs=(--mss "$MSS"); fi
timed=()
if [ -x /usr/bin/time ]; then timed=(/usr/bin/time -f "%U %S"); fi
dir=$(mktemp -d "${TMPDIR:-/tmp}/dropless-enc.XXXXXX")
trap 'rm -rf "$dir"' EXIT
"$DROPLESS" keygen "$dir/key" 2>/dev/null

# CPU seconds (user + system) /usr/bin/time wrote to file $1; 0 without it.
cpu() {
  if [ ${#timed[@]} -gt 0 ]; then tail -n 1 "$1" | python3 -c 'import sys; u, s = sys.stdin.read().split(); print(f"{float(u) + float(s):.2f}")'; else echo 0; fi
}

# One transfer; prints its goodput in Gb/s (from the sender's JSON) and the
# CPU seconds of the sender and of the receiver.
one() {
  local mode=$1 port keyargs
  port=$(python3 -c 'import socket; s=socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  if [ "$mode" = enc ]; then keyargs=(--key "$dir/key"); else keyargs=(--insecure); fi
  "${timed[@]}" "$DROPLESS" recv "127.0.0.1:$port" --discard "${keyargs[@]}" "${mssargs[@]}" --timeout 5 >/dev/null 2>"$dir/recv.time" &
  local rpid=$!
  sleep 0.2
  "${timed[@]}" "$DROPLESS" send --bytes "$SIZE" "127.0.0.1:$port" --cc "$CC" "${keyargs[@]}" "${mssargs[@]}" --json >"$dir/$mode.json" 2>"$dir/send.time"
  wait "$rpid"
  echo "$(python3 -c "import json; print(f\"{json.load(open('$dir/$mode.json'))['goodput_bps'] / 1e9:.3f}\")") $(cpu "$dir/send.time") $(cpu "$dir/recv.time")"
}

printf '%-6s %12s %12s %8s   %-22s %-22s %8s\n' round "enc Gb/s" "plain Gb/s" ratio "enc CPU s (snd+rcv)" "plain CPU s (snd+rcv)" "CPU p/e"
: >"$dir/rows"
for r in $(seq "$ROUNDS"); do
  if [ $((r % 2)) -eq 1 ]; then e=$(one enc); p=$(one plain); else p=$(one plain); e=$(one enc); fi
  python3 - "$r" $e $p <<'PY' | tee -a "$dir/rows"
import sys
r = sys.argv[1]
e, es, er, p, ps, pr = map(float, sys.argv[2:])
ec, pc = es + er, ps + pr
q = pc / ec if ec > 0 else 0.0
print(f"{r:6s} {e:12.3f} {p:12.3f} {e / p:8.3f}   {f'{es:.2f}+{er:.2f}={ec:.2f}':22s} {f'{ps:.2f}+{pr:.2f}={pc:.2f}':22s} {q:8.3f}")
PY
done
python3 - "$dir/rows" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
col = lambda k: [float(r[k]) for r in rows]
e, p, q, c = col(1), col(2), col(3), col(6)
ec = [float(r[4].split("=")[1]) for r in rows]
pc = [float(r[5].split("=")[1]) for r in rows]
m = statistics.median
print(f"median {m(e):12.3f} {m(p):12.3f} {m(q):8.3f}   {f'={m(ec):.2f}':>22s} {f'={m(pc):.2f}':>22s} {m(c):8.3f}")
print(f"ratio of median goodputs {m(e) / m(p):.3f}; of median CPU seconds (plain / enc) {m(pc) / m(ec) if m(ec) else 0:.3f}")
PY
