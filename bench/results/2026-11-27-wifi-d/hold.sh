#!/bin/bash
# The emulated runs, as `/work/wt/busy hold.sh busy` (other work held off only while it
# runs; load averages before and after in holdbusy-conditions.txt): wifi-hidden-terminal (RTS/CTS
# off and on), AODV RngRun 1..2 and 3..4, the medium's broadcast benchmark, OLSR RngRun 1,
# DSDV RngRun 1. `hold.sh 1` and `hold.sh 2` split the same runs into two 12-minute quiet holds.
set -u
cd "$(git -C "$(dirname "$0")" rev-parse --show-toplevel)"
out=bench/results/2026-11-27-wifi-d
c=$out/hold$1-conditions.txt
{ echo "start: $(date -u +%FT%TZ)"; echo "load: $(cat /proc/loadavg)"; echo "commit: $(git rev-parse HEAD)"; git status --short -uno -- bpf common ctrl-bridge fastpath ns3-module proto bench/wifi; } > $c
emu() { /usr/bin/python3 bench/wifi/wifi_conformance.py --build-dir build --emulated --skip-simulated "$@"; }
rc=0
case $1 in
busy) emu --skip-manet > $out/emulated-hidden.json 2> $out/emulated-hidden.log || rc=1
   emu --skip-hidden --protocols 2 --first-run 1 --emu-runs 2 > $out/emulated-aodv-1-2.json 2> $out/emulated-aodv-1-2.log || rc=1
   emu --skip-hidden --protocols 2 --first-run 3 --emu-runs 2 > $out/emulated-aodv-3-4.json 2> $out/emulated-aodv-3-4.log || rc=1
   build/fastpath/medium/fp_medium_bench --benchmark_filter=BM_BroadcastToReceivers --benchmark_repetitions=5 --benchmark_report_aggregates_only=true > $out/medium-bench.txt 2>&1 || rc=1
   emu --skip-hidden --protocols 1 --first-run 1 --emu-runs 1 > $out/emulated-olsr-1.json 2> $out/emulated-olsr-1.log || rc=1
   emu --skip-hidden --protocols 3 --first-run 1 --emu-runs 1 > $out/emulated-dsdv-1.json 2> $out/emulated-dsdv-1.log || rc=1 ;;
1) build/fastpath/medium/fp_medium_bench --benchmark_filter=BM_BroadcastToReceivers --benchmark_repetitions=5 --benchmark_report_aggregates_only=true > $out/medium-bench.txt 2>&1 || rc=1
   emu --skip-manet > $out/emulated-hidden.json 2> $out/emulated-hidden.log || rc=1
   emu --skip-hidden --protocols 2 --first-run 1 --emu-runs 2 > $out/emulated-aodv-1-2.json 2> $out/emulated-aodv-1-2.log || rc=1
   emu --skip-hidden --protocols 1 --first-run 1 --emu-runs 1 > $out/emulated-olsr-1.json 2> $out/emulated-olsr-1.log || rc=1 ;;
2) emu --skip-hidden --protocols 2 --first-run 3 --emu-runs 2 > $out/emulated-aodv-3-4.json 2> $out/emulated-aodv-3-4.log || rc=1
   emu --skip-hidden --protocols 3 --first-run 1 --emu-runs 1 > $out/emulated-dsdv-1.json 2> $out/emulated-dsdv-1.log || rc=1 ;;
esac
{ echo "end: $(date -u +%FT%TZ) rc=$rc"; echo "load: $(cat /proc/loadavg)"; } >> $c
exit $rc
