#!/usr/bin/env bash
# the grid's simulator thread (tid = pid): voluntary context switches and CPU ticks at 8 s and 38 s
set -u
cd "$(git -C "$(dirname "$0")" rev-parse --show-toplevel)"
out=${OUT:?OUT folder}; before=${BEFORE_LIB:?BEFORE_LIB folder}; mkdir -p "$out"
snap() { p=$(pgrep -x grid | head -1); [[ -n $p ]] || return; printf '%s %s %s\n' "$(awk '/^voluntary_ctxt_switches/ {print $2}' /proc/$p/status)" "$(awk '/^nonvoluntary_ctxt_switches/ {print $2}' /proc/$p/status)" "$(awk '{print $14 + $15}' /proc/$p/stat)"; }
for i in 1 2; do
  for which in before after; do
    ( sleep 8; snap > $out/$which-$i.8s; sleep 30; snap > $out/$which-$i.38s ) &
    if [[ $which == before ]]; then
      LD_LIBRARY_PATH="$before" ns3-module/examples/run-grid.sh --build-dir build > $out/$which-$i.out 2>&1
    else
      ns3-module/examples/run-grid.sh --build-dir build > $out/$which-$i.out 2>&1
    fi
    wait
    read a b c < $out/$which-$i.8s; read d e f < $out/$which-$i.38s
    echo "$which $i: simulator thread over 30 s: voluntary switches $((d-a)), involuntary $((e-b)), CPU ticks $((f-c)); $(grep 'per simulated second' $out/$which-$i.out)"
  done
done | tee $out/summary.txt
