#!/usr/bin/env bash
# Runs every fuzz target (cargo-fuzz, libFuzzer; needs a nightly toolchain
# and `cargo install cargo-fuzz`) and prints one line per target.
#
#   fuzz/run.sh                 10 million executions of each target
#   fuzz/run.sh -runs=100000    any libFuzzer options instead
#   fuzz/run.sh -max_total_time=20
#
# The scenario targets start from every scenario and experiment file of the
# repository (copied into fuzz/corpus/, which is not committed). A crash
# stops the run; its input is in fuzz/artifacts/TARGET/.
set -euo pipefail
cd "$(dirname "$0")"
opts=("$@")
[ ${#opts[@]} -gt 0 ] || opts=(-runs=10000000)
mkdir -p corpus/scenario corpus/overrides
for f in ../scenarios/*.toml $(find ../experiments -name '*.toml'); do
  cp "$f" "corpus/scenario/$(sha256sum "$f" | cut -c1-16)"
done
# Seeds (fuzz/seeds/TARGET/): real first messages the target must refuse.
# handshake_ik: from a key its receiver does not list (private key [11; 32]
# to the receiver of [9; 32]); handshake: a pre-shared-key first message
# under another key ([7; 32] against [9; 32]). Without them libFuzzer stays
# in the framing (73-74 edges) and never reaches the Noise message.
# file_list: a valid list of a directory, a file in it and an empty file.
# wire_decode: a data packet and an ACK with two SACK blocks (unseeded,
# 10 million executions never got past the magic: 34 edges).
# terms: a reverse request for bytes (granted) and for time (refused), a
# resume answered with two held ranges, a directory.
for d in seeds/*/; do
  t=$(basename "$d")
  mkdir -p "corpus/$t"
  cp "$d"* "corpus/$t/"
done
printf 'foo=1\nduration=10s\n' >corpus/overrides/seed1
printf 'flows[0].cc="cubic"\ntopology.bottleneck.rate="1Gbps"\n' >corpus/overrides/seed2
cargo +nightly fuzz build -O
for t in $(cargo +nightly fuzz list); do
  start=$(date +%s)
  log=$(mktemp)
  if cargo +nightly fuzz run -O "$t" -- "${opts[@]}" -max_len=4096 >"$log" 2>&1; then
    runs=$(grep -oE '^Done [0-9]+ runs' "$log" | grep -oE '[0-9]+' || echo '?')
    echo "$t: $runs executions in $(( $(date +%s) - start )) s, no crash"
  else
    tail -40 "$log"
    echo "$t: CRASH (input in fuzz/artifacts/$t/)"
    exit 1
  fi
  rm -f "$log"
done
