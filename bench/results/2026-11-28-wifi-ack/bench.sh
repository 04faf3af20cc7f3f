#!/bin/bash
# The medium's cost before and after, as `/work/wt/quiet bench/results/2026-11-28-wifi-ack/bench.sh
# BEFORE_BINARY`: BEFORE_BINARY is fp_medium_bench built from the parent commit's model with
# this commit's benchmark file (medium_bench.cc); build/fastpath/medium/fp_medium_bench is
# this commit's. CPU time, median of 5 repetitions. Load and commit in conditions-bench.txt.
set -u
cd "$(git -C "$(dirname "$0")" rev-parse --show-toplevel)"
out=bench/results/2026-11-28-wifi-ack
{ echo "start: $(date -u +%FT%TZ)"; echo "load: $(cat /proc/loadavg)"; echo "commit: $(git rev-parse HEAD)"; } > $out/conditions-bench.txt
args=(--benchmark_filter='BM_BroadcastToReceivers|BM_UnicastInANeighbourhood' --benchmark_repetitions=5 --benchmark_report_aggregates_only=true)
"$1" "${args[@]}" > $out/medium-bench-before.txt 2>&1
build/fastpath/medium/fp_medium_bench "${args[@]}" > $out/medium-bench-after.txt 2>&1
{ echo "end: $(date -u +%FT%TZ)"; echo "load: $(cat /proc/loadavg)"; } >> $out/conditions-bench.txt
