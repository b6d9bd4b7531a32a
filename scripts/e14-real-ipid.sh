#!/usr/bin/env bash
# E14 on real headers (issue 35): are the IP IDs real hosts send usable as
# ADPM probe types, read in network or in host byte order? One `dropless
# emulate --price rcp --probe-type ip-id` path (100 Mb/s, 10 ms each way,
# 500 kB) carries, one after another, kernel TCP (iperf3, two flows of
# reno, then two of cubic) and dropless UDP senders (`dropless send`, two
# at once: newreno and cubic; then one cubic with --no-gso, one datagram per
# send call), each for TIME. The emulator derives each packet's probe type
# from its IP ID and records, per flow and direction, the probe types in
# network order, in host order (bytes swapped) and through the thesis's
# byte-order-robust variant f((A xor B) + 256 A): ADPM's mean error over
# windows of 1024 packets (E14's k; the decoder started at 0 ends at the
# largest probe type below the price, so the error is half the sum of the
# squared gaps between the probe types seen) and the 1024-bin histogram's
# chi-square per degree of freedom. Prints one Markdown row per flow with
# at least one window, then the emulator's probe lines.
#
# E14's criterion (reference note §8 E14, experiment
# thesis-ch5/e14-ipid-byte-order): a sequential counter gives 5.6e-4 with
# k = 1024, and a map is usable when its error is within 15 % of that;
# independent uniform probe types give about 1/(k + 2) = 9.7e-4.
#
# This measures header contents, not timing: machine load does not change
# it. Needs root, iproute2 and iperf3. Not part of CI.
#
# Usage: sudo scripts/e14-real-ipid.sh [-t TIME] [-o ORDER]
#   ORDER: the byte order the link marks with (network or host; the
#   recorded numbers cover both whichever is chosen). Default 10s, network.
# Environment: DROPLESS (the binary; default target/release/dropless),
# HIST (a file to keep the probe-type histograms in, CSV).
set -euo pipefail
# shellcheck source=scripts/netns-common.sh
. "$(dirname "$0")/netns-common.sh"

TIME=10s
ORDER=network
while getopts "t:o:h" o; do
    case "$o" in
    t) TIME=$OPTARG ;;
    o) ORDER=$OPTARG ;;
    *) usage ;;
    esac
done
case "$TIME" in *s) TIME_S=${TIME%s} ;; *) echo "error: -t takes a time like 10s, not '$TIME'" >&2; exit 2 ;; esac
case "$ORDER" in network | host) ;; *) echo "error: -o takes network or host, not '$ORDER'" >&2; exit 2 ;; esac
for tool in iperf3 python3; do
    command -v "$tool" >/dev/null || { echo "error: needs $tool" >&2; exit 2; }
done
need_root "TUN devices, network namespaces"
find_dropless
DROPLESS_SEC=--insecure

OUT=$(mktemp -d)
trap 'path_down; rm -rf "$OUT"' EXIT
path_up --rate 100Mbps --delay 10ms --buffer 500kB --price rcp --price-rtt 40ms \
    --probe-type ip-id --ip-id-order "$ORDER" --probe-histogram "$OUT/hist.csv"

for cc in reno cubic; do
    port=$((5200 + RANDOM % 700))
    ip netns exec "$NS_R" iperf3 -s -1 -p "$port" >"$OUT/srv" 2>&1 &
    srv=$!
    sleep 0.3
    ip netns exec "$NS_S" iperf3 -c 10.79.0.2 -p "$port" -t "$TIME_S" -P 2 -C "$cc" >"$OUT/iperf-$cc" 2>&1 \
        || { cat "$OUT/iperf-$cc" >&2; exit 1; }
    wait "$srv" || true
    echo "iperf3 $cc: $(grep receiver "$OUT/iperf-$cc" | tail -1)" >&2
done
ECN_ARGS=()
transfer newreno 10.79.0.2 6001 --discard &
t1=$!
transfer cubic 10.79.0.2 6002 --discard &
t2=$!
wait "$t1" "$t2"
# One more without segmentation offload: one send call per datagram.
SEND_ARGS=--no-gso transfer cubic 10.79.0.2 6003 --discard
cat "$OUT/report-6001" "$OUT/report-6002" "$OUT/report-6003" >&2
stop_emulator
[ -n "${HIST:-}" ] && cp "$OUT/hist.csv" "$HIST"

python3 - "$OUT/emu" <<'EOF'
import re, sys
print("| direction | flow | packets | IP ID 0 | windows | network order: mean error (worst), chi2/df | host order | xor variant |")
print("|---|---|---|---|---|---|---|---|")
for line in open(sys.argv[1]):
    m = re.match(r"(\S+ -> \S+) probe types from the IP ID, flow (.*?): (\d+) packets, (\d+) with IP ID 0, (\d+) windows", line)
    if not m or m.group(5) == "0":
        continue
    cols = []
    for name in ("network", "host", "xor-variant"):
        e = re.search(name + r": mean error (\S+) \(worst window (\S+)\), chi2/df ([^;\s]+)", line)
        cols.append(f"{e.group(1)} ({e.group(2)}), {e.group(3)}")
    print(f"| {m.group(1)} | {m.group(2)} | {m.group(3)} | {m.group(4)} | {m.group(5)} | " + " | ".join(cols) + " |")
EOF
grep "probe types" "$OUT/emu" >&2 || true
