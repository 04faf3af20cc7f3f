// SPDX-License-Identifier: GPL-2.0-only
// Test support for in-memory AF_XDP sockets (XskSocket::createInMemory): plays the
// kernel's part on their rings so that the worker can be tested and benchmarked
// without an interface. Not part of the production library.
#pragma once

#include <cstdint>
#include <functional>

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

}  // namespace fastpath
