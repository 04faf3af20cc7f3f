#!/bin/bash
set -u
R=/work/wt/arrival/bench/results/2026-11-28-arrival-stamp
cd /work/wt/arrival
for v in before after; do
  if [ $v = before ]; then B=BEFORE_BUILD; WB=BEFORE_BUILD/bench/fp_worker_bench; else B=build; WB=build/fastpath/worker/fp_worker_bench; fi
  taskset -c 1 $WB --benchmark_filter='BM_WorkerBatch/routes:1000/v6:0/cold:0/per_loop:64/flows:4096/' --benchmark_repetitions=3 --benchmark_min_time=0.5 > $R/worker_bench_$v.txt 2>&1
done
for v in before after; do
  if [ $v = before ]; then B=BEFORE_BUILD; else B=build; fi
  /usr/bin/python3 bench/fidelity/line_fidelity.py --build-dir $B --out $R/line-$v --nodes 2 --rate 100mbit --interval 1,0.01,0.001 --ping-seconds 10 --count 200 --no-kernel > $R/line_$v.log 2>&1
done
