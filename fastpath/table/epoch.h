// SPDX-License-Identifier: GPL-2.0-only
// Quiescent-state-based reclamation (QSBR, the userspace-RCU flavour DPDK's rte_rcu_qsbr
// also uses). Workers announce "I hold no reference to shared tables" once per batch with
// one load and one store; the control thread publishes new data with a release store,
// calls synchronize(), and only then frees or reuses what the workers could have seen.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "fastpath/result.h"

namespace fastpath {

/// One QSBR domain. Reader slots are fixed at construction; no lock, allocation or
/// syscall on the reader side.
class EpochDomain {
 public:
  static constexpr unsigned kMaxReaders = 64;
  using ReaderId = unsigned;

  EpochDomain();
  EpochDomain(const EpochDomain&) = delete;
  EpochDomain& operator=(const EpochDomain&) = delete;

  /// Takes a reader slot (worker start-up, any thread). The reader starts online.
  /// Error when all kMaxReaders slots are taken.
  Result<ReaderId> registerReader(const std::string& name);
  /// Frees the slot; the reader must not touch shared tables afterwards.
  void unregisterReader(ReaderId id);

  /// Reader: "I hold no references taken before this call". Once per batch.
  void quiescent(ReaderId id) noexcept {
    slots_[id].seen.store(epoch_.load(std::memory_order_acquire), std::memory_order_release);
  }
  /// Reader: about to block (poll, sleep): synchronize() stops waiting for it. It must not
  /// hold references while offline.
  void offline(ReaderId id) noexcept { slots_[id].seen.store(0, std::memory_order_release); }
  /// Reader: back from blocking; must be called before touching shared tables again.
  void online(ReaderId id) noexcept {
    slots_[id].seen.store(epoch_.load(std::memory_order_acquire), std::memory_order_seq_cst);
    std::atomic_thread_fence(std::memory_order_seq_cst);
  }

  /// Control thread: waits until every registered, online reader passed a quiescent state
  /// (or went offline) after this call started. Returns false after `timeout` naming the
  /// laggard in a warning; retired callbacks then stay pending (never freed unsafely).
  /// On success also runs the callbacks retired before the call.
  bool synchronize(std::chrono::milliseconds timeout = std::chrono::milliseconds(1000));
  /// Control thread: run `fn` after the next successful synchronize().
  void retire(std::function<void()> fn);
  size_t pendingRetired() const { return retired_.size(); }

  struct Counters {
    uint64_t synchronizations = 0;  ///< successful synchronize() calls
    uint64_t timeouts = 0;          ///< synchronize() calls that gave up
    uint64_t reclaimed = 0;         ///< retired callbacks run
    unsigned readers = 0;           ///< registered readers now
  };
  Counters counters() const;
  uint64_t currentEpoch() const { return epoch_.load(std::memory_order_relaxed); }

 private:
  struct alignas(64) Slot {
    std::atomic<uint64_t> seen{0};  // 0 = offline; else the last epoch observed
    std::atomic<bool> used{false};
    std::string name;
  };

  std::atomic<uint64_t> epoch_{1};
  Slot slots_[kMaxReaders];
  std::mutex register_mutex_;  // registration only, never on the reader fast path
  std::vector<std::function<void()>> retired_;
  Counters counters_;
};

/// RAII reader registration for a worker thread.
class EpochReader {
 public:
  /// Registers with `domain`; check ok() (fails only when the domain is full).
  EpochReader(EpochDomain& domain, const std::string& name);
  ~EpochReader();
  EpochReader(const EpochReader&) = delete;
  EpochReader& operator=(const EpochReader&) = delete;
  bool ok() const { return ok_; }
  void quiescent() noexcept { domain_.quiescent(id_); }
  void offline() noexcept { domain_.offline(id_); }
  void online() noexcept { domain_.online(id_); }

 private:
  EpochDomain& domain_;
  EpochDomain::ReaderId id_ = 0;
  bool ok_ = false;
};

}  // namespace fastpath
