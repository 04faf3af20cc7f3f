#!/bin/bash
# A line of N (default 32) at 1 Gbit/s: perf record of fastpathd (call graphs, 999 Hz) for
# 4 s while iperf3 sends UDP at 80 % of the rate from S to D; then the report by symbol.
# Run from the repository root: profile.sh OUT_DIR PERF_DATA [N]
set -u
out=$1; perfout=$2; nodes=${3:-32}
setsid /usr/bin/python3 bench/fidelity/line_fidelity.py --build-dir "${BUILD:-build}" --out "$out" \
  --nodes "$nodes" --rate 1gbit --interval 1 --ping-seconds 1 --iperf-seconds 8 --no-kernel \
  > "$out.log" 2>&1 &
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
perf report -i "$perfout" --no-children --sort symbol --stdio 2>/dev/null | grep -v "^$" | head -80 \
  > "$perfout.self.txt"
perf report -i "$perfout" --children --sort symbol --stdio -g none 2>/dev/null | grep -v "^$" \
  | head -80 > "$perfout.children.txt"
