// SPDX-License-Identifier: GPL-2.0-only
// FibManager as a multi-node daemon uses it: many tables sharing one epoch domain (one
// reader registration for all of them), a table that grows past the IPv4 LPM's small
// structure and shrinks back while workers read, and a table of a million routes.
#include <gtest/gtest.h>

#include <arpa/inet.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "fib_testing.h"
#include "lpm4_reference.h"
#include "table/fib_manager.h"

namespace fastpath {
namespace {

MacAddress mac(uint8_t last, uint8_t hi = 0) {
  MacAddress m;
  m.bytes = {0x02, 0x00, 0x00, 0x00, hi, last};
  return m;
}
using testing::route;
using testing::v4;
std::vector<PortConfig> twoPorts() { return {{0, mac(1), 1500, true}, {1, mac(2), 1500, true}}; }
std::unique_ptr<FibManager> create(EpochDomain* shared, size_t v4 = 1 << 16) {
  auto fib = FibManager::create(v4, 1 << 12, shared);
  EXPECT_TRUE(fib.ok()) << (fib.ok() ? "" : fib.error().message);
  return std::move(fib).value();
}
Status apply(FibManager& fib, std::vector<Route> add, std::vector<IpPrefix> remove = {}) {
  RouteBatch b;
  b.add = std::move(add);
  b.remove = std::move(remove);
  return fib.applyRoutes(b);
}

// epoch() is the shared domain; every synchronize of those FibManagers runs there, and only
// there: a reader that never goes quiescent in it holds up their reclamation (counted as a
// timeout, memory kept), not that of a FibManager with its own domain.
TEST(FibSharedEpoch, SynchronizeRunsInTheSharedDomain) {
  EpochDomain shared;
  auto a = create(&shared), b = create(&shared), own = create(nullptr);
  EXPECT_EQ(&a->epoch(), &shared);
  EXPECT_EQ(&b->epoch(), &shared);
  EXPECT_NE(&own->epoch(), &shared);
  const uint64_t syncs = shared.counters().synchronizations;
  ASSERT_TRUE(a->setPorts(twoPorts()).ok());
  ASSERT_TRUE(b->setPorts(twoPorts()).ok());
  ASSERT_TRUE(own->setPorts(twoPorts()).ok());
  EXPECT_EQ(shared.counters().synchronizations, syncs + 2);
  EXPECT_EQ(own->epoch().counters().synchronizations, 1u);

  auto stuck = shared.registerReader("stuck-worker");
  ASSERT_TRUE(stuck.ok());
  ASSERT_TRUE(apply(*a, {route(0x0a000000, 8, 0xc6120102)}).ok());  // waits 1 s, gives up
  EXPECT_EQ(a->counters().sync_timeouts, 1u);
  ASSERT_TRUE(apply(*own, {route(0x0a000000, 8, 0xc6120102)}).ok());
  EXPECT_EQ(own->counters().sync_timeouts, 0u);
  EXPECT_NE(a->view().lookup4(htonl(0x0a010203)), nullptr);  // published all the same
  shared.unregisterReader(*stuck);
  ASSERT_TRUE(apply(*b, {route(0x0a000000, 8, 0xc6120102)}).ok());
  EXPECT_EQ(b->counters().sync_timeouts, 0u);
  EXPECT_EQ(shared.counters().timeouts, 1u);
}

// One worker thread, registered once in the shared domain, reads 16 tables while the
// control thread changes all of them (routes, neighbours, whole tables). Table f's routes
// only ever point at its own gateways 198.18.f.(10 + k) with k of the prefix's class, each
// gateway's MAC ends in k: an entry of another table, of another class, torn, or reclaimed
// before the reader's quiescent state would break that.
TEST(FibSharedEpoch, OneReaderForManyTables) {
  constexpr int kTables = 16, kPrefixes = 32, kGateways = 8;
  EpochDomain shared;
  std::vector<std::unique_ptr<FibManager>> fibs;
  auto gw = [](int f, int k) { return 0xc6120000u | (uint32_t(f) << 8) | uint32_t(10 + k); };
  std::mt19937 rng(5);
  auto pick = [&](int i) { return (i % 4) + 4 * static_cast<int>(rng() % (kGateways / 4)); };
  auto table = [&](int f) {
    std::vector<Route> rs;
    for (int i = 0; i < kPrefixes; ++i)
      rs.push_back(route(0x0a000000u | (uint32_t(i) << 16), 16, gw(f, pick(i))));
    return rs;
  };
  for (int f = 0; f < kTables; ++f) {
    fibs.push_back(create(&shared, 1 << 12));
    ASSERT_TRUE(fibs[f]->setPorts(twoPorts()).ok());
    for (int k = 0; k < kGateways; ++k)
      ASSERT_TRUE(fibs[f]->addNeighbour({v4(gw(f, k)), 1, mac(uint8_t(k))}).ok());
    ASSERT_TRUE(apply(*fibs[f], table(f)).ok());
  }
  std::atomic<bool> stop{false}, reader_gone{false};
  std::atomic<uint64_t> lookups{0}, bad{0};
  std::thread reader([&] {
    struct Gone {
      std::atomic<bool>& flag;
      ~Gone() { flag = true; }
    } gone{reader_gone};
    EpochReader er(shared, "worker");  // once, for every table
    ASSERT_TRUE(er.ok());
    std::mt19937 r(9);
    while (!stop.load(std::memory_order_relaxed)) {
      const FwdEntry* held[64];
      int tbl[64], cls[64];
      uint32_t dst[64], nh[64];
      for (int j = 0; j < 64; ++j) {
        tbl[j] = static_cast<int>(r() % kTables);
        cls[j] = static_cast<int>(r() % kPrefixes);
        dst[j] = (10u << 24) | (uint32_t(cls[j]) << 16) | ((r() & 1) ? 5u << 8 : 0) | (r() & 0xff);
        held[j] = fibs[tbl[j]]->view().lookup4(htonl(dst[j]));
      }
      // The bulk path of one table, as a worker's batch does.
      const int f0 = tbl[0];
      fibs[f0]->view().nextHops4(dst, nh, 64);
      for (int j = 0; j < 64; ++j) {
        const FwdEntry* e = held[j];
        const FwdEntry* b = fibs[f0]->view().route(nh[j]);
        for (auto [x, f] : {std::pair{e, tbl[j]}, std::pair{b, f0}}) {
          const int k = x ? x->next_hop[3] - 10 : -1;
          if (!x || x->next_hop[2] != f || k < 0 || k >= kGateways || k % 4 != cls[j] % 4 ||
              ((x->flags & kFwdResolved) && x->dst_mac[5] != k) || x->port != 1)
            ++bad;
        }
      }
      lookups += 128;
      er.quiescent();
    }
  });
  // The changes start once the reader has looked up: on a busy machine the 600 rounds could
  // otherwise all end before the reader thread first runs (and no lookup would be checked).
  while (lookups.load() == 0 && !reader_gone.load()) std::this_thread::yield();
  for (int round = 0; round < 600; ++round) {
    const int f = static_cast<int>(rng() % kTables);
    const int op = static_cast<int>(rng() % 8);
    if (op == 0) {  // whole table
      RouteBatch b;
      b.replace_all = true;
      b.add = table(f);
      ASSERT_TRUE(fibs[f]->applyRoutes(b).ok());
    } else if (op == 1) {  // neighbour flap: entries republished
      const int k = static_cast<int>(rng() % kGateways);
      ASSERT_TRUE(fibs[f]->deleteNeighbour(v4(gw(f, k)), 1).ok());
      ASSERT_TRUE(fibs[f]->addNeighbour({v4(gw(f, k)), 1, mac(uint8_t(k))}).ok());
    } else {  // a /24 inside a /16 comes or goes
      const int i = static_cast<int>(rng() % kPrefixes);
      const uint32_t sub = 0x0a000500u | (uint32_t(i) << 16);
      RouteBatch b;
      b.ignore_missing = true;
      if (rng() & 1)
        b.add = {route(sub, 24, gw(f, pick(i)))};
      else
        b.remove = {route(sub, 24, 0).prefix};
      ASSERT_TRUE(fibs[f]->applyRoutes(b).ok());
    }
  }
  stop = true;
  reader.join();
  EXPECT_GT(lookups.load(), 0u);
  EXPECT_EQ(bad.load(), 0u);
  EXPECT_EQ(shared.counters().readers, 0u);
  EXPECT_EQ(shared.counters().timeouts, 0u);
}

// A table grows past Lpm4Adaptive's threshold (the IPv4 LPM switches from the trie to
// DIR-24-8 inside a batch) and shrinks back (the switch down happens in the reclamation
// after a batch) while a worker reads; every route answers right after each batch.
TEST(FibGrowth, CrossesTheLpmThresholdWhileWorkersRead) {
  auto fib = create(nullptr, 1 << 16);
  ASSERT_TRUE(fib->setPorts(twoPorts()).ok());
  for (int k = 0; k < 4; ++k)
    ASSERT_TRUE(fib->addNeighbour({v4(0xc6120100u + 10 + k), 1, mac(uint8_t(k))}).ok());
  // Stable: 10.i.0.0/16 via gateway i % 4.
  std::vector<Route> stable;
  for (uint32_t i = 0; i < 64; ++i)
    stable.push_back(route(0x0a000000u | (i << 16), 16, 0xc612010au + i % 4));
  ASSERT_TRUE(apply(*fib, stable).ok());
  const size_t small_memory = fib->counters().lpm4.memory_bytes;

  std::atomic<bool> stop{false};
  std::atomic<uint64_t> lookups{0}, bad{0};
  std::thread reader([&] {
    EpochReader er(fib->epoch(), "worker");
    ASSERT_TRUE(er.ok());
    uint32_t dst[64], nh[64];
    for (uint32_t j = 0; j < 64; ++j) dst[j] = 0x0a000000u | (j << 16) | 0x1234;
    while (!stop.load(std::memory_order_relaxed)) {
      fib->view().nextHops4(dst, nh, 64);
      for (uint32_t j = 0; j < 64; ++j) {
        const FwdEntry* e = fib->view().route(nh[j]);
        const FwdEntry* s = fib->view().lookup4(htonl(dst[j]));
        if (!e || !s || e->next_hop[3] != 10 + j % 4 || s->next_hop[3] != 10 + j % 4) ++bad;
      }
      lookups += 128;
      er.quiescent();
    }
  });
  // Host routes 11.x.y.z/32 via gateway (z % 4), in batches of 1000.
  auto host = [](uint32_t n) { return 0x0b000000u + n * 7; };
  auto check = [&](uint32_t present) {
    for (uint32_t n = 0; n < present + 50; n += 97) {
      const FwdEntry* e = fib->view().lookup4(htonl(host(n)));
      if (n < present) {
        ASSERT_NE(e, nullptr) << n;
        EXPECT_EQ(e->next_hop[3], 10 + n % 4) << n;
      } else {
        EXPECT_EQ(e, nullptr) << n;
      }
    }
  };
  const uint32_t kMax = Lpm4Adaptive::kDefaultSmallMaxRules + 2000;
  uint32_t present = 0;
  for (; present < kMax; present += 1000) {
    std::vector<Route> add;
    for (uint32_t n = present; n < present + 1000; ++n)
      add.push_back(route(host(n), 32, 0xc612010au + n % 4));
    ASSERT_TRUE(apply(*fib, add).ok());
    ASSERT_NO_FATAL_FAILURE(check(present + 1000));
  }
  EXPECT_GT(fib->counters().lpm4.memory_bytes, small_memory);  // DIR-24-8 mapped
  for (; present > 1000; present -= 1000) {
    std::vector<IpPrefix> remove;
    for (uint32_t n = present - 1000; n < present; ++n)
      remove.push_back(route(host(n), 32, 0).prefix);
    ASSERT_TRUE(apply(*fib, {}, remove).ok());
    ASSERT_NO_FATAL_FAILURE(check(present - 1000));
  }
  EXPECT_EQ(fib->counters().lpm4.memory_bytes, small_memory);  // DIR-24-8 freed already
  stop = true;
  reader.join();
  EXPECT_GT(lookups.load(), 0u);
  EXPECT_EQ(bad.load(), 0u);
  EXPECT_EQ(fib->counters().sync_timeouts, 0u);
}

// A million routes in one table (replace_all announces them: DIR-24-8 from the start), then
// incremental changes, then back to a small table.
TEST(FibLarge, MillionRoutes) {
  auto fib = create(nullptr, 1 << 20);
  ASSERT_TRUE(fib->setPorts(twoPorts()).ok());
  std::mt19937_64 rng(1000000);
  testing::Ref4 ref;
  RouteBatch all;
  all.replace_all = true;
  std::set<uint64_t> seen;
  while (all.add.size() < 1000000) {
    const uint8_t d = testing::randomDepth4(rng);
    const uint32_t ip = static_cast<uint32_t>(rng()) & testing::mask4(d);
    if (!seen.insert((uint64_t{ip} << 6) | d).second) continue;
    const uint32_t k = static_cast<uint32_t>(rng() % 16);
    all.add.push_back(route(ip, d, 0xc6120102u + k));
    ref.add(ip, d, k);
  }
  ASSERT_TRUE(fib->applyRoutes(all).ok());
  EXPECT_EQ(fib->counters().routes_v4, 1000000u);
  auto check = [&] {
    for (int i = 0; i < 200000; ++i) {
      const uint32_t a = static_cast<uint32_t>(rng());
      const uint32_t want = ref.lookup(a);
      const FwdEntry* e = fib->view().lookup4(htonl(a));
      if (want == kLpmNoRoute) {
        ASSERT_EQ(e, nullptr) << std::hex << a;
      } else {
        ASSERT_NE(e, nullptr) << std::hex << a;
        ASSERT_EQ(e->next_hop[3], 2 + want) << std::hex << a;
      }
    }
  };
  ASSERT_NO_FATAL_FAILURE(check());
  std::vector<IpPrefix> remove;
  for (size_t i = 0; i < 1000; ++i) {
    const Route& r = all.add[i * 997];
    remove.push_back(r.prefix);
    ref.remove(ntohl(r.prefix.address.v4NetworkOrder()), r.prefix.length);
  }
  ASSERT_TRUE(apply(*fib, {}, remove).ok());
  ASSERT_NO_FATAL_FAILURE(check());
  RouteBatch small;
  small.replace_all = true;
  small.add = {route(0, 0, 0xc6120102u), route(0x0a000000, 8, 0xc6120103u)};
  ASSERT_TRUE(fib->applyRoutes(small).ok());
  EXPECT_EQ(fib->view().lookup4(htonl(0x0a000001))->next_hop[3], 3);
  EXPECT_EQ(fib->view().lookup4(htonl(0x0b000001))->next_hop[3], 2);
  EXPECT_LT(fib->counters().lpm4.memory_bytes, size_t{64} << 20);  // the trie again
}

}  // namespace
}  // namespace fastpath
