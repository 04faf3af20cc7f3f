#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Configures and builds everything into ./build (incremental on re-run).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${FP_BUILD_DIR:-$top/build}
cmake -S "$top" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=${FP_BUILD_TYPE:-RelWithDebInfo} >/dev/null
cmake --build "$build" -j"$(nproc)"
