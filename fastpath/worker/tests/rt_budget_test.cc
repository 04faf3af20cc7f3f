// SPDX-License-Identifier: GPL-2.0-only
// The kernel's real-time bandwidth, stall classification and RtBudgetGuard (rt_budget.h),
// in memory: the guard is run against a model of the kernel's RT throttling (rt_time
// grows with the CPU's real-time work, each period gives the runtime back, throttled once
// over it) at several period phases.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "worker/rt_budget.h"

namespace fastpath {
namespace {

constexpr uint64_t kMs = 1'000'000;

RtBandwidth defaultBw() { return parseRtBandwidth("950000\n", "1000000\n"); }

TEST(RtBandwidth, ParsesTheKernelFiles) {
  const RtBandwidth bw = defaultBw();
  EXPECT_TRUE(bw.limited());
  EXPECT_EQ(bw.runtime_ns, 950 * kMs);
  EXPECT_EQ(bw.period_ns, 1000 * kMs);
  EXPECT_EQ(bw.stopNs(), 50 * kMs);
  EXPECT_EQ(bw.text(), "950000 of 1000000 us");
  const RtBandwidth off = parseRtBandwidth("-1\n", "1000000\n");
  EXPECT_FALSE(off.limited()) << "runtime -1: no throttling";
  EXPECT_EQ(off.stopNs(), 0u);
  EXPECT_EQ(off.text(), "unlimited");
  EXPECT_FALSE(parseRtBandwidth("", "1000000").limited()) << "unreadable: nothing assumed";
  EXPECT_FALSE(parseRtBandwidth("950000", "x").limited());
  EXPECT_FALSE(parseRtBandwidth("1000000", "1000000").limited()) << "the whole period";
}

TEST(RtBandwidth, ReadsADirectory) {
  char dir[] = "/tmp/fp-rt-bw-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const std::string d = dir;
  std::ofstream(d + "/sched_rt_runtime_us") << "900000\n";
  std::ofstream(d + "/sched_rt_period_us") << "1000000\n";
  const RtBandwidth bw = readRtBandwidth(d);
  EXPECT_EQ(bw.runtime_ns, 900 * kMs);
  EXPECT_EQ(bw.stopNs(), 100 * kMs);
  std::remove((d + "/sched_rt_runtime_us").c_str());
  std::remove((d + "/sched_rt_period_us").c_str());
  rmdir(dir);
  EXPECT_FALSE(readRtBandwidth(d).limited()) << "missing files";
}

TEST(ClassifyStall, ThrottlingStopsOnlyARealTimeWorkerForAtMostTheRestOfAPeriod) {
  const RtBandwidth bw = defaultBw();
  const uint64_t unknown = ~0ull;
  EXPECT_EQ(classifyStall(kStallMinNs - 1, unknown, true, bw), StallKind::kNone);
  EXPECT_EQ(classifyStall(40 * kMs, 40 * kMs, true, bw), StallKind::kRtThrottled);
  EXPECT_EQ(classifyStall(40 * kMs, unknown, true, bw), StallKind::kRtThrottled);
  EXPECT_EQ(classifyStall(kStallMinNs, kStallMinNs, true, bw), StallKind::kRtThrottled);
  // The stop plus a tick of tolerance, not more.
  EXPECT_EQ(classifyStall(bw.stopNs() + kStallMinNs, unknown, true, bw),
            StallKind::kRtThrottled);
  EXPECT_EQ(classifyStall(bw.stopNs() + kStallMinNs + 1, unknown, true, bw), StallKind::kOther);
  EXPECT_EQ(classifyStall(40 * kMs, 40 * kMs, false, bw), StallKind::kOther)
      << "a normal thread is never throttled";
  EXPECT_EQ(classifyStall(40 * kMs, 40 * kMs, true, parseRtBandwidth("-1", "1000000")),
            StallKind::kOther)
      << "throttling off";
  EXPECT_EQ(classifyStall(40 * kMs, 2 * kMs, true, bw), StallKind::kNone)
      << "it ran (a long pass), it was not stopped";
  EXPECT_STREQ(stallKindName(StallKind::kRtThrottled), "rt_throttled");
}

TEST(RtBudgetGuard, BucketAndHysteresis) {
  RtBudgetGuard g(defaultBw());
  ASSERT_TRUE(g.enabled());
  EXPECT_EQ(g.fillNs(), 890 * kMs) << "runtime less the capacity (50 ms) and a margin (10 ms)";
  EXPECT_EQ(g.tokensNs(), int64_t(50 * kMs)) << "starts full";
  // Real-time all the time: 10 ms per 10 ms sample, 8.9 ms filled back.
  const uint64_t slot = RtBudgetGuard::kSlotNs;
  uint64_t t = 0;
  int allowed = 0;
  while (g.sample(t, slot)) {
    t += slot;
    ++allowed;
    ASSERT_LT(allowed, 200);
  }
  EXPECT_EQ(allowed, 10) << "50 - 10 - 9 x 1.1 = 30.1 ms; the 11th sample goes under 30";
  EXPECT_EQ(g.tokensNs(), int64_t(29 * kMs));
  // Stepped down (no real-time use): back at 40 ms in the bucket.
  int down = 0;
  do {
    t += slot;
    ++down;
    ASSERT_LT(down, 200);
  } while (!g.sample(t, 0));
  EXPECT_EQ(down, 2) << "29 + 2 x 8.9 ms";
  EXPECT_EQ(g.tokensNs(), int64_t(46'800'000));
  // Use while the bucket fills: net 1.1 ms per sample, not a cap before the use.
  EXPECT_TRUE(g.sample(t += slot, slot));
  EXPECT_EQ(g.tokensNs(), int64_t(45'700'000));
  // Other real-time work alone over the fill: the debt is bounded.
  for (int i = 0; i < 1000; ++i) g.sample(t += slot, 2 * slot);
  EXPECT_EQ(g.tokensNs(), -int64_t(50 * kMs));
  EXPECT_FALSE(g.allowsRt());
  // A gap of a period fills it.
  EXPECT_TRUE(g.sample(t + 1000 * kMs, 0));
  EXPECT_EQ(g.tokensNs(), int64_t(50 * kMs));
}

TEST(RtBudgetGuard, OffWithoutThrottling) {
  RtBudgetGuard g(parseRtBandwidth("-1", "1000000"));
  EXPECT_FALSE(g.enabled());
  for (int i = 0; i < 1000; ++i) EXPECT_TRUE(g.sample(uint64_t(i) * 10 * kMs, 10 * kMs));
  EXPECT_FALSE(RtBudgetGuard(parseRtBandwidth("50000", "1000000")).enabled())
      << "a budget too small to steer";
}

// The kernel's accounting (kernel/sched/rt.c): rt_time grows with the real-time work on
// the CPU; every period, at `phase`, the runtime is given back (rt_time -= min(rt_time,
// runtime)); over the runtime the CPU's real-time work is stopped until then. The worker
// wants the CPU whenever real-time NAPI threads (a share `peer` of each ms) leave it, and
// runs real-time while the guard (sampled every 10 ms, some samples missed) allows.
struct Outcome {
  uint64_t throttled_ms = 0;
  uint64_t worker_rt_ms_x100 = 0;  // the worker's real-time time, in 1/100 ms
};
Outcome simulate(bool use_guard, double peer, uint64_t phase_ms, uint64_t seconds,
                 uint64_t quiet_ms = 0) {
  const RtBandwidth bw = defaultBw();
  RtBudgetGuard guard(bw);
  Outcome o;
  const uint64_t runtime_x100 = bw.runtime_ns / kMs * 100;
  uint64_t rt_time = 0;  // 1/100 ms
  bool throttled = false, allow = true;
  uint64_t pending = 0;  // real-time use since the last sample, 1/100 ms
  const uint64_t peer_x100 = uint64_t(peer * 100);
  for (uint64_t ms = 0; ms < seconds * 1000; ++ms) {
    if (ms % 1000 == phase_ms) {
      rt_time -= std::min(rt_time, runtime_x100);
      if (throttled && rt_time < runtime_x100) throttled = false;
    }
    if (throttled) {
      ++o.throttled_ms;
    } else if (ms >= quiet_ms) {
      const uint64_t worker = allow ? 100 - peer_x100 : 0;
      o.worker_rt_ms_x100 += worker;
      rt_time += peer_x100 + worker;
      pending += peer_x100 + worker;
      if (rt_time > runtime_x100) throttled = true;
    }
    // The worker samples every 10 ms, every seventh sample missed (20 ms apart: it
    // shares the CPU with the NAPI threads).
    if (use_guard && ms % 10 == 9 && (ms / 10) % 7 != 6 && !throttled) {
      allow = guard.sample((ms + 1) * kMs, pending * kMs / 100);
      pending = 0;
    }
  }
  return o;
}

TEST(RtBudgetGuard, KeepsTheKernelFromThrottlingAtAnyPhase) {
  for (double peer : {0.0, 0.3, 0.6}) {
    for (uint64_t phase : {0u, 3u, 455u, 999u}) {
      SCOPED_TRACE("NAPI share " + std::to_string(peer) + ", period phase " +
                   std::to_string(phase) + " ms");
      const Outcome without = simulate(false, peer, phase, 20);
      EXPECT_GE(without.throttled_ms, 19u * 45) << "the model throttles an unguarded worker";
      const Outcome with = simulate(true, peer, phase, 20);
      EXPECT_EQ(with.throttled_ms, 0u);
      // It keeps most of the budget: real-time 89 % of the time (the fill), peers included.
      const double worker_share = double(with.worker_rt_ms_x100) / 100 / 20000;
      EXPECT_GT(worker_share + peer, 0.85);
      EXPECT_LT(worker_share + peer, 0.95);
    }
  }
}

TEST(RtBudgetGuard, KeepsTheKernelFromThrottlingWhenTrafficStartsAfterAQuietTime) {
  // The case a sliding sum of the last period misses: nothing leaves its window while the
  // NAPI threads go on after the worker stepped down.
  for (uint64_t quiet : {500u, 1500u, 2730u}) {
    SCOPED_TRACE("quiet for " + std::to_string(quiet) + " ms");
    EXPECT_GT(simulate(false, 0.6, 0, 10, quiet).throttled_ms, 0u);
    EXPECT_EQ(simulate(true, 0.6, 0, 10, quiet).throttled_ms, 0u);
    EXPECT_EQ(simulate(true, 0.3, 777, 10, quiet).throttled_ms, 0u);
  }
}

TEST(RtBudgetGuard, CannotHelpWhenTheOtherRealTimeWorkAloneSpendsTheBudget) {
  const Outcome o = simulate(true, 0.97, 100, 10);
  EXPECT_GT(o.throttled_ms, 0u) << "the NAPI threads alone are over 95 %";
  EXPECT_LT(o.worker_rt_ms_x100, 10000u * 100 / 20) << "and the worker stays stepped down";
}

TEST(Schedstat, ParsesRunAndWait) {
  uint64_t run = 0, wait = 0;
  ASSERT_TRUE(parseSchedstat("123456 7890 12\n", &run, &wait));
  EXPECT_EQ(run, 123456u);
  EXPECT_EQ(wait, 7890u);
  EXPECT_FALSE(parseSchedstat("", &run, &wait));
  EXPECT_FALSE(parseSchedstat("abc", &run, &wait));
}

}  // namespace
}  // namespace fastpath
