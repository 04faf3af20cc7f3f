#!/bin/sh
# A/B of the arrival stamp on the line of 2 nodes, alternating builds, one quiet hold:
# STAMP and NOSTAMP are build folders (bin/fastpathd, bin/fpctl); OUT the output folder.
set -e
for round in 1 2; do
  for b in stamp nostamp; do
    eval dir=\$$(echo $b | tr a-z A-Z)
    uptime > "$OUT/load-$b-$round.txt"
    /usr/bin/python3 bench/fidelity/line_fidelity.py --build-dir "$dir" --out "$OUT/$b-$round" \
        --nodes 2 --rate 100mbit --interval 0.01,0.001 --count 2000 --ping-seconds 10 --no-kernel \
        > "$OUT/$b-$round.log" 2>&1
  done
done
