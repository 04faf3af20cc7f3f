#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# olsr.sh: the olsr-router scenario end to end, on veth in network namespaces.
#
#   [S] kernel 198.18.1.2 (+198.18.10.1 behind it) + ns-3 OLSR peer 198.18.1.3 (HNA 198.18.10.0/24)
#     s0 --- r0  [R] fastpathd (data plane) + ns-3 OLSR router (control plane, runs as nobody)
#                    198.18.1.1 / 198.18.2.1
#     d0 --- r1
#   [D] kernel 198.18.2.2 (+198.18.20.1 behind it) + ns-3 OLSR peer 198.18.2.3 (HNA 198.18.16.0/20)
#
# R learns the networks behind S and D only through OLSR (HNA); fastpathd forwards the data.
# With --mode plain (or both), R is the same ns-3 OLSR node as plain FdNetDevice emulation.
#
# Usage (root): olsr.sh [--build-dir DIR] [--mode fastpath|plain|both]
#                                [--pps N] [--seconds S] [--payload BYTES]
#                                [--latency-samples N]  (new destinations, default 200)
# ROUTER_ARGS="..." adds arguments to the fast-path router, e.g. any ns-3 attribute:
#   ROUTER_ARGS=--ns3::FastPathRouteMirror::BatchDelay=0ms
# Prints: convergence time, ping through R, the rate forwarded through R, fastpathd's
# counters and what ns-3 received. Cleans up namespaces and processes on exit or failure.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
help_lines=3,22
build=${BUILD_DIR:-$here/../build}
mode=both
pps=200000
seconds=5
payload=160
latency_samples=200
while [[ $# -gt 0 ]]; do
  case $1 in
    --mode) mode=$2; shift 2 ;;
    --payload) payload=$2; shift 2 ;;
    --latency-samples) latency_samples=$2; shift 2 ;;
    *) common_arg "$@"; shift "$consumed" ;;
  esac
done
case $mode in fastpath|plain|both) ;; *) echo "--mode must be fastpath, plain or both" >&2; exit 2 ;; esac

[[ $(id -u) -eq 0 ]] || die "needs root (namespaces, veth, fastpathd); the ns-3 router itself runs as nobody"
require_binaries olsr-router \
  "build it (cmake --build $build --target fp_ns3_olsr_router fastpathd fpctl fp-trafgen)"
setup_workspace fp-ns3demo

topology() {
  make_topology
  # Hosts behind the OLSR peers: the kernel owns these, ns-3 peers announce them (HNA).
  ip -n "$S" addr add 198.18.1.2/24 dev s0
  ip -n "$S" addr add 198.18.10.1/32 dev lo
  ip -n "$S" route add 198.18.16.0/20 via 198.18.1.1 src 198.18.10.1
  ip -n "$D" addr add 198.18.2.2/24 dev d0
  ip -n "$D" addr add 198.18.20.1/32 dev lo
  ip -n "$D" route add 198.18.10.0/24 via 198.18.2.1 src 198.18.20.1
}

start_peers() {
  ip netns exec "$S" "$router" --role=peer --interfaces=s0 --addresses=198.18.1.3/24 \
    --hna=198.18.10.0/24 --name=S --duration=0 --hello=0.5 --tc=1 >"$work/s.log" 2>&1 &
  pids+=($!)
  ip netns exec "$D" "$router" --role=peer --interfaces=d0 --addresses=198.18.2.3/24 \
    --hna=198.18.16.0/20 --name=D --duration=0 --hello=0.5 --tc=1 >"$work/d.log" 2>&1 &
  pids+=($!)
}

# Offers $pps for $seconds behind S -> behind D (198.18.20.2: not a local address, D's
# kernel drops it silently) and prints the rate that arrived at D.
measure() {
  prime_fast_path 198.18.10.1 198.18.20.2
  measure_rate 198.18.10.1 198.18.20.2 --payload "$payload"
}

run_fastpath() {
  echo "== R = ns-3 OLSR + fastpathd =="
  topology
  start_fastpathd
  start_peers
  start_sim_router --role=router --ports=r0,r1 \
    --addresses=198.18.1.1/24,198.18.2.1/24 --name=R --duration=0 --hello=0.5 --tc=1 \
    ${ROUTER_ARGS:-}
  wait_for_ping -I 198.18.10.1 198.18.20.1 \
    || { cat "$work/r.log" "$work/fastpathd.log" >&2; die "no connectivity through R after 30 s"; }
  echo "converged: ping 198.18.10.1 -> 198.18.20.1 through R after ${converged_after}s"
  echo "routes in fastpathd (from ns-3 OLSR):"
  "$fpctl" -s "$sock" route show | sed 's/^/  /'
  local rate
  rate=$(measure)
  echo "forwarded through R (fastpathd): $rate packets/s (offered $pps, payload $payload B)"
  (( rate * 2 >= pps )) || { "$fpctl" -s "$sock" stats >&2; die "fastpathd forwarded less than half the offered rate"; }
  print_counters \
    "rx_packets|tx_packets|forward|to_control|from_control|punt_no_route|punt_ttl_expired|punt_neighbour_unresolved" \
    "routes_v4|neighbours|batches_applied"
  # Route-change-to-fast-path latency: each new destination behind D is one decision of
  # ns-3 (a punted packet it forwards) that becomes a fastpathd entry; the module times
  # decision -> acknowledged (workers see it) for every batch.
  if (( latency_samples > 0 )); then
    local rmac i
    rmac=$(router_mac)
    for ((i = 0; i < latency_samples; i++)); do
      ip netns exec "$S" "$trafgen" --ifname s0 --src-ip 198.18.10.1 \
        --dst-ip "198.18.$((17 + i / 250)).$((1 + i % 250))" --dst-mac "$rmac" \
        --pps 1000 --count 1 --duration 1 >/dev/null 2>&1 || true
      sleep 0.02
    done
  fi
  kill "$rpid"; wait "$rpid" 2>/dev/null || true
  echo "ns-3 router at exit:"
  grep -E '^(ns3_rx_frames|olsr_routes|fastpath_routes|fastpath_neighbours|resolved_routes|updates_applied|route_latency)' "$work/r.report" | sed 's/^/  /'
  FASTPATH_RATE=$rate
  stop_all
}

run_plain() {
  echo "== R = ns-3 OLSR, plain FdNetDevice emulation (baseline) =="
  topology
  start_peers
  ip netns exec "$R" "$router" --role=plain --interfaces=r0,r1 \
    --addresses=198.18.1.1/24,198.18.2.1/24 --name=R --duration=0 --hello=0.5 --tc=1 \
    >"$work/r.log" 2>&1 &
  pids+=($!)
  wait_for_ping -I 198.18.10.1 198.18.20.1 \
    || { cat "$work/r.log" >&2; die "no connectivity through plain R after 30 s"; }
  echo "converged after ${converged_after}s"
  local rate
  rate=$(measure)
  echo "forwarded through R (plain ns-3): $rate packets/s (offered $pps, payload $payload B)"
  PLAIN_RATE=$rate
  stop_all
}

FASTPATH_RATE=; PLAIN_RATE=
[[ $mode == plain ]] || run_fastpath
[[ $mode == fastpath ]] || run_plain
if [[ -n $FASTPATH_RATE && -n $PLAIN_RATE && $PLAIN_RATE -gt 0 ]]; then
  echo "== fastpathd vs plain ns-3 emulation: $FASTPATH_RATE vs $PLAIN_RATE packets/s" \
       "($(awk -v a="$FASTPATH_RATE" -v b="$PLAIN_RATE" 'BEGIN{printf "%.1fx", a/b}')) =="
fi
