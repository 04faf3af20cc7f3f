#!/bin/bash
# Line N=32 at 1 Gbit/s; perf record of fastpathd (call graphs) for 4 s during the UDP run.
set -u
out=$1; perfout=$2; nodes=${3:-32}
# run from the repository root
setsid /usr/bin/python3 bench/fidelity/line_fidelity.py --build-dir "${BUILD:-build}" --out "$out" --nodes "$nodes" \
  --rate 1gbit --interval 1 --ping-seconds 5 --iperf-seconds 8 --no-kernel > "$out.log" 2>&1 &
hp=$!
for i in $(seq 1 1200); do
  pgrep -s $hp -f "iperf3 -c .* -u" >/dev/null && break
  sleep 0.25
done
fp=$(pgrep -s $hp -x fastpathd | head -1)
echo "harness $hp fastpathd $fp"
sleep 1
perf record -F 999 --call-graph dwarf,16384 -p "$fp" -o "$perfout" -- sleep 4
wait $hp
echo "harness rc $?"
