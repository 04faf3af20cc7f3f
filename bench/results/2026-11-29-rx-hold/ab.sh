#!/bin/bash
# The overload rule before (one window of drops or standing queue) and after (three in a
# row), alternately in one hold: `rt`, fastpathd alone, paced below saturation.
# OLD and NEW: build folders differing only in bin/fastpathd.
set -u
cd /work/main
OUT=bench/results/2026-11-29-rx-hold
uptime > $OUT/load-before.txt
for round in 1 2; do
  for b in old new; do
    dir=$OLD; [ $b = new ] && dir=$NEW
    /usr/bin/python3 bench/fastpath_bench.py --build-dir $dir --napi-env rt --forwarders fastpathd \
      --rates 100000,150000,200000 --reps 3 --duration 2 --out $OUT/$b-$round > $OUT/$b-$round.log 2>&1
    echo "$b-$round rc $?"
  done
done
uptime > $OUT/load-after.txt
