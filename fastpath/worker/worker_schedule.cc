// SPDX-License-Identifier: GPL-2.0-only
// When a worker runs: its thread (CPU pinning, name), its real-time priority relative to
// the NAPI threads that fill its RX rings (fixed, or adaptive under overload), and the
// loop around pollOnce() that spins while there is work and sleeps in poll() when idle
// (for an emulated arrival: until its WakeMargin before it).
// The per-batch work itself is in worker_forward.cc.
#include <poll.h>
#include <pthread.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>
#include <sched.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "fastpath/log.h"
#include "fastpath/monotonic_clock.h"
#include "worker/worker.h"

namespace fastpath {

Status Worker::start() {
  // Fill the fill rings before the thread exists (thread creation orders these writes
  // before the worker's), so frames arriving as soon as start() returns find room.
  for (PortId p = 0; p < np_; ++p)
    if (sock_[p]) refill(p);
  publishAccounting();
  rt_bw_ = readRtBandwidth();
  rt_guard_ = RtBudgetGuard(rt_bw_);
  thread_ = std::thread([this] { run(); });
  if (options_.cpu >= 0) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(options_.cpu, &set);
    int err = pthread_setaffinity_np(thread_.native_handle(), sizeof(set), &set);
    if (err) {
      stop();
      return makeError(-err, "worker " + std::to_string(options_.index) + ": pinning to CPU " +
                                 std::to_string(options_.cpu) + " failed: " + std::strerror(err));
    }
  }
  if (options_.rt_priority > 0) {
    if (auto st = setRtPriority(options_.rt_priority); !st) {
      stop();
      return st;
    }
  }
  std::string name = "fp-worker-" + std::to_string(options_.index);
  pthread_setname_np(thread_.native_handle(), name.c_str());
  return {};
}

Status Worker::setRtPriority(int priority, int below) {
  if (!thread_.joinable()) return makeError(-ESRCH, "worker not running");
  // Above the NAPI threads that fill our RX rings: woken by the kernel as soon as frames
  // are there, the worker drains them instead of being starved by the receive work
  // (livelock); it sleeps in poll() when idle, which hands the CPU back. Adaptive
  // (`below`): under NAPI until the RX ring fills up (see run()).
  if (below >= priority) below = 0;
  const int now = below > 0 ? below : priority;
  sched_param sp{};
  sp.sched_priority = now;
  int err = pthread_setschedparam(thread_.native_handle(), now > 0 ? SCHED_FIFO : SCHED_OTHER, &sp);
  if (err)
    return makeError(-err, "worker " + std::to_string(options_.index) + ": scheduling priority " +
                               std::to_string(now) + " refused: " + std::strerror(err));
  rt_.store(priority, std::memory_order_relaxed);
  rt_below_.store(below, std::memory_order_relaxed);
  rt_set_gen_.fetch_add(1, std::memory_order_release);
  return {};
}

void Worker::adaptRtPriority(int below) {
  // The fullest RX ring decides. Over 3/4 full: NAPI (above us) fills it faster than we
  // drain it, i.e. overload, where a worker under NAPI would only get the CPU NAPI leaves
  // (receive livelock): go above NAPI. Back under it once the rings stayed under 1/4 for
  // the hold time: while above NAPI the worker drains each NAPI batch at once, so the
  // level says nothing about the load. The hold starts at 100 ms and doubles (up to 6.4 s)
  // each time a boost follows the previous unboost within one hold — a sustained overload,
  // where every return under NAPI costs a starved period until the worker runs again to
  // notice; an isolated burst resets it. Two syscalls per boost, none otherwise.
  constexpr uint64_t kHoldMinNs = 100'000'000, kHoldMaxNs = 6'400'000'000;
  // Full means full of what the worker lends for RX (RxBudget), not of the ring's entries.
  uint32_t level = 0, size = 0;
  for (PortId p = 0; p < np_; ++p) {
    const XskSocket* s = sock_[p];
    if (!s) continue;
    level = std::max(level, ringLevel(s->rx));
    size = std::max(size, std::min(s->rx.size, rx_budget_.target()));
  }
  if (!rt_hold_ns_) rt_hold_ns_ = kHoldMinNs;
  bool boost;
  if (rt_boosted_) {
    if (level > size / 4) rt_hot_until_ns_ = now_ns_ + rt_hold_ns_;
    boost = now_ns_ < rt_hot_until_ns_;
  } else {
    boost = level >= size - size / 4;
    if (boost) {
      rt_hold_ns_ = now_ns_ - rt_unboost_ns_ < rt_hold_ns_ ? std::min(2 * rt_hold_ns_, kHoldMaxNs)
                                                           : kHoldMinNs;
      rt_hot_until_ns_ = now_ns_ + rt_hold_ns_;
    }
  }
  if (boost == rt_boosted_) return;
  sched_param sp{};
  sp.sched_priority = boost ? rt_.load(std::memory_order_relaxed) : below;
  if (sp.sched_priority <= 0) return;
  if (const int err = pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp); err) {
    // Refused once, refused every loop: stop adapting rather than retry a syscall per pass.
    pr_warn("worker %u: SCHED_FIFO %d refused (%s); adaptive priority off", options_.index,
            sp.sched_priority, std::strerror(err));
    rt_below_.store(0, std::memory_order_relaxed);
    return;
  }
  rt_boosted_ = boost;
  if (boost)
    counters_.rt_boosts.add(1);
  else
    rt_unboost_ns_ = now_ns_;
}

void Worker::stop() {
  stop_.store(true, std::memory_order_release);
  if (wake_fd_ >= 0) {
    const uint64_t one = 1;
    if (write(wake_fd_, &one, sizeof(one)) < 0) {
      // The counter is full only if nobody ever read it: the worker is awake anyway.
    }
  }
  if (thread_.joinable()) thread_.join();
}

void Worker::run() {
  EpochReader reader(epoch_, "worker " + std::to_string(options_.index));
  if (!reader.ok()) {
    pr_err("worker %u: no epoch reader slot left; not forwarding", options_.index);
    return;
  }
  std::vector<pollfd> pfds;
  auto pollSet = [&] {
    pfds.clear();
    for (PortId p = 0; p < np_; ++p)
      if (sock_[p]) pfds.push_back({sock_[p]->fd(), POLLIN, 0});
    if (wake_fd_ >= 0) pfds.push_back({wake_fd_, POLLIN, 0});
    ports_changed_ = false;
  };
  pollSet();
  // Emulated links wake the worker at their frames' arrival times: the default 50 us of
  // timer slack would be the emulation's error.
  prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
  uint32_t idle = 0;
  uint64_t last_work_ns = 0;
  uint64_t spin_mark = 0;  // the previous pass spun for an arrival: when it started
  // Stalls (watchRt): the previous pass's start when no sleep came between, or how late
  // the last sleep's timeout woke the worker.
  uint64_t prev_pass_ns = 0, woke_late_ns = 0;
  while (!stop_.load(std::memory_order_relaxed)) {
    bool pending = false;
    const uint32_t work = pollOnce(&pending);
    watchRt(prev_pass_ns ? now_ns_ - prev_pass_ns : woke_late_ns);
    prev_pass_ns = now_ns_;
    woke_late_ns = 0;
    if (const int below = rt_below_.load(std::memory_order_relaxed); below > 0 && !rt_down_)
      adaptRtPriority(below);
    else
      rt_boosted_ = false;
    reader.quiescent();
    counters_.loops.add(1);
    if (work || pending) {
      idle = 0;
      last_work_ns = now_ns_;
      spin_mark = 0;
      counters_.busy_loops.add(1);
      continue;
    }
    // An emulated frame due sooner than the worker's wake-ups overshoot (WakeMargin):
    // wait for it awake. Farther ones are slept for, until that margin before them.
    // Over the spin budget, it sleeps at least the margin (arrivalSleepNs).
    uint64_t until_arrival = ~0ull;
    const uint64_t arrival = std::min<uint64_t>(
        emulation_.nextArrival(),
        links_ && !links_->media.empty() ? media_.nextEvent(*links_) : ~0ull);
    uint64_t now = 0;
    bool may_spin = true;
    if (arrival != ~0ull) {
      now = monotonicNs();
      until_arrival = arrival > now ? arrival - now : 0;
      if (until_arrival <= wake_margin_.ns()) {
        if (spin_mark) {
          counters_.emu_spin_ns.add(now - spin_mark);
          spin_budget_.spend(now - spin_mark);
        }
        if (until_arrival == 0 || spin_budget_.allows(now)) {
          spin_mark = now;
          idle = 0;
          continue;
        }
        may_spin = false;
        counters_.emu_spin_over_budget.add(1);
      }
    }
    spin_mark = 0;
    // Two empty passes, then the spin time (idle_spin_ns, from the last pass with work):
    // spinning takes the CPU from the NAPI thread that fills the rings when they share it.
    if (options_.idle_poll_us == 0 || options_.busy_poll ||
        (may_spin && (++idle < 2 || now_ns_ - last_work_ns < options_.idle_spin_ns)))
      continue;
    // Idle: sleep in ppoll() until a frame arrives, the next emulated arrival is near, or
    // the timeout (which bounds the delay of client frames and of stop). Offline so route
    // updates never wait for us.
    if (ports_changed_) pollSet();  // interface ports attached or detached
    reader.offline();
    counters_.idle_polls.add(1);
    uint64_t sleep_ns = uint64_t(options_.idle_poll_us) * 1000;
    const uint64_t to_arrival =
        until_arrival == ~0ull ? ~0ull : arrivalSleepNs(until_arrival, wake_margin_.ns(), may_spin);
    bool for_arrival = to_arrival <= sleep_ns;
    if (for_arrival) sleep_ns = to_arrival;
    // A frame a timed client may take early: woken for it (without spinning: the lead
    // covers the wake-up).
    if (links_) {
      if (!now) now = monotonicNs();
      if (const uint64_t early = nextEarly(now); early != ~0ull) {
        const uint64_t to_early = early > now ? early - now : 0;
        if (to_early < sleep_ns) {
          sleep_ns = to_early;
          for_arrival = false;
        }
      }
    }
    const timespec timeout{time_t(sleep_ns / 1000000000), long(sleep_ns % 1000000000)};
    const uint64_t want = (now ? now : now_ns_) + sleep_ns;
    prev_pass_ns = 0;
    const int ready = ppoll(pfds.data(), pfds.size(), &timeout, nullptr);
    if (ready > 0 && wake_fd_ >= 0 && (pfds.back().revents & POLLIN)) {
      uint64_t v;
      if (read(wake_fd_, &v, sizeof(v)) < 0) {
        // EAGAIN: another wake-up was read already; nothing to do.
      }
    }
    const uint64_t got = ready == 0 ? monotonicNs() : 0;
    if (ready == 0) woke_late_ns = got > want ? got - want : 0;
    if (ready == 0 && for_arrival) {
      // Woken by the timer for an arrival: how late, the next margin, and (if even the
      // margin did not cover it) the frame's lateness to come.
      counters_.emu_wakeups.add(1);
      counters_.emu_wake_late.add(got > want ? got - want : 0);
      wake_margin_.record(want, got);
    }
    reader.online();
  }
  closeRtFds();
  pr_debug("worker %u: stopped", options_.index);
}

}  // namespace fastpath
