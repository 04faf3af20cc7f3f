#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Hold 2: default and rt measured (afxdp-min + fastpathd defaults), then default with
# fastpathd --rt-priority 0 (the previous default's behaviour there).
out=/tmp/router/h2
cd /work/wt/router
R=20000,50000,100000,150000,200000,300000,400000,flat
echo "start $(date -u +%T) load $(cat /proc/loadavg)" > $out/conditions.txt
/usr/bin/python3 bench/fastpath_bench.py --build-dir build --napi-env default,rt --forwarders afxdp-min,fastpathd --rates $R --reps 3 --duration 2 --out $out/after > $out/after.log 2>&1
echo "after done $(date -u +%T) load $(cat /proc/loadavg)" >> $out/conditions.txt
/usr/bin/python3 bench/fastpath_bench.py --build-dir build --napi-env default --forwarders fastpathd --fastpathd-args "--rt-priority 0" --rates $R --reps 3 --duration 2 --out $out/default-before > $out/default-before.log 2>&1
echo "end $(date -u +%T) load $(cat /proc/loadavg)" >> $out/conditions.txt
