#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# run-rip-demo.sh: ns-3 RIP on the fast path between two real RIP daemons (bird2).
#
#   [S] bird2 RIP, 198.18.1.2, network 198.18.10.0/24 behind it (198.18.10.1 on lo)
#     s0 --- r0  [R] fastpathd + ns-3 RIP router (rip-router, as nobody) 198.18.1.1/198.18.2.1
#     d0 --- r1
#   [D] bird2 RIP, 198.18.2.2, network 198.18.20.0/24 behind it (198.18.20.1 on lo)
#
# No static route anywhere: S and D learn each other's networks from ns-3 RIP through R,
# R learns them from bird; resolve-on-miss puts ns-3's decisions into fastpathd.
#
# Usage (root): run-rip-demo.sh [--build-dir DIR] [--mode fastpath|plain] [--pps N] [--seconds S]
# Exit status 0 when ping passes through R and (fast path) fastpathd forwarded the traffic.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
build=${BUILD_DIR:-$here/../../build}
mode=fastpath
pps=20000
seconds=3
while [[ $# -gt 0 ]]; do
  case $1 in
    --build-dir) build=$2; shift 2 ;;
    --mode) mode=$2; shift 2 ;;
    --pps) pps=$2; shift 2 ;;
    --seconds) seconds=$2; shift 2 ;;
    -h|--help) sed -n '3,16p' "$0"; exit 0 ;;
    *) echo "run-rip-demo.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
die() { echo "run-rip-demo.sh: $*" >&2; exit 1; }
[[ $(id -u) -eq 0 ]] || die "needs root (namespaces, veth, fastpathd, bird)"
command -v bird >/dev/null || die "bird2 is not installed (apt-get install bird2)"
router=$build/ns3-module/examples/rip-router
fastpathd=$build/fastpath/fastpathd
fpctl=$build/ctrl-bridge/fpctl
trafgen=$build/bench/fp-trafgen
for b in "$router" "$fastpathd" "$fpctl" "$trafgen"; do
  [[ -x $b ]] || die "missing $b: build it first"
done

# The simulation runs unprivileged (nobody) when nobody can reach the build tree.
as_sim_user=(setpriv --reuid=nobody --regid=nogroup --clear-groups); sim_owner=nobody
"${as_sim_user[@]}" test -x "$router" 2>/dev/null || {
  echo "note: nobody cannot run $router; running the ns-3 router as root" >&2; as_sim_user=(); sim_owner=root; }

tag=fp-ns3rip-$$
S=$tag-s; R=$tag-r; D=$tag-d
work=$(mktemp -d /tmp/$tag.XXXX)
chmod 755 "$work"
pids=()
cleanup() {
  set +e
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
  for p in "${pids[@]}"; do
    for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$p" 2>/dev/null; wait "$p" 2>/dev/null
  done
  for n in "$S" "$R" "$D"; do ip netns del "$n" 2>/dev/null; done
  [[ -n ${KEEP:-} ]] || rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

for n in "$S" "$R" "$D"; do ip netns add "$n"; ip -n "$n" link set lo up; done
ip -n "$S" link add s0 type veth peer name r0 netns "$R"
ip -n "$D" link add d0 type veth peer name r1 netns "$R"
for x in "$S s0" "$R r0" "$R r1" "$D d0"; do set -- $x; ip -n "$1" link set "$2" up; done
# The kernels' UDP packets leave veth with checksum offload (partial checksums); ns-3
# verifies checksums and would drop bird's RIP messages: compute them in software.
ip netns exec "$S" ethtool -K s0 tx off >/dev/null
ip netns exec "$D" ethtool -K d0 tx off >/dev/null
ip -n "$S" addr add 198.18.1.2/24 dev s0
ip -n "$S" addr add 198.18.10.1/32 dev lo
ip -n "$D" addr add 198.18.2.2/24 dev d0
ip -n "$D" addr add 198.18.20.1/32 dev lo

bird_conf() { # name ifname network
  cat <<CONF
log "$work/bird-$1.log" all;
router id $4;
protocol device { scan time 1; }
protocol direct { ipv4; interface "$2"; }
protocol static { ipv4; route $3 blackhole; }
protocol kernel { ipv4 { import none; export filter { if proto = "static1" then reject; accept; }; }; }
protocol rip {
  ipv4 { import all; export all; };
  interface "$2" { update time 2; timeout time 12; };
}
CONF
}
bird_conf s s0 198.18.10.0/24 198.18.1.2 >"$work/bird-s.conf"
bird_conf d d0 198.18.20.0/24 198.18.2.2 >"$work/bird-d.conf"
ip netns exec "$S" bird -f -c "$work/bird-s.conf" -s "$work/bird-s.ctl" >"$work/bird-s.out" 2>&1 &
pids+=($!)
ip netns exec "$D" bird -f -c "$work/bird-d.conf" -s "$work/bird-d.ctl" >"$work/bird-d.out" 2>&1 &
pids+=($!)

if [[ $mode == fastpath ]]; then
  sock=$work/fastpathd.sock
  ip netns exec "$R" "$fastpathd" --port r0 --port r1 --socket "$sock" \
    --socket-uid "$(id -u nobody)" --socket-gid "$(getent group nogroup | cut -d: -f3)" --log-level warn >"$work/fastpathd.log" 2>&1 &
  pids+=($!)
  for _ in $(seq 100); do [[ -S $sock ]] && break; sleep 0.1; done
  [[ -S $sock ]] || die "fastpathd did not start: $(cat "$work/fastpathd.log")"
  install -m 644 -o "$sim_owner" /dev/null "$work/r.report" # written by the simulation
  "${as_sim_user[@]}" "$router" --socket="$sock" \
    --ports=r0,r1 --addresses=198.18.1.1/24,198.18.2.1/24 --duration=0 \
    --report="$work/r.report" >"$work/r.log" 2>&1 &
else
  ip netns exec "$R" "$router" --role=plain --interfaces=r0,r1 \
    --addresses=198.18.1.1/24,198.18.2.1/24 --duration=0 >"$work/r.log" 2>&1 &
fi
rpid=$!
pids+=($rpid)

t0=$SECONDS
ok=0
for _ in $(seq 60); do
  if ip netns exec "$S" ping -c1 -W1 -I 198.18.10.1 198.18.20.1 >/dev/null 2>&1; then ok=1; break; fi
  sleep 0.5
done
if [[ $ok -ne 1 ]]; then
  echo "--- S routes:"; ip -n "$S" route; echo "--- D routes:"; ip -n "$D" route
  echo "--- router:"; cat "$work/r.log"; birdc -s "$work/bird-s.ctl" show route all | head -40; tail -20 "$work/bird-s.log"
  die "no connectivity 198.18.10.1 -> 198.18.20.1 through R after 30 s"
fi
echo "RIP converged, ping behind S -> behind D through R after $((SECONDS - t0))s"
echo "S learned from ns-3 RIP:"; ip -n "$S" route show proto bird | sed 's/^/  /'
echo "D learned from ns-3 RIP:"; ip -n "$D" route show proto bird | sed 's/^/  /'
rmac=$(ip -n "$R" -br link show r0 | awk '{print $3}')
# A few packets first: punted to ns-3, which forwards them and teaches the fast path.
ip netns exec "$S" "$trafgen" --ifname s0 --src-ip 198.18.10.1 --dst-ip 198.18.20.2 \
  --dst-mac "$rmac" --pps 100 --count 5 --duration 1 >/dev/null 2>&1 || true
sleep 1
before=$(ip netns exec "$D" cat /sys/class/net/d0/statistics/rx_packets)
ip netns exec "$S" "$trafgen" --ifname s0 --src-ip 198.18.10.1 --dst-ip 198.18.20.2 \
  --dst-mac "$rmac" --pps "$pps" --duration "$seconds" >"$work/trafgen.log" 2>&1 \
  || die "fp-trafgen failed: $(cat "$work/trafgen.log")"
sleep 0.5
after=$(ip netns exec "$D" cat /sys/class/net/d0/statistics/rx_packets)
rate=$(( (after - before) / seconds ))
echo "forwarded through R ($mode): $rate packets/s (offered $pps)"
if [[ $mode == fastpath ]] && (( rate * 2 < pps )); then
  "$fpctl" -s "$sock" stats >&2; die "fastpathd forwarded less than half the offered rate"
fi
if [[ $mode == fastpath ]]; then
  echo "routes in fastpathd:"; "$fpctl" -s "$sock" route show | sed 's/^/  /'
  echo "fastpathd counters (fpctl stats; data forwarded by the workers vs sent to ns-3):"
  "$fpctl" -s "$sock" stats | awk '
    /^[a-z]/ { scope = $0; sub(/:$/, "", scope); next }
    scope ~ /^port/ && $1 ~ /^(rx_packets|tx_packets|forward|to_control|from_control|punt_no_route|punt_ttl_expired|punt_neighbour_unresolved)$/ {
      printf "  %-9s %-26s %s\n", scope, $1, $2 }
    scope ~ /^fib/ && $1 ~ /^(routes_v4|neighbours|batches_applied)$/ { printf "  %-9s %-26s %s\n", scope, $1, $2 }'
  kill "$rpid"; wait "$rpid" 2>/dev/null || true
  echo "ns-3 router at exit:"; grep -E '^(resolved_routes|updates_|route)' "$work/r.report" | sed 's/^/  /'
fi
