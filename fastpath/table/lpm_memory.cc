// SPDX-License-Identifier: GPL-2.0-only
#include "table/lpm_memory.h"

#include <sys/mman.h>

#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25  // Linux 6.1; older C library headers lack it
#endif

namespace fastpath::detail {

void* mapTable(size_t bytes, bool huge_pages) {
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) return nullptr;
  if (huge_pages) madvise(p, bytes, MADV_HUGEPAGE);  // best effort: THP may be disabled
  return p;
}

void adviseHugePages(void* p, size_t bytes) {
  if (!p || !bytes) return;
  // Best effort: new faults get huge pages; the 2 MiB ranges already in use are collapsed
  // now rather than whenever khugepaged gets to them (kernels before 6.1 leave that to it;
  // ranges without pages stay empty).
  madvise(p, bytes, MADV_HUGEPAGE);
  madvise(p, bytes, MADV_COLLAPSE);
}

void unmapTable(void* p, size_t bytes) {
  if (p) munmap(p, bytes);
}

void discardTable(void* p, size_t bytes) {
  if (p && bytes) madvise(p, bytes, MADV_DONTNEED);
}

}  // namespace fastpath::detail
