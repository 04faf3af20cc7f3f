// SPDX-License-Identifier: GPL-2.0-only
#include "worker/rt_budget.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace fastpath {

std::string RtBandwidth::text() const {
  if (!limited()) return "unlimited";
  return std::to_string(runtime_ns / 1000) + " of " + std::to_string(period_ns / 1000) + " us";
}

RtBandwidth parseRtBandwidth(const std::string& runtime_us, const std::string& period_us) {
  RtBandwidth bw;
  char* end = nullptr;
  const long long rt = std::strtoll(runtime_us.c_str(), &end, 10);
  if (end == runtime_us.c_str()) return bw;
  const long long per = std::strtoll(period_us.c_str(), &end, 10);
  if (end == period_us.c_str() || per <= 0 || rt < 0) return bw;  // -1: unlimited
  bw.runtime_ns = uint64_t(rt) * 1000;
  bw.period_ns = uint64_t(per) * 1000;
  bw.unlimited = false;
  return bw;
}

RtBandwidth readRtBandwidth(const std::string& dir) {
  auto slurp = [](const std::string& path) {
    std::ifstream f(path);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
  };
  return parseRtBandwidth(slurp(dir + "/sched_rt_runtime_us"), slurp(dir + "/sched_rt_period_us"));
}

const char* stallKindName(StallKind k) {
  switch (k) {
    case StallKind::kNone: return "none";
    case StallKind::kRtThrottled: return "rt_throttled";
    case StallKind::kOther: return "other";
  }
  return "?";
}

StallKind classifyStall(uint64_t gap_ns, uint64_t waited_ns, bool realtime,
                        const RtBandwidth& bw) {
  if (gap_ns < kStallMinNs) return StallKind::kNone;
  // Known to have waited for a CPU for less than half the gap: the worker ran (a long
  // pass) or slept; not a stop imposed on it.
  if (waited_ns != ~0ull && waited_ns < gap_ns / 2) return StallKind::kNone;
  if (realtime && bw.limited() && gap_ns <= bw.stopNs() + kStallMinNs)
    return StallKind::kRtThrottled;
  return StallKind::kOther;
}

RtBudgetGuard::RtBudgetGuard(const RtBandwidth& bw) {
  if (!bw.limited() || bw.runtime_ns < kCapacityNs + kMarginNs + kSlotNs) return;
  period_ = bw.period_ns;
  fill_ = bw.runtime_ns - kCapacityNs - kMarginNs;
  enabled_ = true;
}

bool RtBudgetGuard::sample(uint64_t now_ns, uint64_t rt_ns) {
  if (!enabled_) return true;
  int64_t add = 0;
  if (started_ && now_ns > last_) {
    // Elapsed time at the fill rate; a gap beyond the period fills the bucket anyway.
    const uint64_t dt = std::min(now_ns - last_, period_);
    add = int64_t((unsigned __int128)dt * fill_ / period_);
  }
  started_ = true;
  last_ = std::max(last_, now_ns);
  // The use since the last sample came while the bucket filled: capped after both (a cap
  // before would lose the fill the use spent). Bounded below: the CPU's other real-time
  // work alone may exceed the fill, and the worker should not owe that for long.
  tokens_ = std::clamp<int64_t>(tokens_ + add - int64_t(rt_ns), -int64_t(kCapacityNs),
                                int64_t(kCapacityNs));
  if (allow_ && tokens_ < int64_t(kReserveNs))
    allow_ = false;
  else if (!allow_ && tokens_ >= int64_t(kReserveNs + kHysteresisNs))
    allow_ = true;
  return allow_;
}

bool parseSchedstat(const char* text, uint64_t* run_ns, uint64_t* wait_ns) {
  unsigned long long r, w;
  if (std::sscanf(text, "%llu %llu", &r, &w) != 2) return false;
  *run_ns = r;
  *wait_ns = w;
  return true;
}

}  // namespace fastpath
