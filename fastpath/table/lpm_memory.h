// SPDX-License-Identifier: GPL-2.0-only
// Zero-filled table memory for the LPM algorithms and the next-hop slots: anonymous mmap
// with MAP_NORESERVE, so only the pages a table touches are backed. Large tables ask for
// transparent huge pages (random lookups over a 64 MiB table are TLB-bound); small ones
// must not, since one touched entry would then back a whole 2 MiB page.
#pragma once

#include <cstddef>

namespace fastpath::detail {

/// Maps `bytes` of zeroed memory; nullptr on failure (errno set). `huge_pages`: request
/// transparent huge pages (best effort: THP may be disabled).
void* mapTable(size_t bytes, bool huge_pages = true);
void unmapTable(void* p, size_t bytes);
/// Requests transparent huge pages for a table mapped without them, once it has grown:
/// pages touched from then on are huge ones, the ranges already in use are collapsed.
void adviseHugePages(void* p, size_t bytes);
/// Gives the backing pages of [p, p + bytes) back to the kernel; they read as zero again.
/// Only when no reader can be looking at them.
void discardTable(void* p, size_t bytes);

}  // namespace fastpath::detail
