#!/usr/bin/env bash
# One quiet hold: the 8x8 grid simulated, 1 process, 2 processes; the 12x12 grid with 2 processes.
set -u
cd "$(git -C "$(dirname "$0")" rev-parse --show-toplevel)"
out=${1:?out dir}
mkdir -p "$out"
uptime > "$out/uptime-start.txt"
ns3-module/examples/run-grid.sh --simulated > "$out/sim-8x8.out" 2>&1
ns3-module/examples/run-grid.sh --keep "$out/p1-8x8" > "$out/p1-8x8.out" 2>&1
ns3-module/examples/run-grid.sh --ranks 2 --keep "$out/p2-8x8" > "$out/p2-8x8.out" 2>&1
ns3-module/examples/run-grid.sh --ranks 2 --keep "$out/p2-12x12" -- --side=12 --udp-seconds=5 --warmup=10 --pings=50 > "$out/p2-12x12.out" 2>&1
uptime > "$out/uptime-end.txt"
