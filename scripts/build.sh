#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Configures and builds into ./build (incremental on re-run): everything, or only the
# targets given (scripts/demo.sh builds `fp-demo`).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${FP_BUILD_DIR:-$top/build}
cmake -S "$top" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=${FP_BUILD_TYPE:-RelWithDebInfo} >/dev/null
targets=()
for t in "$@"; do targets+=(--target "$t"); done
cmake --build "$build" -j"$(nproc)" "${targets[@]}"
