// SPDX-License-Identifier: GPL-2.0-only
// One AF_XDP socket for one (port, queue), bound on a shared UMEM with its own fill and
// completion rings, registered in the classifier's xsks_map (libxdp never loads its own
// program: XSK_LIBXDP_FLAGS__INHIBIT_PROG_LOAD).
#pragma once

#include <linux/if_xdp.h>
#include <xdp/xsk.h>

#include <cstdint>
#include <memory>
#include <string>

#include "fastpath/result.h"
#include "xsk/umem.h"

namespace fastpath {

enum class XskMode : uint8_t { kAuto, kCopy, kZeroCopy };

struct XskOptions {
  std::string ifname;
  uint32_t queue = 0;
  uint32_t rx_size = 2048;
  uint32_t tx_size = 2048;
  XskMode mode = XskMode::kAuto;
  bool busy_poll = false;  ///< SO_PREFER_BUSY_POLL + SO_BUSY_POLL(_BUDGET)
  uint32_t busy_poll_usecs = 20;
  uint32_t busy_poll_budget = 64;
  int xsks_map_fd = -1;  ///< classifier's xsks_map; -1: do not register
};

/// Result of probing a device/queue for AF_XDP zero-copy support.
bool xskZeroCopySupported(const std::string& ifname, uint32_t queue);

class XskSocket {
 public:
  /// Creates and binds the socket. The first socket on `umem` decides the mode for all
  /// (the kernel makes shared sockets inherit it); kAuto probes zero-copy first.
  static Result<std::unique_ptr<XskSocket>> create(Umem& umem, const XskOptions& options);
  /// A socket with no kernel behind it (fd -1, flags word 0 so need_wakeup never asks for
  /// a syscall): its four rings live in memory it owns, sized options.rx_size/tx_size and
  /// `fill_size`/`comp_size` (powers of two). The caller plays the kernel with the
  /// kernel*() functions below. For benchmarks and tests of the worker's real batch code.
  static std::unique_ptr<XskSocket> createInMemory(const XskOptions& options, uint32_t fill_size,
                                                   uint32_t comp_size);
  ~XskSocket();
  XskSocket(const XskSocket&) = delete;
  XskSocket& operator=(const XskSocket&) = delete;

  int fd() const { return fd_; }
  bool zeroCopy() const { return zero_copy_; }
  const char* modeName() const { return zero_copy_ ? "zerocopy" : "copy"; }
  /// Frames the kernel transmits per sendto() in copy mode (32 unless raised).
  uint32_t txBudget() const { return tx_budget_; }
  const XskOptions& options() const { return options_; }
  /// getsockopt(XDP_STATISTICS). Safe from any thread.
  Result<xdp_statistics> statistics() const;

  // Rings: touched only by the owning worker.
  xsk_ring_cons rx{};
  xsk_ring_prod tx{};
  xsk_ring_prod fill{};
  xsk_ring_cons comp{};

 private:
  XskSocket() = default;
  struct RingMemory;
  std::unique_ptr<RingMemory> memory_;  // in-memory sockets only
  XskOptions options_;
  xsk_socket* xsk_ = nullptr;
  int fd_ = -1;
  bool zero_copy_ = false;
  uint32_t tx_budget_ = 32;
};

/// Entries currently in a ring, read from the shared producer/consumer words. Any thread
/// may call these (approximate while the ring moves; exact when it is idle).
inline uint32_t ringLevel(const xsk_ring_prod& r) {
  return __atomic_load_n(r.producer, __ATOMIC_ACQUIRE) -
         __atomic_load_n(r.consumer, __ATOMIC_ACQUIRE);
}
inline uint32_t ringLevel(const xsk_ring_cons& r) {
  return __atomic_load_n(r.producer, __ATOMIC_ACQUIRE) -
         __atomic_load_n(r.consumer, __ATOMIC_ACQUIRE);
}

}  // namespace fastpath
