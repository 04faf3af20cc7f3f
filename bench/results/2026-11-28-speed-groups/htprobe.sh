# CPU 1 runs a fixed in-memory workload (fp_worker_bench, one case) while CPU 0 is busy;
# one line per probe: time and ns per packet.
B=/work/wt/me/build/fastpath/worker/fp_worker_bench
taskset -c 0 timeout 100 sh -c 'while :; do :; done' &
L=$!
for i in $(seq 1 40); do
  v=$(taskset -c 1 $B --benchmark_filter='BM_WorkerBatch/routes:1000/v6:0' --benchmark_min_time=0.5 --benchmark_format=json 2>/dev/null | /usr/bin/python3 -c "import json,sys; print('%.2f'%json.load(sys.stdin)['benchmarks'][0]['p50_ns_per_pkt'])")
  echo "$(date +%T) $v"
done
kill $L
