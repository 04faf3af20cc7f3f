#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The first packet at time 0 (examples/first-packet --start=0), emulated, with two builds
# alternately: BEFORE=build dir AFTER=build dir ROUNDS=3 REPS=5 OUT=dir alternate.sh (root).
# Per block one fastpathd (no node) in namespace fp-t0 and REPS runs of the script; each
# run's report line and the block's fastpathd worker summary go to $OUT/runs.log.
set -u
ROUNDS=${ROUNDS:-3}; REPS=${REPS:-5}; OUT=${OUT:-/tmp/time-zero}
mkdir -p "$OUT"; : > "$OUT/runs.log"
cleanup() { [ -n "${FP:-}" ] && kill "$FP" 2>/dev/null; ip netns del fp-t0 2>/dev/null; }
trap cleanup EXIT
block() { # side build
  local side=$1 B=$2
  ip netns del fp-t0 2>/dev/null; ip netns add fp-t0
  echo "nodes: []" > "$OUT/empty.yaml"; rm -f "$OUT/fp.sock"
  ip netns exec fp-t0 "$B/bin/fastpathd" --topology "$OUT/empty.yaml" --socket "$OUT/fp.sock" \
     --log-level info > "$OUT/fastpathd-$side.log" 2>&1 &
  FP=$!
  for _ in $(seq 50); do [ -S "$OUT/fp.sock" ] && break; sleep 0.1; done
  for i in $(seq "$REPS"); do
    rm -f "$OUT/report"
    timeout 60 ip netns exec fp-t0 "$B/ns3-module/examples/first-packet" --report="$OUT/report" \
      --FastPathEmulation=1 --FastPathSocket="$OUT/fp.sock" --FastPathTag=t0 --start=0 \
      > "$OUT/script.log" 2>&1
    echo "$side run $i $(grep -E '^(first_delay_ms|first_rtt_ms|sent_lag_ms)=' "$OUT/report" | tr '\n' ' ')" >> "$OUT/runs.log"
  done
  kill "$FP"; wait "$FP"; FP=
  echo "$side fastpathd $(grep '^final worker' "$OUT/fastpathd-$side.log" | grep -oE 'emu_late_on_arrival=[0-9]+|emu_lateness_max_ns=[0-9]+' | tr '\n' ' ')" >> "$OUT/runs.log"
  ip netns del fp-t0
}
for r in $(seq "$ROUNDS"); do
  block before "$BEFORE"
  block after "$AFTER"
done
cat "$OUT/runs.log"
