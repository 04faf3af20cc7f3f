// SPDX-License-Identifier: GPL-2.0-only
// A real-time worker and the kernel's real-time budget: stalls of the runnable worker
// counted with their reason (the kernel's RT throttling, or anything else), and the guard
// that steps the worker down to the normal policy before the real-time work on its CPU
// (the worker's own, its ports' real-time NAPI threads') spends sched_rt_runtime_us of
// a period, so the kernel never has to stop it. The arithmetic is rt_budget.h's; this file
// reads the clocks and the schedstat files and changes the policy, once per
// RtBudgetGuard::kSlotNs (10 ms) or at a stall: a pread per thread, no syscall per pass.
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>

#include "fastpath/log.h"
#include "worker/worker.h"

namespace fastpath {

namespace {

constexpr int kNoFile = -2;  // schedstat not available: stop trying
constexpr int kNormalNice = -10;

bool readSchedstat(int fd, uint64_t* run, uint64_t* wait) {
  char buf[128];
  const ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
  if (n <= 0) return false;
  buf[n] = 0;
  return parseSchedstat(buf, run, wait);
}

}  // namespace

void Worker::setRtPeers(const std::vector<int>& tids) {
  std::vector<int> t(tids.begin(), tids.begin() + std::min(tids.size(), kMaxRtPeers));
  if (t == rt_peers_ctl_) return;
  rt_peers_ctl_ = t;
  rt_peer_seq_.fetch_add(1, std::memory_order_acq_rel);  // odd: being written
  for (size_t i = 0; i < t.size(); ++i) rt_peer_tid_[i].store(t[i], std::memory_order_relaxed);
  rt_peer_n_.store(uint32_t(t.size()), std::memory_order_relaxed);
  rt_peer_seq_.fetch_add(1, std::memory_order_release);
}

void Worker::closeRtFds() {
  if (rt_self_fd_ >= 0) close(rt_self_fd_);
  rt_self_fd_ = -1;
  for (int fd : rt_peer_fd_)
    if (fd >= 0) close(fd);
  rt_peer_fd_.clear();
  rt_peer_run_.clear();
}

void Worker::checkRt(uint64_t gap_ns) {
  const uint64_t now = now_ns_;
  const bool first = rt_check_ns_ == 0;
  const uint64_t since = first ? 0 : now - rt_check_ns_;
  rt_check_ns_ = now;
  if (rt_self_fd_ == -1) {
    rt_self_fd_ = open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
    if (rt_self_fd_ < 0) rt_self_fd_ = kNoFile;
  }
  uint64_t run = 0, wait = 0;
  const bool have = rt_self_fd_ >= 0 && readSchedstat(rt_self_fd_, &run, &wait);
  const uint64_t ran = have && !first ? run - rt_self_run_ : 0;
  const uint64_t waited = have && !first ? wait - rt_self_wait_ : ~0ull;
  if (have) {
    rt_self_run_ = run;
    rt_self_wait_ = wait;
  }
  // How the worker ran since the previous check (the guard changes it only here; the
  // control thread's changes are seen below).
  const bool realtime = rt_.load(std::memory_order_relaxed) > 0 && !rt_down_.load();
  if (gap_ns >= kStallMinNs) {
    switch (classifyStall(gap_ns, waited, realtime, rt_bw_)) {
      case StallKind::kRtThrottled:
        counters_.stall_rt_throttled.add(1);
        counters_.stall_rt_throttled_ns.add(gap_ns);
        counters_.stall_max_ns.raiseTo(gap_ns);
        break;
      case StallKind::kOther:
        counters_.stall_other.add(1);
        counters_.stall_other_ns.add(gap_ns);
        counters_.stall_max_ns.raiseTo(gap_ns);
        break;
      case StallKind::kNone:
        break;
    }
  }

  // The peers' list, when the control thread changed it (sequence lock).
  const uint32_t seq = rt_peer_seq_.load(std::memory_order_acquire);
  if (!(seq & 1) && seq != rt_peer_seen_) {
    int tids[kMaxRtPeers];
    const uint32_t n = std::min<uint32_t>(rt_peer_n_.load(std::memory_order_relaxed), kMaxRtPeers);
    for (uint32_t i = 0; i < n; ++i) tids[i] = rt_peer_tid_[i].load(std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_acquire);
    if (rt_peer_seq_.load(std::memory_order_relaxed) == seq) {
      rt_peer_seen_ = seq;
      for (int fd : rt_peer_fd_)
        if (fd >= 0) close(fd);
      rt_peer_fd_.assign(n, -1);
      rt_peer_run_.assign(n, 0);
      for (uint32_t i = 0; i < n; ++i) {
        const std::string path = "/proc/" + std::to_string(tids[i]) + "/schedstat";
        rt_peer_fd_[i] = open(path.c_str(), O_RDONLY | O_CLOEXEC);
        uint64_t w;
        if (rt_peer_fd_[i] >= 0) readSchedstat(rt_peer_fd_[i], &rt_peer_run_[i], &w);
      }
    }
  }
  uint64_t peers = 0;
  for (size_t i = 0; i < rt_peer_fd_.size(); ++i) {
    uint64_t r, w;
    if (rt_peer_fd_[i] < 0 || !readSchedstat(rt_peer_fd_[i], &r, &w)) continue;
    peers += r - rt_peer_run_[i];
    rt_peer_run_[i] = r;
  }

  if (const uint32_t gen = rt_set_gen_.load(std::memory_order_acquire); gen != rt_set_seen_) {
    // The control thread set a policy (setRtPriority): it holds from now on; the guard
    // steps down again below if the budget says so.
    rt_set_seen_ = gen;
    if (rt_down_.load()) {
      setpriority(PRIO_PROCESS, 0, rt_nice_);
      rt_down_.store(false);
    }
  }
  if (rt_down_.load()) counters_.rt_guard_normal_ns.add(since);
  const bool guarded = options_.rt_guard && have && rt_guard_.enabled() &&
                       rt_.load(std::memory_order_relaxed) > 0;
  if (guarded) {
    if (first) return;  // a baseline: the CPU time before now is not this period's
    const bool allow = rt_guard_.sample(now, (realtime ? ran : 0) + peers);
    if (allow == rt_down_.load()) stepRt(allow);
  } else if (rt_down_.load()) {
    stepRt(true);  // guard off, or the worker no longer real-time: undo the step down
  }
}

void Worker::stepRt(bool realtime) {
  sched_param sp{};
  if (!realtime) {
    // setpriority(PRIO_PROCESS, 0) is the calling thread on Linux.
    errno = 0;
    const int nice = getpriority(PRIO_PROCESS, 0);
    rt_nice_ = errno ? 0 : nice;
    if (const int err = pthread_setschedparam(pthread_self(), SCHED_OTHER, &sp); err) {
      pr_warn_ratelimited("worker %u: stepping down to the normal policy refused (%s)",
                          options_.index, std::strerror(err));
      return;
    }
    // The worker still comes first among the CPU's normal threads.
    if (rt_nice_ > kNormalNice) setpriority(PRIO_PROCESS, 0, kNormalNice);
    rt_down_.store(true);
    counters_.rt_guard_steps.add(1);
    return;
  }
  rt_down_.store(false);
  setpriority(PRIO_PROCESS, 0, rt_nice_);
  const int below = rt_below_.load(std::memory_order_relaxed);
  const int prio = below > 0 && !rt_boosted_ ? below : rt_.load(std::memory_order_relaxed);
  if (prio <= 0) return;
  sp.sched_priority = prio;
  if (const int err = pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp); err)
    pr_warn_ratelimited("worker %u: back to SCHED_FIFO %d refused (%s)", options_.index, prio,
                        std::strerror(err));
}

}  // namespace fastpath
