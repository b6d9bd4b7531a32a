#!/usr/bin/env bash
# `dropless probe` on a real emulated path (issue 33): N probes for each kind
# of cross traffic (none, Poisson, Pareto on/off at FRAC of the rate, from
# `dropless emulate --cross`), every probe listed against the truth:
# capacity RATE, available bandwidth RATE x (1 - FRAC), and the available
# bandwidth during each probe (RATE less the cross traffic the emulator
# offered while it ran, from its counters: each probe gets a fresh path, the
# emulator's seed the probe's number; heavy-tailed on/off traffic need not
# keep its long-run mean over ten seconds). A probe whose search
# closed no bracket is listed as "no estimate" with the range it bounds,
# and counts as within 10 % only if both ends of the range are.
#
# With -N NARROW the path has two hops (two emulators in series, a
# forwarding namespace between them): link 1 at RATE carries the cross
# traffic (the tight link), link 2 at NARROW carries none (the narrow link,
# NARROW below RATE); the truth is then capacity NARROW and available
# bandwidth min(RATE x (1 - FRAC), NARROW). Each link has DELAY each way.
#
# Needs root, iproute2 and python3. Not part of CI; run it on an idle
# machine (the emulator and both ends share the cores).
#
# Usage: sudo scripts/probe-real.sh [-r RATE] [-N NARROW] [-d DELAY] [-b BUFFER] [-t TIME] [-n N] [-f FRAC] [-k KINDS] [-o FILE]
#   sudo scripts/probe-real.sh                          # 1Gbps, 40 ms each way, 10MB, 10 probes of 10 s per kind
#   sudo scripts/probe-real.sh -r 300Mbps -b 3MB -n 3 -k none,poisson
#   sudo scripts/probe-real.sh -r 300Mbps -N 200Mbps -d 20ms -b 3MB -k poisson
# Environment: DROPLESS (the binary; default target/release/dropless, built
# if missing), PROBE_ARGS (more `dropless probe` options), PROBE_KEEP (a
# directory to keep each probe's JSON in).
set -euo pipefail
# shellcheck source=scripts/netns-common.sh
. "$(dirname "$0")/netns-common.sh"

RATE=1Gbps
DELAY=40ms
BUFFER=10MB
TIME=10s
N=10
FRAC=0.5
KINDS=none,poisson,pareto
REPORT=
NARROW=
while getopts "r:N:d:b:t:n:f:k:o:h" o; do
    case "$o" in
    r) RATE=$OPTARG ;;
    N) NARROW=$OPTARG ;;
    d) DELAY=$OPTARG ;;
    b) BUFFER=$OPTARG ;;
    t) TIME=$OPTARG ;;
    n) N=$OPTARG ;;
    f) FRAC=$OPTARG ;;
    k) KINDS=$OPTARG ;;
    o) REPORT=$OPTARG ;;
    *) usage ;;
    esac
done
shift $((OPTIND - 1))
[ $# -eq 0 ] || usage
case "$N" in '' | *[!0-9]*) echo "error: -n: found '$N', expected a whole number of probes" >&2; exit 2 ;; esac
python3 -c "import sys; f = float(sys.argv[1]); sys.exit(0 if 0 < f < 1 else 1)" "$FRAC" 2>/dev/null \
    || { echo "error: -f: found '$FRAC', expected a fraction of the rate above 0 and below 1" >&2; exit 2; }
IFS=, read -r -a kinds <<<"$KINDS"
for kind in "${kinds[@]}"; do
    case "$kind" in none | constant | poisson | pareto) ;; *)
        echo "error: -k: found '$kind', expected a comma-separated list of none, constant, poisson, pareto" >&2; exit 2 ;;
    esac
done

need_root "TUN devices, network namespaces"
find_dropless
OUT=$(mktemp -d)
trap 'lot_down; rm -rf "$OUT"' EXIT
bps() {
    python3 -c "import sys; s = sys.argv[1]; print(int(float(s.replace('Gbps', 'e9').replace('Mbps', 'e6').replace('kbps', 'e3').replace('bps', ''))))" "$1" 2>/dev/null \
        || { echo "error: $2: found '$1', expected a rate such as 300Mbps or 1Gbps" >&2; exit 2; }
}
rate_bps=$(bps "$RATE" -r)
narrow_bps=0
DST=10.79.0.2
if [ -n "$NARROW" ]; then
    narrow_bps=$(bps "$NARROW" -N)
    [ "$narrow_bps" -lt "$rate_bps" ] || { echo "error: -N: found $NARROW, expected a rate below -r's $RATE (the narrow link)" >&2; exit 2; }
    DST=10.80.0.2
fi

for kind in "${kinds[@]}"; do
    args=()
    if [ "$kind" != none ]; then
        args=(--cross "$kind:$(python3 -c "print(int($rate_bps * $FRAC))")bps")
    fi
    for i in $(seq "$N"); do
        # A fresh path per probe: the emulator's counters at its stop give
        # the cross traffic it offered during this probe.
        if [ -n "$NARROW" ]; then
            LOT_SECOND=(--rate "$NARROW" --delay "$DELAY" --buffer "$BUFFER")
            lot_up --rate "$RATE" --delay "$DELAY" --buffer "$BUFFER" --seed "$i" "${args[@]}"
        else
            path_up --rate "$RATE" --delay "$DELAY" --buffer "$BUFFER" --seed "$i" "${args[@]}"
        fi
        echo "$kind: probe $i of $N" >&2
        port=$((9100 + i))
        # shellcheck disable=SC2086 # DROPLESS_SEC: options, split on spaces
        ip netns exec "$NS_R" "$BIN" recv "$DST:$port" --discard --timeout 30 $DROPLESS_SEC >"$OUT/$kind-$i.recv" 2>&1 &
        rx=$!
        sleep 0.3
        # shellcheck disable=SC2086 # options, split on spaces
        ip netns exec "$NS_S" "$BIN" probe "$DST:$port" --time "$TIME" $DROPLESS_SEC ${PROBE_ARGS:-} --json \
            >"$OUT/$kind-$i.json" 2>"$OUT/$kind-$i.err" || { echo "$kind probe $i failed:" >&2; cat "$OUT/$kind-$i.err" >&2; }
        wait "$rx" || true
        if [ -n "$NARROW" ]; then lot_down; else path_down; fi
        cp "$OUT/emu" "$OUT/$kind-$i.emu" 2>/dev/null || true
    done
done

[ -n "${PROBE_KEEP:-}" ] && mkdir -p "$PROBE_KEEP" && cp "$OUT"/*.json "$PROBE_KEEP"/
python3 - "$OUT" "$rate_bps" "$FRAC" "$N" "$RATE" "$DELAY" "$BUFFER" "$TIME" "$narrow_bps" "${kinds[@]}" <<'PY' | tee "${REPORT:-/dev/null}"
import json, os, re, sys
out, link1, frac, n, rate, delay, buf, t, narrow = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4]), *sys.argv[5:9], float(sys.argv[9])
kinds = sys.argv[10:]
cap = narrow or link1
if narrow:
    print(f"path: two hops, {rate} (the cross traffic's, the tight link) then {narrow / 1e6:g} Mb/s (the narrow link), {delay} each way per link, {buf} drop-tail buffers; {n} probes of {t} per kind of cross traffic\n")
else:
    print(f"path: {rate}, {delay} each way, {buf} drop-tail buffer; {n} probes of {t} per kind of cross traffic\n")
print("Truth: the capacity; the available bandwidth is the tight link's rate less the cross traffic the emulator offered during that probe (its counters), the long-run mean's in brackets.\n")
print("| cross traffic | probe | capacity Mb/s | error | available Mb/s | truth | error | within 10 % | trains (judged, host-limited) |")
print("|---|---|---|---|---|---|---|---|---|")

def offered_bps(path):
    """The cross traffic the emulator offered during one probe, bits/s (None if not found)."""
    try:
        m = re.search(r"(\d+) bytes offered over ([0-9.]+) s", open(path).read())
    except OSError:
        return None
    return int(m.group(1)) * 8 / float(m.group(2)) if m and float(m.group(2)) > 0 else None

summary = []
for kind in kinds:
    mean_truth = min(cap, link1 if kind == "none" else link1 * (1 - frac))
    ok_c = ok_a = done = 0
    for i in range(1, n + 1):
        x = None if kind == "none" else offered_bps(os.path.join(out, f"{kind}-{i}.emu"))
        truth = mean_truth if x is None else min(cap, link1 - x)
        shown_truth = f"{truth / 1e6:.0f}" if x is None else f"{truth / 1e6:.0f} ({mean_truth / 1e6:.0f})"
        try:
            e = json.load(open(os.path.join(out, f"{kind}-{i}.json")))["end"]
        except (OSError, ValueError):
            print(f"| {kind} | {i} | failed | | | | | no | |")
            continue
        done += 1
        c = e["capacity_bps"] or 0.0
        a = e["available"]
        if a["kind"] == "estimate":
            shown, lo, hi = f"{a['bps'] / 1e6:.1f}", a["bps"], a["bps"]
            err = f"{100 * (a['bps'] / truth - 1):+.1f} %"
        elif a["kind"] == "range":
            lo, hi = a["lo_bps"], a["hi_bps"]
            shown = f"no estimate: {lo / 1e6:.1f}-{hi / 1e6:.1f}"
            err = f"{100 * (lo / truth - 1):+.1f} to {100 * (hi / truth - 1):+.1f} %"
        else:
            shown, lo, hi, err = "no estimate", 0.0, float("inf"), "-"
        within = abs(lo / truth - 1) <= 0.1 and abs(hi / truth - 1) <= 0.1
        ok_a += within
        ok_c += abs(c / cap - 1) <= 0.05
        trains = f"{a.get('judged', '-')}, {a.get('host_limited', '-')}" if a["kind"] == "range" else a.get("estimates", a.get("trains", "-"))
        print(f"| {kind} | {i} | {c / 1e6:.1f} | {100 * (c / cap - 1):+.1f} % | {shown} | {shown_truth} | {err} | {'yes' if within else '**no**'} | {trains} |")
    summary.append(f"- {kind}: available bandwidth within 10 % in {ok_a} of {n} probes, capacity within 5 % in {ok_c} of {n} ({done} ran)")
print()
print("\n".join(summary))
PY
