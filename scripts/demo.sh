#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# README command 1: install what is missing, build what the demo runs, run the default
# scenario — demo/olsr.sh: S — R — D in network namespaces, R an ns-3 OLSR node whose data
# plane is fastpathd, beside the same scenario with R as plain ns-3 FdNetDevice emulation.
# Extra arguments go to demo/olsr.sh (see its --help).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/scripts/install-deps.sh"
"$top/scripts/build.sh" fp-demo
exec "$top/demo/olsr.sh" --build-dir "${FP_BUILD_DIR:-$top/build}" "$@"
