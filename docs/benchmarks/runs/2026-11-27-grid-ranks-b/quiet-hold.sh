#!/bin/bash
# One quiet hold: the 8x8 grid with 2 processes three times, the simulated reference once,
# and the cross-host link figures.
cd /work/wt/grid
out=/tmp/gridhold/data
mkdir -p $out
{ echo "hold start $(date -u +%FT%TZ) $(cat /proc/loadavg)"; } >> $out/load.txt
build/ns3-module/examples/grid --report=$out/grid-8x8-simulated.json > $out/grid-8x8-simulated.txt 2>&1
for r in a b c; do
  echo "run $r start $(date -u +%FT%TZ) $(cat /proc/loadavg)" >> $out/load.txt
  ns3-module/examples/run-grid.sh --build-dir build --ranks 2 --keep $out/grid-8x8-2-processes-$r \
    > $out/grid-8x8-2-processes-$r.txt 2>&1
  echo "run $r end $(date -u +%FT%TZ) $(cat /proc/loadavg)" >> $out/load.txt
done
echo "cross-host start $(date -u +%FT%TZ) $(cat /proc/loadavg)" >> $out/load.txt
bench/multihost/cross_host_link.sh --build-dir build --out $out/cross-host-link > $out/cross-host-link.txt 2>&1
echo "hold end $(date -u +%FT%TZ) $(cat /proc/loadavg)" >> $out/load.txt
