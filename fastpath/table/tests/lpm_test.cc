// SPDX-License-Identifier: GPL-2.0-only
// LPM algorithms against a naive reference (every rule in a hash map per length, lookup
// tries every length from the longest) on random tables with interleaved adds, replaces
// and removes. Fixed seeds: a failure reproduces.
#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <chrono>
#include <cstring>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include "lpm4_reference.h"
#include "table/epoch.h"
#include "table/lpm.h"

namespace fastpath {
namespace {

// ---------------------------------------------------------------- IPv4 reference
using testing::mask4;
using testing::randomDepth4;
using testing::Ref4;

// Every IPv4 algorithm runs the same checks. settle() is what the owner does after an
// epoch synchronize(): for DXR it also rebuilds the compact chunks, so the checks below
// see both its states (fallback right after a change, compact after settle()).
template <typename T>
class Lpm4Algo : public ::testing::Test {
 protected:
  static std::unique_ptr<T> make(uint32_t max_rules = 1 << 20, uint32_t groups = 1 << 15) {
    auto t = T::create(LpmConfig{max_rules, groups});
    EXPECT_TRUE(t.ok()) << (t.ok() ? "" : t.error().message);
    // DXR's own structure answers at every size here (by default small tables are
    // answered by its DIR-24-8; Lpm4Dxr.AnswersFromEitherStructure covers the switch).
    if constexpr (std::is_same_v<T, Lpm4Dxr>) t.value()->setCompactMinRules(0);
    return std::move(t).value();
  }
};
// The adaptive table with a low threshold: the small cases run on its trie, the random
// tables grow across the threshold (and shrink back when emptied).
template <>
std::unique_ptr<Lpm4Adaptive> Lpm4Algo<Lpm4Adaptive>::make(uint32_t max_rules, uint32_t groups) {
  auto t = Lpm4Adaptive::create(LpmConfig{max_rules, groups}, 1000);
  EXPECT_TRUE(t.ok()) << (t.ok() ? "" : t.error().message);
  return std::move(t).value();
}
using Lpm4Algos = ::testing::Types<Lpm4Dir24_8, Lpm4Dxr, Lpm4Adaptive>;
class Lpm4Names {
 public:
  template <typename T>
  static std::string GetName(int) {
    if constexpr (std::is_same_v<T, Lpm4Adaptive>) return "Adaptive";
    return std::is_same_v<T, Lpm4Dxr> ? "Dxr" : "Dir24_8";
  }
};
TYPED_TEST_SUITE(Lpm4Algo, Lpm4Algos, Lpm4Names);

// Next hops mostly in DXR's compact range with a few above (DXR fallback chunks).
uint32_t randomNextHop(std::mt19937_64& rng) {
  return rng() % 64 == 0 ? Lpm4Dxr::kMaxCompactNextHop + static_cast<uint32_t>(rng() % 100000)
                         : static_cast<uint32_t>(rng() % (Lpm4Dxr::kMaxCompactNextHop + 1));
}

// What the random tests of both families do after the initial load: 10 rounds of 5,000
// changes to the table `t` and its reference (remove a present rule, give one the next hop
// `nextHop(rng)`, or `addRandom()`), releaseRetired() every third round and `check(70000)`
// after each; then both hold as many rules. `present`: the rules, kept up to date.
template <typename Table, typename Ref, typename Addr, typename NextHop, typename AddRandom,
          typename Check>
void interleaveChanges(std::mt19937_64& rng, Table& t, Ref& ref,
                       std::vector<std::pair<Addr, uint8_t>>& present, NextHop nextHop,
                       AddRandom addRandom, Check check) {
  // The table takes IPv4 addresses as numbers, IPv6 ones as bytes.
  auto key = [](const Addr& ip) {
    if constexpr (std::is_integral_v<Addr>)
      return ip;
    else
      return ip.data();
  };
  for (int round = 0; round < 10; ++round) {
    for (int i = 0; i < 5000; ++i) {
      const unsigned op = rng() % 3;
      if (op == 0 && !present.empty()) {
        const size_t k = rng() % present.size();
        const auto [ip, d] = present[k];
        ASSERT_TRUE(t.remove(key(ip), d).ok());
        ASSERT_TRUE(ref.remove(ip, d));
        present[k] = present.back();
        present.pop_back();
      } else if (op == 1 && !present.empty()) {
        const auto [ip, d] = present[rng() % present.size()];
        const uint32_t nh = nextHop(rng);
        ASSERT_TRUE(t.add(key(ip), d, nh).ok());
        ref.add(ip, d, nh);
      } else {
        addRandom();
      }
    }
    if (round % 3 == 0) t.releaseRetired();
    check(70000);
  }
  EXPECT_EQ(t.stats().rules, ref.size());
}

TYPED_TEST(Lpm4Algo, EmptyTableHasNoRoute) {
  auto t = this->make();
  for (int settled = 0; settled < 2; ++settled) {
    EXPECT_EQ(t->lookup(0), kLpmNoRoute);
    EXPECT_EQ(t->lookup(0xc6120001), kLpmNoRoute);
    EXPECT_EQ(t->lookup(0xffffffff), kLpmNoRoute);
    t->releaseRetired();
  }
}

TYPED_TEST(Lpm4Algo, DefaultHostAndLongestMatch) {
  auto t = this->make();
  ASSERT_TRUE(t->add(0, 0, 1).ok());
  ASSERT_TRUE(t->add(0xc6120000, 15, 2).ok());  // 198.18.0.0/15
  ASSERT_TRUE(t->add(0xc6120200, 24, 3).ok());  // 198.18.2.0/24
  ASSERT_TRUE(t->add(0xc6120280, 25, 4).ok());  // 198.18.2.128/25
  ASSERT_TRUE(t->add(0xc6120281, 32, 5).ok());  // 198.18.2.129/32
  for (int settled = 0; settled < 2; ++settled) {
    EXPECT_EQ(t->lookup(0x01020304), 1u);
    EXPECT_EQ(t->lookup(0xc6130001), 2u);
    EXPECT_EQ(t->lookup(0xc6120201), 3u);
    EXPECT_EQ(t->lookup(0xc6120280), 4u);
    EXPECT_EQ(t->lookup(0xc6120281), 5u);
    EXPECT_EQ(t->lookup(0xc61202ff), 4u);
    t->releaseRetired();
  }
  // Host bits are ignored on add; replace changes the next hop only.
  ASSERT_TRUE(t->add(0xc61202ff, 24, 6).ok());
  EXPECT_EQ(t->lookup(0xc6120201), 6u);
  t->releaseRetired();
  EXPECT_EQ(t->lookup(0xc6120201), 6u);
  EXPECT_EQ(t->lookup(0xc6120280), 4u);
  EXPECT_EQ(t->stats().rules, 5u);
  EXPECT_EQ(t->find(0xc6120200, 24).value_or(0), 6u);
  EXPECT_FALSE(t->find(0xc6120200, 23).has_value());
}

TYPED_TEST(Lpm4Algo, RemoveRestoresCoveringPrefix) {
  auto t = this->make();
  ASSERT_TRUE(t->add(0x0a000000, 8, 1).ok());   // 10/8
  ASSERT_TRUE(t->add(0x0a010000, 16, 2).ok());  // 10.1/16
  ASSERT_TRUE(t->add(0x0a010100, 24, 3).ok());  // 10.1.1/24
  ASSERT_TRUE(t->add(0x0a010180, 26, 4).ok());  // 10.1.1.128/26
  ASSERT_TRUE(t->add(0x0a0101c1, 32, 5).ok());  // 10.1.1.193/32
  t->releaseRetired();
  // Remove the middle ones: longer prefixes stay, covered space falls back.
  ASSERT_TRUE(t->remove(0x0a010100, 24).ok());
  EXPECT_EQ(t->lookup(0x0a010101), 2u);
  EXPECT_EQ(t->lookup(0x0a010181), 4u);
  EXPECT_EQ(t->lookup(0x0a0101c1), 5u);
  ASSERT_TRUE(t->remove(0x0a010180, 26).ok());
  EXPECT_EQ(t->lookup(0x0a010181), 2u);
  EXPECT_EQ(t->lookup(0x0a0101c1), 5u);
  ASSERT_TRUE(t->remove(0x0a010000, 16).ok());
  EXPECT_EQ(t->lookup(0x0a010181), 1u);
  EXPECT_EQ(t->lookup(0x0a0101c1), 5u);
  ASSERT_TRUE(t->remove(0x0a0101c1, 32).ok());
  EXPECT_EQ(t->lookup(0x0a0101c1), 1u);
  // The /24's group folded back into tbl24: retired, then free after release.
  EXPECT_EQ(t->stats().groups_used, 0u);
  EXPECT_EQ(t->stats().groups_retired, 1u);
  t->releaseRetired();
  EXPECT_EQ(t->stats().groups_retired, 0u);
  EXPECT_EQ(t->lookup(0x0a0101c1), 1u);
  EXPECT_EQ(t->lookup(0x0a010181), 1u);
  ASSERT_TRUE(t->remove(0x0a000000, 8).ok());
  EXPECT_EQ(t->lookup(0x0a0101c1), kLpmNoRoute);
  EXPECT_FALSE(t->remove(0x0a000000, 8).ok());
  t->releaseRetired();
  EXPECT_EQ(t->lookup(0x0a0101c1), kLpmNoRoute);
}

TYPED_TEST(Lpm4Algo, RejectsBadInputAndCapacity) {
  auto t = this->make(4, 1);
  EXPECT_FALSE(t->add(0, 33, 1).ok());
  EXPECT_FALSE(t->add(0, 8, TypeParam::kMaxNextHop + 1).ok());
  ASSERT_TRUE(t->add(0x0a000080, 25, 1).ok());  // takes the only group
  auto full = t->add(0x0b000080, 25, 1);
  ASSERT_FALSE(full.ok());
  EXPECT_NE(full.error().message.find("tbl8"), std::string::npos) << full.error().message;
  EXPECT_EQ(t->lookup(0x0b000081), kLpmNoRoute);  // failed add left nothing behind
  ASSERT_TRUE(t->add(0x0a000000, 24, 2).ok());
  ASSERT_TRUE(t->add(0x0c000000, 8, 3).ok());
  ASSERT_TRUE(t->add(0x0d000000, 8, 4).ok());
  auto too_many = t->add(0x0e000000, 8, 5);
  ASSERT_FALSE(too_many.ok());
  EXPECT_NE(too_many.error().message.find("max_rules"), std::string::npos);
  EXPECT_EQ(t->groupsNeeded({{0x0b000080, 25}, {0x0b000000, 26}, {0x0a000000, 30}}), 1u);
  t->releaseRetired();
  EXPECT_EQ(t->lookup(0x0b000081), kLpmNoRoute);
  EXPECT_EQ(t->lookup(0x0a000081), 1u);
  EXPECT_EQ(t->lookup(0x0a000001), 2u);
  EXPECT_EQ(t->lookup(0x0d000001), 4u);
}

TYPED_TEST(Lpm4Algo, RandomTableMatchesReference) {
  std::mt19937_64 rng(0xfa57c1a5);
  auto t = this->make(1 << 20, 1 << 15);
  Ref4 ref;
  std::vector<std::pair<uint32_t, uint8_t>> present;
  auto randomAddr = [&](void) -> uint32_t {
    // Half near existing prefixes (exercise long matches), half anywhere.
    if (!present.empty() && (rng() & 1)) {
      const auto& [ip, d] = present[rng() % present.size()];
      return ip | (static_cast<uint32_t>(rng()) & ~mask4(d));
    }
    return static_cast<uint32_t>(rng());
  };
  auto addRandom = [&]() {
    const uint8_t d = randomDepth4(rng);
    const uint32_t ip = static_cast<uint32_t>(rng()) & mask4(d);
    const uint32_t nh = randomNextHop(rng);
    ASSERT_TRUE(t->add(ip, d, nh).ok());
    if (!ref.rules_[d].count(ip)) present.emplace_back(ip, d);
    ref.add(ip, d, nh);
  };
  auto check = [&](size_t n) {
    for (size_t i = 0; i < n; ++i) {
      const uint32_t a = randomAddr();
      ASSERT_EQ(t->lookup(a), ref.lookup(a)) << "address " << std::hex << a;
    }
  };
  for (int i = 0; i < 100000; ++i) addRandom();
  check(200000);
  t->releaseRetired();
  check(200000);
  // Interleave: remove, add, replace; check as we go.
  ASSERT_NO_FATAL_FAILURE(
      interleaveChanges(rng, *t, ref, present, randomNextHop, addRandom, check));
  // Remove everything: the table must be empty again and every group back.
  for (const auto& [ip, d] : present) ASSERT_TRUE(t->remove(ip, d).ok());
  t->releaseRetired();
  EXPECT_EQ(t->stats().rules, 0u);
  EXPECT_EQ(t->stats().groups_used, 0u);
  for (int i = 0; i < 10000; ++i) ASSERT_EQ(t->lookup(static_cast<uint32_t>(rng())), kLpmNoRoute);
}

TYPED_TEST(Lpm4Algo, BulkLookupMatchesSingle) {
  std::mt19937_64 rng(7);
  auto t = this->make();
  for (int i = 0; i < 5000; ++i) {
    const uint8_t d = randomDepth4(rng);
    ASSERT_TRUE(t->add(static_cast<uint32_t>(rng()), d, i).ok());
  }
  std::vector<uint32_t> ips(1001), nhs(1001);
  for (auto& a : ips) a = static_cast<uint32_t>(rng());
  for (int settled = 0; settled < 2; ++settled) {
    t->lookupBulk(ips.data(), nhs.data(), ips.size());
    for (size_t i = 0; i < ips.size(); ++i) ASSERT_EQ(nhs[i], t->lookup(ips[i]));
    t->releaseRetired();
  }
}

// ---------------------------------------------------------------- DXR specifics
std::unique_ptr<Lpm4Dxr> makeDxr() {
  auto t = Lpm4Dxr::create(LpmConfig{1 << 16, 1 << 10});
  EXPECT_TRUE(t.ok()) << (t.ok() ? "" : t.error().message);
  t.value()->setCompactMinRules(0);
  return std::move(t).value();
}

// The default choice: below the threshold the DIR-24-8 answers, from it on the compact
// structure; both give the reference's answers, single and bulk, before and after the
// rebuild, and the choice follows removals back down.
TEST(Lpm4Dxr, AnswersFromEitherStructure) {
  auto t = Lpm4Dxr::create(LpmConfig{1 << 16, 1 << 10}).value();
  EXPECT_FALSE(t->compactActive());  // empty: below the default threshold
  t->setCompactMinRules(500);
  std::mt19937_64 rng(11);
  Ref4 ref;
  std::vector<std::pair<uint32_t, uint8_t>> added;
  std::vector<uint32_t> ips(4096), nhs(ips.size());
  auto check = [&](bool compact) {
    ASSERT_EQ(t->compactActive(), compact);
    for (auto& a : ips) {
      a = added.empty() || rng() % 4 == 0
              ? static_cast<uint32_t>(rng())
              : added[rng() % added.size()].first | static_cast<uint32_t>(rng() % 256);
    }
    t->lookupBulk(ips.data(), nhs.data(), ips.size());
    for (size_t i = 0; i < ips.size(); ++i) {
      ASSERT_EQ(nhs[i], ref.lookup(ips[i])) << std::hex << ips[i];
      ASSERT_EQ(t->lookup(ips[i]), nhs[i]) << std::hex << ips[i];
    }
  };
  auto addRandom = [&](int n) {
    for (int i = 0; i < n;) {
      const uint8_t d = randomDepth4(rng);
      const uint32_t ip = static_cast<uint32_t>(rng()) & (d ? ~0u << (32 - d) : 0);
      if (t->find(ip, d)) continue;
      const uint32_t nh = randomNextHop(rng);
      ASSERT_TRUE(t->add(ip, d, nh).ok());
      ref.add(ip, d, nh);
      added.emplace_back(ip, d);
      ++i;
    }
  };
  addRandom(499);
  check(false);
  t->releaseRetired();
  check(false);
  EXPECT_GT(t->dxrStats().pending_chunks, 0u);  // below the threshold: not built
  addRandom(1);
  check(false);  // the choice changes in releaseRetired(), once the chunks are built
  t->releaseRetired();
  EXPECT_EQ(t->dxrStats().pending_chunks, 0u);
  EXPECT_GT(t->dxrStats().ranges, 0u);
  check(true);
  ASSERT_TRUE(t->remove(added.back().first, added.back().second).ok());
  ref.remove(added.back().first, added.back().second);
  added.pop_back();
  check(true);  // the changed chunk answers from the DIR-24-8 (fallback)
  t->releaseRetired();
  check(false);
  addRandom(20);  // changes while the DIR-24-8 answers, built when the choice turns
  t->setCompactMinRules(0);
  EXPECT_EQ(t->dxrStats().pending_chunks, 0u);
  check(true);
}

TEST(Lpm4Dxr, ChunkFormatsAndFallback) {
  auto t = makeDxr();
  constexpr uint32_t kChunkSpan = 1u << Lpm4Dxr::kChunkBits;
  ASSERT_TRUE(t->add(0x0a000000, 8, 1).ok());  // 10/8: whole chunks, leaves
  const uint32_t c_short = 0x0a000000, c_long = 0x0a000000 + 4 * kChunkSpan,
                 c_big = 0x0a000000 + 8 * kChunkSpan;
  ASSERT_TRUE(t->add(c_short + 0x300, 24, 2).ok());      // /24-aligned: 8-bit starts
  ASSERT_TRUE(t->add(c_long + 0x380, 25, 3).ok());       // /25: 16-bit starts
  ASSERT_TRUE(t->add(c_big + 0x100, 24, 0x12345).ok());  // next hop > 16 bits
  EXPECT_GT(t->dxrStats().pending_chunks, 0u);
  EXPECT_EQ(t->lookup(c_big + 0x101), 0x12345u);  // correct before the rebuild too
  t->releaseRetired();
  const auto s = t->dxrStats();
  EXPECT_EQ(s.pending_chunks, 0u);
  EXPECT_EQ(s.short_chunks, 1u);
  EXPECT_EQ(s.long_chunks, 1u);
  EXPECT_EQ(s.fallback_chunks, 1u);
  EXPECT_EQ(s.leaf_chunks, (1u << Lpm4Dxr::kDirectBits) - 3);
  EXPECT_EQ(s.ranges, 3u + 3u);  // 1 | 2 | 1 in both
  EXPECT_EQ(t->lookup(c_short + 0x2ff), 1u);
  EXPECT_EQ(t->lookup(c_short + 0x300), 2u);
  EXPECT_EQ(t->lookup(c_short + 0x3ff), 2u);
  EXPECT_EQ(t->lookup(c_short + 0x400), 1u);
  EXPECT_EQ(t->lookup(c_long + 0x37f), 1u);
  EXPECT_EQ(t->lookup(c_long + 0x380), 3u);
  EXPECT_EQ(t->lookup(c_long + 0x3ff), 3u);
  EXPECT_EQ(t->lookup(c_long + 0x400), 1u);
  EXPECT_EQ(t->lookup(c_big + 0x1ff), 0x12345u);
  EXPECT_EQ(t->lookup(c_big + 0x200), 1u);
  EXPECT_EQ(t->lookup(0x0b000000), kLpmNoRoute);
  // The first and last range of a chunk, a chunk's first and last address.
  ASSERT_TRUE(t->add(c_short, 32, 4).ok());
  ASSERT_TRUE(t->add(c_short + kChunkSpan - 1, 32, 5).ok());
  t->releaseRetired();
  EXPECT_EQ(t->lookup(c_short), 4u);
  EXPECT_EQ(t->lookup(c_short + 1), 1u);
  EXPECT_EQ(t->lookup(c_short + kChunkSpan - 2), 1u);
  EXPECT_EQ(t->lookup(c_short + kChunkSpan - 1), 5u);
  EXPECT_EQ(t->lookup(c_short + kChunkSpan), 1u);
  // The largest compact next hop stays compact; one more is a fallback chunk.
  const uint32_t c_max = 0x0a000000 + 12 * kChunkSpan, c_over = 0x0a000000 + 16 * kChunkSpan;
  ASSERT_TRUE(t->add(c_max + 0x200, 24, Lpm4Dxr::kMaxCompactNextHop).ok());
  ASSERT_TRUE(t->add(c_over + 0x200, 24, Lpm4Dxr::kMaxCompactNextHop + 1).ok());
  t->releaseRetired();
  EXPECT_EQ(t->dxrStats().fallback_chunks, 2u);
  EXPECT_EQ(t->lookup(c_max + 0x2ab), Lpm4Dxr::kMaxCompactNextHop);
  EXPECT_EQ(t->lookup(c_max + 0x1ab), 1u);
  EXPECT_EQ(t->lookup(c_over + 0x2ab), Lpm4Dxr::kMaxCompactNextHop + 1);
  ASSERT_TRUE(t->remove(c_over + 0x200, 24).ok());
  // Removing the big next hop makes its chunk a leaf again.
  ASSERT_TRUE(t->remove(c_big + 0x100, 24).ok());
  t->releaseRetired();
  EXPECT_EQ(t->dxrStats().fallback_chunks, 0u);
  EXPECT_EQ(t->lookup(c_big + 0x101), 1u);
}

// More than 256 ranges in one chunk: served by the DIR-24-8 fallback, still exact.
TEST(Lpm4Dxr, DenseChunkFallsBack) {
  auto t = makeDxr();
  for (uint32_t i = 0; i < 300; ++i) ASSERT_TRUE(t->add(0x0a000000 + 2 * i, 32, 1 + i % 7).ok());
  t->releaseRetired();
  EXPECT_EQ(t->dxrStats().fallback_chunks, 1u);
  for (uint32_t i = 0; i < 600; ++i)
    ASSERT_EQ(t->lookup(0x0a000000 + i), i % 2 ? kLpmNoRoute : 1 + (i / 2) % 7) << i;
}

// Lookups on another thread while chunks are invalidated, rebuilt and their heap blocks
// reused: every answer is the covering route or the probe's own /24 route, never another
// chunk's next hop (which a block reused too early would produce).
TEST(Lpm4Dxr, ConcurrentLookupsSeeOldOrNew) {
  auto t = makeDxr();
  constexpr uint32_t kChunkSpan = 1u << Lpm4Dxr::kChunkBits;
  constexpr uint32_t kProbes = 256;
  auto chunkBase = [](uint32_t i) { return 0x0a000000 + i * 4 * kChunkSpan; };
  ASSERT_TRUE(t->add(0x0a000000, 8, 1).ok());
  t->releaseRetired();
  EpochDomain epoch;
  auto id = epoch.registerReader("lpm-reader");
  ASSERT_TRUE(id.ok());
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> bad{0}, lookups{0};
  std::thread reader([&] {
    std::vector<uint32_t> ips(kProbes * 8), nhs(kProbes * 8);
    for (uint32_t i = 0; i < kProbes; ++i)
      for (uint32_t k = 0; k < 8; ++k) ips[i * 8 + k] = chunkBase(i) + (k << 8) + 5 + (k << 4);
    auto ok = [](uint32_t i, uint32_t v) { return v == 1 || v == 10 + i; };
    while (!stop.load(std::memory_order_relaxed)) {
      for (size_t j = 0; j < ips.size(); ++j)
        if (!ok(static_cast<uint32_t>(j / 8), t->lookup(ips[j]))) bad.fetch_add(1);
      t->lookupBulk(ips.data(), nhs.data(), ips.size());
      for (size_t j = 0; j < ips.size(); ++j)
        if (!ok(static_cast<uint32_t>(j / 8), nhs[j])) bad.fetch_add(1);
      lookups.fetch_add(2 * ips.size(), std::memory_order_relaxed);
      epoch.quiescent(*id);
    }
    epoch.offline(*id);
  });
  for (uint32_t round = 0; round < 200; ++round) {
    // Round r: the /24 k = r % 8 (a /25 every third round: long format) of every probe
    // chunk routes to 10 + i; the previous round's is removed.
    const uint32_t k = round % 8, prev = (round + 7) % 8;
    const uint8_t d = round % 3 == 0 ? 25 : 24, prev_d = (round + 2) % 3 == 0 ? 25 : 24;
    for (uint32_t i = 0; i < kProbes; ++i) {
      ASSERT_TRUE(t->add(chunkBase(i) + (k << 8), d, 10 + i).ok());
      if (round > 0) {
        ASSERT_TRUE(t->remove(chunkBase(i) + (prev << 8), prev_d).ok());
      }
    }
    ASSERT_TRUE(epoch.synchronize(std::chrono::milliseconds(5000)));
    t->releaseRetired();
    // Readers also see the structure choice change under them.
    if (round % 5 == 4) t->setCompactMinRules(t->compactActive() ? ~0u : 0);
  }
  stop = true;
  reader.join();
  epoch.unregisterReader(*id);
  EXPECT_EQ(bad.load(), 0u);
  EXPECT_GT(lookups.load(), 0u);
  EXPECT_EQ(t->dxrStats().pending_chunks, 0u);
}

// ---------------------------------------------------------------- IPv6 reference
using A6 = std::array<uint8_t, 16>;

A6 mask6(const A6& a, unsigned d) {  // a with all bits after the first d cleared
  A6 r{};
  for (unsigned i = 0; i < 16; ++i) {
    const int bits = static_cast<int>(d) - static_cast<int>(i * 8);
    if (bits >= 8)
      r[i] = a[i];
    else if (bits > 0)
      r[i] = static_cast<uint8_t>(a[i] & (0xff00u >> bits));
  }
  return r;
}

const A6 kOnes6 = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                   0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};

// Keys as two 64-bit halves: equality is two compares (std::array's == is a memcmp call).
struct K6 {
  uint64_t hi, lo;
  bool operator==(const K6& o) const { return hi == o.hi && lo == o.lo; }
};
struct K6Hash {
  size_t operator()(const K6& k) const noexcept {
    uint64_t h = k.hi ^ (k.lo * 0x9e3779b97f4a7c15ull);
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    return static_cast<size_t>(h);
  }
};

class Ref6 {
 public:
  void add(const A6& ip, uint8_t d, uint32_t nh) {
    rules_[d][key(mask6(ip, d))] = nh;
    present_.insert(d);
  }
  bool remove(const A6& ip, uint8_t d) { return rules_[d].erase(key(mask6(ip, d))) > 0; }
  bool has(const A6& ip, uint8_t d) const { return rules_[d].count(key(mask6(ip, d))) > 0; }
  uint32_t lookup(const A6& ip) const {
    const K6 full = key(ip);
    for (auto it = present_.rbegin(); it != present_.rend(); ++it) {
      const unsigned d = *it;
      const auto& m = rules_[d];
      if (m.empty()) continue;
      K6 k = full;
      if (d <= 64) {
        k.hi = d == 0 ? 0 : k.hi & (~0ull << (64 - d));
        k.lo = 0;
      } else if (d < 128) {
        k.lo &= ~0ull << (128 - d);
      }
      auto f = m.find(k);
      if (f != m.end()) return f->second;
    }
    return kLpmNoRoute;
  }
  size_t size() const {
    size_t n = 0;
    for (const auto& m : rules_) n += m.size();
    return n;
  }

 private:
  static K6 key(const A6& a) {  // big-endian halves so masking is a shift
    K6 k;
    std::memcpy(&k.hi, a.data(), 8);
    std::memcpy(&k.lo, a.data() + 8, 8);
    k.hi = __builtin_bswap64(k.hi);
    k.lo = __builtin_bswap64(k.lo);
    return k;
  }
  std::unordered_map<K6, uint32_t, K6Hash> rules_[129];
  std::set<unsigned> present_;
};

// Lengths from a fixed set that crosses every stride boundary (24 + 8k) and sits on and
// around it, so the reference (one hash probe per length in use) stays fast.
uint8_t randomDepth6(std::mt19937_64& rng) {
  static constexpr uint8_t kCommon[] = {32, 40, 44, 48, 48, 48, 48, 52, 56, 56, 60, 64, 64, 64, 64};
  static constexpr uint8_t kLong[] = {23, 24, 25, 31,  33,  65,  72,  79,
                                      80, 81, 96, 104, 112, 120, 127, 128};
  const unsigned r = rng() % 100;
  if (r < 75) return kCommon[rng() % std::size(kCommon)];
  if (r < 99 || rng() % 64) return kLong[rng() % std::size(kLong)];
  return static_cast<uint8_t>(rng() % 17);  // rare: each spans 2^8+ first-level entries
}

A6 randomA6(std::mt19937_64& rng) {
  A6 a;
  const uint64_t x = rng(), y = rng();
  std::memcpy(a.data(), &x, 8);
  std::memcpy(a.data() + 8, &y, 8);
  a[0] = static_cast<uint8_t>(0x20 | (a[0] & 0x03));  // cluster in 2000::/14 so prefixes nest
  return a;
}

std::unique_ptr<Lpm6> makeLpm6(uint32_t max_rules = 1 << 18, uint32_t groups = 1 << 19) {
  auto t = Lpm6::create(LpmConfig{max_rules, groups});
  EXPECT_TRUE(t.ok()) << (t.ok() ? "" : t.error().message);
  return std::move(t).value();
}

A6 a6(std::initializer_list<uint8_t> bytes) {
  A6 a{};
  size_t i = 0;
  for (uint8_t b : bytes) a[i++] = b;
  return a;
}

TEST(Lpm6, LongestMatchAndRemoveRestoresCover) {
  auto t = makeLpm6();
  const A6 p16 = a6({0x20, 0x01, 0x00, 0x02});
  ASSERT_TRUE(t->add(A6{}.data(), 0, 1).ok());
  ASSERT_TRUE(t->add(p16.data(), 48, 2).ok());  // 2001:2::/48
  ASSERT_TRUE(t->add(p16.data(), 64, 3).ok());  // 2001:2::/64
  A6 host = p16;
  host[15] = 1;
  ASSERT_TRUE(t->add(host.data(), 128, 4).ok());  // 2001:2::1/128
  A6 other = p16;
  other[6] = 7;  // inside the /48, outside the /64
  EXPECT_EQ(t->lookup(host.data()), 4u);
  host[15] = 2;
  EXPECT_EQ(t->lookup(host.data()), 3u);
  EXPECT_EQ(t->lookup(other.data()), 2u);
  EXPECT_EQ(t->lookup(a6({0x30}).data()), 1u);
  ASSERT_TRUE(t->remove(p16.data(), 64).ok());
  EXPECT_EQ(t->lookup(host.data()), 2u);
  host[15] = 1;
  EXPECT_EQ(t->lookup(host.data()), 4u);
  ASSERT_TRUE(t->remove(host.data(), 128).ok());
  EXPECT_EQ(t->lookup(host.data()), 2u);
  ASSERT_TRUE(t->remove(p16.data(), 48).ok());
  EXPECT_EQ(t->lookup(host.data()), 1u);
  EXPECT_EQ(t->stats().groups_used, 0u);
  EXPECT_FALSE(t->remove(p16.data(), 48).ok());
  EXPECT_FALSE(t->add(p16.data(), 129, 1).ok());
}

TEST(Lpm6, RandomTableMatchesReference) {
  std::mt19937_64 rng(0x2001000200000000ull);
  auto t = makeLpm6();
  Ref6 ref;
  std::vector<std::pair<A6, uint8_t>> present;
  auto randomAddr = [&]() -> A6 {
    if (!present.empty() && (rng() & 1)) {
      const auto& [ip, d] = present[rng() % present.size()];
      A6 r = randomA6(rng);
      const A6 m = mask6(kOnes6, d);
      for (int i = 0; i < 16; ++i) r[i] = static_cast<uint8_t>(ip[i] | (r[i] & ~m[i]));
      return r;
    }
    return randomA6(rng);
  };
  auto addRandom = [&]() {
    const uint8_t d = randomDepth6(rng);
    const A6 ip = mask6(randomA6(rng), d);
    const uint32_t nh = static_cast<uint32_t>(rng() % 100000);
    ASSERT_TRUE(t->add(ip.data(), d, nh).ok());
    if (!ref.has(ip, d)) present.emplace_back(ip, d);
    ref.add(ip, d, nh);
  };
  auto check = [&](size_t n) {
    for (size_t i = 0; i < n; ++i) {
      const A6 a = randomAddr();
      ASSERT_EQ(t->lookup(a.data()), ref.lookup(a)) << "lookup mismatch";
    }
  };
  for (int i = 0; i < 100000; ++i) addRandom();
  check(300000);
  ASSERT_NO_FATAL_FAILURE(interleaveChanges(
      rng, *t, ref, present,
      [](std::mt19937_64& r) { return static_cast<uint32_t>(r() % 100000); }, addRandom, check));
  // Bulk lookups agree with single ones (odd count: a partial chunk too).
  std::vector<A6> addrs(1001);
  std::vector<const uint8_t*> ptrs;
  for (auto& a : addrs) {
    a = randomAddr();
    ptrs.push_back(a.data());
  }
  std::vector<uint32_t> nhs(addrs.size());
  t->lookupBulk(ptrs.data(), nhs.data(), ptrs.size());
  for (size_t i = 0; i < addrs.size(); ++i) ASSERT_EQ(nhs[i], ref.lookup(addrs[i]));
  for (const auto& [ip, d] : present) ASSERT_TRUE(t->remove(ip.data(), d).ok());
  t->releaseRetired();
  EXPECT_EQ(t->stats().rules, 0u);
  EXPECT_EQ(t->stats().groups_used, 0u);
}

}  // namespace
}  // namespace fastpath
