#!/bin/bash
# Run (f)'s fastpathd (0fe0262) against the tree's, alternately in one hold, on rows that
# were worse in run (h): OLD and NEW are copies of the build folder differing only in
# bin/fastpathd.
set -u
cd /work/main
OUT=bench/results/2026-11-29-line-ab
uptime > $OUT/load-before.txt
for round in 1 2; do
  for b in old new; do
    dir=$OLD; [ $b = new ] && dir=$NEW
    /usr/bin/python3 bench/fidelity/line_fidelity.py --build-dir $dir --out $OUT/$b-$round-10mbit \
      --nodes 8 --rate 10mbit --interval 1,0.1,0.01 --ping-seconds 3 --iperf-seconds 0 \
      --no-kernel > $OUT/$b-$round-10mbit.log 2>&1
    /usr/bin/python3 bench/fidelity/line_fidelity.py --build-dir $dir --out $OUT/$b-$round-100mbit \
      --nodes 32 --rate 100mbit --interval 0.01 --ping-seconds 3 --reverse-tcp --iperf-seconds 0 \
      --no-kernel > $OUT/$b-$round-100mbit.log 2>&1
    echo "$b-$round done"
  done
done
uptime > $OUT/load-after.txt
