#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Waits for a flat-out fp-trafgen, then samples CPU 1's threads for DUR seconds:
# per-thread schedstat (run ns, wait ns, slices), context switches, syscalls of the forwarder.
# usage: [GEN_MATCH=ARG] sample.sh OUTDIR LABEL [DUR]  (GEN_MATCH: the generator argument to wait for, default --flat-out)
out=$1; label=$2; dur=${3:-4}
mkdir -p $out
while true; do
  case $label in afxdp-min*) fw=$(pgrep -x fp-afxdp-min | tail -1) ;; *) fw=$(pgrep -x fastpathd | tail -1) ;; esac
  g=$(pgrep -x fp-trafgen | while read p; do tr '\0' ' ' </proc/$p/cmdline | grep -q -- "${GEN_MATCH:---flat-out}" && echo $p; done | head -1)
  [ -n "$g" ] && [ -n "$fw" ] && break
  sleep 0.2
done
sleep 1.5
pids="$(pgrep '^napi/fb' | tr '\n' ' ') $(pgrep -x ksoftirqd/1) $(pgrep -x fp-stack-sink) $(ls /proc/$fw/task | sed "s|^|$fw/|")"
snap() { for t in $pids; do case $t in */*) pp=${t%/*}; tt=${t#*/}; f=/proc/$pp/task/$tt ;; *) f=/proc/$t ;; esac
  [ -r $f/schedstat ] || continue
  echo "$t $(cat $f/comm) $(cat $f/schedstat) $(grep -E '^(voluntary|nonvoluntary)_ctxt' $f/status | awk '{print $2}' | tr '\n' ' ') $(awk '{print $18, $19}' $f/stat)"; done; }
sock=$(ls -t /run/fp-bench-*-r0.sock 2>/dev/null | head -1)
FPCTL=${FPCTL:-build/bin/fpctl}
[[ "$label" != afxdp-min* ]] && [ -n "$sock" ] && $FPCTL -s $sock --json stats > $out/$label.stats0 2>&1
snap > $out/$label.s0; date +%s.%N > $out/$label.t0
perf stat -x, -e 'syscalls:sys_enter_sendto,syscalls:sys_enter_recvfrom,syscalls:sys_enter_ppoll,syscalls:sys_enter_poll,syscalls:sys_enter_getsockopt,sched:sched_switch,context-switches' --per-thread -p $fw -o $out/$label.perfstat -- sleep $dur &
perf record -q -C 1 -g -o $out/$label.perf.data -- sleep $dur >/dev/null 2>&1
wait
snap > $out/$label.s1; date +%s.%N > $out/$label.t1
[[ "$label" != afxdp-min* ]] && [ -n "$sock" ] && $FPCTL -s $sock --json stats > $out/$label.stats1 2>&1
cat /proc/softirqs | grep -E "NET_RX|NET_TX" > $out/$label.softirqs
echo sampled $label fw=$fw
while kill -0 $g 2>/dev/null; do sleep 0.2; done
