#!/usr/bin/env bash
# Kernel TCP (iperf3 -C CC) through `dropless emulate` against the
# simulator's prediction of the same path (issue 32 item 7): for each path
# RATE/DELAY/BUFFER, RUNS real transfers of TIME each, then the simulator
# with the same path and kernel-like packets (1448 B of payload, 52 B of
# TCP-with-timestamps and IPv4 headers, delayed ACKs, base RTT 2 x DELAY
# plus HOST_US of host latency). Prints one Markdown table row per run:
# packets the emulator dropped, goodput, mean RTT, the window at the end of
# slow start, and (real runs) which HyStart detector ended it and how late
# the emulator handed packets over (99th percentile: host load shows here).
#
# Real: drops are the emulator's forward-direction drops; goodput iperf3's
# receiver rate; mean RTT the mean of the smoothed RTT `ss -ti` reports
# every 10 ms while data is in flight; the slow-start exit window the
# congestion window (packets) at the first poll that shows an ssthresh,
# and the kernel's HyStart counters (nstat TcpExtTCPHystart*: train or
# delay, and the window when it fired). Simulated: packets lost, goodput,
# the time mean of the sampled RTT while data is in flight (as the real
# rows), and the window at the end of slow start from the sampled cwnd
# series (from the first sample after which the window grows by less than
# a fifth within a base RTT, the end of that last flight: the first sample
# whose successor grows by less than 1 %).
#
# Needs root, iproute2 (ip, ss, nstat), iperf3 and python3. Not part of CI.
# The namespaces' TCP buffers are raised to 64 MB.
#
# Usage: sudo scripts/kernel-vs-sim.sh [-n RUNS] [-t TIME] [-c CC] [-P SIMPARAMS] [PATH ...]
#   PATH is RATE/DELAY/BUFFER (one-way delay), default the three of
#   docs/reports/sim-vs-real.md's kernel CUBIC table:
#   sudo scripts/kernel-vs-sim.sh                       # cubic, 3 runs of 10 s on each path
#   sudo scripts/kernel-vs-sim.sh -n 5 100Mbps/25ms/625kB
#   sudo scripts/kernel-vs-sim.sh -n 0                  # the simulator only
#   sudo scripts/kernel-vs-sim.sh -c reno -P '{}' 50Mbps/10ms/62.5kB
# -P sets the simulated flow's params (a TOML inline table, default "{}";
# e.g. '{ hystart = 1 }' for dropless's earlier detector).
# Environment: DROPLESS (the binary; default target/release/dropless, built
# if missing), HOST_US (host latency added to the simulated base RTT, us;
# default 30, as docs/reports/sim-vs-real.md measured), KEEP (a directory
# to keep each real run's ss polls, nstat, emulator and iperf3 output in).
set -euo pipefail
# shellcheck source=scripts/netns-common.sh
. "$(dirname "$0")/netns-common.sh"

RUNS=3
TIME=10s
CC=cubic
SIMPARAMS="{}"
while getopts "n:t:c:P:h" o; do
    case "$o" in
    n) RUNS=$OPTARG ;;
    t) TIME=$OPTARG ;;
    c) CC=$OPTARG ;;
    P) SIMPARAMS=$OPTARG ;;
    *) usage ;;
    esac
done
shift $((OPTIND - 1))
PATHS=("$@")
[ ${#PATHS[@]} -gt 0 ] || PATHS=(50Mbps/10ms/62.5kB 100Mbps/25ms/625kB 200Mbps/50ms/5MB)
case "$TIME" in *s) TIME_S=${TIME%s} ;; *) echo "error: -t takes a time like 10s, not '$TIME'" >&2; exit 2 ;; esac
for tool in iperf3 python3 ss nstat; do
    command -v "$tool" >/dev/null || { echo "error: needs $tool" >&2; exit 2; }
done
need_root "TUN devices, network namespaces"
find_dropless
HOST_US=${HOST_US:-30}

OUT=$(mktemp -d)
trap 'path_down; rm -rf "$OUT"' EXIT

# Raises the TCP and socket buffer limits in both namespaces and makes reno
# their default congestion control (KERNEL_DEFAULT_CC overrides it). iperf3
# creates its socket with the default and then switches it to CC; a socket
# created with bbr keeps the internal pacing bbr asked for (sk_pacing_status),
# which makes kernel CUBIC paced and doubles HyStart's ACK-train threshold.
# Reno asks for nothing, so CUBIC runs as on a stock host; a namespace may
# only default to a controller in net.ipv4.tcp_allowed_congestion_control,
# and reno always is.
big_buffers() {
    local ns
    for ns in "$NS_S" "$NS_R"; do
        ip netns exec "$ns" sysctl -q -w net.ipv4.tcp_congestion_control="${KERNEL_DEFAULT_CC:-reno}" >/dev/null
        ip netns exec "$ns" sysctl -q -w net.ipv4.tcp_rmem="4096 131072 67108864" \
            net.ipv4.tcp_wmem="4096 131072 67108864" >/dev/null
        ip netns exec "$ns" sysctl -q -w net.core.rmem_max=67108864 net.core.wmem_max=67108864 \
            >/dev/null 2>&1 || sysctl -q -w net.core.rmem_max=67108864 net.core.wmem_max=67108864 >/dev/null
    done
}

# poll_ss FILE: `ss -tin` of the iperf3 data connection every 10 ms until killed.
poll_ss() {
    while :; do
        echo "T $(date +%s.%N)"
        ip netns exec "$NS_S" ss -tinH state established dst 10.79.0.2 2>/dev/null || true
        sleep 0.01
    done >"$1"
}

echo "| path | run | drops | goodput Mb/s | mean RTT ms | slow-start exit, packets | HyStart | emulator late, p99 us |"
echo "|---|---|---|---|---|---|---|---|"
for p in "${PATHS[@]}"; do
    IFS=/ read -r rate delay buffer <<<"$p"
    [ -n "$buffer" ] || { echo "error: path '$p' is not RATE/DELAY/BUFFER" >&2; exit 2; }
    for run in $(seq "$RUNS"); do
        path_up --rate "$rate" --delay "$delay" --buffer "$buffer"
        big_buffers
        ip netns exec "$NS_S" nstat -n >/dev/null
        port=$((5200 + RANDOM % 700))
        ip netns exec "$NS_R" iperf3 -s -1 -p "$port" >"$OUT/srv" 2>&1 &
        srv=$!
        sleep 0.3
        poll_ss "$OUT/ss" &
        poller=$!
        ip netns exec "$NS_S" iperf3 -c 10.79.0.2 -p "$port" -t "$TIME_S" -C "$CC" -i 1 -J >"$OUT/iperf.json" \
            || { cat "$OUT/iperf.json" >&2; exit 1; }
        kill "$poller" 2>/dev/null || true
        wait "$poller" 2>/dev/null || true
        wait "$srv" || true
        ip netns exec "$NS_S" nstat -az 'TcpExtTCPHystart*' >"$OUT/nstat" 2>/dev/null || true
        stop_emulator
        path_down
        if [ -n "${KEEP:-}" ]; then
            mkdir -p "$KEEP"
            for f in ss nstat emu iperf.json; do cp "$OUT/$f" "$KEEP/${p//\//_}-$run-$f"; done
        fi
        python3 - "$OUT" "$p" "$run" <<'EOF'
import json, re, sys
out, path, run = sys.argv[1:]
j = json.load(open(f"{out}/iperf.json"))
gbps = j["end"]["sum_received"]["bits_per_second"] / 1e6
emu = open(f"{out}/emu").read()
# The emulator's first direction (A -> B, the data): "N dropped at the full buffer".
m = re.search(r"(\d+) dropped at the full buffer", emu)
drops = m.group(1) if m else "?"
m = re.search(r"99th percentile ([\d.]+) us", emu)
late = m.group(1) if m else "?"
# Each poll lists iperf3's control connection too: keep the connection
# that has acknowledged the most bytes.
polls = []
for line in open(f"{out}/ss"):
    if line.startswith("T "):
        polls.append([])
    elif polls and "bytes_acked:" in line:
        polls[-1].append(line)
rtts, exit_w = [], None
for conns in polls:
    if not conns:
        continue
    line = max(conns, key=lambda l: int(re.search(r"bytes_acked:(\d+)", l).group(1)))
    r = re.search(r"\brtt:([\d.]+)/", line)
    if r:
        rtts.append(float(r.group(1)))
    s = re.search(r"\bssthresh:(\d+)", line)
    c = re.search(r"\bcwnd:(\d+)", line)
    if exit_w is None and s and c:
        exit_w = int(c.group(1))
hs = {}
for line in open(f"{out}/nstat"):
    f = line.split()
    if len(f) >= 2:
        hs[f[0].replace("TcpExtTCPHystart", "")] = int(f[1])
det = ", ".join(f"{k} {hs.get(k + 'Detect', 0)} (cwnd {hs.get(k + 'Cwnd', 0)})"
                for k in ("Train", "Delay") if hs.get(k + "Detect", 0))
mean = sum(rtts) / len(rtts) if rtts else float("nan")
print(f"| {path} | real {run} | {drops} | {gbps:.1f} | {mean:.1f} | {exit_w} | {det or 'none'} | {late} |")
EOF
    done
    rtt_us=$(python3 -c "import re,sys; v,u=re.match(r'([\d.]+)(ms|us|s)', sys.argv[1]).groups(); print(2*float(v)*{'s':1e6,'ms':1e3,'us':1}[u] + $HOST_US)" "$delay")
    "$BIN" run experiments/sim-vs-real/path-100m-50ms.toml --quiet --no-plots --force --out "$OUT/sim" \
        --set "duration=$TIME" --set "topology.bottleneck.rate=$rate" --set "topology.bottleneck.delay=$delay" \
        --set "topology.bottleneck.buffer=$buffer" --set "flows[0].cc=$CC" --set "flows[0].params=$SIMPARAMS" \
        --set "flows[0].rtt=${rtt_us}us" --set "flows[0].mss=1448B" --set "flows[0].header=52B" >/dev/null
    python3 - "$OUT/sim" "$p" "$rtt_us" <<'EOF'
import csv, json, sys
d, path, rtt_us = sys.argv[1:]
f = json.load(open(f"{d}/summary.json"))["flows"][0]
rows = list(csv.DictReader(open(f"{d}/flows.csv")))
series = [(float(r["t_s"]), float(r["cwnd_pkts"])) for r in rows]
rtt = float(rtt_us) / 1e6
# The end of slow start: the first sample from which the window no longer
# grows by a fifth within one base RTT (slow start at least doubles per
# RTT; congestion avoidance after HyStart grows about 5 % per RTT), then,
# from there, the end of the last slow-start flight: the first sample
# whose successor grows by less than 1 %.
exit_w = None
for i, (t, w) in enumerate(series):
    if w < 16:
        continue
    ahead = [v for (u, v) in series[i + 1:] if u <= t + rtt]
    if ahead and max(ahead) < 1.2 * w:
        for j in range(i, len(series) - 1):
            if series[j + 1][1] < 1.01 * series[j][1]:
                exit_w = round(series[j][1])
                break
        break
# Mean RTT as the real rows take it: the time mean of the RTT sampled at a
# fixed interval while data is in flight (summary.json's mean_rtt_s is the
# mean over ACKs, which weights the busy periods more).
rtts = [float(r["rtt_s"]) for r in rows if r["rtt_s"] and float(r["in_flight_pkts"] or 0) > 0]
mean = sum(rtts) / len(rtts) if rtts else float("nan")
print(f"| {path} | sim | {f['packets_lost']} | {f['goodput_bps'] / 1e6:.1f} | {mean * 1e3:.1f} | {exit_w} | | |")
EOF
done
