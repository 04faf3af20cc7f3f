#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The three traffic-control rows simulated and emulated, then queue-discs-benchmark twice more
# (its split of queueing between the directions varies from run to run), with fastpathd's
# links read by `fpctl link show` every 2 s during the runs. Run from the repository root as
# root: bench/results/2026-11-27-conformance-tc/hold.sh OUT
set -uo pipefail
out=${1:?usage: hold.sh OUT}
mkdir -p "$out"
poll() {  # fpctl link show of every link of the harness's fastpathd, every 2 s, into $1
    while true; do
        for s in /tmp/fp-conf-*/fastpathd.sock; do
            [ -S "$s" ] || continue
            echo "=== $(date +%T.%N) $s"
            for l in $(build/bin/fpctl --socket "$s" link list 2>/dev/null | awk 'NR>1{print $1}'); do
                build/bin/fpctl --socket "$s" link show "$l" 2>&1
            done
        done
        sleep 2
    done > "$1"
}
echo "start $(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg)" > "$out/conditions.txt"
poll "$out/links-1.txt" & p=$!
bench/conformance/conformance.py --build-dir build --out "$out/run1" \
    --examples traffic-control/queue-discs-benchmark,traffic-control/cobalt-vs-codel,tcp/tcp-pacing \
    > "$out/run1.log" 2>&1
kill $p
for i in 2 3; do
    poll "$out/links-$i.txt" & p=$!
    bench/conformance/conformance.py --build-dir build --out "$out/run$i" \
        --examples traffic-control/queue-discs-benchmark > "$out/run$i.log" 2>&1
    kill $p
done
echo "end $(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg)" >> "$out/conditions.txt"
