#!/usr/bin/env bash
# A/B of the first packet at time 0: old library (FdReader per device) vs new (one receive
# thread), idle and with two CPU-bound loops, alternating, REPS repeats per block.
set -u
cd "${BUILD_DIR:-build}"  # LIBS/old and LIBS/new: the two libns3-fastpath.so copies
T=ns3-module/test/fp_ns3_first_packet_veth_test
F=${FILTER:-FirstPacketTest.AFirstPacketAtTimeZeroWaitsForNoNeighbour}
REPS=${REPS:-5}; ROUNDS=${ROUNDS:-3}; OUT=${OUT:-/tmp/r2ab/out}
mkdir -p $OUT
uptime > $OUT/uptime-start.txt
for r in $(seq 1 $ROUNDS); do
  for load in idle load; do
    for side in old new; do
      pids=()
      if [ $load = load ]; then
        for c in 1 2; do timeout 120 sh -c 'while :; do :; done' & pids+=($!); done
        sleep 0.5
      fi
      echo "== round $r $load $side $(date -u +%T)" >> $OUT/log
      LD_LIBRARY_PATH=${LIBS:-/tmp/r2ab}/$side $T --gtest_filter=$F --gtest_repeat=$REPS 2>&1 \
        | grep -E '^\[ first-packet \]|FAILED|Failure|took' | sed "s/^/$r $load $side: /" >> $OUT/log
      for p in "${pids[@]}"; do kill $p 2>/dev/null; wait $p 2>/dev/null; done
    done
  done
done
uptime > $OUT/uptime-end.txt
