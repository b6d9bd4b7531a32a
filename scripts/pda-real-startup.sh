#!/usr/bin/env bash
# PDA alone on the seed's real emulated path (1 Gb/s, 40 ms each way, a
# 10 MB drop-tail buffer in `dropless emulate`) with random loss, each run
# traced (`dropless send --trace`, every 5 ms): how start-up ended (the
# time, the pace and the buffer it had "measured" then) and the goodput
# per second. Binaries given with -b alternate run by run, so that two
# builds meet the same machine state (issue 33).
#
# Needs root, iproute2 and python3. Not part of CI; run it on an idle
# machine (the emulator and both ends share the cores).
#
# Usage: sudo scripts/pda-real-startup.sh [-n RUNS] [-t SECONDS] [-L LOSS] [-b BIN]... [-k DIR]
#   sudo scripts/pda-real-startup.sh -n 3                       # target/release/dropless, 3 runs of 20 s
#   sudo scripts/pda-real-startup.sh -n 3 -b old/dropless -b target/release/dropless
# -k DIR keeps each run's trace (DIR/NAME-RUN.trace.csv) and JSON report.
# Environment: RECV_ARGS (more `dropless recv` options, e.g. "--ack every").
set -euo pipefail
# shellcheck source=scripts/netns-common.sh
. "$(dirname "$0")/netns-common.sh"

RUNS=3
TIME=20
LOSS=0.0001
BINS=()
KEEP=
while getopts "n:t:L:b:k:h" o; do
    case "$o" in
    n) RUNS=$OPTARG ;;
    t) TIME=$OPTARG ;;
    L) LOSS=$OPTARG ;;
    b) BINS+=("$(realpath "$OPTARG")") ;;
    k) KEEP=$(realpath -m "$OPTARG") ;;
    *) usage ;;
    esac
done
shift $((OPTIND - 1))
[ $# -eq 0 ] || usage
command -v python3 >/dev/null || { echo "error: needs python3" >&2; exit 2; }
need_root "TUN devices, network namespaces"
find_dropless
[ ${#BINS[@]} -gt 0 ] || BINS=("$BIN")

OUT=$(mktemp -d)
trap 'path_down 2>/dev/null || true; rm -rf "$OUT"' EXIT
[ -z "$KEEP" ] || mkdir -p "$KEEP"

echo "| run | binary | load | start-up ended | pace then (Mb/s) | buffer then (ms) | goodput (Mb/s) | per second |"
echo "|---|---|---|---|---|---|---|---|"
for i in $(seq 1 "$RUNS"); do
    for b in "${BINS[@]}"; do
        name=$(basename "$(dirname "$b")")-$(basename "$b")
        load=$(cut -d' ' -f1 /proc/loadavg)
        path_up --rate 1Gbps --delay 40ms --buffer 10MB --loss "$LOSS"
        port=$((9100 + RANDOM % 800))
        # shellcheck disable=SC2086 # options, split on spaces
        ip netns exec "$NS_R" "$b" recv "10.79.0.2:$port" --discard --timeout 30 $DROPLESS_SEC ${RECV_ARGS:-} \
            >"$OUT/recv" 2>&1 &
        rx=$!
        sleep 0.3
        # shellcheck disable=SC2086 # options, split on spaces
        ip netns exec "$NS_S" "$b" send "10.79.0.2:$port" --time "${TIME}s" --cc pda $DROPLESS_SEC \
            --json -i 1s --trace "$OUT/trace.csv" --trace-every 5ms >"$OUT/send.json" 2>"$OUT/send.err" \
            || { cat "$OUT/send.err" >&2; exit 1; }
        wait "$rx" || true
        path_down
        python3 - "$OUT/trace.csv" "$OUT/send.json" "$i" "$name" "$load" <<'EOF'
import csv, json, sys
trace, report, run, name, load = sys.argv[1:]
rows = list(csv.DictReader(open(trace)))
num = lambda v: float(v) if v else 0.0
end = next((r for r in rows if r["phase"] != "0"), None)
j = json.load(open(report))
per = " ".join("%.0f" % (i["goodput_bps"] / 1e6) for i in j.get("intervals", []))
if end is None:
    ended, pace, buf = "never", "", ""
else:
    ended = "%.3f s" % num(end["t_s"])
    pace = "%.1f" % (num(end["pacing_bps"]) / 1e6)
    buf = "%.2f" % (num(end["buffer_s"]) * 1e3)
print(f"| {run} | {name} | {load} | {ended} | {pace} | {buf} | {j['goodput_bps'] / 1e6:.1f} | {per} |")
EOF
        if [ -n "$KEEP" ]; then
            cp "$OUT/trace.csv" "$KEEP/$name-$i.trace.csv"
            cp "$OUT/send.json" "$KEEP/$name-$i.json"
        fi
    done
done
