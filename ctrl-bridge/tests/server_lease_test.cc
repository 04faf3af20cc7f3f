// SPDX-License-Identifier: GPL-2.0-only
// Route leases over the real server: a client with a node name and a grace period owns what
// it adds; its routes and neighbours outlive it for the grace period, then are withdrawn.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <optional>
#include <string>
#include <thread>

#include "fastpath/ctrl/client.h"
#include "server_fixture.h"
#include "wire_client.h"

namespace fastpath::ctrl {
namespace {

using testing::route;
using testing::ServerHarness;
using testing::ServerTest;
using namespace testing::wire;

using SteadyClock = std::chrono::steady_clock;

bool hasRoute(Client& c, const std::string& prefix) {
  auto rs = c.routes();
  EXPECT_TRUE(rs) << (rs ? "" : rs.error().message);
  if (!rs) return false;
  auto p = IpPrefix::parse(prefix).value();
  for (const auto& r : *rs)
    if (r.prefix == p) return true;
  return false;
}

bool hasNeighbour(Client& c, const std::string& ip) {
  auto ns = c.neighbours();
  if (!ns) return false;
  auto a = IpAddress::parse(ip).value();
  for (const auto& n : *ns)
    if (n.ip == a) return true;
  return false;
}

std::unique_ptr<Client> connectLeased(ServerHarness& h, const std::string& node,
                                      uint32_t grace_ms) {
  ClientOptions o;
  o.node_name = node;
  o.client_name = "ns-3";
  o.route_grace_period_ms = grace_ms;
  return connectOk(h, o);
}

/// Waits (bounded) until `prefix` is gone; returns how long that took from `since`.
std::optional<std::chrono::milliseconds> waitGone(Client& c, const std::string& prefix,
                                                  SteadyClock::time_point since) {
  auto deadline = SteadyClock::now() + std::chrono::seconds(5);
  while (SteadyClock::now() < deadline) {
    if (!hasRoute(c, prefix))
      return std::chrono::duration_cast<std::chrono::milliseconds>(SteadyClock::now() - since);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return std::nullopt;
}

TEST_F(ServerTest, LeasedRoutesOutliveTheOwnerForTheGracePeriodThenAreWithdrawn) {
  auto admin = connectOk(h_);  // fpctl-like: no lease
  ASSERT_TRUE(admin);
  ASSERT_TRUE(admin->addRoute(route("198.18.100.0/24", "198.18.1.9", 1)));
  Neighbour admin_n{IpAddress::parse("198.18.1.9").value(), 1,
                    MacAddress::parse("02:aa:00:00:00:09").value()};
  ASSERT_TRUE(admin->addNeighbour(admin_n));

  auto a = connectLeased(h_, "ns3-A", 300);
  ASSERT_TRUE(a);
  RouteBatch b;
  b.add = {route("198.18.2.0/24", "198.18.1.2", 1), route("198.18.3.0/24", "198.18.1.2", 1),
           route("2001:2:0:7::/64", "", 2), route("198.18.4.0/24", "198.18.1.2", 1)};
  ASSERT_TRUE(a->applyRoutes(b));
  ASSERT_TRUE(a->deleteRoute(IpPrefix::parse("198.18.3.0/24").value()));  // A no longer has it
  ASSERT_TRUE(a->addNeighbour(
      {IpAddress::parse("198.18.1.2").value(), 1, MacAddress::parse("02:aa:00:00:00:02").value()}));
  // The admin takes over one of A's prefixes: last writer owns it, it must survive A.
  ASSERT_TRUE(admin->addRoute(route("198.18.4.0/24", "198.18.1.9", 1)));
  EXPECT_EQ(h_.onServer([&] { return h_.server().counters().leases_expired; }), 0u);

  const auto t0 = SteadyClock::now();
  a.reset();  // ns-3 exits
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  bool present = hasRoute(*admin, "198.18.2.0/24") && hasRoute(*admin, "2001:2:0:7::/64");
  if (SteadyClock::now() - t0 < std::chrono::milliseconds(280)) {  // still inside the grace period
    EXPECT_TRUE(present) << "routes withdrawn before the grace period ended";
  }
  EXPECT_TRUE(hasNeighbour(*admin, "198.18.1.2") ||
              SteadyClock::now() - t0 >= std::chrono::milliseconds(280));

  auto gone = waitGone(*admin, "198.18.2.0/24", t0);
  ASSERT_TRUE(gone) << "routes of the departed owner still present 5 s after it left";
  EXPECT_GE(gone->count(), 300);
  std::this_thread::sleep_for(std::chrono::milliseconds(600) -
                              std::min(*gone, std::chrono::milliseconds(600)));
  EXPECT_FALSE(hasRoute(*admin, "2001:2:0:7::/64"));
  EXPECT_FALSE(hasNeighbour(*admin, "198.18.1.2"));
  // Untouched: fpctl's own route, the prefix it took over, its neighbour.
  EXPECT_TRUE(hasRoute(*admin, "198.18.100.0/24"));
  EXPECT_TRUE(hasRoute(*admin, "198.18.4.0/24"));
  EXPECT_TRUE(hasNeighbour(*admin, "198.18.1.9"));
  EXPECT_EQ(admin->routes()->size(), 2u);

  auto ctr = h_.onServer([&] { return h_.server().counters(); });
  EXPECT_EQ(ctr.leases_expired, 1u);
  EXPECT_EQ(ctr.leases_cancelled, 0u);
  EXPECT_EQ(ctr.lease_routes_withdrawn, 2u);  // 198.18.2.0/24 and 2001:2:0:7::/64
  EXPECT_EQ(ctr.lease_neighbours_withdrawn, 1u);
  auto stats = admin->stats();
  ASSERT_TRUE(stats);
  uint64_t reported = 0;
  for (const auto& set : *stats)
    if (set.scope == "control-server")
      for (const auto& [name, value] : set.counters)
        if (name == "lease_routes_withdrawn") reported = value;
  EXPECT_EQ(reported, 2u);
}

TEST_F(ServerTest, OwnerBackWithinTheGracePeriodKeepsItsRoutes) {
  auto observer = connectOk(h_);
  auto a = connectLeased(h_, "ns3-A", 300);
  ASSERT_TRUE(observer && a);
  ASSERT_TRUE(a->addRoute(route("198.18.2.0/24", "198.18.1.2", 1)));
  a.reset();
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  a = connectLeased(h_, "ns3-A", 300);  // the restarted simulation (it replays anyway)
  ASSERT_TRUE(a);
  std::this_thread::sleep_for(std::chrono::milliseconds(600));
  EXPECT_TRUE(hasRoute(*observer, "198.18.2.0/24"));
  auto ctr = h_.onServer([&] { return h_.server().counters(); });
  EXPECT_EQ(ctr.leases_cancelled, 1u);
  EXPECT_EQ(ctr.leases_expired, 0u);

  // Its second departure is not forgiven: the lease still covers the route.
  const auto t0 = SteadyClock::now();
  a.reset();
  ASSERT_TRUE(waitGone(*observer, "198.18.2.0/24", t0));
}

TEST_F(ServerTest, ReplaceAllByAnOwnerReplacesItsLeasedSetAndOthersLoseTheirs) {
  auto observer = connectOk(h_);
  auto a = connectLeased(h_, "ns3-A", 200);
  auto bb = connectLeased(h_, "ns3-B", 60000);
  ASSERT_TRUE(observer && a && bb);
  ASSERT_TRUE(bb->addRoute(route("198.18.9.0/24", "198.18.1.2", 1)));
  ASSERT_TRUE(a->addRoute(route("198.18.2.0/24", "198.18.1.2", 1)));
  // A's replace-all: the table (and A's set) is exactly these two; B owns nothing now.
  ASSERT_TRUE(a->replaceAllRoutes(
      {route("198.18.5.0/24", "198.18.1.2", 1), route("198.18.9.0/24", "198.18.1.3", 1)}));
  ASSERT_TRUE(observer->addRoute(route("198.18.6.0/24", "", 2)));
  EXPECT_EQ(h_.onServer([&] { return h_.server().counters().leases_expired; }), 0u);
  const auto t0 = SteadyClock::now();
  a.reset();
  ASSERT_TRUE(waitGone(*observer, "198.18.5.0/24", t0));
  EXPECT_FALSE(hasRoute(*observer, "198.18.9.0/24"));
  EXPECT_TRUE(hasRoute(*observer, "198.18.6.0/24"));
  EXPECT_EQ(h_.onServer([&] { return h_.server().counters().lease_routes_withdrawn; }), 2u);
}

TEST_F(ServerTest, GracePeriodWithoutNodeNameIsRefused) {
  ClientOptions o;
  o.node_name = "";
  o.route_grace_period_ms = 100;
  auto c = Client::connect(h_.socketPath(), o);
  ASSERT_FALSE(c);
  EXPECT_NE(c.error().message.find("hello.route_grace_period_ms"), std::string::npos)
      << c.error().message;
}

}  // namespace
}  // namespace fastpath::ctrl
