#!/bin/bash
# One sitting: the N=2 line at 100 Mbit/s, fastpathd without and with --cpu-wake-latency-us 0,
# alternating (A B A B), then one perf-traced run of each at 1 ping/s.
set -u
out=$1; out=$(realpath -m $out); here=$(cd "$(dirname "$0")" && pwd); mkdir -p $out; cd "$(git -C "$here" rev-parse --show-toplevel)"
cat /proc/loadavg > $out/load-before.txt
common="--build-dir build --nodes 2 --rate 100mbit --interval 1,0.1,0.01,0.001 --ping-seconds 20 --count 200"
L=bench/fidelity/line_fidelity.py
/usr/bin/python3 $L $common --out $out/a1-default > $out/a1-default.log 2>&1; echo "a1 $?" >> $out/rc.txt
/usr/bin/python3 $L $common --no-kernel --fastpathd-args="--cpu-wake-latency-us 0" --out $out/b1-qos0 > $out/b1-qos0.log 2>&1; echo "b1 $?" >> $out/rc.txt
/usr/bin/python3 $L $common --no-kernel --out $out/a2-default > $out/a2-default.log 2>&1; echo "a2 $?" >> $out/rc.txt
/usr/bin/python3 $L $common --no-kernel --fastpathd-args="--cpu-wake-latency-us 0" --out $out/b2-qos0 > $out/b2-qos0.log 2>&1; echo "b2 $?" >> $out/rc.txt
$here/trace.sh $out/trace-default > /dev/null 2>&1; echo "trace-default $?" >> $out/rc.txt
$here/trace.sh $out/trace-qos0 --fastpathd-args="--cpu-wake-latency-us 0" > /dev/null 2>&1; echo "trace-qos0 $?" >> $out/rc.txt
cat /proc/loadavg > $out/load-after.txt
