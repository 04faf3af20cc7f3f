// SPDX-License-Identifier: GPL-2.0-only
// Real fastpathd + real ns-3 on veth: S — R — D in namespaces fp-ns3-*.
//
//   S: kernel 198.18.1.2 (+198.18.10.1) and an ns-3 OLSR peer 198.18.1.3 (HNA 198.18.10.0/24)
//   R: fastpathd on r0,r1 and the ns-3 OLSR router (olsr-router, run as nobody)
//   D: kernel 198.18.2.2 (+198.18.20.1) and an ns-3 OLSR peer 198.18.2.3 (HNA 198.18.20.0/24)
//
// R learns the networks behind S and D only from OLSR; the tests check what reaches
// fastpathd (through the client library) and where the data went (fastpathd's counters,
// the kernel's interface counters, what the ns-3 router received).
#include "fast-path-veth-fixture.h"

#include <gtest/gtest.h>
#include <grp.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <iostream>
#include <thread>

using fastpath::testing::sh;
using fastpath::testing::Topology;
using namespace std::chrono_literals;
using namespace fastpath_ns3_test;

namespace
{

/// The router's route lease in these tests (short, so the withdrawal test stays quick).
constexpr int kGraceMs = 2000;

class OlsrVethTest : public FastPathVethFixture
{
  protected:
    void SetUp() override
    {
        if (std::string why = WhyNot({FASTPATHD_BIN, OLSR_ROUTER_BIN}); !why.empty())
        {
            GTEST_SKIP() << why;
        }
        haveNobody_ = getpwnam("nobody") && getgrnam("nogroup");
        BuildSRD("ns3", "r0", "r1");
        sh("ip -n " + S_ + " addr add 198.18.1.2/24 dev s0");
        sh("ip -n " + S_ + " addr add 198.18.10.1/32 dev lo");
        sh("ip -n " + S_ + " route add 198.18.20.0/24 via 198.18.1.1 src 198.18.10.1");
        sh("ip -n " + D_ + " addr add 198.18.2.2/24 dev d0");
        sh("ip -n " + D_ + " addr add 198.18.20.1/32 dev lo");
        sh("ip -n " + D_ + " route add 198.18.10.0/24 via 198.18.2.1 src 198.18.20.1");

        ASSERT_TRUE(MakeScratch("/tmp/fp-ns3-test-XXXXXX"));
        StartFastpathd();
        peerS_ = topo_->spawn(S_,
                              {OLSR_ROUTER_BIN, "--role=peer", "--interfaces=s0",
                               "--addresses=198.18.1.3/24", "--hna=198.18.10.0/24", "--name=S",
                               "--duration=0", "--hello=0.2", "--tc=0.5"},
                              dir_ + "/s.log");
        peerD_ = topo_->spawn(D_,
                              {OLSR_ROUTER_BIN, "--role=peer", "--interfaces=d0",
                               "--addresses=198.18.2.3/24", "--hna=198.18.20.0/24", "--name=D",
                               "--duration=0", "--hello=0.2", "--tc=0.5"},
                              dir_ + "/d.log");
        // The simulation itself is unprivileged: it only uses fastpathd's socket. (If the
        // build tree is not readable by nobody, e.g. under a private home, run it as root.)
        std::vector<std::string> argv = {OLSR_ROUTER_BIN, "--role=router", "--socket=" + sock_,
                                         "--ports=r0,r1",
                                         "--addresses=198.18.1.1/24,198.18.2.1/24", "--name=R",
                                         "--duration=0", "--hello=0.2", "--tc=0.5",
                                         "--report=" + dir_ + "/r.report",
                                         "--ns3::FastPathConnection::RouteGracePeriod=" +
                                             std::to_string(kGraceMs) + "ms"};
        if (haveNobody_ && sh(std::string(kAsNobody) + " test -x " + OLSR_ROUTER_BIN) == 0)
        {
            sh("install -m 644 -o nobody /dev/null " + dir_ + "/r.report");
            argv.insert(argv.begin(),
                        {"setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"});
        }
        else
        {
            std::cerr << "note: running the ns-3 router as root (nobody cannot run "
                      << OLSR_ROUTER_BIN << ")\n";
        }
        router_ = topo_->spawn(R_, argv, dir_ + "/r.log");
    }

    void TearDown() override
    {
        CleanUp({"r.log", "fastpathd.log", "s.log", "d.log"});
    }

    void StartFastpathd()
    {
        unlink(sock_.c_str());
        fastpathd_ = topo_->spawn(R_, FastpathdArgv({"--port", "r0", "--port", "r1"}, haveNobody_),
                                  dir_ + "/fastpathd.log");
        ASSERT_TRUE(WaitForSocket());
        client_.reset();
    }

    bool PingThroughR()
    {
        return topo_->exec(S_, "ping -c1 -W1 -I 198.18.10.1 198.18.20.1 >/dev/null 2>&1") == 0;
    }

    uint64_t RxD()
    {
        return std::stoull(topo_->execOutput(D_, "cat /sys/class/net/d0/statistics/rx_packets"));
    }

    /// Flood-pings behind S -> behind D through R (`count` echoes, at most 10 s).
    void SendData(int count)
    {
        topo_->exec(S_, "ping -q -f -c " + std::to_string(count) +
                            " -w 10 -I 198.18.10.1 198.18.20.1 >/dev/null 2>&1");
    }

    static constexpr const char* kAsNobody =
        "setpriv --reuid=nobody --regid=nogroup --clear-groups";
    bool haveNobody_ = false;
    pid_t fastpathd_ = -1, peerS_ = -1, peerD_ = -1, router_ = -1;
};

TEST_F(OlsrVethTest, OlsrRoutesReachFastPathAndDataTakesIt)
{
    // OLSR's neighbours (exact mirror) and the connected networks appear in fastpathd.
    // S's and D's peers become OLSR neighbours independently (HELLO timing).
    ASSERT_TRUE(WaitFor(
        [&] { return !RouteIn("198.18.2.3/32").empty() && !RouteIn("198.18.1.3/32").empty(); },
        20s))
        << "OLSR routes to the peers never reached fastpathd: D's '" << RouteIn("198.18.2.3/32")
        << "', S's '" << RouteIn("198.18.1.3/32") << "'";
    EXPECT_EQ(RouteIn("198.18.2.3/32"), "via on-link port 1");
    EXPECT_EQ(RouteIn("198.18.1.3/32"), "via on-link port 0");
    EXPECT_EQ(RouteIn("198.18.1.0/24"), "via on-link port 0");
    EXPECT_EQ(RouteIn("198.18.2.0/24"), "via on-link port 1");

    // The networks behind S and D are OLSR HNA routes: the first packet is punted, ns-3
    // forwards it, resolve-on-miss installs the decision.
    ASSERT_TRUE(WaitFor([&] { return PingThroughR(); }, 20s)) << "no connectivity through R";
    ASSERT_TRUE(WaitFor([&] { return !RouteIn("198.18.20.1/32").empty(); }, 5s));
    EXPECT_EQ(RouteIn("198.18.20.1/32"), "via 198.18.2.3 port 1");

    // Bulk data now goes through fastpathd, not through ns-3.
    ASSERT_TRUE(WaitFor([&] { return !RouteIn("198.18.10.1/32").empty(); }, 5s));
    EXPECT_EQ(RouteIn("198.18.10.1/32"), "via 198.18.1.3 port 0");
    uint64_t fwd0 = Counter("port r0", "forward");
    uint64_t rx0 = RxD();
    const int kPackets = 5000;
    SendData(kPackets);
    uint64_t forwarded = Counter("port r0", "forward") - fwd0;
    uint64_t arrived = RxD() - rx0;
    EXPECT_GE(forwarded, kPackets * 95 / 100) << "fastpathd forwarded too little";
    EXPECT_GE(arrived, uint64_t(kPackets * 95 / 100));

    // The report is written once the simulator has stopped; after a flood on a loaded
    // machine the realtime simulator may take a few seconds to get there.
    const int exit_code = topo_->stop(router_, 20000);
    router_ = -1;
    auto report = ReadReport(dir_ + "/r.report");
    ASSERT_TRUE(report.count("ns3_rx_frames"))
        << "router exit " << exit_code << "; report: " << Slurp(dir_ + "/r.report");
    // ns-3 saw the control frames (OLSR, ARP, the few punted packets), not the data.
    EXPECT_LT(std::stoull(report["ns3_rx_frames"]), uint64_t(kPackets / 5));
    EXPECT_EQ(report["updates_failed"], "0");
}

TEST_F(OlsrVethTest, TracerouteShowsRouterAnsweredByNs3)
{
    ASSERT_TRUE(WaitFor([&] { return PingThroughR(); }, 20s)) << "no connectivity through R";
    std::string out = topo_->execOutput(
        S_, "traceroute -n -q 1 -w 2 -m 3 -s 198.18.10.1 198.18.20.1 2>&1");
    // Hop 1 is R (ICMP time exceeded generated by ns-3), hop 2 the destination.
    EXPECT_NE(out.find(" 1  198.18.1.1"), std::string::npos) << out;
    EXPECT_NE(out.find(" 2  198.18.20.1"), std::string::npos) << out;
    // The classifier punted the TTL-1 packets to ns-3 instead of forwarding them.
    EXPECT_GE(Counter("classifier r0", "punt_ttl_expired"), 1u);
}

TEST_F(OlsrVethTest, LinkFailureWithdrawsRoutesFromFastPath)
{
    ASSERT_TRUE(WaitFor([&] { return PingThroughR(); }, 20s)) << "no connectivity through R";
    ASSERT_TRUE(WaitFor([&] { return !RouteIn("198.18.20.1/32").empty(); }, 5s));
    ASSERT_FALSE(RouteIn("198.18.2.3/32").empty());
    // D's OLSR neighbour fails: OLSR's neighbour hold time is 3 HELLOs.
    topo_->stop(peerD_);
    EXPECT_TRUE(WaitFor([&] { return RouteIn("198.18.2.3/32").empty(); }, 10s))
        << "OLSR route still in fastpathd: " << RouteIn("198.18.2.3/32");
    // The resolve-on-miss entry is revalidated and withdrawn as well.
    EXPECT_TRUE(WaitFor([&] { return RouteIn("198.18.20.1/32").empty(); }, 5s))
        << "stale resolve-on-miss entry: " << RouteIn("198.18.20.1/32");
    peerD_ = topo_->spawn(D_,
                          {OLSR_ROUTER_BIN, "--role=peer", "--interfaces=d0",
                           "--addresses=198.18.2.3/24", "--hna=198.18.20.0/24", "--name=D",
                           "--duration=0", "--hello=0.2", "--tc=0.5"},
                          dir_ + "/d2.log");
    EXPECT_TRUE(WaitFor([&] { return !RouteIn("198.18.2.3/32").empty(); }, 15s))
        << "route did not come back with the neighbour";
    EXPECT_TRUE(WaitFor([&] { return PingThroughR(); }, 10s));
}

TEST_F(OlsrVethTest, FastpathdRestartReconnectsAndResyncs)
{
    ASSERT_TRUE(WaitFor([&] { return PingThroughR(); }, 20s)) << "no connectivity through R";
    ASSERT_TRUE(WaitFor([&] { return !RouteIn("198.18.20.1/32").empty(); }, 5s));
    client_.reset();
    topo_->stop(fastpathd_);
    StartFastpathd();
    // The module notices, reconnects, replays its table and reopens the control channels.
    EXPECT_TRUE(WaitFor([&] { return !RouteIn("198.18.2.3/32").empty(); }, 15s))
        << "OLSR routes were not replayed into the restarted fastpathd";
    EXPECT_FALSE(RouteIn("198.18.1.0/24").empty());
    // Control frames flow again over the reopened channels: OLSR holds its neighbours,
    // traffic passes and the resolve-on-miss entries are back.
    EXPECT_TRUE(WaitFor([&] { return PingThroughR(); }, 10s));
    EXPECT_TRUE(WaitFor([&] { return RouteIn("198.18.20.1/32") == "via 198.18.2.3 port 1"; },
                        5s))
        << RouteIn("198.18.20.1/32");
    topo_->stop(router_);
    router_ = -1;
    auto report = ReadReport(dir_ + "/r.report");
    EXPECT_GE(std::stoi(report["reconnects"].empty() ? "0" : report["reconnects"]), 1);
}

TEST_F(OlsrVethTest, RoutesOutliveTheSimulationForTheGracePeriodThenAreWithdrawn)
{
    // The router says Hello with RouteGracePeriod = kGraceMs: when ns-3 exits, fastpathd
    // keeps forwarding on the mirrored routes for that long, then withdraws them.
    ASSERT_TRUE(WaitFor([&] { return PingThroughR(); }, 20s)) << "no connectivity through R";
    topo_->stop(router_);
    router_ = -1;
    const auto t0 = std::chrono::steady_clock::now();
    EXPECT_EQ(RouteIn("198.18.20.1/32"), "via 198.18.2.3 port 1");
    uint64_t fwd0 = Counter("port r0", "forward");
    EXPECT_TRUE(PingThroughR()) << "fastpathd stopped forwarding when ns-3 exited";
    EXPECT_GT(Counter("port r0", "forward"), fwd0);
    // Only meaningful while still inside the grace period (a loaded machine may be slow).
    if (std::chrono::steady_clock::now() - t0 < std::chrono::milliseconds(kGraceMs * 8 / 10))
    {
        EXPECT_FALSE(RouteIn("198.18.20.1/32").empty()) << "withdrawn before the grace period";
    }

    ASSERT_TRUE(WaitFor([&] { return RouteIn("198.18.20.1/32").empty(); },
                        std::chrono::milliseconds(kGraceMs + 10000)))
        << "routes of the exited simulation still installed long after the grace period";
    EXPECT_GE(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(kGraceMs - 100));
    // Every route the node learned went with it (OLSR hosts, HNA networks, connected nets).
    EXPECT_EQ(RouteIn("198.18.10.1/32"), "");
    EXPECT_EQ(RouteIn("198.18.2.0/24"), "");
    EXPECT_EQ(RouteIn("198.18.1.0/24"), "");
    ASSERT_NE(Client(), nullptr);
    auto neighbours = Client()->neighbours();
    ASSERT_TRUE(neighbours.ok());
    EXPECT_TRUE(neighbours.value().empty()) << "mirrored neighbours not withdrawn";
    auto stats = Client()->stats();
    ASSERT_TRUE(stats.ok());
    uint64_t expired = 0;
    for (const auto& set : stats.value())
    {
        for (const auto& [name, value] : set.counters)
        {
            if (set.scope == "control-server" && name == "leases_expired")
            {
                expired = value;
            }
        }
    }
    EXPECT_EQ(expired, 1u);
}

} // namespace
