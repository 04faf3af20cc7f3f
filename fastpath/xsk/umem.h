// SPDX-License-Identifier: GPL-2.0-only
// One UMEM: the packet memory a worker shares between the AF_XDP sockets of all the ports
// it serves, so a frame received on one port is sent on another by moving its descriptor.
#pragma once

#include <xdp/xsk.h>

#include <cstdint>
#include <memory>

#include "fastpath/result.h"
#include "xsk/frame_pool.h"

namespace fastpath {

struct UmemOptions {
  uint32_t frames = 8192;      ///< frames in the UMEM (power of two not required)
  uint32_t frame_size = 4096;  ///< XSK_UMEM__DEFAULT_FRAME_SIZE; 2048 also valid
  uint32_t fill_size = 2048;   ///< fill ring of each socket (power of two)
  uint32_t comp_size = 2048;   ///< completion ring of each socket (power of two)
};

class Umem {
 public:
  /// Maps the packet area and registers it (creates the first AF_XDP socket fd). Needs
  /// CAP_NET_RAW; touches no interface.
  static Result<std::unique_ptr<Umem>> create(const UmemOptions& options);
  /// The same packet area and frame pool, not registered with the kernel (handle() is
  /// null): for sockets made with XskSocket::createInMemory (benchmarks, tests).
  static Result<std::unique_ptr<Umem>> createInMemory(const UmemOptions& options);
  ~Umem();
  Umem(const Umem&) = delete;
  Umem& operator=(const Umem&) = delete;

  xsk_umem* handle() { return umem_; }
  uint8_t* area() { return area_; }
  uint8_t* data(uint64_t addr) { return area_ + addr; }
  const UmemOptions& options() const { return options_; }
  uint64_t size() const { return uint64_t(options_.frames) * options_.frame_size; }
  FramePool& pool() { return pool_; }

  /// The rings registered with the UMEM itself; libxdp copies them into the first socket's
  /// own fill/completion structs (xsk_socket__create_shared), so they are only placeholders.
  xsk_ring_prod* initialFill() { return &fill0_; }
  xsk_ring_cons* initialComp() { return &comp0_; }
  /// Forgets the libxdp handle without deleting it (after a failed first bind, where
  /// libxdp already closed its fd). Only for the zero-copy probe.
  void abandonHandle() { umem_ = nullptr; }

 private:
  Umem() = default;
  static Result<std::unique_ptr<Umem>> map(const UmemOptions& options);
  UmemOptions options_;
  uint8_t* area_ = nullptr;
  xsk_umem* umem_ = nullptr;
  xsk_ring_prod fill0_{};
  xsk_ring_cons comp0_{};
  FramePool pool_;
};

}  // namespace fastpath
