// SPDX-License-Identifier: GPL-2.0-only
// FibManager: batch validation (each error names the field), all-or-nothing, replace-all,
// next-hop resolution through neighbours, on-link subnets, local addresses, ports; and
// workers reading while the control thread updates (no torn or stale-invalid reads).
#include <gtest/gtest.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <random>
#include <thread>

#include <arpa/inet.h>

#include "fib_testing.h"
#include "table/fib_manager.h"

namespace fastpath {
namespace {

IpAddress ip(const std::string& s) {
  auto r = IpAddress::parse(s);
  EXPECT_TRUE(r.ok()) << s;
  return r.value();
}
IpPrefix pfx(const std::string& s) {
  auto r = IpPrefix::parse(s);
  if (r.ok()) return r.value();
  // Tests also need invalid prefixes: build by hand "addr/len".
  const auto slash = s.find('/');
  IpPrefix p;
  p.address = ip(s.substr(0, slash));
  p.length = static_cast<uint8_t>(std::stoi(s.substr(slash + 1)));
  return p;
}
MacAddress mac(uint8_t last, uint8_t port = 0) {
  MacAddress m;
  m.bytes = {0x02, 0x00, 0x00, 0x00, port, last};
  return m;
}
Route route(const std::string& prefix, const std::string& gw, PortId port) {
  Route r;
  r.prefix = pfx(prefix);
  if (!gw.empty()) r.next_hop = ip(gw);
  r.port = port;
  return r;
}
uint32_t be(const std::string& s) { return ip(s).v4NetworkOrder(); }

class FibTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(fib.setPorts({{0, mac(1, 0xa0), 1500, true}, {1, mac(2, 0xa1), 1500, true}}).ok());
  }
  Status add(std::vector<Route> routes) {
    RouteBatch b;
    b.add = std::move(routes);
    return fib.applyRoutes(b);
  }
  std::unique_ptr<FibManager> fib_owner = testing::createFib(1 << 16, 1 << 12);
  FibManager& fib = *fib_owner;
};

TEST_F(FibTest, ValidationErrorsNameTheField) {
  struct Case {
    RouteBatch batch;
    std::string field;
  };
  std::vector<Case> cases;
  {
    RouteBatch b;
    b.add = {route("198.18.2.1/24", "", 0)};
    cases.push_back({b, "add[0].prefix"});
  }
  {
    RouteBatch b;
    b.add = {route("198.18.2.0/24", "", 0), route("198.18.3.0/33", "", 0)};
    cases.push_back({b, "add[1].prefix"});
  }
  {
    RouteBatch b;
    b.add = {route("2001:2::/129", "", 0)};
    cases.push_back({b, "add[0].prefix"});
  }
  {
    RouteBatch b;
    b.add = {route("198.18.2.0/24", "", 0), route("198.18.3.0/24", "", 7)};
    cases.push_back({b, "add[1].port"});
  }
  {
    RouteBatch b;
    b.add = {route("198.18.2.0/24", "2001:2::1", 0)};
    cases.push_back({b, "add[0].next_hop"});
  }
  {
    RouteBatch b;
    b.add = {route("198.18.2.0/24", "", 0), route("198.18.2.0/24", "198.18.0.2", 1)};
    cases.push_back({b, "add[1].prefix"});
  }
  {
    RouteBatch b;
    b.remove = {pfx("198.18.9.0/24")};
    cases.push_back({b, "remove[0]"});
  }
  {
    RouteBatch b;
    b.add = {route("198.18.2.0/24", "", 0)};
    b.remove = {pfx("198.18.2.0/24")};
    cases.push_back({b, "remove[0]"});
  }
  {
    RouteBatch b;
    b.remove = {pfx("198.18.3.0/23")};
    cases.push_back({b, "remove[0]"});  // host bits set
  }
  for (size_t i = 0; i < cases.size(); ++i) {
    auto st = fib.applyRoutes(cases[i].batch);
    ASSERT_FALSE(st.ok()) << "case " << i;
    EXPECT_EQ(st.error().message.rfind(cases[i].field, 0), 0u)
        << "case " << i << ": '" << st.error().message << "' should start with " << cases[i].field;
  }
  EXPECT_TRUE(fib.routes().empty());
  EXPECT_EQ(fib.counters().batches_rejected, cases.size());
  // A missing route is ENOENT (NOT_FOUND on the wire), malformed ones EINVAL.
  EXPECT_EQ(fib.applyRoutes(cases[cases.size() - 3].batch).error().code, -ENOENT);
  EXPECT_EQ(fib.applyRoutes(cases[cases.size() - 1].batch).error().code, -EINVAL);
  // ignore_missing turns the missing remove into a no-op.
  RouteBatch b;
  b.remove = {pfx("198.18.9.0/24")};
  b.ignore_missing = true;
  EXPECT_TRUE(fib.applyRoutes(b).ok());
}

TEST_F(FibTest, BatchIsAllOrNothing) {
  ASSERT_TRUE(add({route("198.18.2.0/24", "198.18.1.2", 1)}).ok());
  RouteBatch b;
  b.add = {route("198.18.3.0/24", "198.18.1.2", 1), route("198.18.4.0/24", "198.18.1.2", 9)};
  b.remove = {pfx("198.18.2.0/24")};
  ASSERT_FALSE(fib.applyRoutes(b).ok());
  ASSERT_EQ(fib.routes().size(), 1u);
  EXPECT_NE(fib.view().lookup4(be("198.18.2.1")), nullptr);
  EXPECT_EQ(fib.view().lookup4(be("198.18.3.1")), nullptr);
  // Same batch without the bad entry applies whole.
  b.add.pop_back();
  ASSERT_TRUE(fib.applyRoutes(b).ok());
  EXPECT_EQ(fib.view().lookup4(be("198.18.2.1")), nullptr);
  EXPECT_NE(fib.view().lookup4(be("198.18.3.1")), nullptr);
}

TEST_F(FibTest, GatewayRouteResolvesThroughNeighbour) {
  ASSERT_TRUE(
      add({route("198.18.2.0/24", "198.18.1.2", 1), route("0.0.0.0/0", "198.18.1.2", 1)}).ok());
  const FwdEntry* e = fib.view().lookup4(be("198.18.2.5"));
  ASSERT_NE(e, nullptr);
  EXPECT_FALSE(e->flags & kFwdResolved);
  EXPECT_EQ(e->port, 1u);
  EXPECT_EQ(0, std::memcmp(e->next_hop, ip("198.18.1.2").bytes.data(), 4));
  const uint64_t updates = fib.counters().route_updates;

  ASSERT_TRUE(fib.addNeighbour({ip("198.18.1.2"), 1, mac(0x22)}).ok());
  for (const char* dst : {"198.18.2.5", "8.8.8.8"}) {
    e = fib.view().lookup4(be(dst));
    ASSERT_NE(e, nullptr);
    EXPECT_TRUE(e->flags & kFwdResolved) << dst;
    EXPECT_EQ(0, std::memcmp(e->dst_mac, mac(0x22).bytes.data(), 6));
    EXPECT_EQ(0, std::memcmp(e->src_mac, mac(2, 0xa1).bytes.data(), 6));
    EXPECT_EQ(e->mtu, 1500);
  }
  // A MAC change and a delete touch the next hop only, never the LPM rules.
  ASSERT_TRUE(fib.addNeighbour({ip("198.18.1.2"), 1, mac(0x23)}).ok());
  EXPECT_EQ(fib.view().lookup4(be("8.8.8.8"))->dst_mac[5], 0x23);
  ASSERT_TRUE(fib.deleteNeighbour(ip("198.18.1.2"), 1).ok());
  EXPECT_FALSE(fib.view().lookup4(be("8.8.8.8"))->flags & kFwdResolved);
  EXPECT_EQ(fib.counters().route_updates, updates);
  EXPECT_FALSE(fib.deleteNeighbour(ip("198.18.1.2"), 1).ok());
  // A neighbour on the wrong port does not resolve the next hop.
  ASSERT_TRUE(fib.addNeighbour({ip("198.18.1.2"), 0, mac(0x24)}).ok());
  EXPECT_FALSE(fib.view().lookup4(be("8.8.8.8"))->flags & kFwdResolved);
  EXPECT_EQ(fib.neighbours().size(), 1u);
  EXPECT_FALSE(fib.addNeighbour({ip("198.18.1.3"), 5, mac(1)}).ok());
  EXPECT_FALSE(fib.addNeighbour({ip("198.18.1.3"), 1, MacAddress{}}).ok());
}

TEST_F(FibTest, OnLinkSubnetGleansAndLearnsHosts) {
  ASSERT_TRUE(add({route("198.18.1.0/24", "", 1)}).ok());
  const FwdEntry* e = fib.view().lookup4(be("198.18.1.7"));
  ASSERT_NE(e, nullptr);
  EXPECT_TRUE(e->flags & kFwdGlean);
  EXPECT_FALSE(e->flags & kFwdResolved);
  ASSERT_TRUE(fib.addNeighbour({ip("198.18.1.7"), 1, mac(7)}).ok());
  ASSERT_TRUE(fib.addNeighbour({ip("198.18.1.8"), 1, mac(8)}).ok());
  ASSERT_TRUE(fib.addNeighbour({ip("198.18.1.9"), 0, mac(9)}).ok());  // wrong port: no host route
  e = fib.view().lookup4(be("198.18.1.7"));
  ASSERT_TRUE(e->flags & kFwdResolved);
  EXPECT_EQ(e->dst_mac[5], 7);
  EXPECT_EQ(fib.view().lookup4(be("198.18.1.8"))->dst_mac[5], 8);
  EXPECT_TRUE(fib.view().lookup4(be("198.18.1.9"))->flags & kFwdGlean);
  EXPECT_TRUE(fib.view().lookup4(be("198.18.1.10"))->flags & kFwdGlean);
  EXPECT_EQ(fib.routes().size(), 1u);  // host routes are internal
  // A gateway route for a host inside the subnet wins over the learnt host route.
  ASSERT_TRUE(add({route("198.18.1.8/32", "198.18.1.7", 1)}).ok());
  EXPECT_EQ(fib.view().lookup4(be("198.18.1.8"))->dst_mac[5], 7);
  RouteBatch rm;
  rm.remove = {pfx("198.18.1.8/32")};
  ASSERT_TRUE(fib.applyRoutes(rm).ok());
  EXPECT_EQ(fib.view().lookup4(be("198.18.1.8"))->dst_mac[5], 8);
  // Removing the subnet removes its learnt hosts too.
  rm.remove = {pfx("198.18.1.0/24")};
  ASSERT_TRUE(fib.applyRoutes(rm).ok());
  EXPECT_EQ(fib.view().lookup4(be("198.18.1.7")), nullptr);
  EXPECT_EQ(fib.view().lookup4(be("198.18.1.8")), nullptr);
  EXPECT_EQ(fib.counters().lpm4.rules, 0u);
  EXPECT_EQ(fib.counters().next_hops, 0u);
}

TEST_F(FibTest, NeighboursLearntBeforeTheirSubnetGetHostRoutes) {
  ASSERT_TRUE(fib.addNeighbour({ip("198.18.1.7"), 1, mac(7)}).ok());
  ASSERT_TRUE(fib.addNeighbour({ip("198.18.9.7"), 1, mac(9)}).ok());
  EXPECT_EQ(fib.view().lookup4(be("198.18.1.7")), nullptr);
  ASSERT_TRUE(add({route("198.18.1.0/24", "", 1), route("198.18.9.0/24", "198.18.1.1", 1)}).ok());
  EXPECT_EQ(fib.view().lookup4(be("198.18.1.7"))->dst_mac[5], 7);  // on-link: its own entry
  EXPECT_FALSE(fib.view().lookup4(be("198.18.9.7"))->flags & kFwdResolved);  // via gateway
  // A more specific gateway route over the neighbour takes its host route away.
  ASSERT_TRUE(add({route("198.18.1.0/28", "198.18.9.1", 1)}).ok());
  EXPECT_EQ(0, std::memcmp(fib.view().lookup4(be("198.18.1.7"))->next_hop,
                           ip("198.18.9.1").bytes.data(), 4));
  RouteBatch rm;
  rm.remove = {pfx("198.18.1.0/28")};
  ASSERT_TRUE(fib.applyRoutes(rm).ok());
  EXPECT_EQ(fib.view().lookup4(be("198.18.1.7"))->dst_mac[5], 7);
}

TEST_F(FibTest, Ipv6RoutesAndNeighbours) {
  ASSERT_TRUE(add({route("2001:2:2::/48", "2001:2:1::2", 1), route("2001:2:1::/64", "", 1)}).ok());
  uint8_t dst[16];
  std::memcpy(dst, ip("2001:2:2::5").bytes.data(), 16);
  const FwdEntry* e = fib.view().lookup6(dst);
  ASSERT_NE(e, nullptr);
  EXPECT_FALSE(e->flags & kFwdResolved);
  EXPECT_EQ(e->family, 6);
  ASSERT_TRUE(fib.addNeighbour({ip("2001:2:1::2"), 1, mac(0x62)}).ok());
  e = fib.view().lookup6(dst);
  ASSERT_TRUE(e->flags & kFwdResolved);
  EXPECT_EQ(e->dst_mac[5], 0x62);
  // The gateway itself is on the on-link /64 and now has its own host entry.
  std::memcpy(dst, ip("2001:2:1::2").bytes.data(), 16);
  EXPECT_EQ(fib.view().lookup6(dst)->dst_mac[5], 0x62);
  std::memcpy(dst, ip("2001:2:1::3").bytes.data(), 16);
  EXPECT_TRUE(fib.view().lookup6(dst)->flags & kFwdGlean);
  std::memcpy(dst, ip("2001:2:3::1").bytes.data(), 16);
  EXPECT_EQ(fib.view().lookup6(dst), nullptr);
}

TEST_F(FibTest, ReplaceAllSwapsTheWholeTable) {
  ASSERT_TRUE(add({route("198.18.2.0/24", "198.18.1.2", 1), route("198.18.3.0/24", "198.18.1.2", 1),
                   route("2001:2:2::/48", "2001:2:1::2", 1)})
                  .ok());
  ASSERT_TRUE(fib.addNeighbour({ip("198.18.1.2"), 1, mac(0x22)}).ok());
  RouteBatch b;
  b.replace_all = true;
  b.add = {route("198.18.4.0/24", "198.18.1.2", 1), route("198.18.5.128/25", "198.18.1.2", 1)};
  ASSERT_TRUE(fib.applyRoutes(b).ok());
  ASSERT_EQ(fib.routes().size(), 2u);
  EXPECT_EQ(fib.routes()[0].prefix.toString(), "198.18.4.0/24");  // sorted by address
  EXPECT_EQ(fib.routes()[1].prefix.toString(), "198.18.5.128/25");
  EXPECT_EQ(fib.view().lookup4(be("198.18.2.1")), nullptr);
  ASSERT_NE(fib.view().lookup4(be("198.18.5.200")), nullptr);
  EXPECT_TRUE(fib.view().lookup4(be("198.18.4.1"))->flags & kFwdResolved);  // neighbours kept
  uint8_t dst[16];
  std::memcpy(dst, ip("2001:2:2::5").bytes.data(), 16);
  EXPECT_EQ(fib.view().lookup6(dst), nullptr);
  // A bad replace-all leaves the current table alone.
  b.add.push_back(route("198.18.6.0/24", "", 3));
  ASSERT_FALSE(fib.applyRoutes(b).ok());
  EXPECT_EQ(fib.routes().size(), 2u);
  b.add.pop_back();
  b.remove = {pfx("198.18.4.0/24")};
  ASSERT_FALSE(fib.applyRoutes(b).ok());
  // Replace-all with nothing empties it.
  RouteBatch empty;
  empty.replace_all = true;
  ASSERT_TRUE(fib.applyRoutes(empty).ok());
  EXPECT_EQ(fib.view().lookup4(be("198.18.4.1")), nullptr);
  EXPECT_EQ(fib.counters().lpm4.rules, 0u);
}

TEST_F(FibTest, LocalAddressesWinAndPortsPropagate) {
  ASSERT_TRUE(add({route("198.18.1.0/24", "", 1)}).ok());
  ASSERT_TRUE(fib.setLocalAddresses({ip("198.18.1.1"), ip("2001:2:1::1")}).ok());
  EXPECT_TRUE(fib.view().lookup4(be("198.18.1.1"))->flags & kFwdLocal);
  uint8_t dst[16];
  std::memcpy(dst, ip("2001:2:1::1").bytes.data(), 16);
  ASSERT_NE(fib.view().lookup6(dst), nullptr);
  EXPECT_TRUE(fib.view().lookup6(dst)->flags & kFwdLocal);
  ASSERT_TRUE(fib.setLocalAddresses({}).ok());
  EXPECT_TRUE(fib.view().lookup4(be("198.18.1.1"))->flags & kFwdGlean);
  EXPECT_EQ(fib.view().lookup6(dst), nullptr);

  // Port changes (down, MTU, MAC) reach existing entries.
  ASSERT_TRUE(fib.setPorts({{0, mac(1, 0xa0), 1500, true}, {1, mac(9, 0xa1), 9000, false}}).ok());
  const FwdEntry* e = fib.view().lookup4(be("198.18.1.5"));
  EXPECT_TRUE(e->flags & kFwdPortDown);
  EXPECT_EQ(e->mtu, 9000);
  EXPECT_EQ(e->src_mac[5], 9);
  // A port in use cannot disappear; bad port configs name the field.
  auto st = fib.setPorts({{0, mac(1), 1500, true}});
  ASSERT_FALSE(st.ok());
  st = fib.setPorts({{0, mac(1), 1500, true}, {0, mac(2), 1500, true}});
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().message.rfind("ports[1].id", 0), 0u) << st.error().message;
  st = fib.setPorts({{0, MacAddress{}, 1500, true}});
  EXPECT_EQ(st.error().message.rfind("ports[0].mac", 0), 0u) << st.error().message;
  st = fib.setPorts({{0, mac(1), 20, true}});
  EXPECT_EQ(st.error().message.rfind("ports[0].mtu", 0), 0u) << st.error().message;
}

// Workers read while the control thread changes routes, neighbours and whole tables.
// Every prefix 10.i.0.0/16 (and its sometimes-present 10.i.5.0/24) only ever points at a
// gateway from its own class {k : k % 4 == i % 4}, and every gateway's MAC ends in k, so
// any lookup must return an entry of the right class whose MAC matches its gateway: a
// torn or reclaimed-too-early read would break that.
TEST(FibConcurrency, ReadersNeverSeeTornOrForeignEntries) {
  constexpr int kPrefixes = 64, kGateways = 16;
  auto fib_owner = testing::createFib(1 << 12, 1 << 8);
  FibManager& fib = *fib_owner;
  ASSERT_TRUE(fib.setPorts({{0, mac(1), 1500, true}, {1, mac(2), 1500, true}}).ok());
  auto gw = [](int k) { return "198.18.1." + std::to_string(10 + k); };
  for (int k = 0; k < kGateways; ++k)
    ASSERT_TRUE(fib.addNeighbour({ip(gw(k)), 1, mac(static_cast<uint8_t>(k))}).ok());
  std::mt19937 rng(42);
  auto pick = [&](int i) { return (i % 4) + 4 * static_cast<int>(rng() % (kGateways / 4)); };
  RouteBatch init;
  for (int i = 0; i < kPrefixes; ++i)
    init.add.push_back(route("10." + std::to_string(i) + ".0.0/16", gw(pick(i)), 1));
  ASSERT_TRUE(fib.applyRoutes(init).ok());

  std::atomic<bool> stop{false};
  std::atomic<uint64_t> lookups{0}, bad{0};
  std::thread reader([&] {
    EpochReader er(fib.epoch(), "test-reader");
    ASSERT_TRUE(er.ok());
    std::mt19937 r(7);
    uint64_t n = 0;
    while (!stop.load(std::memory_order_relaxed)) {
      // A worker batch: look up 64 destinations, use the entries, then go quiescent.
      // Entries are checked at the end of the batch, so one reclaimed early (the
      // FibManager poisons entries it frees) would be caught.
      const FwdEntry* held[64];
      int cls[64];
      for (int j = 0; j < 64; ++j) {
        cls[j] = static_cast<int>(r() % kPrefixes);
        const uint32_t dst = htonl((10u << 24) | (uint32_t(cls[j]) << 16) |
                                   ((r() & 1) ? 5u << 8 : 0) | (r() & 0xff));
        held[j] = fib.view().lookup4(dst);
      }
      for (int j = 0; j < 64; ++j, ++n) {
        const int i = cls[j];
        const FwdEntry* e = held[j];
        if (!e) {
          ++bad;
          continue;
        }
        const int k = e->next_hop[3] - 10;
        const bool resolved = e->flags & kFwdResolved;
        if (k < 0 || k >= kGateways || k % 4 != i % 4 || (resolved && e->dst_mac[5] != k) ||
            e->port != 1)
          ++bad;
      }
      er.quiescent();
    }
    lookups += n;
  });

  int updates = 0;
  for (int round = 0; round < 1500; ++round) {
    RouteBatch b;
    const int op = static_cast<int>(rng() % 10);
    if (op == 0) {  // whole table
      b.replace_all = true;
      for (int i = 0; i < kPrefixes; ++i)
        b.add.push_back(route("10." + std::to_string(i) + ".0.0/16", gw(pick(i)), 1));
    } else if (op == 1) {  // neighbour flap: MAC stays k, entries get republished
      const int k = static_cast<int>(rng() % kGateways);
      ASSERT_TRUE(fib.deleteNeighbour(ip(gw(k)), 1).ok());
      ASSERT_TRUE(fib.addNeighbour({ip(gw(k)), 1, mac(static_cast<uint8_t>(k))}).ok());
      updates += 2;
      continue;
    } else {
      for (int n = 0; n < 4; ++n) {
        const int i = static_cast<int>(rng() % kPrefixes);
        const std::string sub = "10." + std::to_string(i) + ".5.0/24";
        bool present = false;
        for (const Route& r : b.add) present |= r.prefix == pfx(sub);
        if (rng() & 1) {
          if (!present) b.add.push_back(route(sub, gw(pick(i)), 1));
        } else {
          b.remove.push_back(pfx(sub));
        }
      }
      b.ignore_missing = true;
      // Drop removes that collide with adds or repeat.
      std::vector<IpPrefix> rm;
      for (const auto& p : b.remove) {
        bool clash = false;
        for (const Route& r : b.add) clash |= r.prefix == p;
        for (const auto& q : rm) clash |= q == p;
        if (!clash) rm.push_back(p);
      }
      b.remove = rm;
    }
    auto st = fib.applyRoutes(b);
    ASSERT_TRUE(st.ok()) << st.error().message;
    updates += static_cast<int>(b.add.size() + b.remove.size());
  }
  stop = true;
  reader.join();
  EXPECT_GT(updates, 3000);
  EXPECT_GT(lookups.load(), 0u);
  EXPECT_EQ(bad.load(), 0u);
  EXPECT_EQ(fib.counters().sync_timeouts, 0u);
}

}  // namespace
}  // namespace fastpath
