#!/bin/bash
cd /work/wt/grid
for v in nice10 plain; do
  hogs=()
  for i in 1 2 3 4; do timeout 48 sh -c 'while :; do :; done' & hogs+=($!); done
  if [[ $v == nice10 ]]; then pre=(nice -n -10); else pre=(); fi
  echo "$v $(cat /proc/loadavg)" >> /tmp/gridrun/ab2.load
  "${pre[@]}" ns3-module/examples/run-grid.sh --build-dir build --ranks 2 --keep /tmp/gridrun/ab2-$v > /tmp/gridrun/ab2-$v.txt 2>&1
  wait "${hogs[@]}"
done
