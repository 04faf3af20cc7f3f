#!/bin/bash
# The conformance subset with two bounded CPU hogs, untimed devices then timed ones.
cd /work/wt/nsdelay
for mode in untimed timed; do
  timeout 300 sh -c 'while :; do :; done' & h1=$!
  timeout 300 sh -c 'while :; do :; done' & h2=$!
  if [ $mode = untimed ]; then export NS_ATTRIBUTE_DEFAULT='ns3::FastPathNetDevice::TimedDelivery=false'; else unset NS_ATTRIBUTE_DEFAULT; fi
  python3 bench/conformance/conformance.py --build-dir build --check --subset --out /tmp/nsd-$mode
  echo "conformance $mode rc=$?"
  kill $h1 $h2 2>/dev/null; wait $h1 $h2 2>/dev/null
done
