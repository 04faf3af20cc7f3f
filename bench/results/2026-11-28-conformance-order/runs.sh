#!/usr/bin/env bash
# Three emulated runs of cobalt-vs-codel (and one of udp-trace-client-server), one after the other.
cd /work/wt/order
for i in 1 2 3; do
  rm -rf /tmp/order-conf/run$i
  echo "run$i start $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)"
  python3 bench/conformance/conformance.py --build-dir build --out /tmp/order-conf/run$i \
    --examples traffic-control/cobalt-vs-codel > /tmp/order-conf/run$i.console 2>&1
  echo "run$i end $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg) rc $?"
done
