#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# run-aodv-demo.sh: a reactive protocol (ns-3 AODV) on the fast path.
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
# Usage (root): run-aodv-demo.sh [--build-dir DIR] [--pps N] [--seconds S]
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
build=${BUILD_DIR:-$here/../../build}
pps=20000
seconds=3
while [[ $# -gt 0 ]]; do
  case $1 in
    --build-dir) build=$2; shift 2 ;;
    --pps) pps=$2; shift 2 ;;
    --seconds) seconds=$2; shift 2 ;;
    -h|--help) sed -n '3,15p' "$0"; exit 0 ;;
    *) echo "run-aodv-demo.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
die() { echo "run-aodv-demo.sh: $*" >&2; exit 1; }
[[ $(id -u) -eq 0 ]] || die "needs root (namespaces, veth, fastpathd)"
router=$build/ns3-module/examples/aodv-router
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

tag=fp-ns3aodv-$$
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
# ns-3 verifies checksums; veth offload leaves the kernels' own packets with partial ones.
ip netns exec "$S" ethtool -K s0 tx off >/dev/null
ip netns exec "$D" ethtool -K d0 tx off >/dev/null
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
rpid=$!
pids+=($rpid)

t0=$SECONDS
ok=0
for _ in $(seq 60); do
  if ip netns exec "$S" ping -c1 -W1 198.18.2.2 >/dev/null 2>&1; then ok=1; break; fi
  sleep 0.5
done
if [[ $ok -ne 1 ]]; then
  echo "--- router:"; cat "$work/r.log"; echo "--- fastpathd:"; cat "$work/fastpathd.log"
  die "no connectivity 198.18.1.2 -> 198.18.2.2 through R after 30 s"
fi
echo "AODV: ping S -> D through R after $((SECONDS - t0))s"
echo "routes in fastpathd (learned on miss from ns-3 AODV):"
"$fpctl" -s "$sock" route show | sed 's/^/  /'
rmac=$(ip -n "$R" -br link show r0 | awk '{print $3}')
before=$(ip netns exec "$D" cat /sys/class/net/d0/statistics/rx_packets)
ip netns exec "$S" "$trafgen" --ifname s0 --src-ip 198.18.1.2 --dst-ip 198.18.2.2 \
  --dst-mac "$rmac" --pps "$pps" --duration "$seconds" >"$work/trafgen.log" 2>&1 \
  || die "fp-trafgen failed: $(cat "$work/trafgen.log")"
sleep 0.5
after=$(ip netns exec "$D" cat /sys/class/net/d0/statistics/rx_packets)
rate=$(( (after - before) / seconds ))
echo "forwarded through R (fastpathd): $rate packets/s (offered $pps)"
echo "fastpathd counters (fpctl stats; data forwarded by the workers vs sent to ns-3):"
"$fpctl" -s "$sock" stats | awk '
  /^[a-z]/ { scope = $0; sub(/:$/, "", scope); next }
  scope ~ /^port/ && $1 ~ /^(rx_packets|tx_packets|forward|to_control|from_control|punt_no_route)$/ {
    printf "  %-9s %-26s %s\n", scope, $1, $2 }'
(( rate * 2 >= pps )) || die "fastpathd forwarded less than half the offered rate"
kill "$rpid"; wait "$rpid" 2>/dev/null || true
echo "ns-3 router at exit:"; grep -E '^(resolved_routes|updates_|route)' "$work/r.report" | sed 's/^/  /'
