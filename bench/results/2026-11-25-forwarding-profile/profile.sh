#!/bin/bash
# usage: [BUILD=dir] [RATE=pps] [NAPI_RT=1] profile.sh FASTPATHD OUTDIR [fastpathd args]  -- run under flock /tmp/fp-bench.lock
# S - R - D in fp-prof-{s,r,d}; fastpathd pinned to CPU 1 with its default options (it
# makes R's NAPI threaded itself); NAPI_RT=1: R's NAPI threads SCHED_FIFO 50 on CPU 1;
# flat-out (or RATE) UDP from S on CPU 0 for 9 s; perf record -g on CPU 1 for 5 s.
set -u
FPD=$1; OUT=$2; shift 2; EXTRA=("$@")
BUILD=${BUILD:-build}  # a CMake build with bench/fp-trafgen and fpctl/fpctl
TG=$BUILD/bench/fp-trafgen
S=fp-prof-s; R=fp-prof-r; D=fp-prof-d
mkdir -p $OUT
cleanup() {
  [ -n "${FPID:-}" ] && kill $FPID 2>/dev/null && wait $FPID 2>/dev/null
  for n in $S $R $D; do ip netns del $n 2>/dev/null; done
}
trap cleanup EXIT
for n in $S $R $D; do ip netns add $n; ip -n $n link set lo up; ip netns exec $n sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1; done
ip -n $S link add s0 type veth peer name fp0 netns $R
ip -n $R link add fp1 type veth peer name d0 netns $D
for x in "$S s0" "$R fp0" "$R fp1" "$D d0"; do set -- $x; ip -n $1 link set $2 up; ip netns exec $1 ethtool -K $2 gro off tso off gso off tx off >/dev/null 2>&1; done
# S's and D's receive work on CPU 0 (RPS), R's on CPU 1
ip netns exec $S sh -c 'echo 1 > /sys/class/net/s0/queues/rx-0/rps_cpus'
ip netns exec $D sh -c 'echo 1 > /sys/class/net/d0/queues/rx-0/rps_cpus'
ip netns exec $R sh -c 'echo 2 > /sys/class/net/fp0/queues/rx-0/rps_cpus; echo 2 > /sys/class/net/fp1/queues/rx-0/rps_cpus'
RMAC=$(ip netns exec $R cat /sys/class/net/fp0/address)
DMAC=$(ip netns exec $D cat /sys/class/net/d0/address)
ip netns exec $R taskset -c 1 $FPD --port fp0 --port fp1 --socket /run/fp-prof.sock \
  --route 198.18.1.0/24,via=198.18.1.2,dev=fp1 --neigh 198.18.1.2,mac=$DMAC,dev=fp1 "${EXTRA[@]}" > $OUT/fastpathd.log 2>&1 &
FPID=$!
sleep 1
if [ "${NAPI_RT:-0}" = 1 ]; then for t in $(pgrep '^napi/fp[01]-'); do taskset -pc 1 $t >/dev/null; chrt -f -p 50 $t; done; fi
sleep 1.5
ip netns exec $S $TG --ifname s0 --src-ip 198.18.0.2 --dst-ip 198.18.1.2 --dst-mac $RMAC ${RATE:+--pps $RATE} ${RATE:---flat-out} --flows 16 --duration 9 --cpu 0 > $OUT/trafgen.json &
TGP=$!
sleep 2
for t in $(ls /proc/$FPID/task); do echo "thread $t $(cat /proc/$FPID/task/$t/comm) $(chrt -p $t | tr '\n' ' ')"; done > $OUT/sched.txt
for t in $(pgrep '^napi/fp'); do echo "napi $t $(cat /proc/$t/comm) $(chrt -p $t | tr '\n' ' ') $(taskset -pc $t)"; done >> $OUT/sched.txt
perf record -q -C 1 -g -o $OUT/perf.data -- sleep 5 2>/dev/null
wait $TGP
sleep 0.5
ip netns exec $R $BUILD/fpctl/fpctl --socket /run/fp-prof.sock stats > $OUT/fpctl-stats.txt 2>&1 || true
for x in "$S s0" "$R fp0" "$R fp1" "$D d0"; do set -- $x; echo "$1 $2 $(ip netns exec $1 bash -c "cat /sys/class/net/$2/statistics/{rx_packets,tx_packets,rx_dropped,tx_dropped}" | tr '\n' ' ')"; done > $OUT/links.txt
perf report -i $OUT/perf.data --no-children --sort comm,dso,sym -g none --percent-limit 0.3 --stdio 2>/dev/null | grep -v "^$" | head -150 > $OUT/perf-report.txt
perf report -i $OUT/perf.data --no-children --sort comm --stdio 2>/dev/null | grep -v "^#" | grep -v "^$" | head -20 > $OUT/perf-comm.txt
echo done
