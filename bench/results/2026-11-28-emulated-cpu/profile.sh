#!/usr/bin/env bash
# The 8x8 grid (one process) under perf, simulated and emulated, and the emulated
# process's threads: context switches and CPU time per thread between 8 s and 38 s of the
# run (read from /proc, in a run without perf). OUT: the folder for the data (as root).
set -u
cd "$(git -C "$(dirname "$0")" rev-parse --show-toplevel)"
out=${OUT:?OUT folder}
build=${BUILD_DIR:-build}
mkdir -p "$out"
uptime >"$out/uptime-start.txt"
threads() {
  local p
  p=$(pgrep -x grid | head -1)
  [[ -n $p ]] || return 0
  for t in /proc/"$p"/task/*; do
    # tid, voluntary and involuntary switches, utime+stime in ticks
    printf '%s %s %s %s\n' "${t##*/}" \
      "$(awk '/^voluntary_ctxt_switches/ {print $2}' "$t/status")" \
      "$(awk '/^nonvoluntary_ctxt_switches/ {print $2}' "$t/status")" \
      "$(awk '{print $14 + $15}' "$t/stat")"
  done
}
sample() { sleep 8; threads >"$out/threads-8s.txt"; sleep 30; threads >"$out/threads-38s.txt"; }
sample &
ns3-module/examples/run-grid.sh --build-dir "$build" >"$out/threads-run.out" 2>&1
wait
perf record -F 999 -g -o "$out/sim.data" -- "$build/ns3-module/examples/grid" \
  >"$out/sim.out" 2>"$out/sim.perf.err"
perf record -F 999 -g -o "$out/emu.data" -- ns3-module/examples/run-grid.sh --build-dir "$build" \
  >"$out/emu.out" 2>"$out/emu.perf.err"
uptime >"$out/uptime-end.txt"
