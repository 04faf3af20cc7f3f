// SPDX-License-Identifier: GPL-2.0-only
// The worker's punt limiter (TokenBucket) driven by a deterministic clock.
#include <gtest/gtest.h>

#include <cstdint>

#include "worker/token_bucket.h"

namespace fastpath {
namespace {

constexpr uint64_t kMs = 1000000;  // ns

uint64_t takeAll(TokenBucket& b, uint64_t max = 1u << 30) {
  uint64_t n = 0;
  while (n < max && b.take()) ++n;
  return n;
}

TEST(WorkerTokenBucket, StartsFullWithTheBurstThenRefusesUntilTimePasses) {
  TokenBucket b(1000, 50);
  b.refill(5 * kMs);  // first reading only sets the reference time
  EXPECT_EQ(takeAll(b), 50u);
  EXPECT_FALSE(b.take());
  b.refill(5 * kMs);  // no time passed: nothing earned
  EXPECT_FALSE(b.take());
  b.refill(15 * kMs);  // 10 ms at 1000/s = 10 tokens
  EXPECT_EQ(takeAll(b), 10u);
}

TEST(WorkerTokenBucket, NeverHoldsMoreThanTheBurst) {
  TokenBucket b(1000, 20);
  b.refill(0);
  EXPECT_EQ(takeAll(b), 20u);
  b.refill(3600ull * 1000 * kMs);  // an hour idle
  EXPECT_EQ(b.tokens(), 20u);
  EXPECT_EQ(takeAll(b), 20u);
}

TEST(WorkerTokenBucket, FractionalTokensAccumulateWithoutDrift) {
  // 7 per second refilled every 1 ms (a batch per loop): 0.007 tokens per step. Over 10 s
  // exactly 70 tokens must be earned, however small each step is.
  TokenBucket b(7, 2);  // room above one token: the cap never cuts a fraction off
  b.refill(0);
  ASSERT_EQ(takeAll(b), 2u);
  uint64_t got = 0;
  for (uint64_t t = 1; t <= 10000; ++t) {
    b.refill(t * kMs);
    got += takeAll(b);
  }
  EXPECT_EQ(got, 70u);
}

TEST(WorkerTokenBucket, LongRunAdmitsRateTimesTimePlusBurst) {
  // A flood offered every 100 us for 2 s through a 10 kpps / 256 bucket.
  TokenBucket b(10000, 256);
  uint64_t admitted = 0, offered = 0;
  for (uint64_t t = 0; t <= 2000 * kMs; t += kMs / 10) {
    b.refill(t);
    for (int i = 0; i < 64; ++i, ++offered) admitted += b.take() ? 1 : 0;
  }
  EXPECT_EQ(admitted, 10000u * 2 + 256);
  EXPECT_GT(offered, admitted * 20);
}

TEST(WorkerTokenBucket, TimeGoingBackwardsEarnsNothing) {
  TokenBucket b(1000, 5);
  b.refill(100 * kMs);
  EXPECT_EQ(takeAll(b), 5u);
  b.refill(50 * kMs);
  EXPECT_FALSE(b.take());
  b.refill(102 * kMs);
  EXPECT_EQ(takeAll(b), 2u);
}

TEST(WorkerTokenBucket, RateZeroIsUnlimited) {
  TokenBucket b(0, 1);
  b.refill(0);
  EXPECT_TRUE(b.unlimited());
  EXPECT_EQ(takeAll(b, 100000), 100000u);
}

TEST(WorkerTokenBucket, HighRatesAndBurstsDoNotOverflow) {
  TokenBucket b(100000000, 1000000);  // the configuration's maxima
  b.refill(0);
  EXPECT_EQ(takeAll(b), 1000000u);
  b.refill(~uint64_t(0) / 2);  // absurd gap: capped, not wrapped
  EXPECT_EQ(b.tokens(), 1000000u);
  b.refill(~uint64_t(0) / 2 + kMs);
  EXPECT_EQ(b.tokens(), 1000000u);
}

}  // namespace
}  // namespace fastpath
