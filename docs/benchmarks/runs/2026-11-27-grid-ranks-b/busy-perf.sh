#!/bin/bash
cd /work/wt/grid
ns3-module/examples/run-grid.sh --build-dir build --ranks 2 --keep /tmp/gridrun/r2 > /tmp/gridrun/r2.txt 2>&1 &
rp=$!
sleep 15
pids=$(pgrep -d, -x grid)
echo "pids $pids"
perf record -F 499 -g -p "$pids" -o /tmp/gridrun/perf/perf.data -- sleep 15 2>&1 | tail -2
wait $rp
