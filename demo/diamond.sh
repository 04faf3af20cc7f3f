#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# diamond.sh: one ns-3 script, simulated and emulated side by side, real hosts at the ends.
#
#          b            ns3-module/examples/diamond: a, b, c, d OLSR routers, 10 Mbit/s 5 ms
#        /   \          links (FastPathPointToPointHelper), 1 % loss on direction d -> c.
#   h1 - a     d - h2   1. simulated (--FastPathEmulation=0): ns-3's ping, TCP and UDP probe
#        \   /          2. emulated (=1): the same script, fastpathd's nodes and links
#          c            3. emulated with real hosts h1, h2 (namespaces): ping and iperf3
#
# Prints OLSR convergence, the forwarded rate (TCP goodput), RTT and loss of each run, the
# comparison with the fidelity bounds, and each busy link direction as fastpathd reports
# it (fpctl link list --json: configured against measured rate and loss). fastpathd runs in
# a scratch namespace, the script as nobody; everything is removed at the end. ~2 minutes.
#
# Usage (root): diamond.sh [--build-dir DIR] [--out DIR]
# Needs: fastpathd, fpctl, fp_ns3_diamond built; iperf3 for the third run.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
build=${BUILD_DIR:-$here/../build}
out=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --build-dir) build="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    -h|--help) sed -n '3,18p' "$0"; exit 0 ;;
    *) echo "diamond.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done
[[ $(id -u) == 0 ]] || { echo "diamond.sh: needs root (fastpathd, namespaces)" >&2; exit 2; }
keep=1
if [[ -z "$out" ]]; then
  out=$(mktemp -d /tmp/fp-diamond-XXXXXX)
  keep=0
fi
status=0
/usr/bin/python3 "$here/../bench/fidelity/diamond_fidelity.py" --demo --build-dir "$build" \
  --out "$out" | grep -v '^\[' || status=$?
[[ $keep == 1 ]] && echo "results: $out/results.json, results.md, log.txt" || rm -rf "$out"
exit "$status"
