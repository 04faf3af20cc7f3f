#!/bin/bash
# A/B: the 8x8 grid with 2 ranks beside 4 CPU hogs (nice 0), Open MPI's default binding
# (one core per rank) vs --bind-to none.
cd /work/wt/grid
for v in bound none; do
  hogs=()
  for i in 1 2 3 4; do timeout 48 sh -c 'while :; do :; done' & hogs+=($!); done
  if [[ $v == none ]]; then export OMPI_MCA_hwloc_base_binding_policy=none; fi
  ns3-module/examples/run-grid.sh --build-dir build --ranks 2 --keep /tmp/gridrun/ab-$v > /tmp/gridrun/ab-$v.txt 2>&1
  wait "${hogs[@]}"
done
