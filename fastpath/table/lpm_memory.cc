// SPDX-License-Identifier: GPL-2.0-only
#include "table/lpm_memory.h"

#include <sys/mman.h>

namespace fastpath::detail {

void* mapTable(size_t bytes) {
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) return nullptr;
  madvise(p, bytes, MADV_HUGEPAGE);  // best effort: THP may be disabled
  return p;
}

void unmapTable(void* p, size_t bytes) {
  if (p) munmap(p, bytes);
}

}  // namespace fastpath::detail
