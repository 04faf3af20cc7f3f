#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Hold 1: profile of the stack environment (flat-out, 8 s each, sampled 4 s), then the
# stack environment measured: afxdp-min + fastpathd (defaults), and fastpathd --rt-priority 0.
out=/tmp/router/h1
cd /work/wt/router
echo "start $(date -u +%T) load $(cat /proc/loadavg)" > $out/conditions.txt
( /tmp/router/sample.sh $out/prof afxdp-min 4; /tmp/router/sample.sh $out/prof fastpathd 4; /tmp/router/sample.sh $out/prof fastpathd-rt0 4 ) > $out/sampler.log 2>&1 &
S=$!
/usr/bin/python3 bench/fastpath_bench.py --build-dir build --napi-env stack --forwarders afxdp-min,fastpathd --smoke --rates flat --duration 8 --out $out/profA > $out/profA.log 2>&1
/usr/bin/python3 bench/fastpath_bench.py --build-dir build --napi-env stack --forwarders fastpathd --fastpathd-args "--rt-priority 0" --smoke --rates flat --duration 8 --out $out/profB > $out/profB.log 2>&1
wait $S
echo "profile done $(date -u +%T)" >> $out/conditions.txt
R=20000,50000,100000,150000,200000,300000,400000,flat
/usr/bin/python3 bench/fastpath_bench.py --build-dir build --napi-env stack --forwarders afxdp-min,fastpathd --rates $R --reps 3 --duration 2 --out $out/stack-after > $out/stack-after.log 2>&1
echo "after done $(date -u +%T) load $(cat /proc/loadavg)" >> $out/conditions.txt
/usr/bin/python3 bench/fastpath_bench.py --build-dir build --napi-env stack --forwarders fastpathd --fastpathd-args "--rt-priority 0" --rates $R --reps 3 --duration 2 --out $out/stack-before > $out/stack-before.log 2>&1
echo "end $(date -u +%T) load $(cat /proc/loadavg)" >> $out/conditions.txt
