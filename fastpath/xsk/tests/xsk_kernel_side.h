// SPDX-License-Identifier: GPL-2.0-only
// Test support for in-memory AF_XDP sockets (XskSocket::createInMemory): plays the
// kernel's part on their rings so that the worker can be tested and benchmarked
// without an interface. Not part of the production library.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "xsk/xsk_port.h"

namespace fastpath {

// The kernel's side of an in-memory socket's rings (createInMemory);
// benchmarks; the kernel does the same on a real socket (consume fill, produce RX; consume
// TX, produce completions).

/// Moves up to `max` frames fill -> RX: for each fill address `a`, `write(umem_addr)`
/// stores the frame at umem_addr = a + `headroom` (metadata in front of it, as after
/// bpf_xdp_adjust_meta) and returns its length. Returns the frames moved.
uint32_t kernelReceive(XskSocket& s, uint32_t max, uint32_t headroom,
                       const std::function<uint32_t(uint64_t umem_addr)>& write);
/// Moves up to `max` descriptors TX -> completion, calling `sent` (may be empty) with each
/// before its address is completed. Returns the descriptors moved.
uint32_t kernelTransmit(XskSocket& s, uint32_t max,
                        const std::function<void(const xdp_desc&)>& sent = {});

/// A UMEM made with `umem_options` and two in-memory sockets on it, ports 0 (`in`) and 1 (`out`),
/// with RX and TX rings of `rx_size` and `tx_size`: a worker's rings with the kernel's side
/// played by the caller. `umem` is null, and there are no sockets, when the UMEM cannot be
/// mapped. `area`, `in` and `out` stay valid after the UMEM and sockets move into a worker.
struct InMemoryPorts {
  InMemoryPorts(const UmemOptions& umem_options, uint32_t rx_size, uint32_t tx_size);
  std::unique_ptr<Umem> umem;
  std::vector<std::unique_ptr<XskSocket>> sockets;
  Umem* area = nullptr;
  XskSocket* in = nullptr;
  XskSocket* out = nullptr;
};

}  // namespace fastpath
