#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# README command 1: install what is missing, build what the demo runs, run the default
# scenario - demo/diamond.sh: one ns-3 script (four OLSR routers in a diamond) simulated and
# emulated by fastpathd side by side, then emulated with real hosts at the ends (ping,
# iperf3); convergence, forwarded rate, link fidelity (fpctl) and the comparison.
# --olsr runs the S - R - D OLSR demo instead (demo/olsr.sh: R an ns-3 OLSR node whose data
# plane is fastpathd, beside plain ns-3 emulation); arguments after it go to olsr.sh.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/scripts/install-deps.sh"
"$top/scripts/build.sh" fp-demo
build="${FP_BUILD_DIR:-$top/build}"
if [[ "${1:-}" == "--olsr" ]]; then
  shift
  exec "$top/demo/olsr.sh" --build-dir "$build" "$@"
fi
exec "$top/demo/diamond.sh" --build-dir "$build" "$@"
