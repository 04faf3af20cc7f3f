#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# One hold: `stack`, each forwarder flat-out for 8 s and fastpathd paced at 300k for 8 s
# (about its max), each sampled for 4 s by sample.sh. Run from the worktree's top.
# usage: hold-profile.sh OUT [FASTPATHD_BUILD]
out=$1; fpb=${2:-build}
mkdir -p $out
echo "start $(date -u +%T) load $(cat /proc/loadavg)" > $out/conditions.txt
P=bench/results/2026-11-28-stack-forwarding/profile
( $P/sample.sh $out afxdp-min 4; $P/sample.sh $out fastpathd 4 ) > $out/sampler.log 2>&1 &
S=$!
/usr/bin/python3 bench/fastpath_bench.py --build-dir build --fastpathd-build $fpb --napi-env stack \
  --forwarders afxdp-min,fastpathd --smoke --rates flat --duration 8 --out $out/flat > $out/flat.log 2>&1
wait $S
( GEN_MATCH=300000 FPCTL=$fpb/bin/fpctl $P/sample.sh $out fastpathd-300k 4 ) >> $out/sampler.log 2>&1 &
S=$!
/usr/bin/python3 bench/fastpath_bench.py --build-dir build --fastpathd-build $fpb --napi-env stack \
  --forwarders fastpathd --smoke --rates 300000 --duration 8 --out $out/p300k > $out/p300k.log 2>&1
wait $S
echo "end $(date -u +%T) load $(cat /proc/loadavg)" >> $out/conditions.txt
