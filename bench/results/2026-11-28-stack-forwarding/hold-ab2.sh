#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Second quiet hold: `stack`, main's fastpathd (BASE), this branch's with --rx-coalesce-us 30,
# then with its default (100), alternating with hold-ab.sh's pair.
# usage: hold-ab2.sh OUT BASE_BUILD_DIR   (run from the worktree's top)
out=$1; base=$2
mkdir -p $out
echo "start $(date -u +%T) load $(cat /proc/loadavg)" > $out/conditions.txt
run() {  # name fastpathd-build extra-args
  /usr/bin/python3 bench/fastpath_bench.py --build-dir build --fastpathd-build $2 --napi-env stack \
    --forwarders afxdp-min,fastpathd --rates 100000,200000,flat --reps 3 --duration 2 \
    --fastpathd-args "$3" --out $out/stack-$1 > $out/stack-$1.log 2>&1
  echo "stack-$1 done $(date -u +%T) load $(cat /proc/loadavg)" >> $out/conditions.txt
}
run base $base ""
run new-c30 build "--rx-coalesce-us 30"
run new build ""
