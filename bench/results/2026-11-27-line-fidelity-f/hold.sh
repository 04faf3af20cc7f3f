#!/bin/bash
# One quiet hold: the worker's micro-benchmarks, then the line at 1 Gbit/s (N = 8, 32, 64),
# with the build in $1 (build-before: the tree before; build: after) into $2.
# Run from the repository root, with nothing else running on the machine.
set -u
bd=$1; out=$2
mkdir -p "$out"
cat /proc/loadavg > "$out/load-before.txt"
wb=$bd/fp_worker_bench; [ -x "$wb" ] || wb=$bd/fastpath/worker/fp_worker_bench
taskset -c 1 "$wb" --benchmark_filter='BM_WorkerLine' --benchmark_min_time=0.3 \
  > "$out/worker-bench.txt" 2>&1
/usr/bin/python3 bench/fidelity/line_fidelity.py --build-dir "$bd" --out "$out/1gbit" \
  --nodes 8,32,64 --rate 1gbit --interval 0.01 --ping-seconds 3 --iperf-seconds 3 --no-kernel \
  > "$out/1gbit.log" 2>&1
echo $? > "$out/rc.txt"
cat /proc/loadavg > "$out/load-after.txt"
