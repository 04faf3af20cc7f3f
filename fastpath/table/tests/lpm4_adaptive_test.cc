// SPDX-License-Identifier: GPL-2.0-only
// The small IPv4 trie (Lpm4Trie) and the table that switches between it and DIR-24-8
// (Lpm4Adaptive), against the naive reference: random tables with interleaved adds,
// replaces and removes, every lookup (single and bulk) compared; the switch up and down
// with the capacity DIR-24-8 would report at every step; lookups on another thread while
// the structure changes under them. Fixed seeds: a failure reproduces.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <random>
#include <thread>
#include <vector>

#include "lpm4_reference.h"
#include "table/epoch.h"
#include "table/lpm.h"

namespace fastpath {
namespace {

using testing::mask4;

// A random table driven against the reference: add, replace, remove, and checks of every
// lookup, single and bulk, on addresses inside and around the present prefixes.
template <typename T>
class RandomDriver {
 public:
  // Changes draw from rng_, checks from their own generator: two drivers with one seed
  // make the same changes whatever they check.
  RandomDriver(T& t, uint64_t seed) : t_(t), rng_(seed), check_rng_(~seed) {}

  void add(uint32_t ip, uint8_t d, uint32_t nh) {
    ip &= mask4(d);
    ASSERT_TRUE(t_.add(ip, d, nh).ok());
    if (!ref_.has(ip, d)) present_.emplace_back(ip, d);
    ref_.add(ip, d, nh);
  }
  void addRandom() {
    const uint8_t d = testing::randomDepth4(rng_);
    const uint32_t ip = static_cast<uint32_t>(rng_());
    add(ip, d, static_cast<uint32_t>(rng_() % 100000));
  }
  void removeRandom() {
    if (present_.empty()) return;
    const size_t k = rng_() % present_.size();
    const auto [ip, d] = present_[k];
    ASSERT_TRUE(t_.remove(ip, d).ok());
    ASSERT_TRUE(ref_.remove(ip, d));
    present_[k] = present_.back();
    present_.pop_back();
  }
  void replaceRandom() {
    if (present_.empty()) return;
    const auto [ip, d] = present_[rng_() % present_.size()];
    const uint32_t nh = static_cast<uint32_t>(rng_() % 100000);
    ASSERT_TRUE(t_.add(ip, d, nh).ok());
    ref_.add(ip, d, nh);
  }
  void churn(int ops) {
    for (int i = 0; i < ops; ++i) {
      const unsigned op = rng_() % 3;
      if (op == 0)
        removeRandom();
      else if (op == 1)
        replaceRandom();
      else
        addRandom();
    }
  }
  uint32_t randomAddr() {
    // Half near existing prefixes (long matches, prefix edges), half anywhere.
    auto& r = check_rng_;
    if (!present_.empty() && (r() & 1)) {
      const auto& [ip, d] = present_[r() % present_.size()];
      switch (r() % 4) {
        case 0: return ip;
        case 1: return ip | ~mask4(d);
        case 2: return ip - 1;
        default: return ip | (static_cast<uint32_t>(r()) & ~mask4(d));
      }
    }
    return static_cast<uint32_t>(r());
  }
  void check(size_t n) {
    std::vector<uint32_t> ips(n), nhs(n);
    for (auto& a : ips) a = randomAddr();
    t_.lookupBulk(ips.data(), nhs.data(), n);
    for (size_t i = 0; i < n; ++i) {
      const uint32_t want = ref_.lookup(ips[i]);
      ASSERT_EQ(t_.lookup(ips[i]), want) << "address " << std::hex << ips[i];
      ASSERT_EQ(nhs[i], want) << "bulk, address " << std::hex << ips[i];
    }
  }
  void removeAll() {
    for (const auto& [ip, d] : present_) ASSERT_TRUE(t_.remove(ip, d).ok());
    for (auto& m : ref_.rules_) m.clear();
    present_.clear();
  }
  size_t size() const { return ref_.size(); }
  std::mt19937_64& rng() { return rng_; }

 private:
  T& t_;
  std::mt19937_64 rng_;
  std::mt19937_64 check_rng_;
  testing::Ref4 ref_;
  std::vector<std::pair<uint32_t, uint8_t>> present_;
};

// ---------------------------------------------------------------- Lpm4Trie
std::unique_ptr<Lpm4Trie> makeTrie(uint32_t max_rules = 1 << 20, uint32_t nodes = 1 << 18) {
  auto t = Lpm4Trie::create(LpmConfig{max_rules, nodes});
  EXPECT_TRUE(t.ok()) << (t.ok() ? "" : t.error().message);
  return std::move(t).value();
}

TEST(Lpm4Trie, RandomTableMatchesReference) {
  auto t = makeTrie();
  RandomDriver<Lpm4Trie> drv(*t, 0x7e1e);
  for (int i = 0; i < 50000; ++i) ASSERT_NO_FATAL_FAILURE(drv.addRandom());
  ASSERT_NO_FATAL_FAILURE(drv.check(200000));
  for (int round = 0; round < 10; ++round) {
    ASSERT_NO_FATAL_FAILURE(drv.churn(5000));
    if (round % 3 == 0) t->releaseRetired();
    ASSERT_NO_FATAL_FAILURE(drv.check(50000));
  }
  EXPECT_EQ(t->stats().rules, drv.size());
  ASSERT_NO_FATAL_FAILURE(drv.removeAll());
  t->releaseRetired();
  EXPECT_EQ(t->stats().rules, 0u);
  EXPECT_EQ(t->stats().groups_used, 0u);  // every node folded back
  ASSERT_NO_FATAL_FAILURE(drv.check(10000));
}

// Many small tables, the shape the trie is for: every prefix length around each level's
// boundaries, few rules, many changes.
TEST(Lpm4Trie, SmallTablesMatchReference) {
  for (uint64_t seed = 1; seed <= 200; ++seed) {
    auto t = makeTrie(1 << 10, 1 << 10);
    RandomDriver<Lpm4Trie> drv(*t, seed);
    for (int i = 0; i < 30; ++i) {
      // Clustered in 10.0.0.0/14 so that prefixes nest and share nodes.
      const uint8_t d = static_cast<uint8_t>(drv.rng()() % 33);
      const uint32_t ip = 0x0a000000u | (static_cast<uint32_t>(drv.rng()()) & 0x0003ffffu);
      ASSERT_NO_FATAL_FAILURE(drv.add(ip, d, static_cast<uint32_t>(i)));
      ASSERT_NO_FATAL_FAILURE(drv.churn(1));
    }
    ASSERT_NO_FATAL_FAILURE(drv.check(2000));
    ASSERT_NO_FATAL_FAILURE(drv.churn(40));
    t->releaseRetired();
    ASSERT_NO_FATAL_FAILURE(drv.check(2000));
  }
}

TEST(Lpm4Trie, DefaultRouteLivesBesideTheTable) {
  auto t = makeTrie(64, 4);
  ASSERT_TRUE(t->add(0, 0, 7).ok());
  EXPECT_EQ(t->lookup(0x01020304), 7u);
  EXPECT_EQ(t->touchedBytes(), 0u);  // the /0 touches no page
  ASSERT_TRUE(t->add(0x0a000000, 8, 1).ok());
  ASSERT_TRUE(t->add(0x0a010200, 24, 2).ok());
  ASSERT_TRUE(t->add(0x0a010203, 32, 3).ok());
  EXPECT_EQ(t->stats().groups_used, 2u);  // /24: one node, /32: one more below it
  EXPECT_EQ(t->lookup(0x0a010203), 3u);
  EXPECT_EQ(t->lookup(0x0a010204), 2u);
  EXPECT_EQ(t->lookup(0x0a020000), 1u);
  EXPECT_EQ(t->lookup(0x0b000000), 7u);
  // Removing the /8 leaves invalid leaves: the default route answers there.
  ASSERT_TRUE(t->remove(0x0a000000, 8).ok());
  EXPECT_EQ(t->lookup(0x0a020000), 7u);
  EXPECT_EQ(t->lookup(0x0a010204), 2u);
  ASSERT_TRUE(t->remove(0, 0).ok());
  EXPECT_EQ(t->lookup(0x0a020000), kLpmNoRoute);
  EXPECT_EQ(t->lookup(0x0a010203), 3u);
  // Node capacity: a /32 in a new /16 needs two nodes, two are free.
  EXPECT_EQ(t->nodesNeeded(0x0b000001, 32), 2u);
  EXPECT_EQ(t->nodesNeeded(0x0a010209, 32), 0u);
  EXPECT_EQ(t->nodesNeeded(0x0a010300, 24), 0u);
  ASSERT_TRUE(t->add(0x0b000001, 32, 4).ok());
  auto full = t->add(0x0c000001, 32, 5);
  ASSERT_FALSE(full.ok());
  EXPECT_NE(full.error().message.find("max_groups"), std::string::npos) << full.error().message;
  EXPECT_EQ(t->lookup(0x0c000001), kLpmNoRoute);
  // Removing folds nodes back; they are reusable after releaseRetired().
  ASSERT_TRUE(t->remove(0x0a010203, 32).ok());
  ASSERT_TRUE(t->remove(0x0a010200, 24).ok());
  EXPECT_EQ(t->stats().groups_retired, 2u);
  EXPECT_FALSE(t->add(0x0c000001, 32, 5).ok());
  t->releaseRetired();
  ASSERT_TRUE(t->add(0x0c000001, 32, 5).ok());
  EXPECT_EQ(t->lookup(0x0c000001), 5u);
  EXPECT_EQ(t->lookup(0x0a010203), kLpmNoRoute);
  t->clear();
  EXPECT_EQ(t->touchedBytes(), 0u);
  EXPECT_EQ(t->stats().rules, 0u);
  EXPECT_EQ(t->lookup(0x0c000001), kLpmNoRoute);
  EXPECT_EQ(t->lookup(0x0b000001), kLpmNoRoute);
}

// A forwarding context's table touches a few pages, not the address space it routes.
TEST(Lpm4Trie, NodeSizedTableTouchesFewPages) {
  auto t = makeTrie();
  ASSERT_TRUE(t->add(0, 0, 1).ok());
  for (uint32_t i = 0; i < 4; ++i) ASSERT_TRUE(t->add(0xac100000 + (i << 8), 24, 2 + i).ok());
  ASSERT_TRUE(t->add(0xc6120100, 24, 6).ok());
  for (uint32_t i = 0; i < 5; ++i) ASSERT_TRUE(t->add(0xc6120102 + i, 32, 7 + i).ok());
  for (uint32_t i = 0; i < 3; ++i) ASSERT_TRUE(t->add(0x0a000501 + 7 * i, 32, 12 + i).ok());
  // 3 root pages (172.16/16, 198.18/16, 10.0/16 lie in different /6s) and 5 nodes.
  EXPECT_LE(t->touchedBytes(), 3u * 4096 + 5 * 1024);
  EXPECT_EQ(t->lookup(0xc6120104), 9u);
  EXPECT_EQ(t->lookup(0xc61201f0), 6u);
  EXPECT_EQ(t->lookup(0x08080808), 1u);
}

// ---------------------------------------------------------------- Lpm4Adaptive
std::unique_ptr<Lpm4Adaptive> makeAdaptive(uint32_t threshold, uint32_t max_rules = 1 << 16,
                                           uint32_t groups = 1 << 12) {
  auto t = Lpm4Adaptive::create(LpmConfig{max_rules, groups}, threshold);
  EXPECT_TRUE(t.ok()) << (t.ok() ? "" : t.error().message);
  return std::move(t).value();
}

// What the owner sees must not depend on the structure: the capacity figures are the ones
// a DIR-24-8 fed the same changes reports.
void expectSameCapacity(const Lpm4Adaptive& a, const Lpm4Dir24_8& shadow, bool released) {
  const LpmStats sa = a.stats(), sd = shadow.stats();
  EXPECT_EQ(sa.rules, sd.rules);
  EXPECT_EQ(sa.groups_used, sd.groups_used);
  // After a switch up the fresh DIR-24-8 has nothing retired; the shadow may have.
  if (released || !a.largeActive()) {
    EXPECT_EQ(sa.groups_retired, sd.groups_retired);
    EXPECT_EQ(sa.groups_free, sd.groups_free);
  }
}

TEST(Lpm4Adaptive, GrowsAcrossTheThresholdAndBack) {
  constexpr uint32_t kThreshold = 300;
  auto t = makeAdaptive(kThreshold);
  auto shadow = Lpm4Dir24_8::create(LpmConfig{1 << 16, 1 << 12}).value();
  RandomDriver<Lpm4Adaptive> drv(*t, 42);
  RandomDriver<Lpm4Dir24_8> shadow_drv(*shadow, 42);  // same seed: same changes
  auto step = [&](auto change) {
    ASSERT_NO_FATAL_FAILURE(change(drv));
    ASSERT_NO_FATAL_FAILURE(change(shadow_drv));
    ASSERT_NO_FATAL_FAILURE(drv.check(300));
    expectSameCapacity(*t, *shadow, false);
  };
  auto settle = [&] {
    t->releaseRetired();
    shadow->releaseRetired();
    ASSERT_NO_FATAL_FAILURE(drv.check(2000));
    expectSameCapacity(*t, *shadow, true);
  };
  for (int cycle = 0; cycle < 3; ++cycle) {
    // Up: the add that takes the table past the threshold switches.
    while (drv.size() < kThreshold) {
      ASSERT_NO_FATAL_FAILURE(step([](auto& d) { d.addRandom(); }));
      ASSERT_FALSE(t->largeActive()) << drv.size();
      if (drv.size() % 50 == 0) {
        ASSERT_NO_FATAL_FAILURE(settle());
      }
    }
    ASSERT_NO_FATAL_FAILURE(step([](auto& d) { d.addRandom(); }));
    ASSERT_TRUE(t->largeActive());
    ASSERT_NO_FATAL_FAILURE(step([](auto& d) { d.churn(200); }));
    ASSERT_NO_FATAL_FAILURE(settle());
    // Down: not before releaseRetired(), and only below half the threshold.
    while (drv.size() >= kThreshold / 2) {
      ASSERT_NO_FATAL_FAILURE(step([](auto& d) { d.removeRandom(); }));
      if (drv.size() % 25 == 0) {
        ASSERT_NO_FATAL_FAILURE(settle());
      }
      ASSERT_TRUE(t->largeActive()) << drv.size();
    }
    ASSERT_NO_FATAL_FAILURE(step([](auto& d) { d.churn(30); }));
    while (drv.size() >= kThreshold / 2)
      ASSERT_NO_FATAL_FAILURE(step([](auto& d) { d.removeRandom(); }));
    ASSERT_TRUE(t->largeActive());
    ASSERT_NO_FATAL_FAILURE(settle());
    ASSERT_FALSE(t->largeActive());
    // The DIR-24-8 is freed one releaseRetired() later (an epoch after it was unpublished).
    const size_t with_retired = t->stats().memory_bytes;
    ASSERT_NO_FATAL_FAILURE(settle());
    EXPECT_LT(t->stats().memory_bytes, with_retired);
    ASSERT_NO_FATAL_FAILURE(step([](auto& d) { d.churn(100); }));
  }
  ASSERT_NO_FATAL_FAILURE(drv.removeAll());
  ASSERT_NO_FATAL_FAILURE(shadow_drv.removeAll());
  ASSERT_NO_FATAL_FAILURE(settle());
  EXPECT_EQ(t->stats().rules, 0u);
  EXPECT_EQ(t->stats().groups_used, 0u);
}

// While small, capacity errors are DIR-24-8's, and the switch up always finds its groups.
TEST(Lpm4Adaptive, CapacityIsDir24_8sWhileSmall) {
  auto t = makeAdaptive(8, 100, 3);
  for (uint32_t i = 0; i < 3; ++i) ASSERT_TRUE(t->add(0x0a000080 + (i << 8), 25, 1).ok());
  auto full = t->add(0x0b000080, 25, 1);
  ASSERT_FALSE(full.ok());
  EXPECT_NE(full.error().message.find("tbl8"), std::string::npos) << full.error().message;
  EXPECT_EQ(t->groupsNeeded({{0x0b000080, 25}, {0x0a000000, 30}, {0x0c000000, 24}}), 1u);
  ASSERT_TRUE(t->add(0x0a000000, 26, 2).ok());  // same /24: no new group
  EXPECT_EQ(t->stats().groups_free, 0u);
  for (uint32_t i = 0; i < 4; ++i) ASSERT_TRUE(t->add(0x14000000 + (i << 16), 16, 3).ok());
  EXPECT_FALSE(t->largeActive());
  ASSERT_TRUE(t->add(0x15000000, 8, 4).ok());  // the 9th rule: switch up
  EXPECT_TRUE(t->largeActive());
  EXPECT_EQ(t->stats().groups_used, 3u);
  EXPECT_EQ(t->lookup(0x0a000081), 1u);
  EXPECT_EQ(t->lookup(0x0a000001), 2u);
  EXPECT_EQ(t->lookup(0x14030001), 3u);
  EXPECT_EQ(t->lookup(0x15000001), 4u);
  EXPECT_FALSE(t->add(0x0b000080, 25, 1).ok());
}

TEST(Lpm4Adaptive, ReserveForALargeLoadStartsLarge) {
  auto t = makeAdaptive(100);
  ASSERT_TRUE(t->add(0x0a000000, 8, 1).ok());
  t->reserve(50);
  EXPECT_FALSE(t->largeActive());
  t->reserve(5000);
  EXPECT_TRUE(t->largeActive());
  EXPECT_EQ(t->lookup(0x0a000001), 1u);
  EXPECT_EQ(t->find(0x0a000000, 8).value_or(0), 1u);
}

// A reader thread, under the epoch domain, looks up while the control thread makes the
// table cross the threshold up and down (each switch publishes the other structure and
// frees the old one after synchronize()). Stable routes must always answer theirs; the
// churned ones their own next hop or the covering /8's. An old structure freed too early
// (the DIR-24-8 is unmapped, the trie's pages are discarded) would crash or answer wrong.
TEST(Lpm4Adaptive, ConcurrentReadersDuringSwitches) {
  constexpr uint32_t kThreshold = 256;
  auto t = makeAdaptive(kThreshold);
  constexpr uint32_t kStable = 32;  // 65 stable rules: below half the threshold
  // Stable: 10.i.0.0/16 -> 100 + i and 10.i.7.0/24 -> 200 + i, under 10/8 -> 1.
  ASSERT_TRUE(t->add(0x0a000000, 8, 1).ok());
  for (uint32_t i = 0; i < kStable; ++i) {
    ASSERT_TRUE(t->add(0x0a000000 | (i << 16), 16, 100 + i).ok());
    ASSERT_TRUE(t->add(0x0a000700 | (i << 16), 24, 200 + i).ok());
  }
  t->releaseRetired();
  EpochDomain epoch;
  std::atomic<bool> stop{false}, started{false};
  std::atomic<uint64_t> bad{0}, lookups{0};
  std::thread reader([&] {
    EpochReader er(epoch, "lpm-reader");
    ASSERT_TRUE(er.ok());
    // Long bulk calls: a switch that freed the old structure too early would most likely
    // land in the middle of one (the structure is chosen once per call).
    std::vector<uint32_t> ips, want;
    for (int rep = 0; rep < 32; ++rep) {
      for (uint32_t i = 0; i < kStable; ++i) {
        ips.push_back(0x0a000000 | (i << 16) | 0x0305);  // in the /16 only
        want.push_back(100 + i);
        ips.push_back(0x0a000000 | (i << 16) | 0x07fe);  // in the /24
        want.push_back(200 + i);
      }
    }
    std::vector<uint32_t> churn_ips(1024), nhs(std::max(ips.size(), churn_ips.size()));
    for (uint32_t k = 0; k < churn_ips.size(); ++k)
      churn_ips[k] = 0x0b000000u | ((k % 512) << 12) | 0x11;  // the churned prefixes' space
    while (!stop.load(std::memory_order_relaxed)) {
      for (size_t j = 0; j < 2 * kStable; ++j)
        if (t->lookup(ips[j]) != want[j]) bad.fetch_add(1);
      t->lookupBulk(ips.data(), nhs.data(), ips.size());
      for (size_t j = 0; j < ips.size(); ++j)
        if (nhs[j] != want[j]) bad.fetch_add(1);
      t->lookupBulk(churn_ips.data(), nhs.data(), churn_ips.size());
      for (size_t j = 0; j < churn_ips.size(); ++j)
        if (nhs[j] != kLpmNoRoute && nhs[j] != 1000 + ((churn_ips[j] >> 12) & 0xfff))
          bad.fetch_add(1);
      lookups.fetch_add(2 * kStable + ips.size() + churn_ips.size(), std::memory_order_relaxed);
      er.quiescent();
      started.store(true);
    }
  });
  while (!started.load()) std::this_thread::yield();
  // Each round adds churned prefixes until the table is large, then removes them until it
  // is small again; every batch ends as FibManager's do: synchronize(), releaseRetired().
  auto settle = [&] {
    ASSERT_TRUE(epoch.synchronize(std::chrono::milliseconds(5000)));
    t->releaseRetired();
  };
  int switches = 0;
  for (int round = 0; round < 100; ++round) {
    std::vector<std::pair<uint32_t, uint8_t>> added;
    for (uint32_t k = 0; k < 300; ++k) {
      const uint32_t ip = 0x0b000000u | (k << 12);
      const uint8_t d = (k + round) % 2 ? 20 : 32;
      ASSERT_TRUE(t->add(d == 32 ? ip | 0x11 : ip, d, 1000 + k).ok());
      added.emplace_back(d == 32 ? ip | 0x11 : ip, d);
      if (k % 100 == 99) {
        ASSERT_NO_FATAL_FAILURE(settle());
      }
    }
    switches += t->largeActive();
    for (size_t k = 0; k < added.size(); ++k) {
      ASSERT_TRUE(t->remove(added[k].first, added[k].second).ok());
      if (k == 150) {
        ASSERT_NO_FATAL_FAILURE(settle());
      }
    }
    ASSERT_NO_FATAL_FAILURE(settle());
    switches += !t->largeActive();
  }
  stop = true;
  reader.join();
  EXPECT_EQ(bad.load(), 0u);
  EXPECT_GT(lookups.load(), 0u);
  EXPECT_EQ(switches, 200);
  EXPECT_FALSE(t->largeActive());
}

}  // namespace
}  // namespace fastpath
