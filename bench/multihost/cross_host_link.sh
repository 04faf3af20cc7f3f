#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# cross_host_link.sh: the figures of a link between two hosts (docs/guides/multi-host.md,
# "Several hosts"), on one machine, as root. Two "hosts" are namespaces A and B, each with
# its own fastpathd (A's worker on CPU 0, B's on CPU 1), joined by a veth pair for the wire;
# router r1 on A faces end host S, router r2 on B faces D, link r1-r2 crosses the wire on
# VLAN 42:
#
#   S --fa0-- [A: r1] ==wa~~~wire~~~wb== [B: r2] --fb0-- D
#
# With --encap vxlan the hosts share no segment: A's wire is on 198.18.10.0/24, B's on
# 198.18.20.0/24, a third namespace R routes between them (the wires' MTU 1600, so that the
# link's 1500 fits with VXLAN's 50 bytes), and the link crosses as VXLAN, VNI 42.
#
# Measured, with the link at `rate RATE delay DELAY`:
#   delay: ping S -> D (COUNT pings, 10 ms apart): RTT min / avg / mdev (ping's summary, in
#          microseconds) and percentiles (ping prints 10 us steps below 10 ms: keep the
#          delay under 5 ms); then the same pings with r1 and r2 on one fastpathd (one
#          host, an internal link with the same parameters: everything but the wire is the
#          same), so that half the difference of the averages is what crossing the wire
#          adds to the link's delay per direction; compared with the wire's one-way jitter
#          both daemons measured, plus 50 us.
#   rate:  iperf3 UDP from S to D at 1.5 x the link's rate (1400-byte datagrams, SECONDS s,
#          the link's queue always full); D's arrival times (tcpdump, nanosecond stamps):
#          link frame bytes (Ethernet frame, as the link counts them) from the first to the
#          last datagram over the time between them, against the configured rate.
# Writes OUT/: summary.json, summary.txt, both daemons' logs (their final counters, the
# wire's probe figures), the ping outputs and the capture's per-frame times.
#
#   sudo bench/multihost/cross_host_link.sh [--build-dir build] [--out DIR]
#        [--rate 10mbit] [--delay 2ms] [--pings 500] [--seconds 10] [--encap vlan|vxlan]
set -euo pipefail

build=build
out=""
rate=10mbit
delay=2ms
pings=500
seconds=10
encap=vlan
while [[ $# -gt 0 ]]; do
  case "$1" in
    --build-dir) build="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --rate) rate="$2"; shift 2 ;;
    --delay) delay="$2"; shift 2 ;;
    --pings) pings="$2"; shift 2 ;;
    --seconds) seconds="$2"; shift 2 ;;
    --encap) encap="$2"; shift 2 ;;
    -h|--help) sed -n '3,31p' "$0"; exit 0 ;;
    *) echo "cross_host_link.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done
[[ $encap == vlan || $encap == vxlan ]] || { echo "cross_host_link.sh: --encap vlan or vxlan" >&2; exit 2; }
[[ $(id -u) == 0 ]] || { echo "cross_host_link.sh: needs root (namespaces, fastpathd)" >&2; exit 2; }
fpd="$build/bin/fastpathd"
[[ -x "$fpd" ]] || { echo "cross_host_link.sh: build fastpathd in $build first" >&2; exit 2; }
for t in iperf3 tcpdump ethtool; do
  command -v "$t" >/dev/null || { echo "cross_host_link.sh: needs $t" >&2; exit 2; }
done
[[ -n "$out" ]] || out=$(mktemp -d /tmp/fp-xl-out-XXXXXX)
mkdir -p "$out"
out=$(cd "$out" && pwd)

A=fp-xl-a-$$ B=fp-xl-b-$$ S=fp-xl-s-$$ D=fp-xl-d-$$ R=fp-xl-r-$$
dir=$(mktemp -d /tmp/fp-xl-XXXXXX)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null && wait "$p" 2>/dev/null || true; done
  for n in $A $B $S $D $R; do ip netns del "$n" 2>/dev/null || true; done
  rm -rf "$dir"
}
trap cleanup EXIT INT TERM

for n in $A $B $S $D; do ip netns add "$n"; ip -n "$n" link set lo up; done
if [[ $encap == vlan ]]; then
  ip link add wa netns $A type veth peer name wb netns $B
else
  ip netns add $R
  ip link add wa netns $A type veth peer name ra netns $R
  ip link add wb netns $B type veth peer name rb netns $R
  ip -n $R link set lo up
  for spec in "$A wa 198.18.10.2" "$B wb 198.18.20.2"; do
    set -- $spec
    ip -n "$1" link set "$2" mtu 1600
    ip -n "$1" addr add "$3/24" dev "$2"
  done
  for i in ra rb; do ip -n $R link set $i mtu 1600 up; done
  ip -n $R addr add 198.18.10.1/24 dev ra
  ip -n $R addr add 198.18.20.1/24 dev rb
  # A veth takes frames redirected by XDP into its peer only with NAPI on (GRO or XDP).
  ip netns exec $R ethtool -K ra gro on >/dev/null
  ip netns exec $R ethtool -K rb gro on >/dev/null
  ip netns exec $R sysctl -qw net.ipv4.ip_forward=1
fi
ip link add fa0 netns $A type veth peer name eth0 netns $S
ip link add fb0 netns $B type veth peer name eth0 netns $D
mac() { ip -n "$1" -o link show "$2" | sed -n 's/.*link\/ether \([0-9a-f:]*\).*/\1/p'; }
for spec in "$A wa" "$B wb" "$A fa0" "$B fb0" "$S eth0" "$D eth0"; do
  set -- $spec
  ip -n "$1" link set "$2" up
done
if [[ $encap == vxlan ]]; then
  ip -n $A route add 198.18.20.0/24 via 198.18.10.1
  ip -n $B route add 198.18.10.0/24 via 198.18.20.1
fi
# As on a wire: the hosts compute their checksums (a veth would leave them to no one).
ip netns exec $S ethtool -K eth0 tx off >/dev/null
ip netns exec $D ethtool -K eth0 tx off >/dev/null
ip -n $S addr add 198.18.1.2/24 dev eth0
ip -n $S route add default via 198.18.1.1 dev eth0
ip -n $S neigh add 198.18.1.1 lladdr "$(mac $A fa0)" dev eth0
ip -n $D addr add 198.18.2.2/24 dev eth0
ip -n $D route add default via 198.18.2.1 dev eth0
ip -n $D neigh add 198.18.2.1 lladdr "$(mac $B fb0)" dev eth0
s_mac=$(mac $S eth0)
d_mac=$(mac $D eth0)

# router NAME HOSTLINE IF OWN PEER VIA VIA_MAC HOST_MAC: a node of the plan facing its end
# host (OWN.2, HOST_MAC) on IF, routing to PEER.0/24 over link r1-r2 via VIA.
router() {
  cat <<EOF
  - name: $1
${2}    interfaces: [$3]
    routes:
      - {prefix: $5.0/24, via: $6, dev: r1-r2}
      - {prefix: $4.0/24, dev: $3}
    neighbours:
      - {ip: $6, mac: "$7", dev: r1-r2}
      - {ip: $4.2, mac: "$8", dev: $3}
EOF
}

# plan HOSTS: the topology file; HOSTS=2: r1 on a, r2 on b, the link on the wire;
# HOSTS=1: no hosts (one fastpathd holds both routers, the link is internal).
plan() {
  local two=$1 ha="" hb="" vlan="" xa="" xb=""
  if [[ $two == 2 ]]; then
    if [[ $encap == vxlan ]]; then
      xa=", encap: vxlan, underlay: 198.18.10.2, peer_underlay: 198.18.20.2"
      xb=", encap: vxlan, underlay: 198.18.20.2, peer_underlay: 198.18.10.2"
    fi
    cat <<EOF
hosts:
  - name: a
    wires: [{peer: b, interface: wa$xa}]
  - name: b
    wires: [{peer: a, interface: wb$xb}]
EOF
    ha="    host: a"$'\n' hb="    host: b"$'\n' vlan="    vlan: 42"$'\n'
    [[ $encap == vxlan ]] && vlan="    vni: 42"$'\n'
  fi
  echo "nodes:"
  router r1 "$ha" fa0 198.18.1 198.18.2 198.18.100.2 02:00:00:00:01:02 "$s_mac"
  router r2 "$hb" fb0 198.18.2 198.18.1 198.18.100.1 02:00:00:00:01:01 "$d_mac"
  cat <<EOF
links:
  - name: r1-r2
${vlan}    a: {node: r1, mac: "02:00:00:00:01:01"}
    b: {node: r2, mac: "02:00:00:00:01:02"}
    params: "rate $rate delay $delay"
EOF
}

# start NS NAME CPU PLAN [ARGS]: fastpathd in NS, its log in OUT/NAME.log. It serves its
# socket once its wires are measured, which needs the peer's daemon: see ready.
start() {
  local ns=$1 name=$2 cpu=$3 file=$4
  shift 4
  ip netns exec "$ns" "$fpd" --topology "$file" --socket "$dir/$name.sock" --no-tune \
    --cores "$cpu" "$@" >"$out/$name.log" 2>&1 &
  pids+=($!)
}
# ready NAME...: waits until each daemon serves its socket (exit 1 if one ended first).
ready() {
  local name
  for name in "$@"; do
    for _ in $(seq 300); do
      [[ -S "$dir/$name.sock" ]] && continue 2
      sleep 0.05
    done
    echo "cross_host_link.sh: fastpathd $name did not start:" >&2
    cat "$out/$name.log" >&2
    exit 1
  done
}
stop_all() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null && wait "$p" 2>/dev/null || true; done
  pids=()
}
ping_s() { ip netns exec $S ping -c "$pings" -i 0.01 -W 1 198.18.2.2 >"$out/$1" 2>&1 || true; }

# 1. Two hosts.
plan 2 >"$out/plan-two-hosts.yaml"
start $A a 0 "$out/plan-two-hosts.yaml" --host-name a --run-tag xl --wire-wait 5000
start $B b 1 "$out/plan-two-hosts.yaml" --host-name b --run-tag xl --wire-wait 5000
ready a b
ping_s ping-two-hosts.txt
ip netns exec $D tcpdump -i eth0 -n -s 64 --time-stamp-precision=nano -w "$dir/d.pcap" \
  udp dst port 5201 2>"$out/tcpdump.log" &
tcpdump_pid=$!
pids+=($tcpdump_pid)
ip netns exec $D iperf3 -s -1 >/dev/null 2>&1 &
pids+=($!)
sleep 1
rate_bps=$(/usr/bin/python3 -c '
import re, sys
v, u = re.fullmatch(r"([0-9.]+)([kmg]?)bit", sys.argv[1]).groups()
print(int(float(v) * {"": 1, "k": 1e3, "m": 1e6, "g": 1e9}[u]))' "$rate")
ip netns exec $S iperf3 -c 198.18.2.2 -u -b $((rate_bps * 3 / 2)) -l 1400 -t "$seconds" \
  >"$out/iperf3-two-hosts.txt" 2>&1 || true
sleep 1
kill -INT $tcpdump_pid; wait $tcpdump_pid 2>/dev/null || true
ip netns exec $D tcpdump -n -r "$dir/d.pcap" --time-stamp-precision=nano -tt 2>/dev/null |
  awk '{ print $1, $NF }' >"$out/d-arrivals.txt"
stop_all

# 2. One host: the same routers and link on one fastpathd (fb0 moved into A).
ip -n $B link set fb0 netns $A
ip -n $A link set fb0 up
plan 1 >"$out/plan-one-host.yaml"
start $A one 0 "$out/plan-one-host.yaml"
ready one
ping_s ping-one-host.txt
stop_all

/usr/bin/python3 - "$out" "$rate_bps" "$delay" <<'EOF'
import json, re, sys
out, rate_bps, delay = sys.argv[1], int(sys.argv[2]), sys.argv[3]

def rtts(name):
    return sorted(float(m) for m in re.findall(r"time=([0-9.]+) ms", open(f"{out}/{name}").read()))

def summary(name):
    m = re.search(r"= ([0-9.]+)/([0-9.]+)/([0-9.]+)/([0-9.]+) ms", open(f"{out}/{name}").read())
    return dict(zip(("min_ms", "avg_ms", "max_ms", "mdev_ms"), map(float, m.groups())))

def q(xs, p):
    return xs[min(len(xs) - 1, int(p * (len(xs) - 1)))]

def wire(name):
    m = re.search(r"wire \S+ to host \S+: one-way latency (\S+) \(min (\S+), jitter (\S+), (\d+) probes\)",
                  open(f"{out}/{name}.log").read())
    if not m:
        sys.exit(f"cross_host_link.sh: no wire measurement in {name}.log")
    us = lambda s: float(s[:-2]) * (1000 if s.endswith("ms") else 1) if s.endswith("s") else float(s)
    return {"one_way_us": us(m[1]), "min_us": us(m[2]), "jitter_us": us(m[3]), "probes": int(m[4])}

two, one = rtts("ping-two-hosts.txt"), rtts("ping-one-host.txt")
if not two or not one:
    sys.exit("cross_host_link.sh: a ping run got no reply")
res = {"delay": delay, "rate_bps": rate_bps, "wire_a": wire("a"), "wire_b": wire("b")}
for k, xs in (("ping_two_hosts", two), ("ping_one_host", one)):
    res[k] = {"replies": len(xs), **summary(k.replace("_", "-") + ".txt"),
              "p10_ms": q(xs, 0.1), "p50_ms": q(xs, 0.5), "p90_ms": q(xs, 0.9)}
two_avg, one_avg = res["ping_two_hosts"]["avg_ms"], res["ping_one_host"]["avg_ms"]
res["wire_adds_per_direction_us"] = (two_avg - one_avg) / 2 * 1000
res["jitter_bound_us"] = max(res["wire_a"]["jitter_us"], res["wire_b"]["jitter_us"]) + 50

# Rate: link frame bytes = captured frame length (Ethernet header + IP datagram) between
# the first and the last arrival.
arr = []
for line in open(f"{out}/d-arrivals.txt"):
    t, n = line.split()
    # iperf3's datagrams only (it also sends a 4-byte hello and a last message).
    if n == "1400":
        arr.append((float(t), int(n)))
if len(arr) < 100:
    sys.exit(f"cross_host_link.sh: only {len(arr)} datagrams captured at D")
frame = arr[0][1] + 8 + 20 + 14  # UDP payload + UDP + IPv4 + Ethernet
span = arr[-1][0] - arr[0][0]
bits = (len(arr) - 1) * frame * 8
res["rate"] = {"frames": len(arr), "frame_bytes": frame, "span_s": span,
               "measured_bps": bits / span, "error_pct": (bits / span / rate_bps - 1) * 100}
json.dump(res, open(f"{out}/summary.json", "w"), indent=1)
w = res["wire_a"], res["wire_b"]
lines = [
    f"wire one-way latency (median / min / jitter), a's probes: {w[0]['one_way_us']:g} / {w[0]['min_us']:g} / {w[0]['jitter_us']:g} us; b's: {w[1]['one_way_us']:g} / {w[1]['min_us']:g} / {w[1]['jitter_us']:g} us",
    "ping RTT min / avg / mdev; p10 / p50 / p90 (ms), link delay " + delay + " each way:",
    *(f"  {k}: {res[k]['replies']} replies, {res[k]['min_ms']:.3f} / {res[k]['avg_ms']:.3f} / {res[k]['mdev_ms']:.3f}; {res[k]['p10_ms']:.2f} / {res[k]['p50_ms']:.2f} / {res[k]['p90_ms']:.2f}"
      for k in ("ping_two_hosts", "ping_one_host")),
    f"the wire adds per direction (half the difference of the averages): {res['wire_adds_per_direction_us']:.0f} us; bound (wire jitter + 50 us): {res['jitter_bound_us']:g} us",
    f"rate: {len(arr)} frames of {frame} bytes over {span:.4f} s: {res['rate']['measured_bps'] / 1e6:.4f} Mbit/s against {rate_bps / 1e6:g} ({res['rate']['error_pct']:+.3f} %)",
]
open(f"{out}/summary.txt", "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
EOF
echo "cross_host_link.sh: data in $out"
