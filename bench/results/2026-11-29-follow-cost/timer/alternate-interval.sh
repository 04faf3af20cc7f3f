#!/usr/bin/env bash
# The 8x8 grid emulated as one process (run-grid.sh), alternating the followers' default
# FastPathFollowInterval (2 ms, "scan") with 0 (interfaces never looked at, "noscan"):
# PAIRS pairs, scan first; each run's output in OUT/{scan,noscan}-N.out.
set -u
cd "$(git -C "$(dirname "$0")" rev-parse --show-toplevel)"
out=${OUT:?OUT folder}
pairs=${PAIRS:-3}
build=${BUILD_DIR:-build}
mkdir -p "$out"
for i in $(seq "$pairs"); do
  for which in scan noscan; do
    f=$out/$which-$i.out
    if [[ $which == scan ]]; then
      ns3-module/examples/run-grid.sh --build-dir "$build" >"$f" 2>&1
    else
      ns3-module/examples/run-grid.sh --build-dir "$build" -- --FastPathFollowInterval=0s >"$f" 2>&1
    fi
    echo "$which $i: $(grep -E 'UDP s -> d|per simulated second' "$f" | tr -s ' ' | tr '\n' ' ')"
  done
done | tee "$out/summary.txt"
