// SPDX-License-Identifier: GPL-2.0-only
#include <benchmark/benchmark.h>
BENCHMARK_MAIN();
