#!/bin/bash
# The emulated runs of this folder, as `/work/wt/busy --ns
# bench/results/2026-11-27-wifi-e/hold.sh RUN`: AODV RngRun RUN (3: the run with the
# largest excess before; then the medium's broadcast benchmark). Start, end, load and commit
# in conditions.txt (RngRun 3) or conditions-RUN.txt.
set -u
cd "$(git -C "$(dirname "$0")" rev-parse --show-toplevel)"
out=bench/results/2026-11-27-wifi-e
run=${1:-3}
c=$out/conditions.txt
[ "$run" = 3 ] || c=$out/conditions-$run.txt
{ echo "start: $(date -u +%FT%TZ)"; echo "load: $(cat /proc/loadavg)"; echo "commit: $(git rev-parse HEAD)"; git status --short -uno -- bpf common ctrl-bridge fastpath ns3-module proto bench/wifi; } > $c
rc=0
/usr/bin/python3 bench/wifi/wifi_conformance.py --build-dir build --emulated --skip-simulated \
  --skip-hidden --protocols 2 --first-run $run --emu-runs 1 \
  > $out/emulated-aodv-$run.json 2> $out/emulated-aodv-$run.log || rc=1
echo "after the run: $(date -u +%FT%TZ) load: $(cat /proc/loadavg)" >> $c
if [ "$run" = 3 ]; then
  build/fastpath/medium/fp_medium_bench --benchmark_filter=BM_BroadcastToReceivers \
    --benchmark_repetitions=5 --benchmark_report_aggregates_only=true > $out/medium-bench.txt 2>&1 || rc=1
fi
{ echo "end: $(date -u +%FT%TZ) rc=$rc"; echo "load: $(cat /proc/loadavg)"; } >> $c
exit $rc
