#!/bin/bash
# The quiet hold (run as `/work/wt/quiet hold.sh 1`): the medium's benchmarks, AODV emulated
# RngRun 1..2, and RngRun 4 with ResolveOnMiss=0 (every forwarded packet through ns-3's AODV).
set -u
cd "$(git -C "$(dirname "$0")" rev-parse --show-toplevel)"
out=bench/results/2026-11-27-wifi-c
c=$out/hold$1-conditions.txt
{ echo "start: $(date -u +%FT%TZ)"; echo "load: $(cat /proc/loadavg)"; echo "commit: $(git rev-parse HEAD)"; git status --short -uno -- bpf common ctrl-bridge fastpath ns3-module proto bench/wifi; } > $c
wc() { /usr/bin/python3 bench/wifi/wifi_conformance.py --build-dir build --emulated --skip-simulated --skip-hidden --protocols 2 "$@"; }
rc=0
build/fastpath/medium/fp_medium_bench --benchmark_filter=BM_BroadcastToReceivers --benchmark_repetitions=5 --benchmark_report_aggregates_only=true > $out/medium-bench.txt 2>&1
build/fastpath/medium/fp_medium_realtime --nodes 200 --seconds 20 --update-hz 10 > $out/medium-realtime.json 2>&1
wc --first-run 1 --emu-runs 2 > $out/emulated-1-2.json 2> $out/emulated-1-2.log || rc=1
wc --first-run 4 --emu-runs 1 --manet-args=--ns3::FastPathRouteMirror::ResolveOnMiss=0 > $out/emulated-4-no-resolve-on-miss.json 2> $out/emulated-4-no-resolve-on-miss.log || rc=1
{ echo "end: $(date -u +%FT%TZ) rc=$rc"; echo "load: $(cat /proc/loadavg)"; } >> $c
exit $rc
