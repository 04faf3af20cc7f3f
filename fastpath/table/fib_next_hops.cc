// SPDX-License-Identifier: GPL-2.0-only
// FibManager's next-hop slots: one FwdEntry per (kind, port, address), shared by every
// rule that points at it, republished (never modified) when its port or neighbour
// changes, and reused only once an epoch has passed since the last rule let go of it.
#include <algorithm>
#include <cstring>

#include "table/fib_internal.h"

namespace fastpath {

bool FibManager::Impl::isLocal(const IpAddress& a) const {
  std::array<uint8_t, 17> k;
  k[0] = static_cast<uint8_t>(a.family);
  std::copy(a.bytes.begin(), a.bytes.end(), k.begin() + 1);
  return local.count(k) > 0;
}

FwdEntry* FibManager::Impl::buildEntry(const NhKey& k) const {
  auto* e = new FwdEntry{};
  e->family = static_cast<uint8_t>(k.family);
  if (k.kind == NhKind::kLocal) {
    e->flags = kFwdLocal;
    return e;
  }
  e->port = k.port;
  auto pit = ports.find(k.port);
  if (pit != ports.end()) {
    std::memcpy(e->src_mac, pit->second.mac.bytes.data(), 6);
    e->mtu = static_cast<uint16_t>(std::min<uint32_t>(pit->second.mtu, 0xffff));
    if (!pit->second.up) e->flags |= kFwdPortDown;
  }
  if (k.kind == NhKind::kGlean) {
    e->flags |= kFwdGlean;
    return e;
  }
  std::memcpy(e->next_hop, k.ip.data(), 16);
  auto nit = neighbours.find(NeighbourKey{k.family, k.ip, k.port});
  if (nit != neighbours.end()) {
    std::memcpy(e->dst_mac, nit->second.bytes.data(), 6);
    e->flags |= kFwdResolved;
  }
  return e;
}

void FibManager::Impl::republish(uint32_t idx) {
  NhRecord& r = nh[idx];
  const FwdEntry* old = r.entry;
  r.entry = buildEntry(r.key);
  __atomic_store_n(&slots[idx], r.entry, __ATOMIC_RELEASE);
  if (old) retired_entries.push_back(old);
}

std::optional<uint32_t> FibManager::Impl::nhIndex(const NhKey& k) {
  auto it = nh_index.find(k);
  if (it != nh_index.end()) return it->second;
  uint32_t idx;
  if (!free_nh.empty()) {
    idx = free_nh.back();
    free_nh.pop_back();
  } else if (nh.size() < kMaxNextHops) {
    idx = static_cast<uint32_t>(nh.size());
    nh.emplace_back();
  } else {
    return std::nullopt;
  }
  nh[idx] = NhRecord{k, 0, nullptr};
  nh_index.emplace(k, idx);
  republish(idx);
  return idx;
}

void FibManager::Impl::unref(uint32_t idx) {
  if (--nh[idx].refs > 0) return;
  // Readers may still hold the index from an LPM entry: the slot stays valid until an
  // epoch has passed; only then is the index reused.
  nh_index.erase(nh[idx].key);
  retired_nh.push_back(idx);
}

NhKey FibManager::Impl::keyForRoute(const Route& r) const {
  NhKey k;
  k.port = r.port;
  k.family = r.prefix.address.family;
  if (!r.next_hop.isUnspecified()) {
    k.kind = NhKind::kAddr;
    k.ip = r.next_hop.bytes;
  } else if (r.prefix.length == maxLen(k.family)) {
    k.kind = NhKind::kAddr;  // on-link host route: the destination is the neighbour
    k.ip = r.prefix.address.bytes;
  } else {
    k.kind = NhKind::kGlean;
  }
  return k;
}

void FibManager::Impl::reclaim() {
  if (!self.epoch().synchronize()) {
    ++counters.sync_timeouts;
    return;
  }
  lpm4->releaseRetired();
  lpm6->releaseRetired();
  for (uint32_t idx : retired_nh) {
    if (nh[idx].refs != 0) continue;  // revived before reclamation (same key re-added)
    __atomic_store_n(&slots[idx], static_cast<const FwdEntry*>(nullptr), __ATOMIC_RELAXED);
    retired_entries.push_back(nh[idx].entry);
    nh[idx] = NhRecord{};
    free_nh.push_back(idx);
  }
  retired_nh.clear();
  // Entries unlinked above are unreachable from the LPM since the epoch passed.
  for (const FwdEntry* e : retired_entries) {
    // Poison before freeing: a reader that (wrongly) still held it would read garbage,
    // not a plausible stale entry; the concurrency test relies on this.
    std::memset(const_cast<FwdEntry*>(e), 0xff, sizeof *e);
    delete e;
  }
  retired_entries.clear();
  retired_lpm4.clear();
  retired_lpm6.clear();
  // A table that switched structure (Lpm4Adaptive going back to its trie, in the
  // releaseRetired() above) holds the old one for one more epoch: free it now rather than
  // at this table's next update, which may never come.
  if constexpr (requires(const Lpm4& t) { t.retiredPending(); }) {
    if (lpm4->retiredPending() && self.epoch().synchronize()) lpm4->releaseRetired();
  }
}

}  // namespace fastpath
