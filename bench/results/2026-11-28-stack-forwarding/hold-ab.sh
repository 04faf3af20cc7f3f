#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# One quiet hold: `stack`, the minimal forwarder and fastpathd, main's fastpathd (BASE)
# then this branch's (build/), then `default` and `rt` flat-out for both fastpathd builds.
# usage: hold-ab.sh OUT BASE_BUILD_DIR   (run from the worktree's top)
out=$1; base=$2
mkdir -p $out
echo "start $(date -u +%T) load $(cat /proc/loadavg)" > $out/conditions.txt
for which in base new; do
  fpb=build; [ $which = base ] && fpb=$base
  /usr/bin/python3 bench/fastpath_bench.py --build-dir build --fastpathd-build $fpb --napi-env stack \
    --forwarders afxdp-min,fastpathd --rates 100000,200000,flat --reps 3 --duration 2 \
    --out $out/stack-$which > $out/stack-$which.log 2>&1
  echo "stack-$which done $(date -u +%T) load $(cat /proc/loadavg)" >> $out/conditions.txt
done
echo "end $(date -u +%T) load $(cat /proc/loadavg)" >> $out/conditions.txt
