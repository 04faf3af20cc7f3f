#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# aodv.sh: a reactive protocol (ns-3 AODV) on the fast path.
#
#   [S] kernel 198.18.1.2 + an ns-3 AODV peer sharing that address and MAC
#     s0 --- r0  [R] fastpathd + ns-3 AODV router (aodv-router, as nobody) 198.18.1.1/198.18.2.1
#     d0 --- r1
#   [D] kernel 198.18.2.2 + an ns-3 AODV peer sharing that address and MAC
#
# R has no route in fastpathd for S or D until traffic flows: the first packets are punted,
# ns-3 AODV forwards them (its routes come from AODV HELLOs / route discovery), and
# resolve-on-miss installs AODV's decisions; the bulk then takes the fast path.
#
# Usage (root): aodv.sh [--build-dir DIR] [--pps N] [--seconds S]
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
help_lines=3,15
build=${BUILD_DIR:-$here/../build}
pps=20000
seconds=3
while [[ $# -gt 0 ]]; do common_arg "$@"; shift "$consumed"; done
[[ $(id -u) -eq 0 ]] || die "needs root (namespaces, veth, fastpathd)"
require_binaries aodv-router "build it first"
setup_workspace fp-ns3aodv

make_topology
ip -n "$S" addr add 198.18.1.2/24 dev s0
ip -n "$S" route add 198.18.2.0/24 via 198.18.1.1
ip -n "$D" addr add 198.18.2.2/24 dev d0
ip -n "$D" route add 198.18.1.0/24 via 198.18.2.1
ip netns exec "$S" "$router" --role=peer --interfaces=s0 --addresses=198.18.1.2/24 \
  --duration=0 >"$work/s.log" 2>&1 &
pids+=($!)
ip netns exec "$D" "$router" --role=peer --interfaces=d0 --addresses=198.18.2.2/24 \
  --duration=0 >"$work/d.log" 2>&1 &
pids+=($!)

start_fastpathd
start_sim_router --ports=r0,r1 --addresses=198.18.1.1/24,198.18.2.1/24 --duration=0

if ! wait_for_ping 198.18.2.2; then
  echo "--- router:"; cat "$work/r.log"; echo "--- fastpathd:"; cat "$work/fastpathd.log"
  die "no connectivity 198.18.1.2 -> 198.18.2.2 through R after 30 s"
fi
echo "AODV: ping S -> D through R after ${converged_after}s"
echo "routes in fastpathd (learned on miss from ns-3 AODV):"
"$fpctl" -s "$sock" route show | sed 's/^/  /'
rate=$(measure_rate 198.18.1.2 198.18.2.2)
echo "forwarded through R (fastpathd): $rate packets/s (offered $pps)"
print_counters "rx_packets|tx_packets|forward|to_control|from_control|punt_no_route"
(( rate * 2 >= pps )) || die "fastpathd forwarded less than half the offered rate"
kill "$rpid"; wait "$rpid" 2>/dev/null || true
echo "ns-3 router at exit:"; grep -E '^(resolved_routes|updates_|route)' "$work/r.report" | sed 's/^/  /'
