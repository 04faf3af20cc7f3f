// SPDX-License-Identifier: GPL-2.0-only
#include "table/epoch.h"

#include <cerrno>
#include <thread>

#include "fastpath/log.h"

namespace fastpath {

EpochDomain::EpochDomain() = default;

Result<EpochDomain::ReaderId> EpochDomain::registerReader(const std::string& name) {
  std::lock_guard<std::mutex> lock(register_mutex_);
  for (ReaderId id = 0; id < kMaxReaders; ++id) {
    Slot& s = slots_[id];
    if (s.used.load(std::memory_order_relaxed)) continue;
    s.name = name;
    // Online before it becomes visible as used: same ordering as online().
    s.seen.store(epoch_.load(std::memory_order_acquire), std::memory_order_seq_cst);
    s.used.store(true, std::memory_order_seq_cst);
    std::atomic_thread_fence(std::memory_order_seq_cst);
    return id;
  }
  return makeError(-ENOSPC, "epoch: cannot register reader '" + name + "': all " +
                                std::to_string(kMaxReaders) +
                                " reader slots are taken; use fewer workers");
}

void EpochDomain::unregisterReader(ReaderId id) {
  if (id >= kMaxReaders) return;
  std::lock_guard<std::mutex> lock(register_mutex_);
  slots_[id].seen.store(0, std::memory_order_release);
  slots_[id].used.store(false, std::memory_order_release);
}

bool EpochDomain::synchronize(std::chrono::milliseconds timeout) {
  // Everything published before this point (release stores) is ordered before the new
  // epoch; a reader that reports it (or later) cannot hold an older reference.
  const uint64_t target = epoch_.fetch_add(1, std::memory_order_seq_cst) + 1;
  std::atomic_thread_fence(std::memory_order_seq_cst);
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  unsigned spins = 0;
  for (ReaderId id = 0; id < kMaxReaders; ++id) {
    Slot& s = slots_[id];
    for (;;) {
      if (!s.used.load(std::memory_order_acquire)) break;
      const uint64_t seen = s.seen.load(std::memory_order_acquire);
      if (seen == 0 || seen >= target) break;
      if (++spins < 64) continue;
      if (std::chrono::steady_clock::now() >= deadline) {
        ++counters_.timeouts;
        std::lock_guard<std::mutex> lock(
            register_mutex_);  // name may be rewritten by a re-register
        pr_warn(
            "epoch: reader '%s' has not passed a quiescent state for %lld ms; %zu "
            "retired objects stay pending (is the worker stuck without going offline?)",
            s.name.c_str(), static_cast<long long>(timeout.count()), retired_.size());
        return false;
      }
      std::this_thread::yield();
    }
  }
  ++counters_.synchronizations;
  std::vector<std::function<void()>> run;
  run.swap(retired_);
  for (auto& fn : run) fn();
  counters_.reclaimed += run.size();
  return true;
}

void EpochDomain::retire(std::function<void()> fn) { retired_.push_back(std::move(fn)); }

EpochDomain::Counters EpochDomain::counters() const {
  Counters c = counters_;
  c.readers = 0;
  for (const Slot& s : slots_) c.readers += s.used.load(std::memory_order_relaxed) ? 1 : 0;
  return c;
}

EpochReader::EpochReader(EpochDomain& domain, const std::string& name) : domain_(domain) {
  auto id = domain.registerReader(name);
  if (id.ok()) {
    id_ = id.value();
    ok_ = true;
  } else {
    pr_err("%s", id.error().message.c_str());
  }
}

EpochReader::~EpochReader() {
  if (ok_) domain_.unregisterReader(id_);
}

}  // namespace fastpath
