// SPDX-License-Identifier: GPL-2.0-only
// What FibManagers cost in resident memory, as a daemon holding thousands of forwarding
// contexts needs to know: the growth of VmRSS (/proc/self/status) over creating 1,024 idle
// FibManagers, and 1,024 with a node's table each (a default route, on-link and gateway
// /24s, host routes, neighbours). Each test prints the per-node figure. Its own binary: the
// process holds nothing else.
#include <gtest/gtest.h>

#include <arpa/inet.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "fib_testing.h"
#include "table/fib_manager.h"

namespace fastpath {
namespace {

constexpr int kNodes = 1024;

long vmRssKib() {
  std::ifstream f("/proc/self/status");
  std::string line;
  while (std::getline(f, line))
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
  return -1;
}

using testing::route;
using testing::v4;

// Node k's table: 10 routes (0/0 via a gateway, 2 on-link /24s, 4 gateway /24s, 3 /32s)
// and 5 neighbours on the first on-link subnet (each gets a learnt /32); `dual_stack` adds
// ::/0 via a gateway, an on-link /64 and a gateway /48, and 2 neighbours on the /64.
Status loadNodeTable(FibManager& fib, uint32_t k, bool dual_stack = false) {
  PortConfig p0{0, {}, 1500, true}, p1{1, {}, 1500, true};
  p0.mac.bytes = {2, 0, 0, 0, static_cast<uint8_t>(k), 1};
  p1.mac.bytes = {2, 0, 0, 0, static_cast<uint8_t>(k), 2};
  if (auto st = fib.setPorts({p0, p1}); !st.ok()) return st;
  RouteBatch b;
  const uint32_t gw = 0xc6120102;  // 198.18.1.2
  b.add.push_back(route(0, 0, gw, 1));
  b.add.push_back(route(0xc6120100, 24, 0, 1));                      // 198.18.1.0/24
  b.add.push_back(route(0xc6140000 | ((k & 0xff) << 8), 24, 0, 0));  // 198.20.k.0/24
  for (uint32_t i = 0; i < 4; ++i)
    b.add.push_back(route(0xac100000 + (k << 10) + (i << 8), 24, gw, 1));  // 172.16+.x.0/24
  for (uint32_t i = 0; i < 3; ++i)
    b.add.push_back(route(0x0a000000 + (k << 8) + 1 + 7 * i, 32, gw + 1, 1));  // 10.0.k.x/32
  const std::string net64 = "2001:db8:" + std::to_string(k % 10000) + ":1::";
  if (dual_stack) {
    Route r;
    r.prefix = IpPrefix::parse("::/0").value();
    r.next_hop = IpAddress::parse(net64 + "1").value();
    r.port = 1;
    b.add.push_back(r);
    r.prefix = IpPrefix::parse(net64 + "/64").value();
    r.next_hop = IpAddress{};
    b.add.push_back(r);
    r.prefix = IpPrefix::parse("2001:db8:ffff::/48").value();
    r.next_hop = IpAddress::parse(net64 + "1").value();
    b.add.push_back(r);
  }
  if (auto st = fib.applyRoutes(b); !st.ok()) return st;
  for (uint32_t i = 0; i < (dual_stack ? 7u : 5u); ++i) {
    Neighbour n;
    n.ip = i < 5 ? v4(gw + i) : IpAddress::parse(net64 + std::to_string(i - 4)).value();
    n.port = 1;
    n.mac.bytes = {2, 0, 0, 1, static_cast<uint8_t>(k), static_cast<uint8_t>(i + 1)};
    if (auto st = fib.addNeighbour(n); !st.ok()) return st;
  }
  return {};
}

// kNodes FibManagers in `shared` into `fibs`, node k loaded by loadNodeTable(k,
// dual_stack); `before` and `after`: VmRSS around creating and loading them.
void createNodes(EpochDomain& shared, bool dual_stack,
                 std::vector<std::unique_ptr<FibManager>>& fibs, long& before, long& after) {
  fibs.reserve(kNodes);
  before = vmRssKib();
  for (int k = 0; k < kNodes; ++k) {
    auto fib = FibManager::create(1 << 20, 1 << 16, &shared);
    ASSERT_TRUE(fib.ok()) << fib.error().message;
    fibs.push_back(std::move(fib).value());
    auto st = loadNodeTable(*fibs.back(), static_cast<uint32_t>(k), dual_stack);
    ASSERT_TRUE(st.ok()) << "node " << k << ": " << st.error().message;
  }
  after = vmRssKib();
}

void report(const char* what, long before, long after) {
  const double per = double(after - before) / kNodes;
  std::printf("%s: VmRSS +%ld KiB for %d FibManagers, %.1f KiB per FibManager\n", what,
              after - before, kNodes, per);
  ::testing::Test::RecordProperty("rss_growth_kib", static_cast<int>(after - before));
}

TEST(FibMemory, IdleFibManagers) {
  std::vector<std::unique_ptr<FibManager>> fibs;
  fibs.reserve(kNodes);
  const long before = vmRssKib();
  for (int k = 0; k < kNodes; ++k) fibs.push_back(testing::createFib(1 << 20, 1 << 16));
  const long after = vmRssKib();
  report("idle, own epoch domain", before, after);
  EXPECT_LE(after - before, 64L * kNodes) << "an idle FibManager should cost a few KiB";
}

TEST(FibMemory, ThousandNodesWithSmallTables) {
  EpochDomain shared;
  std::vector<std::unique_ptr<FibManager>> fibs;
  long before = 0, after = 0;
  ASSERT_NO_FATAL_FAILURE(createNodes(shared, /*dual_stack=*/false, fibs, before, after));
  report("10 routes + 5 neighbours each, shared epoch domain", before, after);
  EXPECT_LE(after - before, 2L << 20) << "1,024 small nodes must fit in 2 GiB";
  EXPECT_LE(after - before, 256L * kNodes) << "a small node should cost tens of KiB";
  // The tables work: node 5's default route, on-link neighbour, gateway /24, host route.
  const FibView& v = fibs[5]->view();
  ASSERT_NE(v.lookup4(htonl(0x08080808)), nullptr);
  EXPECT_EQ(v.lookup4(htonl(0x08080808))->next_hop[3], 2);
  EXPECT_TRUE(v.lookup4(htonl(0xc6120104))->flags & kFwdResolved);
  EXPECT_TRUE(v.lookup4(htonl(0xc6120150))->flags & kFwdGlean);
  EXPECT_EQ(v.lookup4(htonl(0xac101501))->next_hop[3], 2);
  EXPECT_EQ(v.lookup4(htonl(0x0a000508))->next_hop[3], 3);
  EXPECT_EQ(fibs[5]->counters().routes_v4, 10u);
  EXPECT_EQ(fibs[5]->counters().neighbours, 5u);
}

TEST(FibMemory, ThousandDualStackNodes) {
  EpochDomain shared;
  std::vector<std::unique_ptr<FibManager>> fibs;
  long before = 0, after = 0;
  ASSERT_NO_FATAL_FAILURE(createNodes(shared, /*dual_stack=*/true, fibs, before, after));
  report("the same plus ::/0, a /64, a /48 and 2 IPv6 neighbours", before, after);
  EXPECT_LE(after - before, 2L << 20);
  EXPECT_LE(after - before, 256L * kNodes) << "a small dual-stack node should cost tens of KiB";
  uint8_t dst[16];
  const auto far = IpAddress::parse("2001:db9::1").value();
  std::memcpy(dst, far.bytes.data(), 16);
  ASSERT_NE(fibs[7]->view().lookup6(dst), nullptr);  // the default route
  const auto nb = IpAddress::parse("2001:db8:7:1::2").value();
  std::memcpy(dst, nb.bytes.data(), 16);
  ASSERT_NE(fibs[7]->view().lookup6(dst), nullptr);
  EXPECT_TRUE(fibs[7]->view().lookup6(dst)->flags & kFwdResolved);
}

}  // namespace
}  // namespace fastpath
