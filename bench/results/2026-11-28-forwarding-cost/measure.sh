#!/bin/bash
# measure.sh OUT LABEL=FASTPATHD_BUILD...: the forwarding-rate runs of each fastpathd build in turn.
OUT=$1; shift
cd "$(git -C "$(dirname "$0")" rev-parse --show-toplevel)"
for lb in "$@"; do
  /usr/bin/python3 bench/fastpath_bench.py --build-dir build --fastpathd-build ${lb#*=} --napi-env default,stack \
     --forwarders afxdp-min,fastpathd --rates flat --reps 3 --duration 2 --generator xdp-live --out $OUT/${lb%%=*} > $OUT/${lb%%=*}.log 2>&1
  echo "${lb%%=*} rc=$? $(date +%T)" >> $OUT/done.txt
done
