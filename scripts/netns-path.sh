#!/usr/bin/env bash
# Runs `dropless send`/`dropless recv` over an emulated long fat path: two
# network namespaces whose only link is `dropless emulate` (a user-space
# bottleneck between two TUN devices: rate, one-way delay, drop-tail buffer,
# random loss, ECN step marking). For each controller it prints the sender's
# summary and, at the end, the emulator's counters.
#
# Needs root and iproute2. Not part of CI.
#
# Usage: sudo scripts/netns-path.sh [-r RATE] [-d DELAY] [-b BUFFER] [-t TIME] [-m MARK_ABOVE] [-L LOSS] [-S STARTS] [CC[:NAME=VALUE,...] ...]
#   sudo scripts/netns-path.sh                                   # 100Mbps, 25 ms each way, 625kB (1 BDP)
#   sudo scripts/netns-path.sh -r 1Gbps -d 50ms -b 12.5MB -t 30s cubic fast:alpha=200
#   sudo scripts/netns-path.sh -m 60kB newreno                   # ECN marking above 60 kB (sends with --ecn)
#   sudo scripts/netns-path.sh -t 20s -S 0,5 fast:alpha=200 fast:alpha=200   # two flows at once, from 0 and 5 s
# Without -S the controllers run one after another; with -S (seconds, one per
# controller) they share the path, each for TIME from its own start.
# Environment: DROPLESS (the binary; default target/release/dropless, built if
# missing), RECV_ARGS (more `dropless recv` options, e.g. --ack probe for
# TCP-Madison), SEND_ARGS (more `dropless send` options, e.g. --prr or --no-gso),
# EMU_OPTS (more `dropless emulate` options, e.g. --spin 0s --seed 7).
set -euo pipefail
# shellcheck source=scripts/netns-common.sh
. "$(dirname "$0")/netns-common.sh"

RATE=100Mbps
DELAY=25ms
BUFFER=625kB
TIME=10s
MARK=
LOSS=0
STARTS=
while getopts "r:d:b:t:m:L:S:h" o; do
    case "$o" in
    r) RATE=$OPTARG ;;
    d) DELAY=$OPTARG ;;
    b) BUFFER=$OPTARG ;;
    t) TIME=$OPTARG ;;
    m) MARK=$OPTARG ;;
    L) LOSS=$OPTARG ;;
    S) STARTS=$OPTARG ;;
    *) usage ;;
    esac
done
shift $((OPTIND - 1))
CCS=("$@")
[ ${#CCS[@]} -gt 0 ] || CCS=(newreno cubic fast:alpha=200)

need_root "TUN devices, network namespaces"
find_dropless

OUT=$(mktemp -d)
trap 'path_down; rm -rf "$OUT"' EXIT

EMU_ARGS=(--rate "$RATE" --delay "$DELAY" --buffer "$BUFFER" --loss "$LOSS" ${EMU_OPTS:-})
ECN_ARGS=()
if [ -n "$MARK" ]; then
    EMU_ARGS+=(--mark-above "$MARK")
    ECN_ARGS=(--ecn)
fi
path_up "${EMU_ARGS[@]}"

echo "path: $RATE each way, $DELAY one-way delay, $BUFFER buffer${MARK:+, CE marking above $MARK}$([ "$LOSS" != 0 ] && echo ", loss $LOSS"); $TIME per controller"
if [ -z "$STARTS" ]; then
    port=9000
    for spec in "${CCS[@]}"; do
        port=$((port + 1))
        transfer "$spec" 10.79.0.2 "$port" --discard
        cat "$OUT/report-$port"
    done
else
    # All at once, each from its start time, sharing the path.
    IFS=, read -r -a starts <<<"$STARTS"
    [ ${#starts[@]} -eq ${#CCS[@]} ] || { echo "error: -S gives ${#starts[@]} start times for ${#CCS[@]} controllers" >&2; exit 2; }
    pids=()
    for i in "${!CCS[@]}"; do
        transfer "${CCS[$i]}" 10.79.0.2 $((9001 + i)) --discard "${starts[$i]}" &
        pids+=($!)
    done
    wait "${pids[@]}"
    for i in "${!CCS[@]}"; do cat "$OUT/report-$((9001 + i))"; done
fi
stop_emulator
echo "emulator (all controllers):"
sed 's/^/   /' "$OUT/emu"
