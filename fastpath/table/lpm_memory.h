// SPDX-License-Identifier: GPL-2.0-only
// Large zero-filled table memory for the LPM algorithms: anonymous mmap (pages are only
// backed when touched) with transparent huge pages requested, since random lookups over
// a 64 MB table are TLB-bound.
#pragma once

#include <cstddef>

namespace fastpath::detail {

/// Maps `bytes` of zeroed memory; nullptr on failure (errno set).
void* mapTable(size_t bytes);
void unmapTable(void* p, size_t bytes);

}  // namespace fastpath::detail
