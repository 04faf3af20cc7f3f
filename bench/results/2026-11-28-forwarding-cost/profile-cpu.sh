#!/bin/bash
# profile.sh OUT FASTPATHD_BUILD ENV: flat-out profile of both forwarders (harness + perf on the forwarder's pid).
OUT=$1; FPB=$2; ENV=${3:-default}
mkdir -p $OUT
cd "$(git -C "$(dirname "$0")" rev-parse --show-toplevel)"
for fw in afxdp-min fastpathd; do
  pat=$([ $fw = fastpathd ] && echo 'bin/fastpathd --port' || echo 'fp-afxdp-min --ifname')
  /usr/bin/python3 bench/fastpath_bench.py --build-dir build --fastpathd-build $FPB --napi-env $ENV \
     --forwarders $fw --rates flat --reps 1 --duration 7 --generator xdp-live --out $OUT/run-$fw > $OUT/harness-$fw.log 2>&1 &
  H=$!
  # wait for the forwarder, then for the generator of the flat point
  pid=""; for i in $(seq 600); do pid=$(pgrep -n -f "$pat"); [ -n "$pid" ] && break; sleep 0.1; done
  for i in $(seq 600); do g=$(pgrep -n -x fp-xdpgen); [ -n "$g" ] && break; sleep 0.1; done
  echo "$fw pid=$pid gen=$g" >> $OUT/pids.txt
  sleep 1.5
  perf stat -a -C 1 -e task-clock,context-switches,syscalls:sys_enter_sendto,syscalls:sys_enter_ppoll,syscalls:sys_enter_poll,irq:softirq_entry -o $OUT/stat-$fw.txt -- sleep 2

  perf record -a -C 1 -g -o $OUT/perf-$fw.data -- sleep 1.5 2>/dev/null
  wait $H
  echo "$fw harness rc=$?" >> $OUT/pids.txt
done
