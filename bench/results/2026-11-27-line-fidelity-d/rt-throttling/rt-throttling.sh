#!/bin/bash
# Is the ~47 ms worker stall at N=8 1 Gbit/s with a TCP flow the kernel's real-time
# throttling (sched_rt_runtime_us 950000 of 1000000: SCHED_FIFO work is stopped for the
# rest of a second once it ran 950 ms of it)? Same run three ways: fastpathd's default
# (worker SCHED_FIFO), its worker under the normal policy (--rt-priority 0), and the
# default with the throttling off for the run (restored at exit).
set -u
out=$1
# run from the repository root
common=(--build-dir "${BUILD:-build}" --nodes 8 --rate 1gbit --interval 0.01,0.001 --ping-seconds 3
        --reverse-tcp --iperf-seconds 0 --no-kernel)
orig=$(cat /proc/sys/kernel/sched_rt_runtime_us)
trap 'echo "$orig" > /proc/sys/kernel/sched_rt_runtime_us' EXIT
echo "sched_rt_runtime_us=$orig sched_rt_period_us=$(cat /proc/sys/kernel/sched_rt_period_us)"
/usr/bin/python3 bench/fidelity/line_fidelity.py "${common[@]}" --out "$out/default" > "$out/default.log" 2>&1
echo "default rc $?"
/usr/bin/python3 bench/fidelity/line_fidelity.py "${common[@]}" --fastpathd-args="--rt-priority 0" --out "$out/rt-priority-0" > "$out/rt-priority-0.log" 2>&1
echo "rt-priority-0 rc $?"
echo -1 > /proc/sys/kernel/sched_rt_runtime_us
echo "throttling off: sched_rt_runtime_us=$(cat /proc/sys/kernel/sched_rt_runtime_us)"
/usr/bin/python3 bench/fidelity/line_fidelity.py "${common[@]}" --out "$out/rt-unthrottled" > "$out/rt-unthrottled.log" 2>&1
echo "rt-unthrottled rc $?"
echo "$orig" > /proc/sys/kernel/sched_rt_runtime_us
echo "restored: sched_rt_runtime_us=$(cat /proc/sys/kernel/sched_rt_runtime_us)"
