# SPDX-License-Identifier: GPL-2.0-only
#
# lib.sh: the parts the demo/*.sh scripts share. Sourced, not run.
#
# Every demo has the same shape: S --- R --- D in three namespaces (veth s0/r0, r1/d0),
# fastpathd plus an ns-3 router in R, something routing-capable in S and D, then ping and
# fp-trafgen from S to D through R. The caller sets `build` (and its own options) before
# calling these functions; they set the variables named in their comments.

demo_name=${0##*/}

die() { echo "$demo_name: $*" >&2; exit 1; }

# common_arg ARGS...: the options every demo takes (--build-dir, --pps, --seconds, --help:
# prints lines $help_lines of the script); sets `consumed` to the number of words used.
# Anything else is an unknown argument (exit 2).
common_arg() {
  consumed=2
  case $1 in
    --build-dir) build=$2 ;;
    --pps) pps=$2 ;;
    --seconds) seconds=$2 ;;
    -h|--help) sed -n "${help_lines}p" "$0"; exit 0 ;;
    *) echo "$demo_name: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
}

# require_binaries ROUTER_NAME HINT: sets router, fastpathd, fpctl, trafgen (dies with HINT
# when one is missing) and as_sim_user/sim_owner: the ns-3 router runs unprivileged
# (nobody) when nobody can reach the build tree.
require_binaries() {
  router=$build/ns3-module/examples/$1
  fastpathd=$build/bin/fastpathd
  fpctl=$build/bin/fpctl
  trafgen=$build/bench/fp-trafgen
  local b
  for b in "$router" "$fastpathd" "$fpctl" "$trafgen"; do
    [[ -x $b ]] || die "missing $b: $2"
  done
  as_sim_user=(setpriv --reuid=nobody --regid=nogroup --clear-groups); sim_owner=nobody
  "${as_sim_user[@]}" test -x "$router" 2>/dev/null || {
    echo "note: nobody cannot run $router; running the ns-3 router as root" >&2; as_sim_user=(); sim_owner=root; }
}

# setup_workspace TAG: sets S, R, D (namespace names), work (a temporary directory) and
# pids (processes to stop), and registers the cleanup for exit, failure and Ctrl-C.
# KEEP=1 keeps $work (logs, configurations) for a look afterwards.
setup_workspace() {
  local tag=$1-$$
  S=$tag-s; R=$tag-r; D=$tag-d
  work=$(mktemp -d /tmp/$tag.XXXX)
  chmod 755 "$work"
  pids=()
  trap cleanup EXIT
  trap 'exit 130' INT TERM
}

# Stops every process in pids (TERM, then KILL after 5 s) and deletes the namespaces.
stop_all() {
  set +e
  local p
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
  [[ -n ${KEEP:-} ]] || rm -rf "$work"
}

# The namespaces and links, up, without addresses.
make_topology() {
  for n in "$S" "$R" "$D"; do ip netns add "$n"; ip -n "$n" link set lo up; done
  ip -n "$S" link add s0 type veth peer name r0 netns "$R"
  ip -n "$D" link add d0 type veth peer name r1 netns "$R"
  for x in "$S s0" "$R r0" "$R r1" "$D d0"; do set -- $x; ip -n "$1" link set "$2" up; done
  # ns-3 verifies checksums; veth offload leaves the kernels' own packets (bird's RIP
  # messages too) with partial ones: compute them in software.
  ip netns exec "$S" ethtool -K s0 tx off >/dev/null
  ip netns exec "$D" ethtool -K d0 tx off >/dev/null
}

# Starts fastpathd on r0/r1 in R, its socket open to nobody; sets sock.
start_fastpathd() {
  sock=$work/fastpathd.sock
  ip netns exec "$R" "$fastpathd" --port r0 --port r1 --socket "$sock" \
    --socket-uid "$(id -u nobody)" --socket-gid "$(getent group nogroup | cut -d: -f3)" --log-level warn >"$work/fastpathd.log" 2>&1 &
  pids+=($!)
  for _ in $(seq 100); do [[ -S $sock ]] && break; sleep 0.1; done
  [[ -S $sock ]] || die "fastpathd did not start: $(cat "$work/fastpathd.log")"
}

# start_sim_router ARGS...: the ns-3 router in fast-path mode, as the simulation user (it
# only talks to fastpathd's socket), writing $work/r.report; sets rpid.
start_sim_router() {
  install -m 644 -o "$sim_owner" /dev/null "$work/r.report" # written by the simulation
  "${as_sim_user[@]}" "$router" --socket="$sock" "$@" --report="$work/r.report" >"$work/r.log" 2>&1 &
  rpid=$!
  pids+=($rpid)
}

# wait_for_ping PING_ARGS...: pings from S (up to 60 tries, 30 s) until one answer comes
# back; sets converged_after (seconds). Fails when none does.
wait_for_ping() {
  local t0=$SECONDS
  for _ in $(seq 60); do
    if ip netns exec "$S" ping -c1 -W1 "$@" >/dev/null 2>&1; then
      converged_after=$((SECONDS - t0)); return 0
    fi
    sleep 0.5
  done
  return 1
}

router_mac() { ip -n "$R" -br link show r0 | awk '{print $3}'; }
rx_packets() { ip netns exec "$D" cat /sys/class/net/d0/statistics/rx_packets; }

# prime_fast_path SRC DST: a few packets, punted to ns-3, which forwards them and teaches
# the fast path (resolve-on-miss); the bulk then never reaches ns-3.
prime_fast_path() {
  ip netns exec "$S" "$trafgen" --ifname s0 --src-ip "$1" --dst-ip "$2" \
    --dst-mac "$(router_mac)" --pps 100 --count 5 --duration 1 >/dev/null 2>&1 || true
  sleep 1
}

# measure_rate SRC DST [TRAFGEN_ARGS...]: offers $pps for $seconds from S and prints the
# rate (packets/s) that arrived at D.
measure_rate() {
  local src=$1 dst=$2 rmac before after
  shift 2
  rmac=$(router_mac)
  before=$(rx_packets)
  ip netns exec "$S" "$trafgen" --ifname s0 --src-ip "$src" --dst-ip "$dst" \
    --dst-mac "$rmac" --pps "$pps" --duration "$seconds" "$@" >"$work/trafgen.log" 2>&1 \
    || die "fp-trafgen failed: $(cat "$work/trafgen.log")"
  sleep 0.5
  after=$(rx_packets)
  echo $(( (after - before) / seconds ))
}

# print_counters PORT_COUNTERS [FIB_COUNTERS]: the chosen fpctl stats lines (regex
# alternatives), one "scope counter value" line each.
print_counters() {
  echo "fastpathd counters (fpctl stats; data forwarded by the workers vs sent to ns-3):"
  "$fpctl" -s "$sock" stats | awk -v port="^($1)\$" -v fib="^(${2:-})\$" '
    /^[a-z]/ { scope = $0; sub(/:$/, "", scope); next }
    scope ~ /^port/ && $1 ~ port { printf "  %-9s %-26s %s\n", scope, $1, $2 }
    scope ~ /^fib/ && fib != "^()$" && $1 ~ fib { printf "  %-9s %-26s %s\n", scope, $1, $2 }'
}
