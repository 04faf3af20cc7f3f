// SPDX-License-Identifier: GPL-2.0-only
// ns-3's CSMA backoff as a shared medium's shaper draws it: the slot windows of
// Backoff::GetBackoffTime, when a device that found its channel busy starts, and what a
// burst on a CsmaChannel then looks like (each frame after the first starts at a retry that
// overshoots the channel's idle time by a fraction of the window, never before it).
#include <gtest/gtest.h>

#include <random>

#include "link/csma_backoff.h"
#include "link/link_shaper.h"

namespace fastpath {
namespace {

constexpr uint64_t kMs = 1000000, kUs = 1000;

TEST(CsmaBackoff, SlotWindowsAreNs3s) {
  // retry 1: GetValue(1, 1) is 1; retry 2: [1, 3) -> 1 or 2; retry k: 1 .. 2^k - 2; from
  // the tenth on the window is capped at maxSlots (1000): 1 .. 999.
  for (double u : {0.0, 0.5, 0.999999}) EXPECT_EQ(CsmaBackoff::slots(1, u), 1u);
  EXPECT_EQ(CsmaBackoff::slots(2, 0.0), 1u);
  EXPECT_EQ(CsmaBackoff::slots(2, 0.49), 1u);
  EXPECT_EQ(CsmaBackoff::slots(2, 0.51), 2u);
  EXPECT_EQ(CsmaBackoff::slots(2, 0.999999), 2u);
  EXPECT_EQ(CsmaBackoff::slots(3, 0.999999), 6u);
  EXPECT_EQ(CsmaBackoff::slots(9, 0.999999), 510u);
  for (uint32_t retry : {10u, 11u, 50u, 1000u}) {
    EXPECT_EQ(CsmaBackoff::slots(retry, 0.0), 1u) << retry;
    EXPECT_EQ(CsmaBackoff::slots(retry, 0.999999), 999u) << retry;
  }
}

TEST(CsmaBackoff, ADeviceStartsAtTheFirstRetryThatFindsTheChannelIdle) {
  // An idle channel: at once, no retry.
  uint64_t at = 0;
  uint32_t retries = 7;
  auto never = []() -> double {
    ADD_FAILURE() << "no draw on an idle channel";
    return 0;
  };
  ASSERT_TRUE(CsmaBackoff::start(5000, 5000, never, &at, &retries));
  EXPECT_EQ(at, 5000u);
  EXPECT_EQ(retries, 0u);
  // Draws of 0 give the smallest window each time: 1 slot per retry, so a channel busy for
  // 3.5 us more is found idle at the fourth retry, 4 us later.
  ASSERT_TRUE(CsmaBackoff::start(1000, 4500, [] { return 0.0; }, &at, &retries));
  EXPECT_EQ(at, 5000u);
  EXPECT_EQ(retries, 4u);
  // A retry exactly at the idle time starts then (the propagation-complete event is first).
  ASSERT_TRUE(CsmaBackoff::start(0, 3000, [] { return 0.0; }, &at, &retries));
  EXPECT_EQ(at, 3000u);
  EXPECT_EQ(retries, 3u);
  // ns-3 gives the frame up after 1000 retries (TransmitAbort).
  EXPECT_FALSE(CsmaBackoff::start(0, 3600ull * 1000 * kMs, [] { return 0.5; }, &at, &retries));
  EXPECT_EQ(retries, CsmaBackoff::kMaxRetries);
}

// ns-3's process written as events, with its own random source: how long after the channel
// goes idle the device starts, averaged over many trials.
double Ns3MeanOvershoot(uint64_t busy_ns, int trials) {
  std::mt19937_64 gen(42);
  std::uniform_real_distribution<double> uni(0.0, 1.0);
  double sum = 0;
  for (int i = 0; i < trials; ++i) {
    uint64_t t = 0;
    for (uint32_t retry = 1; t < busy_ns; ++retry) {
      const uint32_t ceiling = retry > 10 ? 10 : retry;
      const double max_slot = std::min(double((1u << ceiling) - 1), 1000.0);
      t += uint64_t(1.0 + uni(gen) * (max_slot - 1.0)) * kUs;
    }
    sum += double(t - busy_ns);
  }
  return sum / trials;
}

TEST(CsmaBackoff, ABurstOnACsmaChannelOvershootsTheIdleTimeAsNs3Does) {
  // udp-trace-client-server's segment (5 Mbit/s, 2 ms): frames sent together leave one
  // transmission + delay + overshoot apart. The overshoot averages what ns-3's own process
  // gives (~0.3 ms: why the simulated frames arrived up to a millisecond later than the
  // emulated ones before backoff was modelled), and stays in [0, 999 us).
  const uint64_t tx = (587 + 46 + 4) * 8 * 1000000000ull / 5000000;
  LinkParams p;
  p.rate_bps = 5000000;
  p.delay_ns = 2 * kMs;
  p.limit_packets = 100000;
  p.overhead_bytes = 0;
  LinkShaper s(p, 7, 65536, LinkShaper::Medium::kShared);
  const int n = 4000;
  for (int i = 0; i < n; ++i)
    ASSERT_EQ(s.admit(0, uint64_t(i) << 12, 587 + 46 + 4), LinkShaper::Admit::kQueued);
  LinkFrame f[64];
  uint64_t at[64], prev = 0;
  double sum = 0;
  int got = 0;
  while (s.size()) {
    const uint32_t k = s.release(s.nextArrival(), f, at, 64);
    for (uint32_t i = 0; i < k; ++i, ++got) {
      if (got == 0) {
        EXPECT_EQ(at[i], tx + 2 * kMs);
      } else {
        const uint64_t over = at[i] - prev - tx - 2 * kMs;
        ASSERT_LT(over, 999 * kUs) << "frame " << got;
        sum += double(over);
      }
      prev = at[i];
    }
  }
  ASSERT_EQ(got, n);
  const double mean = sum / (n - 1), want = Ns3MeanOvershoot(2 * kMs, 20000);
  EXPECT_GT(want, 200.0 * kUs);
  EXPECT_NEAR(mean, want, 0.06 * want) << "emulated mean overshoot against ns-3's process";
}

}  // namespace
}  // namespace fastpath
