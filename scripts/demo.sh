#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# README command 1: install what is missing, build, run the default scenario —
# olsr-router: S — R — D in network namespaces, R an ns-3 OLSR node whose data plane is
# fastpathd, beside the same scenario with R as plain ns-3 FdNetDevice emulation.
# Extra arguments go to ns3-module/examples/run-olsr-demo.sh (see its --help).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/scripts/install-deps.sh"
"$top/scripts/build.sh"
exec "$top/ns3-module/examples/run-olsr-demo.sh" --build-dir "${FP_BUILD_DIR:-$top/build}" "$@"
