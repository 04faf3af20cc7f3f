// SPDX-License-Identifier: GPL-2.0-only
// The kernel's real-time bandwidth and a real-time worker's place in it. Real-time tasks on
// a CPU may run sched_rt_runtime_us of every sched_rt_period_us (950 ms of 1 s by
// default); once they have used it, the kernel stops every one of them for the rest of the
// period ("RT throttling"), and a real-time worker forwards nothing for up to 50 ms while
// frames pile up in front of it. classifyStall() names such a stop from the gap between the
// worker's passes; RtBudgetGuard keeps the real-time work on the worker's CPU under the
// budget by having the worker step down to the normal policy before it is spent.
// Pure arithmetic (the worker feeds it clock and CPU-time readings): tested in memory.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace fastpath {

/// sched_rt_runtime_us / sched_rt_period_us as the kernel applies them.
struct RtBandwidth {
  uint64_t runtime_ns = 0;
  uint64_t period_ns = 0;
  bool unlimited = true;  ///< runtime -1 (no throttling) or the files unreadable
  /// Throttling can stop real-time work at all.
  bool limited() const { return !unlimited && period_ns > runtime_ns; }
  /// The longest stop it causes: the rest of a period once the runtime is spent.
  uint64_t stopNs() const { return limited() ? period_ns - runtime_ns : 0; }
  /// "950000 of 1000000 us" or "unlimited", for messages.
  std::string text() const;
};

/// The two files' contents (microseconds, runtime -1 = unlimited). Unparsable: unlimited.
RtBandwidth parseRtBandwidth(const std::string& runtime_us, const std::string& period_us);
/// Reads <dir>/sched_rt_runtime_us and <dir>/sched_rt_period_us.
RtBandwidth readRtBandwidth(const std::string& dir = "/proc/sys/kernel");

/// A gap at least this long between two passes of a worker that had work (or between the
/// end of a sleep it asked for and the moment it ran) is a stall: the worker was runnable
/// and the CPU went to something else. Shorter ones are a scheduler tick or a batch.
constexpr uint64_t kStallMinNs = 5'000'000;

enum class StallKind {
  kNone,         ///< under kStallMinNs
  kRtThrottled,  ///< a real-time worker stopped for no longer than the throttling stops it
  kOther,        ///< anything else: preempted by other work, a normal thread's wait
};
const char* stallKindName(StallKind k);

/// What a gap of `gap_ns` while the worker was runnable (`waited_ns` of it, as the kernel
/// counted the thread's wait for a CPU; ~0 when unknown) was. A throttling stop lasts at
/// most the period less the runtime (plus a scheduler tick of tolerance) and happens only
/// to a real-time thread while throttling is on; a gap the thread itself spent running (a
/// long pass) is no stall.
StallKind classifyStall(uint64_t gap_ns, uint64_t waited_ns, bool realtime,
                        const RtBandwidth& bw);

/// Keeps the real-time CPU time on one CPU under the kernel's budget. A token bucket fed
/// samples (the real-time time used on the CPU since the previous one: the worker's own
/// while it ran real-time, its CPU's real-time NAPI threads'): it fills at the rate
/// (runtime - capacity - margin) / period up to its capacity, each sample takes its use
/// out, and the worker may run real-time until the tokens fall under a reserve (what the
/// CPU can use before the next sample comes), again once they are a hysteresis above it.
/// The use in any window of one period is then at most the capacity plus the fill, i.e.
/// under the runtime: the kernel's accounting (the runtime given back each period) never
/// throttles, at any phase of its period and after any history. A sliding sum of the last
/// period's use would not do: after a quiet period, real-time NAPI threads that go on
/// after the worker stepped down carry it over the runtime before old use leaves it.
class RtBudgetGuard {
 public:
  /// How often the worker samples (at most; a sample may come later).
  static constexpr uint64_t kSlotNs = 10'000'000;
  static constexpr uint64_t kCapacityNs = 50'000'000;
  static constexpr uint64_t kReserveNs = 3 * kSlotNs;    ///< a late sample's use
  static constexpr uint64_t kHysteresisNs = kSlotNs;
  static constexpr uint64_t kMarginNs = kSlotNs;
  explicit RtBudgetGuard(const RtBandwidth& bw = {});
  /// Throttling is on and the budget is large enough to steer: the guard acts.
  bool enabled() const { return enabled_; }
  /// One sample at `now_ns` (monotonic, not decreasing). Returns whether the worker may
  /// run real-time from now on.
  bool sample(uint64_t now_ns, uint64_t rt_ns);
  /// The bucket's level (ns of real-time time; negative: the CPU's other real-time work
  /// alone used more than the fill) and its fill per period.
  int64_t tokensNs() const { return tokens_; }
  uint64_t fillNs() const { return fill_; }
  uint64_t periodNs() const { return period_; }
  bool allowsRt() const { return allow_; }

 private:
  bool enabled_ = false;
  uint64_t fill_ = 0, period_ = 0, last_ = 0;
  bool started_ = false;
  int64_t tokens_ = int64_t(kCapacityNs);
  bool allow_ = true;
};

/// The first two fields of /proc/<tid>/schedstat: time on the CPU and time waiting for
/// it (ns). False when the text is not that.
bool parseSchedstat(const char* text, uint64_t* run_ns, uint64_t* wait_ns);

}  // namespace fastpath
