// SPDX-License-Identifier: GPL-2.0-only
#include "xsk/umem.h"

#include <sys/mman.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "fastpath/log.h"

namespace fastpath {

Result<std::unique_ptr<Umem>> Umem::map(const UmemOptions& options) {
  if (options.frames == 0 || (options.frame_size != 2048 && options.frame_size != 4096))
    return makeError(-EINVAL, "UMEM: frame size must be 2048 or 4096 and frames > 0");
  std::unique_ptr<Umem> u(new Umem());
  u->options_ = options;
  uint64_t size = u->size();
  void* area = mmap(nullptr, size, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
  if (area == MAP_FAILED)
    return makeError(-errno, "UMEM: mmap of " + std::to_string(size) + " bytes failed: " +
                                 std::strerror(errno) + " (lower --umem-frames)");
  u->area_ = static_cast<uint8_t*>(area);
  u->pool_.reset(options.frames, options.frame_size);
  return u;
}

Result<std::unique_ptr<Umem>> Umem::createInMemory(const UmemOptions& options) {
  return map(options);
}

Result<std::unique_ptr<Umem>> Umem::create(const UmemOptions& options) {
  auto mapped = map(options);
  if (!mapped.ok()) return mapped;
  std::unique_ptr<Umem> u = std::move(*mapped);
  const uint64_t size = u->size();
  xsk_umem_config cfg{};
  cfg.fill_size = options.fill_size;
  cfg.comp_size = options.comp_size;
  cfg.frame_size = options.frame_size;
  cfg.frame_headroom = 0;  // the kernel keeps XDP_PACKET_HEADROOM; fp_xdp_meta lives there
  cfg.flags = 0;
  int err = xsk_umem__create(&u->umem_, u->area_, size, &u->fill0_, &u->comp0_, &cfg);
  if (err) {
    return makeError(err, std::string("UMEM: xsk_umem__create failed: ") + std::strerror(-err) +
                              " (needs CAP_NET_RAW and locked-memory allowance)");
  }
  return u;
}

Umem::~Umem() {
  if (umem_) {
    int err = xsk_umem__delete(umem_);
    if (err) pr_warn("UMEM: xsk_umem__delete: %s", std::strerror(-err));
  }
  if (area_) munmap(area_, size());
}

}  // namespace fastpath
