// SPDX-License-Identifier: GPL-2.0-only
#include "link/learning_table.h"

#include <bit>

namespace fastpath {

LearningTable::LearningTable(uint32_t capacity)
    : slots_(std::bit_ceil(capacity < 16 ? 16u : capacity)), mask_(uint32_t(slots_.size() - 1)) {}

uint64_t LearningTable::key(const uint8_t* mac, uint16_t port) {
  uint64_t m = 0;
  for (int i = 0; i < 6; ++i) m = m << 8 | mac[i];
  // port + 1: a used slot's key is never 0, even for MAC 00:00:00:00:00:00 on port 0.
  return m << 16 | uint16_t(port + 1);
}

uint32_t LearningTable::hash(uint64_t mac48) {
  uint64_t h = mac48 * 0x9e3779b97f4a7c15ull;
  return uint32_t(h >> 32);
}

bool LearningTable::learn(const uint8_t* mac, uint16_t port, uint64_t now_ns,
                          uint64_t ageing_ns) {
  const uint64_t k = key(mac, port);
  const uint64_t m = macOf(k);
  Slot* reuse = nullptr;
  for (uint32_t i = hash(m), n = 0; n <= mask_; ++i, ++n) {
    Slot& s = slots_[i & mask_];
    const uint64_t sk = s.key.load(std::memory_order_relaxed);
    if (sk == 0 || macOf(sk) == m) {
      // Its own entry (or, past the end of its probe run, the first reusable one).
      Slot& to = sk == 0 && reuse ? *reuse : s;
      to.expires.store(0, std::memory_order_relaxed);  // a reader never pairs old and new
      to.key.store(k, std::memory_order_relaxed);
      to.expires.store(now_ns + ageing_ns, std::memory_order_release);
      return true;
    }
    if (!reuse && s.expires.load(std::memory_order_relaxed) <= now_ns) reuse = &s;
  }
  if (reuse) {
    reuse->expires.store(0, std::memory_order_relaxed);
    reuse->key.store(k, std::memory_order_relaxed);
    reuse->expires.store(now_ns + ageing_ns, std::memory_order_release);
    return true;
  }
  full_.store(full_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  return false;
}

int LearningTable::lookup(const uint8_t* mac, uint64_t now_ns) const {
  const uint64_t m = macOf(key(mac, 0));
  for (uint32_t i = hash(m), n = 0; n <= mask_; ++i, ++n) {
    const Slot& s = slots_[i & mask_];
    const uint64_t sk = s.key.load(std::memory_order_relaxed);
    if (sk == 0) return -1;
    if (macOf(sk) != m) continue;
    // ns-3 keeps an entry while now < its expiration time.
    if (now_ns >= s.expires.load(std::memory_order_relaxed)) return -1;
    return int(uint16_t(sk) - 1);
  }
  return -1;
}

std::vector<LearningTable::Entry> LearningTable::entries(uint64_t now_ns) const {
  std::vector<Entry> out;
  for (const Slot& s : slots_) {
    const uint64_t exp = s.expires.load(std::memory_order_acquire);
    const uint64_t sk = s.key.load(std::memory_order_relaxed);
    if (sk == 0 || exp <= now_ns) continue;
    Entry e;
    for (int i = 0; i < 6; ++i) e.mac[i] = uint8_t(sk >> (56 - 8 * i));
    e.port = uint16_t(uint16_t(sk) - 1);
    e.expires_ns = exp;
    out.push_back(e);
  }
  return out;
}

}  // namespace fastpath
