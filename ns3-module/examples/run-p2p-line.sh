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
source "$(dirname "${BASH_SOURCE[0]}")/emulation-runner.sh"

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
fp_binaries run-p2p-line.sh p2p-line fp_ns3_p2p_line
line="$example"
if [[ $emulated == 0 ]]; then
  exec "$line" "$@"
fi
fp_start_fastpathd run-p2p-line.sh p2pline

# fastpathd accepts 256 connections per process of its --socket-uid user (an operator):
# the helper's own and one per ns-3 node. A longer line runs as root.
nodes=4
for a in "$@"; do [[ "$a" == --nodes=* ]] && nodes="${a#--nodes=}"; done
fp_as_nobody
if (( nodes > 255 )); then
  echo "run-p2p-line.sh: $nodes nodes need $((nodes + 1)) connections to fastpathd;" \
       "an operator's process may hold 256: running p2p-line as root" >&2
  as_nobody=()
fi
"${as_nobody[@]}" "$line" --FastPathEmulation=1 --FastPathSocket="$dir/fastpathd.sock" "$@"
