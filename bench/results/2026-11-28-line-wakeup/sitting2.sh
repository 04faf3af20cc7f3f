#!/bin/bash
# Second sitting: the kernel line beside fastpathd, with the machine's default idle states
# and with the same PM QoS request (0 us, every CPU) held around the whole run (qos.py).
set -u
out=$(realpath -m $1); here=$(cd "$(dirname "$0")" && pwd); mkdir -p $out
cd "$(git -C "$here" rev-parse --show-toplevel)"
cat /proc/loadavg > $out/load-before.txt
common="--build-dir build --nodes 2 --rate 100mbit --interval 1,0.1,0.01,0.001 --ping-seconds 20 --count 200"
L=bench/fidelity/line_fidelity.py
/usr/bin/python3 $L $common --out $out/c1-default > $out/c1-default.log 2>&1; echo "c1 $?" >> $out/rc.txt
/usr/bin/python3 $here/qos.py global /usr/bin/python3 $L $common --out $out/d1-qos0-all > $out/d1-qos0-all.log 2>&1; echo "d1 $?" >> $out/rc.txt
cat /proc/loadavg > $out/load-after.txt
