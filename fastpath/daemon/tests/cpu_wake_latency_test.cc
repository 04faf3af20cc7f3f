// SPDX-License-Identifier: GPL-2.0-only
// The CPUs' wake-up latency request: granted while held (the kernel's aggregate over all
// requests, read back from /dev/cpu_dma_latency), withdrawn when the object goes, kept
// across a move, and a clear error where the file cannot be used.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <optional>

#include "daemon/cpu_wake_latency.h"

namespace fastpath {
namespace {

class CpuWakeLatencyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (geteuid() != 0) GTEST_SKIP() << "needs root (/dev/cpu_dma_latency is root's)";
    if (access(CpuWakeLatency::kDefaultPath, F_OK) != 0)
      GTEST_SKIP() << "no " << CpuWakeLatency::kDefaultPath << " on this kernel";
    auto before = CpuWakeLatency::current();
    ASSERT_TRUE(before.ok()) << before.error().message;
    before_ = *before;
  }
  int32_t before_ = 0;
};

TEST_F(CpuWakeLatencyTest, GrantedWhileHeldWithdrawnAfter) {
  {
    auto held = CpuWakeLatency::hold(0);
    ASSERT_TRUE(held.ok()) << held.error().message;
    EXPECT_EQ(held->us(), 0u);
    auto now = CpuWakeLatency::current();
    ASSERT_TRUE(now.ok()) << now.error().message;
    EXPECT_EQ(*now, 0) << "the kernel grants the lowest request";
  }
  auto after = CpuWakeLatency::current();
  ASSERT_TRUE(after.ok()) << after.error().message;
  EXPECT_EQ(*after, before_) << "closing the file withdraws the request";
}

TEST_F(CpuWakeLatencyTest, ANonZeroRequestBoundsTheGrant) {
  auto held = CpuWakeLatency::hold(7);
  ASSERT_TRUE(held.ok()) << held.error().message;
  auto now = CpuWakeLatency::current();
  ASSERT_TRUE(now.ok());
  EXPECT_LE(*now, 7);
  EXPECT_EQ(*now, std::min(before_, 7)) << "another request lower than 7 still wins";
}

TEST_F(CpuWakeLatencyTest, AMovedRequestStaysHeld) {
  std::optional<CpuWakeLatency> kept;
  {
    auto held = CpuWakeLatency::hold(0);
    ASSERT_TRUE(held.ok()) << held.error().message;
    kept.emplace(std::move(*held));
  }  // the moved-from object is gone
  auto now = CpuWakeLatency::current();
  ASSERT_TRUE(now.ok());
  EXPECT_EQ(*now, 0);
  kept.reset();
  auto after = CpuWakeLatency::current();
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(*after, before_);
}

TEST(CpuWakeLatency, AMissingFileIsAClearError) {
  auto held = CpuWakeLatency::hold(0, "/nonexistent/cpu_dma_latency");
  ASSERT_FALSE(held.ok());
  EXPECT_EQ(held.error().code, -ENOENT);
  EXPECT_NE(held.error().message.find("/nonexistent/cpu_dma_latency"), std::string::npos)
      << held.error().message;
  EXPECT_NE(held.error().message.find("--cpu-wake-latency-us"), std::string::npos)
      << "says what to do: " << held.error().message;
  auto read = CpuWakeLatency::current("/nonexistent/cpu_dma_latency");
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.error().code, -ENOENT);
}

}  // namespace
}  // namespace fastpath
