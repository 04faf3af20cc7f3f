#!/bin/bash
# The runs of this folder, as `/work/wt/busy --ns bench/results/2026-11-28-wifi-ack/run.sh
# WHAT [TAG]`: `aodv` (manet-routing-compare, AODV, RngRun 3, emulated; TAG names a repeat:
# emulated-aodv-3-TAG.json) or `hidden` (wifi-hidden-terminal without and with RTS/CTS,
# simulated and emulated). Start, end, load and commit in conditions-WHAT[-TAG].txt.
set -u
cd "$(git -C "$(dirname "$0")" rev-parse --show-toplevel)"
out=bench/results/2026-11-28-wifi-ack
tag=${2:+-$2}
c=$out/conditions-$1$tag.txt
{ echo "start: $(date -u +%FT%TZ)"; echo "load: $(cat /proc/loadavg)"; echo "commit: $(git rev-parse HEAD)"; git status --short -uno -- bpf common ctrl-bridge fastpath ns3-module proto bench/wifi; } > $c
rc=0
case $1 in
aodv) /usr/bin/python3 bench/wifi/wifi_conformance.py --build-dir build --emulated --skip-simulated \
        --skip-hidden --protocols 2 --first-run 3 --emu-runs 1 \
        > $out/emulated-aodv-3$tag.json 2> $out/emulated-aodv-3$tag.log || rc=1 ;;
hidden) /usr/bin/python3 bench/wifi/wifi_conformance.py --build-dir build --emulated --skip-manet \
        > $out/hidden.json 2> $out/hidden.log || rc=1 ;;
*) echo "usage: $0 aodv|hidden" >&2; exit 2 ;;
esac
{ echo "end: $(date -u +%FT%TZ) rc=$rc"; echo "load: $(cat /proc/loadavg)"; } >> $c
exit $rc
