#!/usr/bin/env bash
# Kernel TCP through `dropless emulate --queue Q` against the simulator's
# same queue on the same path (issue 35 item 5): four kernel flows
# (iperf3 -P 4 -C CC, all starting together) over 50 Mb/s, 20 ms each way
# (RTT 40 ms), a 500 kB (two-BDP) buffer behind RED, CoDel or PIE, RUNS
# real transfers of TIME each per queue, then the simulator with the same
# path, the same queue parameters and kernel-like packets (1448 B of
# payload, 52 B of TCP-with-timestamps and IPv4 headers, delayed ACKs, base
# RTT 40 ms plus HOST_US of host latency, four NewReno or CUBIC flows
# starting together). Prints one Markdown table row per run, over the whole
# run: the mean number of packets waiting, the bottleneck's drop-or-mark
# rate per packet offered (queue drops, buffer overflows and CE marks) and
# the CE marks' share of the packets offered, the
# goodput, the mean sojourn (arrival to service start) and, for real runs,
# the standing sojourn (each 100-ms window's smallest waiting time,
# averaged: what CoDel holds at its target), the 99th percentile of how late the emulator handed the data packets over
# (its own timing error) and the load average when the run ended (real-path
# numbers depend on both: the emulator shares the cores with everything
# else).
#
# Real: the emulator's forward-direction counters (mean waiting packets by
# Little's law: the packets' summed waiting time over the span of their
# arrivals); goodput iperf3's receiver rate. Simulated: links.csv's
# time-averaged queue, summary.json's drops, marks and mean sojourn, the
# flows' goodput.
#
# Queue parameters: RED min_th 20, max_th 60 packets, max_p 0.1 (gentle,
# automatic w_q); CoDel RFC 8289 (5 ms, 100 ms); PIE RFC 8033 (15 ms). With
# -e the flows are ECN-capable (net.ipv4.tcp_ecn = 1; dropless: ecn = true)
# and the queues mark (--aqm-ecn; red_ecn, codel_ecn, pie_ecn).
#
# Needs root, iproute2, iperf3 and python3. Not part of CI.
#
# Usage: sudo scripts/kernel-aqm.sh [-n RUNS] [-t TIME] [-c CC] [-e] [QUEUE ...]
#   QUEUE is red, codel, pie or droptail (default the first three):
#   sudo scripts/kernel-aqm.sh                 # reno, 3 runs of 20 s per queue
#   sudo scripts/kernel-aqm.sh -n 1 -c cubic codel
# Environment: DROPLESS (the binary; default target/release/dropless),
# HOST_US (host latency added to the simulated base RTT, us; default 30),
# RED_MIN_QUEUE (RED's red_min_queue / --red-min-queue in both; default the
# tool's, 2), ACK_JITTER (the simulated flows' ack_jitter, e.g. 1ms: host
# noise on the return path, which bunches the senders' packets as a real
# host's timing does; default none).
set -euo pipefail
# shellcheck source=scripts/netns-common.sh
. "$(dirname "$0")/netns-common.sh"

RUNS=3
TIME=20s
CC=reno
ECN=0
while getopts "n:t:c:eh" o; do
    case "$o" in
    n) RUNS=$OPTARG ;;
    t) TIME=$OPTARG ;;
    c) CC=$OPTARG ;;
    e) ECN=1 ;;
    *) usage ;;
    esac
done
shift $((OPTIND - 1))
QUEUES=("$@")
[ ${#QUEUES[@]} -gt 0 ] || QUEUES=(red codel pie)
case "$TIME" in *s) TIME_S=${TIME%s} ;; *) echo "error: -t takes a time like 20s, not '$TIME'" >&2; exit 2 ;; esac
case "$CC" in reno) SIMCC=newreno ;; cubic) SIMCC=cubic ;; *) echo "error: -c takes reno or cubic, not '$CC'" >&2; exit 2 ;; esac
for q in "${QUEUES[@]}"; do
    case "$q" in red | codel | pie | droptail) ;; *) echo "error: QUEUE '$q': expected red, codel, pie or droptail" >&2; exit 2 ;; esac
done
for tool in iperf3 python3; do
    command -v "$tool" >/dev/null || { echo "error: needs $tool" >&2; exit 2; }
done
need_root "TUN devices, network namespaces"
find_dropless
HOST_US=${HOST_US:-30}

OUT=$(mktemp -d)
trap 'path_down; rm -rf "$OUT"' EXIT

emu_args() {
    case "$1" in
    red)
        echo "--queue red --red-min-th 20 --red-max-th 60 --red-max-p 0.1"
        [ -n "${RED_MIN_QUEUE:-}" ] && echo "--red-min-queue $RED_MIN_QUEUE"
        ;;
    codel) echo "--queue codel" ;;
    pie) echo "--queue pie" ;;
    # A step far above the 333-packet buffer never signals: drop-tail, with
    # the discipline's counters (sojourn, standing sojourn) kept.
    droptail) echo "--queue step --step-k 1000000" ;;
    esac
    [ "$ECN" = 1 ] && [ "$1" != droptail ] && echo "--aqm-ecn"
    true
}
sim_args() {
    echo "--set topology.bottleneck.queue=$1"
    case "$1" in
    red)
        echo "--set topology.bottleneck.red_min_th=20 --set topology.bottleneck.red_max_th=60 --set topology.bottleneck.red_max_p=0.1"
        [ -n "${RED_MIN_QUEUE:-}" ] && echo "--set topology.bottleneck.red_min_queue=$RED_MIN_QUEUE"
        ;;
    esac
    if [ "$ECN" = 1 ]; then
        [ "$1" != droptail ] && echo "--set topology.bottleneck.${1}_ecn=true"
        echo "--set flows[*].ecn=true"
    else
        echo "--set flows[*].ecn=false"
    fi
}

echo "| queue | run | mean waiting, pkts | drop/mark rate | CE marks | goodput Mb/s | mean sojourn ms | standing sojourn ms | late p99 us | load (1 min) |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for q in "${QUEUES[@]}"; do
    for run in $(seq "$RUNS"); do
        # shellcheck disable=SC2046 # emu_args prints options
        path_up --rate 50Mbps --delay 20ms --buffer 500kB $(emu_args "$q")
        for ns in "$NS_S" "$NS_R"; do
            ip netns exec "$ns" sysctl -q -w net.ipv4.tcp_congestion_control=reno \
                net.ipv4.tcp_ecn="$ECN" net.ipv4.tcp_rmem="4096 131072 16777216" \
                net.ipv4.tcp_wmem="4096 131072 16777216" >/dev/null
        done
        port=$((5200 + RANDOM % 700))
        ip netns exec "$NS_R" iperf3 -s -1 -p "$port" >"$OUT/srv" 2>&1 &
        srv=$!
        sleep 0.3
        ip netns exec "$NS_S" iperf3 -c 10.79.0.2 -p "$port" -t "$TIME_S" -P 4 -C "$CC" -J >"$OUT/iperf.json" \
            || { cat "$OUT/iperf.json" >&2; exit 1; }
        wait "$srv" || true
        load=$(cut -d' ' -f1 /proc/loadavg)
        stop_emulator
        path_down
        python3 - "$OUT" "$q" "$run" "$load" <<'EOF'
import json, re, sys
out, q, run, load = sys.argv[1:]
j = json.load(open(f"{out}/iperf.json"))
mbps = j["end"]["sum_received"]["bits_per_second"] / 1e6
line = open(f"{out}/emu").read().splitlines()[0]  # A -> B: the data
n = lambda pat: int(re.search(pat, line).group(1))
offered = n(r"(\d+) packets in")
signals = n(r"(\d+) dropped at the full buffer") + n(r"(\d+) CE-marked") + n(r": (\d+) dropped, ")
soj = float(re.search(r"mean sojourn ([\d.]+) ms", line).group(1))
late = re.search(r"99th percentile ([\d.]+) us", line).group(1)
wait = float(re.search(r"mean waiting ([\d.]+) packets", line).group(1))
ce = n(r"(\d+) CE-marked")
standing = float(re.search(r"standing sojourn ([\d.]+) ms", line).group(1))
print(f"| {q} | real {run} | {wait:.1f} | {signals / offered:.5f} | {ce / offered:.5f} | {mbps:.2f} | {soj:.2f} | {standing:.2f} | {late} | {load} |")
EOF
    done
    rtt_us=$((40000 + HOST_US))
    # shellcheck disable=SC2046 # sim_args prints options
    "$BIN" run experiments/aqm/codel-sojourn.toml --quiet --no-plots --force --out "$OUT/sim" \
        --set "duration=$TIME" $(sim_args "$q") --set "flows[*].cc=$SIMCC" --set "flows[*].start=0s" \
        --set "flows[*].rtt=${rtt_us}us" --set "flows[*].mss=1448B" --set "flows[*].header=52B" \
        --set "flows[*].ack=delayed" ${ACK_JITTER:+--set "flows[*].ack_jitter=$ACK_JITTER"} >/dev/null
    python3 - "$OUT/sim" "$q" <<'EOF'
import csv, json, sys
d, q = sys.argv[1:]
s = json.load(open(f"{d}/summary.json"))
rows = [r for r in csv.DictReader(open(f"{d}/links.csv")) if r["link"] == "0"]
wait = sum(float(r["avg_queue_pkts"]) for r in rows) / len(rows)
last = rows[-1]
drops = float(last["aqm_drops"]) + float(last["drops"])
marks = float(last["marks"])
offered = float(last["departed"]) + drops
mbps = sum(f["goodput_bps"] for f in s["flows"]) / 1e6
soj = s["bottlenecks"][0].get("mean_sojourn_s")
soj = "(not reported)" if soj is None else f"{soj * 1e3:.2f}"
print(f"| {q} | sim | {wait:.1f} | {(drops + marks) / offered:.5f} | {marks / offered:.5f} | {mbps:.2f} | {soj} | (not reported) | | |")
EOF
done
