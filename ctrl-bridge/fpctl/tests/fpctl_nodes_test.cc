// SPDX-License-Identifier: GPL-2.0-only
// fpctl against a server with nodes: --node scoping, node and host commands, monitor,
// permissions.
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <future>

#include "fpctl_runner.h"

namespace fastpath::ctrl {
namespace {

using testing::FpctlNodes;
using testing::ServerHarness;
using testing::fpctl;

TEST_F(FpctlNodes, NodeOptionScopesRouteNeighRulesPortsAndStats) {
  auto add =
      run({"--node", "r1", "route", "add", "198.18.2.0/24", "via", "198.18.1.2", "dev", "r1-eth0"});
  ASSERT_EQ(add.exit_code, 0) << add.err;
  EXPECT_EQ(routesIn("r1"), 1u);
  EXPECT_EQ(routesIn("default"), 0u);
  // The option may also come after the object, and as --node=NAME.
  auto show = run({"route", "show", "--json", "--node=r1"});
  ASSERT_EQ(show.exit_code, 0) << show.err;
  EXPECT_EQ(show.out,
            "[{\"prefix\":\"198.18.2.0/24\",\"via\":\"198.18.1.2\",\"dev\":\"r1-eth0\",\"port\":10,"
            "\"metric\":0}]\n");
  EXPECT_EQ(run({"route", "show"}).out, "");
  EXPECT_EQ(run({"--node", "r2", "route", "show"}).out, "");
  // Another node's port is not known in r1.
  auto foreign = run({"--node", "r1", "route", "add", "198.18.3.0/24", "dev", "fp1"});
  EXPECT_EQ(foreign.exit_code, 1);
  EXPECT_NE(foreign.err.find("no port 'fp1' (fastpathd has: r1-eth0, r1-eth1)"), std::string::npos)
      << foreign.err;
  auto by_id = run({"--node", "r1", "route", "add", "198.18.3.0/24", "dev", "20"});
  EXPECT_EQ(by_id.exit_code, 1) << by_id.err;

  ASSERT_EQ(run({"--node", "r1", "neigh", "add", "198.18.1.2", "lladdr", "02:aa:bb:cc:dd:ee", "dev",
                 "r1-eth0"})
                .exit_code,
            0);
  EXPECT_EQ(run({"--node", "r1", "neigh", "show"}).out,
            "198.18.1.2 dev r1-eth0 lladdr 02:aa:bb:cc:dd:ee\n");
  EXPECT_EQ(run({"neigh", "show"}).out, "");
  ASSERT_EQ(run({"--node", "r1", "rules", "set", "udp", "698"}).exit_code, 0);
  EXPECT_EQ(run({"--node", "r1", "rules", "show"}).out, "udp 698 control\n");
  EXPECT_EQ(run({"rules", "show"}).out, "");

  auto ports = run({"--node", "r2", "ports", "--json"});
  ASSERT_EQ(ports.exit_code, 0) << ports.err;
  EXPECT_NE(ports.out.find(R"({"id":20,"ifname":"r2-eth0",)"), std::string::npos) << ports.out;
  EXPECT_NE(ports.out.find(R"("node":"r2","link":null})"), std::string::npos) << ports.out;
  EXPECT_EQ(ports.out.find("fp0"), std::string::npos) << ports.out;
  auto stats = run({"--node", "r1", "stats", "--json"});
  ASSERT_EQ(stats.exit_code, 0);
  EXPECT_NE(stats.out.find(R"("scope":"port r1-eth0")"), std::string::npos) << stats.out;
  EXPECT_EQ(stats.out.find(R"("scope":"port fp0")"), std::string::npos) << stats.out;
}

TEST_F(FpctlNodes, UnknownOrMalformedNode) {
  auto unknown = run({"--node", "r9", "route", "show"});
  EXPECT_EQ(unknown.exit_code, 1);
  EXPECT_NE(unknown.err.find("r9"), std::string::npos) << unknown.err;
  auto bad = run({"--node", "r 1", "ports"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--node: "), std::string::npos) << bad.err;
  EXPECT_EQ(run({"--node", std::string(32, 'n'), "ports"}).exit_code, 2);
  EXPECT_EQ(run({"node", "show", "r9"}).exit_code, 1);
  EXPECT_EQ(run({"node", "del", "r9"}).exit_code, 1);
  EXPECT_EQ(run({"node", "add", "a/b"}).exit_code, 2);
  EXPECT_EQ(run({"node", "add"}).exit_code, 2);
  EXPECT_EQ(run({"node", "frobnicate"}).exit_code, 2);
}

// host and node attach/detach: usage errors are exit 2 before anything is sent; this
// backend has no hosts and attaches nothing, so the requests are refused (exit 1) with
// fastpathd's reason; host list is empty.
TEST_F(FpctlNodes, HostAndAttachUsageAndRefusals) {
  EXPECT_EQ(run({"host", "add", "h1", "r1"}).exit_code, 2);  // no address
  EXPECT_EQ(run({"host", "add", "h1", "r1", "198.18.1.2"}).exit_code, 2);  // no /LEN
  EXPECT_EQ(run({"host", "add", "h1", "r1", "198.18.1.2/33"}).exit_code, 2);
  EXPECT_EQ(run({"host", "add", "h1", "r1", "198.18.1.2/24", "--gw", "nope"}).exit_code, 2);
  EXPECT_EQ(run({"host", "add", "h1", "r1", "198.18.1.2/24", "--mtu", "20"}).exit_code, 2);
  EXPECT_EQ(run({"host", "frobnicate"}).exit_code, 2);
  EXPECT_EQ(run({"node", "attach", "r1"}).exit_code, 2);
  EXPECT_EQ(run({"node", "attach", "r1", std::string(16, 'e')}).exit_code, 2);
  auto add = run({"host", "add", "h1", "r1", "198.18.1.2/24", "--gw", "198.18.1.1"});
  EXPECT_EQ(add.exit_code, 1) << add.err;
  EXPECT_NE(add.err.find("create host"), std::string::npos) << add.err;
  EXPECT_EQ(run({"node", "attach", "r1", "eth1"}).exit_code, 1);
  EXPECT_EQ(run({"host", "del", "h1"}).exit_code, 1);
  auto list = run({"--json", "host", "list"});
  EXPECT_EQ(list.exit_code, 0) << list.err;
  EXPECT_EQ(list.out, "[]\n");
}

TEST_F(FpctlNodes, NodeListShowAddDel) {
  auto add = run({"node", "add", "r5", "--host", "h1"});
  ASSERT_EQ(add.exit_code, 0) << add.err;
  auto added = run({"--json", "node", "add", "r6"});
  ASSERT_EQ(added.exit_code, 0) << added.err;
  EXPECT_EQ(added.out, "{\"ok\":true,\"result\":\"node r6 added\"}\n");
  auto list = run({"node", "list"});
  ASSERT_EQ(list.exit_code, 0) << list.err;
  EXPECT_EQ(list.out.rfind("NAME ", 0), 0u) << list.out;
  EXPECT_NE(list.out.find("\nr5               "), std::string::npos) << list.out;
  EXPECT_NE(list.out.find(" h1 "), std::string::npos) << list.out;
  auto json = run({"--json", "node", "list"});
  EXPECT_NE(json.out.find(R"({"name":"default","host":"local","id":0,"worker":0,"routes":0,)"
                          R"("neighbours":0,"ports":[0,1,2]})"),
            std::string::npos)
      << json.out;
  EXPECT_NE(json.out.find(R"({"name":"r5","host":"h1",)"), std::string::npos) << json.out;
  ASSERT_EQ(run({"--node", "r1", "route", "add", "198.18.2.0/24", "dev", "r1-eth1"}).exit_code, 0);
  auto show = run({"node", "show", "r1"});
  ASSERT_EQ(show.exit_code, 0) << show.err;
  EXPECT_NE(show.out.find("node r1 id 1 host local"), std::string::npos) << show.out;
  EXPECT_NE(show.out.find("  routes 1 neighbours 0\n"), std::string::npos) << show.out;
  EXPECT_NE(show.out.find("  port 11 r1-eth1 "), std::string::npos) << show.out;
  auto show_json = run({"--json", "node", "show", "r1"});
  EXPECT_NE(show_json.out.find(R"("routes":1,)"), std::string::npos) << show_json.out;
  EXPECT_NE(show_json.out.find(R"({"id":10,"ifname":"r1-eth0",)"), std::string::npos)
      << show_json.out;
  auto dup = run({"node", "add", "r5"});
  EXPECT_EQ(dup.exit_code, 1) << dup.err;
  ASSERT_EQ(run({"node", "del", "r5"}).exit_code, 0);
  EXPECT_EQ(run({"node", "show", "r5"}).exit_code, 1);
  auto dflt = run({"node", "del", "default"});
  EXPECT_EQ(dflt.exit_code, 1);
  EXPECT_NE(dflt.err.find("default node cannot be deleted"), std::string::npos) << dflt.err;
}

TEST_F(FpctlNodes, MonitorOneNodeOrAllNodes) {
  // Emits a route miss in the default node then one in r1 (together, so that a
  // subscriber sees both or neither) until fpctl is done.
  auto monitor = [&](std::vector<std::string> args) {
    auto done = std::async(std::launch::async, [&] { return run(args); });
    while (done.wait_for(std::chrono::milliseconds(50)) != std::future_status::ready)
      h_->onServer([&] {
        FastPathEvent e;
        e.kind = FastPathEvent::Kind::kRouteMiss;
        e.address = IpAddress::parse("198.18.9.9").value();
        e.port = 1;
        multi_->emit(e);
        e.port = 10;
        e.node = "r1";
        multi_->emit(e);
        return 0;
      });
    return done.get();
  };
  auto all = monitor({"monitor", "--all-nodes", "--count", "2"});
  ASSERT_EQ(all.exit_code, 0) << all.err;
  EXPECT_EQ(all.out,
            "node default route-miss dev fp1 198.18.9.9\n"
            "node r1 route-miss dev r1-eth0 198.18.9.9\n");
  auto r1 = monitor({"--node", "r1", "--json", "monitor", "--count", "1"});
  ASSERT_EQ(r1.exit_code, 0) << r1.err;
  EXPECT_EQ(r1.out,
            "{\"event\":\"route-miss\",\"node\":\"r1\",\"dev\":\"r1-eth0\",\"port\":10,"
            "\"address\":\"198.18.9.9\"}\n");
  auto dflt = monitor({"monitor", "--count", "1"});
  EXPECT_EQ(dflt.out, "route-miss dev fp1 198.18.9.9\n");
}

TEST_F(FpctlNodes, ChangingNodesLinksOrStatsAsAnotherUserIsPermissionDenied) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to run fpctl as another user";
  // A server that lets nobody talk (group 65534) without making it an operator.
  ServerOptions o;
  o.socket_mode = 0666;
  o.allowed_gids = {65534};
  ServerHarness h(o, std::make_unique<testing::MultiNodeBackend>());
  ASSERT_TRUE(h.start());
  ::chmod(h.dir().c_str(), 0755);
  auto add = fpctl({"-s", h.socketPath(), "node", "add", "r7"}, 65534);
  EXPECT_EQ(add.exit_code, 4) << add.err;
  EXPECT_NE(add.err.find("needs an operator"), std::string::npos) << add.err;
  ASSERT_TRUE(h.onServer([&] {
    auto& m = static_cast<testing::MultiNodeBackend&>(h.backend());
    LinkSpec l;
    l.name = "l";
    l.a = {"default", "l", {}, 1500};
    l.b = {"r8", "l", {}, 1500};
    return m.createNode(NodeSpec{"r8", ""}) && m.createLink(l);
  }));
  auto emulate = fpctl({"-s", h.socketPath(), "link", "set", "l", "delay", "5ms"}, 65534);
  EXPECT_EQ(emulate.exit_code, 4) << emulate.err;
  EXPECT_EQ(fpctl({"-s", h.socketPath(), "node", "list"}, 65534).exit_code, 0);
  // Resetting the statistics changes the daemon too; reading them does not.
  auto reset = fpctl({"-s", h.socketPath(), "stats", "--reset"}, 65534);
  EXPECT_EQ(reset.exit_code, 4) << reset.err;
  EXPECT_NE(reset.err.find("reset_stats: resetting the statistics needs an operator"),
            std::string::npos)
      << reset.err;
  auto read = fpctl({"-s", h.socketPath(), "stats"}, 65534);
  EXPECT_EQ(read.exit_code, 0) << read.err;
  EXPECT_NE(read.out.find("(fastpathd started, never reset)"), std::string::npos) << read.out;
}

}  // namespace
}  // namespace fastpath::ctrl
