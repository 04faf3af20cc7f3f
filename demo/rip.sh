#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# rip.sh: ns-3 RIP on the fast path between two real RIP daemons (bird2).
#
#   [S] bird2 RIP, 198.18.1.2, network 198.18.10.0/24 behind it (198.18.10.1 on lo)
#     s0 --- r0  [R] fastpathd + ns-3 RIP router (rip-router, as nobody) 198.18.1.1/198.18.2.1
#     d0 --- r1
#   [D] bird2 RIP, 198.18.2.2, network 198.18.20.0/24 behind it (198.18.20.1 on lo)
#
# No static route anywhere: S and D learn each other's networks from ns-3 RIP through R,
# R learns them from bird; resolve-on-miss puts ns-3's decisions into fastpathd.
#
# Usage (root): rip.sh [--build-dir DIR] [--mode fastpath|plain] [--pps N] [--seconds S]
# Exit status 0 when ping passes through R and (fast path) fastpathd forwarded the traffic.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
help_lines=3,16
build=${BUILD_DIR:-$here/../build}
mode=fastpath
pps=20000
seconds=3
while [[ $# -gt 0 ]]; do
  case $1 in
    --mode) mode=$2; shift 2 ;;
    *) common_arg "$@"; shift "$consumed" ;;
  esac
done
[[ $(id -u) -eq 0 ]] || die "needs root (namespaces, veth, fastpathd, bird)"
command -v bird >/dev/null || die "bird2 is not installed (apt-get install bird2)"
require_binaries rip-router "build it first"
setup_workspace fp-ns3rip

make_topology
ip -n "$S" addr add 198.18.1.2/24 dev s0
ip -n "$S" addr add 198.18.10.1/32 dev lo
ip -n "$D" addr add 198.18.2.2/24 dev d0
ip -n "$D" addr add 198.18.20.1/32 dev lo

bird_conf() { # name ifname network router-id
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
  start_fastpathd
  start_sim_router --ports=r0,r1 --addresses=198.18.1.1/24,198.18.2.1/24 --duration=0
else
  ip netns exec "$R" "$router" --role=plain --interfaces=r0,r1 \
    --addresses=198.18.1.1/24,198.18.2.1/24 --duration=0 >"$work/r.log" 2>&1 &
  pids+=($!)
fi

if ! wait_for_ping -I 198.18.10.1 198.18.20.1; then
  echo "--- S routes:"; ip -n "$S" route; echo "--- D routes:"; ip -n "$D" route
  echo "--- router:"; cat "$work/r.log"; birdc -s "$work/bird-s.ctl" show route all | head -40; tail -20 "$work/bird-s.log"
  die "no connectivity 198.18.10.1 -> 198.18.20.1 through R after 30 s"
fi
echo "RIP converged, ping behind S -> behind D through R after ${converged_after}s"
echo "S learned from ns-3 RIP:"; ip -n "$S" route show proto bird | sed 's/^/  /'
echo "D learned from ns-3 RIP:"; ip -n "$D" route show proto bird | sed 's/^/  /'
prime_fast_path 198.18.10.1 198.18.20.2
rate=$(measure_rate 198.18.10.1 198.18.20.2)
echo "forwarded through R ($mode): $rate packets/s (offered $pps)"
if [[ $mode == fastpath ]]; then
  (( rate * 2 >= pps )) || { "$fpctl" -s "$sock" stats >&2; die "fastpathd forwarded less than half the offered rate"; }
  echo "routes in fastpathd:"; "$fpctl" -s "$sock" route show | sed 's/^/  /'
  print_counters \
    "rx_packets|tx_packets|forward|to_control|from_control|punt_no_route|punt_ttl_expired|punt_neighbour_unresolved" \
    "routes_v4|neighbours|batches_applied"
  kill "$rpid"; wait "$rpid" 2>/dev/null || true
  echo "ns-3 router at exit:"; grep -E '^(resolved_routes|updates_|route)' "$work/r.report" | sed 's/^/  /'
fi
