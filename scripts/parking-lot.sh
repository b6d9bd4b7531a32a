#!/usr/bin/env bash
# A real parking lot (issue 35): two `dropless emulate --price rcp` (or
# `--price maxnet`, for CC maxnet) links in series, a namespace forwarding
# between them, and three price-driven `dropless send` flows at once: the
# long flow over both links and one short flow on each. Both links have the
# same rate C, so max-min gives every flow C/2. Prints each flow's goodput
# over the second half of the run (from its interval lines), the max-min
# goodput (C/2 times the payload's share of the wire: 1400 of 1458 bytes),
# their ratio, the senders' summary lines, and both emulators' counters
# (packets price-marked, the price's rate at the end).
#
# Needs root and iproute2. Not part of CI.
#
# Usage: sudo scripts/parking-lot.sh [-r RATE] [-d DELAY] [-b BUFFER] [-t TIME] [CC[:NAME=VALUE,...]]
#   sudo scripts/parking-lot.sh                      # rcp, 100Mbps, 10 ms each way per link, 30 s
#   sudo scripts/parking-lot.sh -r 200Mbps -t 40s rcp
#   sudo scripts/parking-lot.sh maxnet               # MaxNet sources, MaxNet links
# Environment: DROPLESS (the binary; default target/release/dropless, built if
# missing), EMU_OPTS (more `dropless emulate` options for both links, e.g.
# --price-alpha 0.3).
set -euo pipefail
# shellcheck source=scripts/netns-common.sh
. "$(dirname "$0")/netns-common.sh"

RATE=100Mbps
DELAY=10ms
BUFFER=500kB
TIME=30s
while getopts "r:d:b:t:h" o; do
    case "$o" in
    r) RATE=$OPTARG ;;
    d) DELAY=$OPTARG ;;
    b) BUFFER=$OPTARG ;;
    t) TIME=$OPTARG ;;
    *) usage ;;
    esac
done
shift $((OPTIND - 1))
CC=${1:-rcp}
# The links compute the price the controller reads: MaxNet's cost for
# maxnet, RCP's rate for anything else.
case "$CC" in maxnet | maxnet:*) PRICE=maxnet ;; *) PRICE=rcp ;; esac
case "$DELAY" in *ms) DELAY_MS=${DELAY%ms} ;; *) echo "error: -d takes a whole number of milliseconds like 10ms, not '$DELAY'" >&2; exit 2 ;; esac
case "$TIME" in *s) TIME_S=${TIME%s} ;; *) echo "error: -t takes a time like 30s, not '$TIME'" >&2; exit 2 ;; esac
case "$RATE" in
*Gbps) RATE_BPS=$(python3 -c "print(float('${RATE%Gbps}') * 1e9)") ;;
*Mbps) RATE_BPS=$(python3 -c "print(float('${RATE%Mbps}') * 1e6)") ;;
*) echo "error: -r takes a rate like 100Mbps or 1Gbps, not '$RATE'" >&2; exit 2 ;;
esac
need_root "TUN devices, network namespaces"
find_dropless
DROPLESS_SEC=--insecure # a pricing link reads the plaintext packet number

OUT=$(mktemp -d)
trap 'lot_down; rm -rf "$OUT"' EXIT
# shellcheck disable=SC2086 # EMU_OPTS is a list of options
lot_up --rate "$RATE" --delay "$DELAY" --buffer "$BUFFER" --price "$PRICE" --price-rtt "$((4 * DELAY_MS))ms" ${EMU_OPTS:-}

ECN_ARGS=()
SEND_ARGS="--interval 1s"
echo "parking lot: two links of $RATE, $DELAY each way, $BUFFER buffer, $PRICE prices; $CC for $TIME"
( NS_S=$NS_S NS_R=$NS_R transfer "$CC" 10.80.0.2 9101 --discard ) &
p1=$!
( NS_S=$NS_S NS_R=$NS_M transfer "$CC" 10.79.0.2 9102 --discard ) &
p2=$!
( NS_S=$NS_M NS_R=$NS_R transfer "$CC" 10.80.0.2 9103 --discard ) &
p3=$!
wait $p1 $p2 $p3
stop_emulator
kill "$EMU2" 2>/dev/null || true
wait "$EMU2" 2>/dev/null || true
EMU2=
python3 - "$OUT" "$RATE_BPS" "$TIME_S" <<'PY'
import re, sys
out, c, t = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
fair = c / 2 * 1400 / 1458 / 1e6
for port, name in [(9101, "long (links 1 and 2)"), (9102, "short on link 1"), (9103, "short on link 2")]:
    rates = []
    for line in open(f"{out}/report-{port}"):
        m = re.match(r"\s*([0-9.]+)-([0-9.]+)\s+([0-9.]+)Mbps", line)
        if m and float(m.group(1)) >= t / 2 and float(m.group(2)) - float(m.group(1)) > 0.99:
            rates.append(float(m.group(3)))
    if rates:
        g = sum(rates) / len(rates)
        print(f"{name}: {g:.2f} Mb/s over the second half, max-min {fair:.2f}, ratio {g / fair:.3f}")
        # The sender's summary (packets sent, lost, retransmitted).
        for line in open(f"{out}/report-{port}"):
            if line.startswith("== "):
                print("   " + line.rstrip())
    else:
        print(f"{name}: no interval lines:")
        print(open(f"{out}/report-{port}").read())
PY
echo "link 1:"; sed 's/^/   /' "$OUT/emu"
echo "link 2:"; sed 's/^/   /' "$OUT/emu2"
