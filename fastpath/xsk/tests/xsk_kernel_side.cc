// SPDX-License-Identifier: GPL-2.0-only
#include "xsk_kernel_side.h"

#include <algorithm>

namespace fastpath {

uint32_t kernelReceive(XskSocket& s, uint32_t max, uint32_t headroom,
                       const std::function<uint32_t(uint64_t umem_addr)>& write) {
  const uint32_t fcons = *s.fill.consumer;
  const uint32_t fprod = __atomic_load_n(s.fill.producer, __ATOMIC_ACQUIRE);
  const uint32_t rprod = *s.rx.producer;
  const uint32_t rcons = __atomic_load_n(s.rx.consumer, __ATOMIC_ACQUIRE);
  const uint32_t n = std::min({max, fprod - fcons, s.rx.size - (rprod - rcons)});
  const auto* fill = static_cast<const uint64_t*>(s.fill.ring);
  auto* rx = static_cast<xdp_desc*>(s.rx.ring);
  for (uint32_t i = 0; i < n; ++i) {
    const uint64_t a = fill[(fcons + i) & s.fill.mask] + headroom;
    rx[(rprod + i) & s.rx.mask] = xdp_desc{a, write(a), 0};
  }
  __atomic_store_n(s.fill.consumer, fcons + n, __ATOMIC_RELEASE);
  __atomic_store_n(s.rx.producer, rprod + n, __ATOMIC_RELEASE);
  return n;
}

uint32_t kernelTransmit(XskSocket& s, uint32_t max,
                        const std::function<void(const xdp_desc&)>& sent) {
  const uint32_t tcons = *s.tx.consumer;
  const uint32_t tprod = __atomic_load_n(s.tx.producer, __ATOMIC_ACQUIRE);
  const uint32_t cprod = *s.comp.producer;
  const uint32_t ccons = __atomic_load_n(s.comp.consumer, __ATOMIC_ACQUIRE);
  const uint32_t n = std::min({max, tprod - tcons, s.comp.size - (cprod - ccons)});
  const auto* tx = static_cast<const xdp_desc*>(s.tx.ring);
  auto* comp = static_cast<uint64_t*>(s.comp.ring);
  for (uint32_t i = 0; i < n; ++i) {
    const xdp_desc& d = tx[(tcons + i) & s.tx.mask];
    if (sent) sent(d);
    comp[(cprod + i) & s.comp.mask] = d.addr;
  }
  __atomic_store_n(s.tx.consumer, tcons + n, __ATOMIC_RELEASE);
  __atomic_store_n(s.comp.producer, cprod + n, __ATOMIC_RELEASE);
  return n;
}

InMemoryPorts::InMemoryPorts(const UmemOptions& umem_options, uint32_t rx_size,
                             uint32_t tx_size) {
  auto u = Umem::createInMemory(umem_options);
  if (!u.ok()) return;
  umem = std::move(*u);
  area = umem.get();
  for (int p = 0; p < 2; ++p) {
    XskOptions xo;
    xo.rx_size = rx_size;
    xo.tx_size = tx_size;
    sockets.push_back(
        XskSocket::createInMemory(xo, umem_options.fill_size, umem_options.comp_size));
  }
  in = sockets[0].get();
  out = sockets[1].get();
}

}  // namespace fastpath
