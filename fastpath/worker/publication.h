// SPDX-License-Identifier: GPL-2.0-only
// How the control thread hands a worker a new version of something it reads on every
// pass (its interface port set, its link port table): a release store of a pointer to an
// immutable object with a growing `version`; the worker adopts it at the start of a pass
// (acquire) and acknowledges the version it serves, which the control thread may wait for
// before freeing what the worker stopped using. The worker never locks.
#pragma once

#include <atomic>
#include <cstdint>

namespace fastpath {

template <typename T>  // T has a uint64_t `version`, growing with each publication
class Publication {
 public:
  /// Control thread: `t` (kept valid until the worker served a later version, or until an
  /// epoch passed after the next publish) from the worker's next pass on.
  void publish(const T* t) { latest_.store(t, std::memory_order_release); }
  /// Worker: the newest object when it is not version `serving`, else nullptr.
  const T* newer(uint64_t serving) const {
    const T* t = latest_.load(std::memory_order_acquire);
    return t && t->version != serving ? t : nullptr;
  }
  /// Worker: it serves `version` now (and no longer reads older objects).
  void serve(uint64_t version) { served_.store(version, std::memory_order_release); }
  /// Control thread: the version the worker serves.
  uint64_t served() const { return served_.load(std::memory_order_acquire); }

 private:
  std::atomic<const T*> latest_{nullptr};
  std::atomic<uint64_t> served_{0};
};

}  // namespace fastpath
