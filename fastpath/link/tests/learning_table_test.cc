// SPDX-License-Identifier: GPL-2.0-only
// A learning bridge's table (ns-3's BridgeNetDevice learning): a MAC is found on the port
// it was last seen on until its ageing time has passed since, then it is unknown; expired
// entries are reused; a table full of live entries learns nothing more and counts it.
#include "link/learning_table.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace fastpath {
namespace {

struct Mac {
  uint8_t b[6];
};
Mac mac(uint32_t i) { return Mac{{2, 0, uint8_t(i >> 24), uint8_t(i >> 16), uint8_t(i >> 8), uint8_t(i)}}; }

constexpr uint64_t kAge = 300'000'000'000ull;  // ns-3's default, 300 s

TEST(BridgeLearningTable, FindsAMacOnThePortItWasLastSeenOn) {
  LearningTable t(64);
  EXPECT_EQ(t.lookup(mac(1).b, 0), -1) << "never seen";
  ASSERT_TRUE(t.learn(mac(1).b, 3, 1000, kAge));
  ASSERT_TRUE(t.learn(mac(2).b, 0, 1000, kAge));
  EXPECT_EQ(t.lookup(mac(1).b, 2000), 3);
  EXPECT_EQ(t.lookup(mac(2).b, 2000), 0);
  // It moved: the newest port wins, and one entry is kept.
  ASSERT_TRUE(t.learn(mac(1).b, 5, 3000, kAge));
  EXPECT_EQ(t.lookup(mac(1).b, 4000), 5);
  EXPECT_EQ(t.entries(4000).size(), 2u);
}

TEST(BridgeLearningTable, AnEntryExpiresItsAgeingTimeAfterItWasLastSeen) {
  LearningTable t(16);
  ASSERT_TRUE(t.learn(mac(7).b, 1, 1000, 500));
  EXPECT_EQ(t.lookup(mac(7).b, 1499), 1);
  EXPECT_EQ(t.lookup(mac(7).b, 1500), -1) << "ns-3 keeps it while now < expiration time";
  EXPECT_TRUE(t.entries(1500).empty());
  // Seen again: it lives again, from then.
  ASSERT_TRUE(t.learn(mac(7).b, 2, 1600, 500));
  EXPECT_EQ(t.lookup(mac(7).b, 2099), 2);
  ASSERT_EQ(t.entries(2000).size(), 1u);
  EXPECT_EQ(t.entries(2000)[0].port, 2);
  EXPECT_EQ(t.entries(2000)[0].expires_ns, 2100u);
  EXPECT_EQ(t.entries(2000)[0].mac[5], 7);
}

TEST(BridgeLearningTable, AFullTableCountsWhatItCannotLearnAndReusesExpiredEntries) {
  LearningTable t(16);
  for (uint32_t i = 0; i < 16; ++i) ASSERT_TRUE(t.learn(mac(i).b, uint16_t(i % 4), 0, 1000));
  for (uint32_t i = 0; i < 16; ++i) EXPECT_EQ(t.lookup(mac(i).b, 10), int(i % 4)) << i;
  EXPECT_FALSE(t.learn(mac(100).b, 1, 10, 1000)) << "every entry is live";
  EXPECT_EQ(t.full(), 1u);
  EXPECT_EQ(t.lookup(mac(100).b, 10), -1);
  // MAC 3 is refreshed; the others expire at 1000: 15 new MACs take their places.
  ASSERT_TRUE(t.learn(mac(3).b, 2, 500, 1000));
  for (uint32_t i = 100; i < 115; ++i) ASSERT_TRUE(t.learn(mac(i).b, 1, 1000, 1000)) << i;
  EXPECT_FALSE(t.learn(mac(200).b, 1, 1000, 1000));
  EXPECT_EQ(t.full(), 2u);
  EXPECT_EQ(t.lookup(mac(3).b, 1000), 2) << "a live entry is never reused";
  for (uint32_t i = 100; i < 115; ++i) EXPECT_EQ(t.lookup(mac(i).b, 1000), 1) << i;
  EXPECT_EQ(t.entries(1000).size(), 16u);
}

TEST(BridgeLearningTable, TheAllZeroMacOnPortZeroIsAnEntryLikeAnyOther) {
  LearningTable t(16);
  const uint8_t zero[6] = {};
  ASSERT_TRUE(t.learn(zero, 0, 0, 100));
  EXPECT_EQ(t.lookup(zero, 50), 0);
}

}  // namespace
}  // namespace fastpath
