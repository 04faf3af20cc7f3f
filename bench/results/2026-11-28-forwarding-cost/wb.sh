#!/bin/bash
# wb.sh OUT LABEL=BIN...: pinned fp_worker_bench, the batch benchmarks, binaries alternating, 3 rounds.
OUT=$1; shift
for r in 1 2 3; do for lb in "$@"; do
  taskset -c 1 ${lb#*=} --benchmark_filter='BM_WorkerBatch' --benchmark_min_time=0.3 --benchmark_format=csv > $OUT/wb-${lb%%=*}-$r.csv 2>/dev/null
done; done
