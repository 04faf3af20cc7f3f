// SPDX-License-Identifier: GPL-2.0-only
// Carrier sense as ns-3 3.37's PHY does it, on a fake clock: a frame below CcaSensitivity
// (-82 dBm) does not make a member defer, yet it is interference for a frame another member
// is receiving; a frame at or above it does; weak frames whose energy adds up to the
// threshold do (PhyEntity::SwitchMaybeToCcaBusy: the energy of every signal on the air).
#include <gtest/gtest.h>

#include "medium/airtime.h"
#include "medium/radio_medium.h"
#include "medium_test_support.h"

namespace fastpath::medium {
namespace {

constexpr uint64_t kUs = 1000;
constexpr uint64_t kT0 = 10 * kMs;

/// ns-3's defaults (YansWifiPhyHelper 3.37): CcaSensitivity -82 dBm, preamble detection at
/// -82 dBm and 4 dB, RxSensitivity -101 dBm; every frame at 11 Mbit/s so that a few dB of
/// interference decide it.
MediumPhy ns3Phy() {
  MediumPhy p = phy11b();
  p.cs_threshold_dbm = -82;
  p.basic_rate_kbps = 11000;
  return p;
}

uint64_t air() { return frameTiming(11000, wifiFrameBytes(kEth)).duration_ns; }

/// 2 broadcasts at kT0 (unless `quiet`), 0 at kT0 + 100 us; 0 and 2 hear each other at
/// `between` dBm; 1 hears 0 at -78 dBm and 2 at -83 dBm (not detected, not sensed).
struct Overlap {
  Recorder r;
  uint64_t start0 = 0;     ///< when 0's frame went on the air
  bool delivered01 = false;
  uint64_t busy0 = 0, collisions1 = 0;
};

Overlap overlap(double between, bool quiet) {
  MediumRun med(ns3Phy(), 3, 4,
                {{0, 1, -78}, {2, 1, -83}, {0, 2, between}, {2, 0, between}});
  auto& [m, r] = med;
  if (!quiet) m.send(kT0, 2, kBroadcast, kEth, 2, r);
  m.send(kT0 + 100 * kUs, 0, kBroadcast, kEth, 1, r);
  runAll(m, r);
  Overlap o;
  for (const auto& d : r.deliveries)
    if (d.cookie == 1) {
      if (d.to == 1) o.delivered01 = true;
      o.start0 = d.t - air();
    }
  if (o.start0 == 0 && r.done_at.count(1)) o.start0 = r.done_at[1] - air();
  o.busy0 = m.stats(0).busy_ns.get();
  o.collisions1 = m.stats(1).collisions.get();
  o.r = r;
  return o;
}

TEST(RadioMediumCca, AFrameBelowCcaSensitivityIsNotSensedButInterferes) {
  // 0 hears 2 at -90 dBm: it neither decodes nor senses it, and sends at once.
  const Overlap o = overlap(-90, false);
  EXPECT_EQ(o.start0, kT0 + 100 * kUs);
  EXPECT_EQ(o.busy0, 0u);
  // At 1, 2's frame (-83 dBm, never decoded) is interference: 0's frame at -78 dBm has an
  // SINR of ~4.6 dB, enough for its preamble, not for 11 Mbit/s.
  EXPECT_FALSE(o.delivered01);
  EXPECT_EQ(o.collisions1, 1u);
  // Without 2's frame the same frame is received (SNR ~15.6 dB).
  const Overlap alone = overlap(-90, true);
  EXPECT_TRUE(alone.delivered01);
  EXPECT_EQ(alone.collisions1, 0u);
}

TEST(RadioMediumCca, AFrameAtCcaSensitivityOrAboveMakesAMemberDefer) {
  // 0 hears 2 at -80 dBm: it defers until 2's frame is over, then DIFS and a backoff.
  const Overlap o = overlap(-80, false);
  const DcfTiming dcf = dcfTiming(true);
  EXPECT_GE(o.start0, kT0 + air() + dcf.difs_ns);
  EXPECT_LE(o.start0, kT0 + air() + dcf.difs_ns + dcf.cw_min * dcf.slot_ns);
  EXPECT_GE(o.busy0, air() - 100 * kUs);
  // 1 then receives 0's frame with nothing else on the air.
  EXPECT_TRUE(o.delivered01);
}

/// 0 and 1 broadcast at kT0 (both, or only 0) and reach 2 at -85 dBm each; 2 broadcasts at
/// kT0 + 100 us. When its frame went on the air.
uint64_t thirdStarts(bool both) {
  MediumRun med(ns3Phy(), 3, 6, {{0, 2, -85}, {1, 2, -85}});
  auto& [m, r] = med;
  m.send(kT0, 0, kBroadcast, kEth, 10, r);
  if (both) m.send(kT0, 1, kBroadcast, kEth, 11, r);
  m.send(kT0 + 100 * kUs, 2, kBroadcast, kEth, 12, r);
  runAll(m, r);
  return r.done_at.at(12) - air();
}

TEST(RadioMediumCca, WeakFramesWhoseEnergyReachesTheThresholdTogetherAreSensed) {
  // One -85 dBm frame: below -82 dBm, 2 sends at once.
  EXPECT_EQ(thirdStarts(false), kT0 + 100 * kUs);
  // Two of them: -82 dBm together, 2 defers to their end.
  const DcfTiming dcf = dcfTiming(true);
  const uint64_t s = thirdStarts(true);
  EXPECT_GE(s, kT0 + air() + dcf.difs_ns);
  EXPECT_LE(s, kT0 + air() + dcf.difs_ns + dcf.cw_min * dcf.slot_ns);
}

}  // namespace
}  // namespace fastpath::medium
