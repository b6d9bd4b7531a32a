# Shared by scripts/netns-bottleneck.sh and scripts/netns-path.sh (sourced):
# root check, the dropless binary, and one transfer per controller between
# the namespaces $NS_S (sender) and $NS_R (receiver). The caller sets NS_S,
# NS_R, OUT (a scratch directory), TIME and ECN_ARGS (an array).

# Security of the transfers: DROPLESS_SEC holds the options for send, recv
# and probe. The measurements in docs/reports were taken in plaintext, so
# the default is --insecure on this private namespace path; for encrypted
# runs: DROPLESS_SEC="--key FILE" (a key from `dropless keygen FILE`).
DROPLESS_SEC=${DROPLESS_SEC:---insecure}

# Prints the calling script's header comment (its usage) and exits 2.
usage() {
    sed -n '2,/^set -euo/p' "$0" | sed '$d; /^# shellcheck/d; s/^# \{0,1\}//'
    exit 2
}

# Exits unless run as root.
need_root() {
    if [ "$(id -u)" -ne 0 ]; then
        echo "error: needs root ($1); try: sudo $0" >&2
        exit 2
    fi
}

# Sets BIN to the dropless binary ($DROPLESS, or target/release/dropless,
# built if missing), from the repository root.
find_dropless() {
    cd "$(dirname "$0")/.."
    BIN=${DROPLESS:-target/release/dropless}
    if [ ! -x "$BIN" ]; then
        cargo build --release -p dropless >&2
    fi
    BIN=$(realpath "$BIN")
}

# transfer SPEC IP PORT RECV_OPTION [DELAY]: one `dropless send --time $TIME`
# of controller SPEC (NAME or NAME:K=V,K=V) from $NS_S to IP:PORT in $NS_R,
# starting DELAY seconds from now (default 0); receiver and sender output in
# $OUT/recv-PORT and $OUT/send-PORT. Writes the sender's interval lines (if
# SEND_ARGS asked for them) and its summary to $OUT/report-PORT; print it
# with `cat`. Transfers on different ports may run at the same time.
transfer() {
    local spec=$1 ip=$2 port=$3 sink=$4 delay=${5:-0} cc params=() kvs kv rx
    local rcv="$OUT/recv-$port" snd="$OUT/send-$port" rep="$OUT/report-$port"
    cc=${spec%%:*}
    if [ "$spec" != "$cc" ]; then
        IFS=, read -r -a kvs <<<"${spec#*:}"
        for kv in "${kvs[@]}"; do params+=(--param "$kv"); done
    fi
    : >"$rep"
    # shellcheck disable=SC2086 # RECV_ARGS is a list of options
    ip netns exec "$NS_R" "$BIN" recv "$ip:$port" "$sink" --timeout 30 $DROPLESS_SEC ${RECV_ARGS:-} >"$rcv" 2>&1 &
    rx=$!
    sleep 0.3
    sleep "$delay"
    # shellcheck disable=SC2086 # SEND_ARGS is a list of options
    if ! ip netns exec "$NS_S" "$BIN" send "$ip:$port" --time "$TIME" --cc "$cc" \
        "${params[@]}" "${ECN_ARGS[@]}" $DROPLESS_SEC ${SEND_ARGS:-} >"$snd" 2>&1; then
        { echo "== $spec: sender failed"; cat "$snd"; } >>"$rep"
    fi
    wait "$rx" || { echo "== $spec: receiver failed"; cat "$rcv"; } >>"$rep"
    if [ "$(head -c 1 "$snd")" = "{" ]; then
        # --json: one object, printed whole.
        { cat "$snd"; echo "== $spec: JSON above"; } >>"$rep"
    else
        [ -n "${SEND_ARGS:-}" ] && head -n -1 "$snd" >>"$rep"
        local from=""
        [ "$delay" != 0 ] && from=" (from $delay s)"
        echo "== $spec$from: $(tail -1 "$snd")" >>"$rep"
    fi
}

# emu_start LOG TUN_A TUN_B EMULATE_OPTION...: starts `dropless emulate`
# between two new TUN devices, its counters to LOG once stopped, and waits
# for the devices; prints nothing, sets LAST_EMU (its pid).
emu_start() {
    local log=$1 ta=$2 tb=$3
    shift 3
    "$BIN" emulate "$@" --tun-a "$ta" --tun-b "$tb" >"$log" 2>"$log.err" &
    LAST_EMU=$!
    for _ in $(seq 50); do
        ip link show "$tb" >/dev/null 2>&1 && break
        sleep 0.1
    done
    ip link show "$tb" >/dev/null 2>&1 || { cat "$log.err" >&2; exit 1; }
}

# ns_dev NS DEV ADDR/PREFIX: moves TUN device DEV into namespace NS (made
# if missing, with lo up), gives it the address and brings it up.
ns_dev() {
    ip netns list | grep -qx "$1\( .*\)\?" || { ip netns add "$1"; ip -n "$1" link set lo up; }
    ip link set "$2" netns "$1"
    ip -n "$1" addr add "$3" dev "$2"
    ip -n "$1" link set "$2" up txqueuelen 10000
}

# path_up EMULATE_OPTION...: starts `dropless emulate` with these options
# (rate, delay, buffer, ...) between two TUN devices, moves them into two
# new namespaces $NS_S (sender, 10.79.0.1) and $NS_R (receiver, 10.79.0.2)
# and sets EMU (the emulator's pid). The emulator's counters go to
# $OUT/emu once it is stopped (stop_emulator). Tear down with path_down.
path_up() {
    NS_S=dropless-psnd-$$
    NS_R=dropless-prcv-$$
    local ta=dlpa$$ tb=dlpb$$
    emu_start "$OUT/emu" "$ta" "$tb" "$@"
    EMU=$LAST_EMU
    ns_dev "$NS_S" "$ta" 10.79.0.1/24
    ns_dev "$NS_R" "$tb" 10.79.0.2/24
}

# lot_up EMULATE_OPTION...: a parking lot of two emulated links in series,
# each `dropless emulate` with these options (link 2 with the array
# LOT_SECOND instead, if it is set): $NS_S (10.79.0.1) - link 1 - $NS_M
# (10.79.0.2 and 10.80.0.1, forwarding) - link 2 - $NS_R (10.80.0.2).
# Sets EMU and EMU2; counters in $OUT/emu and $OUT/emu2. Tear down with
# lot_down.
lot_up() {
    NS_S=dropless-lsnd-$$
    NS_M=dropless-lmid-$$
    NS_R=dropless-lrcv-$$
    local -a second=("$@")
    if [ -n "${LOT_SECOND+x}" ]; then second=("${LOT_SECOND[@]}"); fi
    emu_start "$OUT/emu" dlla$$ dllb$$ "$@"
    EMU=$LAST_EMU
    emu_start "$OUT/emu2" dllc$$ dlld$$ "${second[@]}"
    EMU2=$LAST_EMU
    ns_dev "$NS_S" dlla$$ 10.79.0.1/24
    ns_dev "$NS_M" dllb$$ 10.79.0.2/24
    ns_dev "$NS_M" dllc$$ 10.80.0.1/24
    ns_dev "$NS_R" dlld$$ 10.80.0.2/24
    ip -n "$NS_S" route add 10.80.0.0/24 dev dlla$$
    ip -n "$NS_R" route add 10.79.0.0/24 dev dlld$$
    ip netns exec "$NS_M" sysctl -qw net.ipv4.ip_forward=1
}

# lot_down: stops both emulators and deletes the namespaces of lot_up.
lot_down() {
    [ -n "${EMU2:-}" ] && { kill "$EMU2" 2>/dev/null || true; wait "$EMU2" 2>/dev/null || true; EMU2=; }
    path_down
    [ -n "${NS_M:-}" ] && ip netns del "$NS_M" 2>/dev/null || true
}

# stop_emulator: interrupts the emulator started by path_up (it then
# writes its counters to $OUT/emu).
stop_emulator() {
    if [ -n "${EMU:-}" ]; then
        kill "$EMU" 2>/dev/null || true
        wait "$EMU" 2>/dev/null || true
        EMU=
    fi
}

# path_down: stops the emulator and deletes the namespaces of path_up.
path_down() {
    stop_emulator
    [ -n "${NS_S:-}" ] && ip netns del "$NS_S" 2>/dev/null || true
    [ -n "${NS_R:-}" ] && ip netns del "$NS_R" 2>/dev/null || true
}
