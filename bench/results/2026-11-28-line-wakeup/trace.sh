#!/bin/bash
# trace.sh OUTDIR [extra line_fidelity args]: one N=2 line, 1 ping/s, perf system-wide.
out=$(realpath -m $1); shift
mkdir -p $out
cd "$(git -C "$(dirname "$0")" rev-parse --show-toplevel)"
perf record -a -o $out/perf.data -m 512 \
  -e net:net_dev_xmit -e net:netif_rx -e net:netif_receive_skb -e napi:napi_poll \
  -e xdp:xdp_redirect -e sched:sched_waking -e sched:sched_switch -e power:cpu_idle \
  -e irq_vectors:call_function_single_entry -e irq_vectors:reschedule_entry \
  -e irq_vectors:local_timer_entry \
  -e timer:hrtimer_expire_entry -e syscalls:sys_enter_ppoll -e syscalls:sys_exit_ppoll \
  -e syscalls:sys_enter_sendto -e syscalls:sys_exit_sendto $EXTRA_EV 2>$out/perf.err &
pp=$!
sleep 2
/usr/bin/python3 bench/fidelity/line_fidelity.py --build-dir build --out $out/line --nodes 2 \
  --rate 100mbit --interval 1 --count 15 --no-kernel "$@" > $out/line.log 2>&1
echo rc=$? >> $out/line.log
kill -INT $pp; wait $pp
perf script -i $out/perf.data -F comm,tid,cpu,time,event,trace --ns > $out/script.txt 2>/dev/null
ls -la $out
