#!/usr/bin/env bash
# Runs `dropless send`/`dropless recv` through a real kernel bottleneck: two
# network namespaces joined by a veth pair, with a token-bucket filter (tbf)
# as the drop-tail bottleneck queue on the sender's side. For each controller
# it prints the sender's summary and the packets tbf dropped.
#
# Needs root (network namespaces) and iproute2. Not part of CI. The path has
# no propagation delay (the netem qdisc is not available everywhere): the
# round trip is the tbf queue plus microseconds of stack, so delay-based
# controllers show their queue target directly (FAST keeps about alpha
# packets queued).
#
# With -e PERCENT the sender sends ECN-capable (--ecn) and an nftables rule on
# the bottleneck marks that share of its ECT packets CE (a marking router
# emulated by random marking: this kernel has no RED or fq_codel); needs nft.
# The rule sees a GSO batch as one packet and marks all of it.
#
# Usage: sudo scripts/netns-bottleneck.sh [-r RATE] [-l LIMIT_BYTES] [-t TIME] [-e PERCENT] [CC[:NAME=VALUE,...] ...]
#   sudo scripts/netns-bottleneck.sh                       # newreno cubic fast:alpha=50, 100mbit, 10s
#   sudo scripts/netns-bottleneck.sh -r 1gbit -l 1500000 -t 20s cubic fast:alpha=200
# Environment: DROPLESS (the binary; default target/release/dropless, built if
# missing), RECV_ARGS (more `dropless recv` options, e.g. --ack probe for
# TCP-Madison), SEND_ARGS (more `dropless send` options, e.g. --no-gso or --prr).
# With GSO (the default) the sender hands the kernel up to 64 datagrams at a
# time and tbf counts a batch it drops whole as one drop, so "tbf drops" can be
# below the sender's losses; with SEND_ARGS=--no-gso the two agree.
set -euo pipefail
# shellcheck source=scripts/netns-common.sh
. "$(dirname "$0")/netns-common.sh"

RATE=100mbit
LIMIT=150000
TIME=10s
MARK=
while getopts "r:l:t:e:h" o; do
    case "$o" in
    r) RATE=$OPTARG ;;
    l) LIMIT=$OPTARG ;;
    t) TIME=$OPTARG ;;
    e) MARK=$OPTARG ;;
    *) usage ;;
    esac
done
shift $((OPTIND - 1))
CCS=("$@")
[ ${#CCS[@]} -gt 0 ] || CCS=(newreno cubic fast:alpha=50)

need_root "network namespaces"
find_dropless

NS_S=dropless-snd-$$
NS_R=dropless-rcv-$$
OUT=$(mktemp -d)
cleanup() {
    ip netns del "$NS_S" 2>/dev/null || true
    ip netns del "$NS_R" 2>/dev/null || true
    rm -rf "$OUT"
}
trap cleanup EXIT

ip netns add "$NS_S"
ip netns add "$NS_R"
ip link add dl-s$$ netns "$NS_S" type veth peer name dl-r$$ netns "$NS_R"
ip -n "$NS_S" addr add 10.77.0.1/24 dev dl-s$$
ip -n "$NS_R" addr add 10.77.0.2/24 dev dl-r$$
ip -n "$NS_S" link set dl-s$$ up
ip -n "$NS_R" link set dl-r$$ up
ip -n "$NS_S" link set lo up
ip -n "$NS_R" link set lo up
# The bottleneck: tbf at RATE with a LIMIT-byte drop-tail queue, on the data
# direction only (ACKs return unshaped). Offloads off, so tbf sees packets.
ip netns exec "$NS_S" ethtool -K dl-s$$ tso off gso off gro off >/dev/null 2>&1 || true
tc -n "$NS_S" qdisc add dev dl-s$$ root tbf rate "$RATE" burst 15000 limit "$LIMIT"

ECN_ARGS=()
if [ -n "$MARK" ]; then
    command -v nft >/dev/null || { echo "error: -e needs nft (nftables)" >&2; exit 2; }
    ip netns exec "$NS_S" nft add table ip dropless
    ip netns exec "$NS_S" nft add chain ip dropless post '{ type filter hook postrouting priority 0; }'
    ip netns exec "$NS_S" nft add rule ip dropless post oifname "dl-s$$" ip ecn ect0 \
        numgen random mod 10000 '<' "$(awk -v p="$MARK" 'BEGIN { printf "%d", p * 100 }')" ip ecn set ce
    ECN_ARGS=(--ecn)
fi

drops() {
    tc -n "$NS_S" -s qdisc show dev dl-s$$ | sed -n 's/.*dropped \([0-9]*\).*/\1/p' | head -1
}

echo "bottleneck: tbf $RATE, queue $LIMIT bytes${MARK:+, CE marks on $MARK % of ECT packets}; $TIME of generated data per controller"
port=9000
for spec in "${CCS[@]}"; do
    port=$((port + 1))
    before=$(drops)
    transfer "$spec" 10.77.0.2 "$port" --check
    cat "$OUT/report-$port"
    after=$(drops)
    echo "   receiver: $(tail -1 "$OUT/recv")"
    echo "   tbf drops (queued units): $((after - before))"
done
