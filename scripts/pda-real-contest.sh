#!/usr/bin/env bash
# PDA against the kernel's own TCP on a real emulated path (issue 17): the
# seed's 1 Gb/s, 80 ms path through `dropless emulate` (a one-BDP drop-tail
# buffer), PDA over `dropless send`, kernel CUBIC and BBR over iperf3, and
# the simulator's prediction of each run beside it. Prints a Markdown
# report (also to -o FILE).
#
#   1. Random loss: with LOSS (default 1e-4) on the path, each alone for
#      TIME: PDA, kernel CUBIC, kernel BBR. Goodput and retransmissions per
#      10^4 packets sent.
#   2. The seed's contest (Fig. 5): PDA and kernel CUBIC start together on
#      the path without random loss and share it for SHARE; goodput of each
#      over the first 5 s and over the run, Jain's index over the run.
#   3. The same with kernel BBR.
#   4. BBR alone without random loss for TIME, three ways: the kernel's
#      (iperf3), dropless's BBR over `dropless send`, and the simulator's.
#   5. The same with CUBIC (HyStart on in all three).
#   7. Four parallel streams for TIME (seed 001's "pacing at layer 3"):
#      PDA over `dropless send -P 4` with one host pacer and with each
#      stream pacing itself, and kernel CUBIC with iperf3 -P 4; total
#      goodput, each stream's and Jain's index over them.
#   6. `dropless probe` for TIME (at most 10 s) on the path without cross
#      traffic and with 50 % Poisson cross traffic (--cross poisson:500Mbps
#      at 1 Gb/s), against the truth: capacity 1 Gb/s, available bandwidth
#      the rate less the cross traffic.
#
# Needs root, iproute2, iperf3 and python3; the namespaces' TCP buffer
# limits are raised to 64 MB so that kernel TCP is not window-limited by the
# 10 MB bandwidth-delay product. Not part of CI; run it on an idle machine
# (at 1 Gb/s the emulator, both ends and iperf3 share the cores).
#
# Usage: sudo scripts/pda-real-contest.sh [-t TIME] [-T SHARE] [-L LOSS] [-o FILE] [-c CASES]
#   sudo scripts/pda-real-contest.sh                         # 30 s alone, 60 s shared, loss 1e-4
#   sudo scripts/pda-real-contest.sh -t 20s -T 30s -c 1,2    # shorter, without the BBR contest
# Environment: DROPLESS (the binary; default target/release/dropless, built
# if missing), PDA_PARAMS (more --param NAME=VALUE for PDA, comma-separated).
set -euo pipefail
# shellcheck source=scripts/netns-common.sh
. "$(dirname "$0")/netns-common.sh"

RATE=1Gbps
DELAY=40ms
BUFFER=10MB
TIME=30s
SHARE=60s
LOSS=0.0001
REPORT=
CASES=1,2,3,4,5,6,7
while getopts "t:T:L:o:c:h" o; do
    case "$o" in
    t) TIME=$OPTARG ;;
    T) SHARE=$OPTARG ;;
    L) LOSS=$OPTARG ;;
    o) REPORT=$OPTARG ;;
    c) CASES=$OPTARG ;;
    *) usage ;;
    esac
done
shift $((OPTIND - 1))
[ $# -eq 0 ] || usage
secs() {
    case "$1" in
    *ms) echo "${1%ms} / 1000" | bc -l ;;
    *s) echo "${1%s}" ;;
    *) echo "error: a time like 30s, not '$1'" >&2; exit 2 ;;
    esac
}
TIME_S=$(secs "$TIME")
SHARE_S=$(secs "$SHARE")
for tool in iperf3 python3 bc; do
    command -v "$tool" >/dev/null || { echo "error: needs $tool (apt-get install $tool)" >&2; exit 2; }
done
need_root "TUN devices, network namespaces"
find_dropless

OUT=$(mktemp -d)
trap 'path_down; rm -rf "$OUT"' EXIT

# Raises the TCP and socket buffer limits in both namespaces.
big_buffers() {
    local ns
    for ns in "$NS_S" "$NS_R"; do
        ip netns exec "$ns" sysctl -q -w net.ipv4.tcp_rmem="4096 131072 67108864" \
            net.ipv4.tcp_wmem="4096 131072 67108864" >/dev/null
        ip netns exec "$ns" sysctl -q -w net.core.rmem_max=67108864 net.core.wmem_max=67108864 \
            >/dev/null 2>&1 || sysctl -q -w net.core.rmem_max=67108864 net.core.wmem_max=67108864 >/dev/null
    done
}

# dl NAME CC SECONDS: `dropless send --cc CC` for SECONDS, JSON with 1-s
# intervals to $OUT/NAME.json.
dl() {
    local name=$1 cc=$2 t=$3 port=$((9100 + RANDOM % 800)) params=() kv
    if [ "$cc" = pda ] && [ -n "${PDA_PARAMS:-}" ]; then
        IFS=, read -r -a kvs <<<"$PDA_PARAMS"
        for kv in "${kvs[@]}"; do params+=(--param "$kv"); done
    fi
    # shellcheck disable=SC2086 # DROPLESS_SEC: options, split on spaces
    ip netns exec "$NS_R" "$BIN" recv "10.79.0.2:$port" --discard --timeout 30 $DROPLESS_SEC >"$OUT/$name.recv" 2>&1 &
    local rx=$!
    sleep 0.3
    # shellcheck disable=SC2086 # DL_ARGS: more send options, split on spaces
    ip netns exec "$NS_S" "$BIN" send "10.79.0.2:$port" --time "${t}s" --cc "$cc" "${params[@]}" \
        ${DL_ARGS:-} $DROPLESS_SEC --json -i 1s >"$OUT/$name.json" 2>"$OUT/$name.err" || { cat "$OUT/$name.err" >&2; return 1; }
    wait "$rx" || { cat "$OUT/$name.recv" >&2; return 1; }
}

# kernel NAME CC SECONDS: iperf3 with the kernel's CC for SECONDS, JSON
# with 1-s intervals to $OUT/NAME.json.
kernel() {
    local name=$1 cc=$2 t=$3 port=$((5200 + RANDOM % 800))
    ip netns exec "$NS_R" iperf3 -s -1 -p "$port" >"$OUT/$name.srv" 2>&1 &
    local srv=$!
    sleep 0.3
    # shellcheck disable=SC2086 # K_ARGS: more iperf3 options, split on spaces
    ip netns exec "$NS_S" iperf3 -c 10.79.0.2 -p "$port" -t "$t" -C "$cc" -i 1 ${K_ARGS:-} -J >"$OUT/$name.json" \
        || { cat "$OUT/$name.json" >&2; return 1; }
    wait "$srv" || true
}

# sim NAME FILE SECONDS [--set ...]: the simulator's run of FILE for
# SECONDS, summary to $OUT/NAME.sim.json.
sim() {
    local name=$1 file=$2 t=$3
    shift 3
    "$BIN" run "$file" --set "duration=${t}s" "$@" --out "$OUT/$name.sim" --force >/dev/null
    cp "$OUT/$name.sim/summary.json" "$OUT/$name.sim.json"
}

# open_path [EMULATE_OPTION...]: the emulated path (the script's rate,
# delay and buffer, and these options) with big TCP buffers.
open_path() {
    path_up --rate "$RATE" --delay "$DELAY" --buffer "$BUFFER" "$@"
    big_buffers
}

# close_path NAME: tears the path down, keeping the emulator's counters as
# $OUT/NAME.emu.
close_path() {
    path_down
    mv "$OUT/emu" "$OUT/$1.emu"
}

echo "path: $RATE each way, $DELAY one-way delay, $BUFFER drop-tail buffer" >"$OUT/path"
case ",$CASES," in *,1,*)
    echo "case 1: random loss $LOSS, each alone for $TIME" >&2
    open_path --loss "$LOSS"
    dl loss-pda pda "$TIME_S"
    kernel loss-cubic cubic "$TIME_S"
    kernel loss-bbr bbr "$TIME_S"
    close_path loss
    sim loss-pda experiments/pda/random-loss.toml "$TIME_S" --set "topology.bottleneck.loss=$LOSS"
    sim loss-cubic experiments/pda/random-loss.toml "$TIME_S" --set "topology.bottleneck.loss=$LOSS" \
        --set "flows[0].cc=cubic"
    sim loss-bbr experiments/pda/random-loss.toml "$TIME_S" --set "topology.bottleneck.loss=$LOSS" \
        --set "flows[0].cc=bbr"
    ;;
esac
for c in 2:cubic 3:bbr; do
    case ",$CASES," in *,${c%%:*},*)
        cc=${c#*:}
        echo "case ${c%%:*}: PDA and kernel $cc together for $SHARE" >&2
        open_path
        dl "share-$cc-pda" pda "$SHARE_S" &
        p1=$!
        kernel "share-$cc-tcp" "$cc" "$SHARE_S" &
        p2=$!
        wait "$p1" "$p2"
        close_path "share-$cc"
        sim "share-$cc" experiments/pda/contest.toml "$SHARE_S" --set "flows[1].cc=$cc"
        ;;
    esac
done

for c in 4:bbr 5:cubic; do
    case ",$CASES," in *,${c%%:*},*)
        cc=${c#*:}
        echo "case ${c%%:*}: $cc alone, kernel and dropless, for $TIME" >&2
        open_path
        kernel "alone-k$cc" "$cc" "$TIME_S"
        dl "alone-d$cc" "$cc" "$TIME_S"
        close_path "alone-$cc"
        sim "alone-$cc" experiments/pda/alone.toml "$TIME_S" --set "flows[0].cc=$cc"
        ;;
    esac
done

# probe NAME: `dropless probe --json` for up to 10 s to a receiver.
probe() {
    local name=$1 port=$((9900 + RANDOM % 90)) t
    t=$(echo "if ($TIME_S < 10) $TIME_S else 10" | bc)
    # shellcheck disable=SC2086 # DROPLESS_SEC: options, split on spaces
    ip netns exec "$NS_R" "$BIN" recv "10.79.0.2:$port" --discard --timeout 30 $DROPLESS_SEC >"$OUT/$name.recv" 2>&1 &
    local rx=$!
    sleep 0.3
    # shellcheck disable=SC2086 # DROPLESS_SEC: options, split on spaces
    ip netns exec "$NS_S" "$BIN" probe "10.79.0.2:$port" --time "${t}s" $DROPLESS_SEC --json >"$OUT/$name.json" \
        2>"$OUT/$name.err" || { cat "$OUT/$name.err" >&2; return 1; }
    wait "$rx" || true
}

case ",$CASES," in *,6,*)
    echo "case 6: dropless probe, without and with 50 % Poisson cross traffic" >&2
    for c in none:0 poisson:0.5; do
        kind=${c%%:*}
        frac=${c#*:}
        args=()
        if [ "$kind" != none ]; then
            xr=$(python3 -c "import sys; print(int(float(sys.argv[1]) * $frac))" "$(echo "$RATE" | sed 's/Gbps/e9/; s/Mbps/e6/')")
            args=(--cross "$kind:${xr}bps")
        fi
        open_path "${args[@]}"
        probe "probe-$kind"
        close_path "probe-$kind"
        echo "$frac" >"$OUT/probe-$kind.frac"
    done
    ;;
esac

case ",$CASES," in *,7,*)
    echo "case 7: four parallel streams, one host pacer or four" >&2
    open_path
    DL_ARGS="-P 4" dl par-host pda "$TIME_S"
    close_path par-host
    open_path
    DL_ARGS="-P 4 --no-host-pacing" dl par-own pda "$TIME_S"
    close_path par-own
    open_path
    K_ARGS="-P 4" kernel par-kcubic cubic "$TIME_S"
    close_path par-kcubic
    ;;
esac

python3 - "$OUT" "$RATE" "$LOSS" "$TIME" "$SHARE" <<'EOF' | tee "${REPORT:-/dev/null}"
import json, os, sys
out, rate, loss, t, share = sys.argv[1:]
def load(name):
    p = os.path.join(out, name + ".json")
    return json.load(open(p)) if os.path.exists(p) else None
def emu(name):
    p = os.path.join(out, name + ".emu")
    return open(p).read().strip() if os.path.exists(p) else ""

def pda_stats(j):
    iv = [i["bytes_acked"] * 8 / (i["end_s"] - i["start_s"]) for i in j["intervals"]]
    return {"mbps": j["goodput_bps"] / 1e6, "first5": sum(iv[:5]) / max(1, len(iv[:5])) / 1e6,
            "sent": j["packets_sent"], "retx": j["retransmits"],
            "per10k": 1e4 * j["retransmits"] / max(1, j["packets_sent"])}
def tcp_stats(j):
    mss = j["start"].get("tcp_mss_default") or 1448
    sent = j["end"]["sum_sent"]["bytes"] / mss
    retx = j["end"]["sum_sent"].get("retransmits", 0)
    iv = [i["sum"]["bits_per_second"] for i in j["intervals"]]
    return {"mbps": j["end"]["sum_received"]["bits_per_second"] / 1e6,
            "first5": sum(iv[:5]) / max(1, len(iv[:5])) / 1e6,
            "sent": round(sent), "retx": retx, "per10k": 1e4 * retx / max(1, sent)}
def sim_stats(j, i=0):
    f = j["flows"][i]
    return {"mbps": f["goodput_bps"] / 1e6, "retx": f["retransmits"], "per10k": f["loss_per_10k"]}
def jain(xs):
    return sum(xs) ** 2 / (len(xs) * sum(x * x for x in xs))

print(f"# PDA against kernel TCP on an emulated {rate}, 80 ms path\n")
print(open(os.path.join(out, "path")).read().strip() + ".\n")
if load("loss-pda"):
    print(f"## 1. Random loss {loss}, each alone for {t}\n")
    print("| sender | goodput Mb/s | packets sent | retransmissions | per 10^4 packets | simulator: goodput Mb/s | simulator: per 10^4 |")
    print("|---|---|---|---|---|---|---|")
    rows = [("PDA (dropless send)", pda_stats(load("loss-pda")), load("loss-pda.sim")),
            ("kernel CUBIC (iperf3)", tcp_stats(load("loss-cubic")), load("loss-cubic.sim")),
            ("kernel BBR (iperf3)", tcp_stats(load("loss-bbr")), load("loss-bbr.sim"))]
    for name, s, sj in rows:
        ss = sim_stats(sj) if sj else None
        sim = f"{ss['mbps']:.1f} | {ss['per10k']:.2f}" if ss else "- | -"
        print(f"| {name} | {s['mbps']:.1f} | {s['sent']} | {s['retx']} | {s['per10k']:.2f} | {sim} |")
    p, c, b = (r[1] for r in rows)
    print()
    print(f"- PDA at {p['mbps'] / 1000:.1%} of the link (bar: 90%); {p['mbps'] / c['mbps']:.2f}x kernel CUBIC (bar: 2x); "
          f"{p['per10k']:.2f} retransmissions per 10^4 packets against kernel BBR's {b['per10k']:.2f} (bar: fewer).")
    print(f"- emulator: {' / '.join(l.strip() for l in emu('loss').splitlines()[:2])}\n")
for cc, title in (("cubic", "kernel CUBIC"), ("bbr", "kernel BBR")):
    p, k = load(f"share-{cc}-pda"), load(f"share-{cc}-tcp")
    if not (p and k):
        continue
    ps, ks = pda_stats(p), tcp_stats(k)
    print(f"## PDA and {title} together for {share}, no random loss\n")
    print("| sender | first 5 s Mb/s | whole run Mb/s | retransmissions | per 10^4 packets |")
    print("|---|---|---|---|---|")
    print(f"| PDA | {ps['first5']:.1f} | {ps['mbps']:.1f} | {ps['retx']} | {ps['per10k']:.2f} |")
    print(f"| {title} | {ks['first5']:.1f} | {ks['mbps']:.1f} | {ks['retx']} | {ks['per10k']:.2f} |")
    print()
    print(f"- Jain's index over the run: {jain([ps['mbps'], ks['mbps']]):.3f} (bar: 0.9); first 5 s PDA/TCP {ps['first5'] / max(ks['first5'], 1e-9):.2f} (seed: 327/175 = 1.87).")
    sj = load(f"share-{cc}.sim")
    if sj:
        a, b = sim_stats(sj, 0), sim_stats(sj, 1)
        print(f"- simulator (PDA and {cc}, {share}): {a['mbps']:.1f} and {b['mbps']:.1f} Mb/s, Jain {jain([a['mbps'], b['mbps']]):.3f}; "
              f"retransmissions per 10^4 packets {a['per10k']:.2f} and {b['per10k']:.2f}.")
    print(f"- emulator: {' / '.join(l.strip() for l in emu('share-' + cc).splitlines()[:2])}\n")
cap = float(rate.replace("Gbps", "e9").replace("Mbps", "e6"))
for kind in ("none", "poisson"):
    j = load(f"probe-{kind}")
    if not j:
        continue
    frac = float(open(os.path.join(out, f"probe-{kind}.frac")).read())
    e = j["end"]
    if kind == "none":
        print(f"## dropless probe ({j['start']['time_s']:.0f} s)\n")
        print("| cross traffic | capacity (truth) | error | available (truth) | error | MBS | base RTT ms |")
        print("|---|---|---|---|---|---|---|")
    c, a = e["capacity_bps"] or 0, e["available_bps"]
    truth_a = cap * (1 - frac)
    if a is None:
        # The search made no estimate: the range it bounds, if any.
        r = e.get("available", {})
        shown = (f"no estimate: {r['lo_bps'] / 1e6:.1f}-{r['hi_bps'] / 1e6:.1f} Mb/s" if r.get("kind") == "range" else "no estimate")
        err = "-"
    else:
        shown, err = f"{a / 1e6:.1f} Mb/s", f"{100 * (a / truth_a - 1):+.1f} %"
    print(f"| {'none' if kind == 'none' else f'Poisson {frac:.0%}'} | {c / 1e6:.1f} Mb/s ({cap / 1e6:.0f}) | {100 * (c / cap - 1):+.1f} % "
          f"| {shown} ({truth_a / 1e6:.0f}) | {err} | {e['mbs_packets']} | {1e3 * (e['base_rtt_s'] or 0):.2f} |")
print()
for cc, title in (("bbr", "BBR"), ("cubic", "CUBIC")):
    k, d, sj = load(f"alone-k{cc}"), load(f"alone-d{cc}"), load(f"alone-{cc}.sim")
    if not (k and d):
        continue
    print(f"## {title} alone for {t}, no random loss: the kernel's, dropless's over UDP, the simulator's\n")
    print("| sender | goodput Mb/s | first 5 s Mb/s | retransmissions | per 10^4 packets |")
    print("|---|---|---|---|---|")
    for name, s in ((f"kernel {title} (iperf3)", tcp_stats(k)), (f"dropless {title} (dropless send)", pda_stats(d))):
        print(f"| {name} | {s['mbps']:.1f} | {s['first5']:.1f} | {s['retx']} | {s['per10k']:.2f} |")
    if sj:
        s = sim_stats(sj)
        print(f"| dropless {title} (simulator) | {s['mbps']:.1f} | - | {s['retx']} | {s['per10k']:.2f} |")
    print(f"\n- emulator: {' / '.join(l.strip() for l in emu('alone-' + cc).splitlines()[:2])}\n")
rows = []
for name, title in (("par-host", "PDA, -P 4, one host pacer"), ("par-own", "PDA, -P 4, each stream its own pacer")):
    j = load(name)
    if j:
        st = [x["goodput_bps"] / 1e6 for x in j["streams"]]
        rows.append((title, j["sum"]["goodput_bps"] / 1e6, st, j["sum"]["retransmits"], j["sum"]["packets_sent"]))
k = load("par-kcubic")
if k:
    mss = k["start"].get("tcp_mss_default") or 1448
    st = [s["receiver"]["bits_per_second"] / 1e6 for s in k["end"]["streams"]]
    sent = k["end"]["sum_sent"]["bytes"] / mss
    rows.append(("kernel CUBIC, iperf3 -P 4", k["end"]["sum_received"]["bits_per_second"] / 1e6, st,
                 k["end"]["sum_sent"].get("retransmits", 0), round(sent)))
if rows:
    print(f"## Four parallel streams for {t}, no random loss\n")
    print("| sender | total Mb/s | streams Mb/s | Jain | retransmissions per 10^4 |")
    print("|---|---|---|---|---|")
    for title, tot, st, retx, sent in rows:
        print(f"| {title} | {tot:.1f} | {', '.join(f'{x:.0f}' for x in st)} | {jain(st):.3f} | {1e4 * retx / max(1, sent):.2f} |")
    for name in ("par-host", "par-own", "par-kcubic"):
        if emu(name):
            print(f"\n- emulator ({name}): {emu(name).splitlines()[0].strip()}")
    print()
EOF
