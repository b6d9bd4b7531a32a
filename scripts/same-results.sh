#!/usr/bin/env bash
# Do two dropless binaries give the same results? Runs `dropless run` with each
# binary on the ten small scenarios under scenarios/ and compares summary.json
# (wall-time fields removed) and every CSV time series byte for byte; then, if
# asked, `dropless verify DIR --scale ci --quiet` with each and compares the
# printed verdicts and values. Exits 1 on any difference.
#
#   scripts/same-results.sh OLD NEW [VERIFY_DIR]
#   scripts/same-results.sh old/dropless target/release/dropless experiments/pda
set -euo pipefail

usage() { echo "usage: scripts/same-results.sh OLD NEW [VERIFY_DIR]" >&2; exit 2; }
[ $# -ge 2 ] && [ $# -le 3 ] || usage
old=$1 new=$2 vdir=${3:-}
for b in "$old" "$new"; do
  [ -x "$b" ] || { echo "same-results: $b is not an executable dropless binary" >&2; exit 2; }
done
[ -z "$vdir" ] || [ -d "$vdir" ] || { echo "same-results: VERIFY_DIR $vdir is not a directory" >&2; exit 2; }
here=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

strip() {
  python3 - "$1" <<'PY'
import json, sys
def clean(v):
    if isinstance(v, dict):
        return {k: clean(x) for k, x in v.items() if "wall" not in k}
    if isinstance(v, list):
        return [clean(x) for x in v]
    return v
print(json.dumps(clean(json.load(open(sys.argv[1]))), sort_keys=True, indent=1))
PY
}

fail=0
for s in quickstart paced parking-lot phase-effect cross-traffic fast madison acwap loss-based vegas; do
  f="$here/scenarios/$s.toml"
  "$old" run "$f" --out "$work/old-$s" --series csv >/dev/null
  "$new" run "$f" --out "$work/new-$s" --series csv >/dev/null
  if ! diff <(strip "$work/old-$s/summary.json") <(strip "$work/new-$s/summary.json") >"$work/diff"; then
    echo "$s: summary.json differs:"; head -20 "$work/diff"; fail=1; continue
  fi
  for c in "$work/old-$s"/*.csv; do
    [ -e "$c" ] || continue
    n="$work/new-$s/$(basename "$c")"
    cmp -s "$c" "$n" || { echo "$s: $(basename "$c") differs"; fail=1; }
  done
  echo "$s: same"
done
if [ -n "$vdir" ]; then
  "$old" verify "$vdir" --scale ci --quiet >"$work/vold" 2>&1 || true
  "$new" verify "$vdir" --scale ci --quiet >"$work/vnew" 2>&1 || true
  # The wall-clock line is the only one allowed to differ.
  if diff <(grep -v '^simulation wall time' "$work/vold") <(grep -v '^simulation wall time' "$work/vnew") >"$work/vdiff"; then
    echo "verify $vdir: same ($(wc -l <"$work/vnew") lines)"
  else
    echo "verify $vdir: differs:"; head -20 "$work/vdiff"; fail=1
  fi
fi
exit $fail
