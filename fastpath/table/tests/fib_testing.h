// SPDX-License-Identifier: GPL-2.0-only
// For tests and benchmarks: a FibManager, or the process stops with the reason (a table
// that cannot even be reserved leaves nothing to test).
#pragma once

#include <cstdio>
#include <cstdlib>
#include <memory>

#include "table/fib_manager.h"

namespace fastpath::testing {

inline std::unique_ptr<FibManager> createFib(size_t max_v4_routes, size_t max_v6_routes) {
  auto fib = FibManager::create(max_v4_routes, max_v6_routes);
  if (!fib.ok()) {
    std::fprintf(stderr, "FibManager::create: %s\n", fib.error().message.c_str());
    std::abort();
  }
  return std::move(fib).value();
}

}  // namespace fastpath::testing
