#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# run-olsr-demo.sh: the olsr-router scenario end to end, on veth in network namespaces.
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
# Usage (root): run-olsr-demo.sh [--build-dir DIR] [--mode fastpath|plain|both]
#                                [--pps N] [--seconds S] [--payload BYTES]
#                                [--latency-samples N]  (new destinations, default 200)
# ROUTER_ARGS="..." adds arguments to the fast-path router, e.g. any ns-3 attribute:
#   ROUTER_ARGS=--ns3::FastPathRouteMirror::BatchDelay=0ms
# Prints: convergence time, ping through R, the rate forwarded through R, fastpathd's
# counters and what ns-3 received. Cleans up namespaces and processes on exit or failure.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
build=${BUILD_DIR:-$here/../../build}
mode=both
pps=200000
seconds=5
payload=160
latency_samples=200
while [[ $# -gt 0 ]]; do
  case $1 in
    --build-dir) build=$2; shift 2 ;;
    --mode) mode=$2; shift 2 ;;
    --pps) pps=$2; shift 2 ;;
    --seconds) seconds=$2; shift 2 ;;
    --payload) payload=$2; shift 2 ;;
    --latency-samples) latency_samples=$2; shift 2 ;;
    -h|--help) sed -n '3,22p' "$0"; exit 0 ;;
    *) echo "run-olsr-demo.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
case $mode in fastpath|plain|both) ;; *) echo "--mode must be fastpath, plain or both" >&2; exit 2 ;; esac

die() { echo "run-olsr-demo.sh: $*" >&2; exit 1; }
[[ $(id -u) -eq 0 ]] || die "needs root (namespaces, veth, fastpathd); the ns-3 router itself runs as nobody"
router=$build/ns3-module/examples/olsr-router
fastpathd=$build/fastpath/fastpathd
fpctl=$build/ctrl-bridge/fpctl
trafgen=$build/bench/fp-trafgen
for b in "$router" "$fastpathd" "$fpctl" "$trafgen"; do
  [[ -x $b ]] || die "missing $b: build it (cmake --build $build --target fp_ns3_olsr_router fastpathd fpctl fp-trafgen)"
done

# The simulation runs unprivileged (nobody) when nobody can reach the build tree.
as_sim_user=(setpriv --reuid=nobody --regid=nogroup --clear-groups); sim_owner=nobody
"${as_sim_user[@]}" test -x "$router" 2>/dev/null || {
  echo "note: nobody cannot run $router; running the ns-3 router as root" >&2; as_sim_user=(); sim_owner=root; }

tag=fp-ns3demo-$$
S=$tag-s; R=$tag-r; D=$tag-d
work=$(mktemp -d /tmp/$tag.XXXX)
chmod 755 "$work"
pids=()

stop_all() {
  set +e
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
  for p in "${pids[@]}"; do
    for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$p" 2>/dev/null; wait "$p" 2>/dev/null
  done
  pids=()
  for n in "$S" "$R" "$D"; do ip netns del "$n" 2>/dev/null; done
  set -e
}
cleanup() {
  stop_all
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

topology() {
  for n in "$S" "$R" "$D"; do ip netns add "$n"; ip -n "$n" link set lo up; done
  ip -n "$S" link add s0 type veth peer name r0 netns "$R"
  ip -n "$D" link add d0 type veth peer name r1 netns "$R"
  for x in "$S s0" "$R r0" "$R r1" "$D d0"; do set -- $x; ip -n "$1" link set "$2" up; done
  # ns-3 verifies checksums; veth offload leaves the kernels' own packets with partial ones.
  ip netns exec "$S" ethtool -K s0 tx off >/dev/null
  ip netns exec "$D" ethtool -K d0 tx off >/dev/null
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

rx_packets() { ip netns exec "$D" cat /sys/class/net/d0/statistics/rx_packets; }

# Waits until ping from behind S reaches behind D through R (OLSR converged, fast path or
# ns-3 forwarding). Prints the seconds it took.
converge() {
  local t0=$SECONDS
  for _ in $(seq 60); do
    if ip netns exec "$S" ping -c1 -W1 -I 198.18.10.1 198.18.20.1 >/dev/null 2>&1; then
      echo $((SECONDS - t0)); return 0
    fi
    sleep 0.5
  done
  return 1
}

# Offers $pps for $seconds behind S -> behind D (198.18.20.2: not a local address, D's
# kernel drops it silently) and prints the rate that arrived at D.
measure() {
  local rmac before after
  rmac=$(ip -n "$R" -br link show r0 | awk '{print $3}')
  # A few packets first: they are punted to ns-3, which forwards them and teaches the
  # fast path (resolve-on-miss); the bulk then never reaches ns-3.
  ip netns exec "$S" "$trafgen" --ifname s0 --src-ip 198.18.10.1 --dst-ip 198.18.20.2 \
    --dst-mac "$rmac" --pps 100 --count 5 --duration 1 >/dev/null 2>&1 || true
  sleep 1
  before=$(rx_packets)
  ip netns exec "$S" "$trafgen" --ifname s0 --src-ip 198.18.10.1 --dst-ip 198.18.20.2 \
    --dst-mac "$rmac" --pps "$pps" --duration "$seconds" --payload "$payload" >"$work/trafgen.log" 2>&1 \
    || die "fp-trafgen failed: $(cat "$work/trafgen.log")"
  sleep 0.5
  after=$(rx_packets)
  echo $(( (after - before) / seconds ))
}

run_fastpath() {
  echo "== R = ns-3 OLSR + fastpathd =="
  topology
  local sock=$work/fastpathd.sock
  ip netns exec "$R" "$fastpathd" --port r0 --port r1 --socket "$sock" \
    --socket-uid "$(id -u nobody)" --socket-gid "$(getent group nogroup | cut -d: -f3)" --log-level warn >"$work/fastpathd.log" 2>&1 &
  pids+=($!)
  for _ in $(seq 100); do [[ -S $sock ]] && break; sleep 0.1; done
  [[ -S $sock ]] || die "fastpathd did not start: $(cat "$work/fastpathd.log")"
  start_peers
  # The simulation needs no privilege: it only talks to fastpathd's socket.
  install -m 644 -o "$sim_owner" /dev/null "$work/r.report" # written by the simulation
  "${as_sim_user[@]}" \
    "$router" --role=router --socket="$sock" --ports=r0,r1 \
    --addresses=198.18.1.1/24,198.18.2.1/24 --name=R --duration=0 --hello=0.5 --tc=1 \
    --report="$work/r.report" ${ROUTER_ARGS:-} >"$work/r.log" 2>&1 &
  local rpid=$!
  pids+=($rpid)
  local t
  t=$(converge) || { cat "$work/r.log" "$work/fastpathd.log" >&2; die "no connectivity through R after 30 s"; }
  echo "converged: ping 198.18.10.1 -> 198.18.20.1 through R after ${t}s"
  echo "routes in fastpathd (from ns-3 OLSR):"
  "$fpctl" -s "$sock" route show | sed 's/^/  /'
  local rate
  rate=$(measure)
  echo "forwarded through R (fastpathd): $rate packets/s (offered $pps, payload $payload B)"
  (( rate * 2 >= pps )) || { "$fpctl" -s "$sock" stats >&2; die "fastpathd forwarded less than half the offered rate"; }
  echo "fastpathd counters (fpctl stats; data forwarded by the workers vs sent to ns-3):"
  "$fpctl" -s "$sock" stats | awk '
    /^[a-z]/ { scope = $0; sub(/:$/, "", scope); next }
    scope ~ /^port/ && $1 ~ /^(rx_packets|tx_packets|forward|to_control|from_control|punt_no_route|punt_ttl_expired|punt_neighbour_unresolved)$/ {
      printf "  %-9s %-26s %s\n", scope, $1, $2 }
    scope ~ /^fib/ && $1 ~ /^(routes_v4|neighbours|batches_applied)$/ { printf "  %-9s %-26s %s\n", scope, $1, $2 }'
  # Route-change-to-fast-path latency: each new destination behind D is one decision of
  # ns-3 (a punted packet it forwards) that becomes a fastpathd entry; the module times
  # decision -> acknowledged (workers see it) for every batch.
  if (( latency_samples > 0 )); then
    local rmac i
    rmac=$(ip -n "$R" -br link show r0 | awk '{print $3}')
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
  local t
  t=$(converge) || { cat "$work/r.log" >&2; die "no connectivity through plain R after 30 s"; }
  echo "converged after ${t}s"
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
