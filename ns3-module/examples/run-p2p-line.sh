#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# run-p2p-line.sh: the p2p-line example emulated by fastpathd in one command (as root).
# Starts fastpathd in a scratch namespace (its one port an idle veth: fastpathd needs one
# to start; the script's nodes and links are created by the script), runs p2p-line as
# nobody with --FastPathEmulation=1 (it prints its report), and removes the namespace,
# fastpathd and the scratch directory on any exit. --simulated runs p2p-line alone.
#
#   sudo ns3-module/examples/run-p2p-line.sh [--build-dir DIR] [--simulated] [-- P2P-LINE ARGS]
#
# e.g. sudo ns3-module/examples/run-p2p-line.sh -- --nodes=6 --duration=25
set -euo pipefail

build=build
emulated=1
while [[ $# -gt 0 ]]; do
  case "$1" in
    --build-dir) build="$2"; shift 2 ;;
    --simulated) emulated=0; shift ;;
    --) shift; break ;;
    -h|--help) sed -n '3,12p' "$0"; exit 0 ;;
    *) echo "run-p2p-line.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done
line="$build/ns3-module/examples/p2p-line"
fpd="$build/fastpathd/fastpathd"
[[ -x "$line" && -x "$fpd" ]] || {
  echo "run-p2p-line.sh: build fastpathd and fp_ns3_p2p_line in $build first" \
       "(cmake --build $build --target fastpathd fp_ns3_p2p_line)" >&2
  exit 2
}
if [[ $emulated == 0 ]]; then
  exec "$line" "$@"
fi
[[ $(id -u) == 0 ]] || { echo "run-p2p-line.sh: emulated needs root (fastpathd)" >&2; exit 2; }

ns="fp-p2pline-$$"
dir=$(mktemp -d /tmp/fp-p2pline-XXXXXX)
chmod 755 "$dir"
fpd_pid=""
cleanup() {
  [[ -n "$fpd_pid" ]] && kill "$fpd_pid" 2>/dev/null && wait "$fpd_pid" 2>/dev/null || true
  ip netns del "$ns" 2>/dev/null || true
  rm -rf "$dir"
}
trap cleanup EXIT INT TERM

ip netns add "$ns"
ip -n "$ns" link set lo up
ip -n "$ns" link add idle0 type veth peer name idle1
ip -n "$ns" link set idle0 up
ip -n "$ns" link set idle1 up
ip netns exec "$ns" "$fpd" --port idle0 --socket "$dir/fastpathd.sock" \
  --socket-uid "$(id -u nobody)" >"$dir/fastpathd.log" 2>&1 &
fpd_pid=$!
for _ in $(seq 50); do [[ -S "$dir/fastpathd.sock" ]] && break; sleep 0.1; done
[[ -S "$dir/fastpathd.sock" ]] || { cat "$dir/fastpathd.log" >&2; exit 1; }

# fastpathd accepts 256 connections per process of its --socket-uid user (an operator):
# the helper's own and one per ns-3 node. A longer line runs as root.
nodes=4
for a in "$@"; do [[ "$a" == --nodes=* ]] && nodes="${a#--nodes=}"; done
as_nobody=(setpriv --reuid=nobody --regid=nogroup --clear-groups)
"${as_nobody[@]}" test -x "$line" || as_nobody=()
if (( nodes > 255 )); then
  echo "run-p2p-line.sh: $nodes nodes need $((nodes + 1)) connections to fastpathd;" \
       "an operator's process may hold 256: running p2p-line as root" >&2
  as_nobody=()
fi
"${as_nobody[@]}" "$line" --FastPathEmulation=1 --FastPathSocket="$dir/fastpathd.sock" "$@"
