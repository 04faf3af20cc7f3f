#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# README command 2: install what is missing, build, run every test with ctest.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/scripts/install-deps.sh"
"$top/scripts/build.sh"
cd "${FP_BUILD_DIR:-$top/build}"
ctest --output-on-failure -j1 "$@"
