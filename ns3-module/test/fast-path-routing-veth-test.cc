// SPDX-License-Identifier: GPL-2.0-only
// ns-3's routing helpers on emulated links: the topology of ns-3's
// examples/routing/simple-global-routing.cc (fast-path-routing-script.cc: four nodes, three
// point-to-point links, two OnOff UDP flows, FlowMonitor) run simulated and then emulated
// on a fastpathd that starts with `nodes: []`, for each routing: global routing
// (PopulateRoutingTables; RecomputeRoutingTables after a metric change), Nix-vector
// routing, and an Ipv4ListRouting of static host routes over global routing.
//
// Emulated, the links present a channel with the devices of both ends (global routing
// builds its link-state database and Nix-vector routing its graph from channels), so the
// routing tables ns-3 prints are the simulated ones, character for character (but for
// Nix-vector routing's cache of vectors, see Routes()), and both
// flows cross fastpathd with FlowMonitor's counts within 2 % of the simulated ones.
#include "fast-path-script-fixture.h"

#include <iostream>
#include <sstream>
#include <string>

using namespace fastpath_ns3_test;

namespace
{

const char* kTag = "sgr";

class RoutingTest : public FastPathScriptFixture
{
  protected:
    RoutingTest()
        : FastPathScriptFixture({ROUTING_SCRIPT_BIN, "routing-script", "routing", "rt",
                                 "/tmp/fp-ns3-routing-XXXXXX", kTag, {"--traffic-stop=3"}})
    {
    }

    /// Runs the script with --routing=`routing`, emulated or not; returns its report, and
    /// the routing tables it printed in `tables`.
    std::map<std::string, std::string> Run(const std::string& routing,
                                           bool emulated,
                                           std::string& tables)
    {
        const std::string file = dir_ + "/" + routing + (emulated ? ".emu" : ".sim") + ".tables";
        if (haveNobody_)
        {
            fastpath::testing::sh("install -m 644 -o nobody /dev/null " + file);
        }
        std::vector<std::string> args = {"--routing=" + routing, "--tables=" + file};
        if (emulated)
        {
            args.insert(args.end(), {"--FastPathEmulation=1", "--FastPathSocket=" + sock_,
                                     std::string("--FastPathTag=") + kTag});
        }
        else
        {
            args.push_back("--FastPathEmulation=0");
        }
        auto r = RunScript(args, nullptr);
        tables = Slurp(file);
        return r;
    }

    /// The tables without Nix-vector routing's NixCache: emulated, a transit node whose
    /// ns-3 forwards a packet fastpathd punted builds the rest of the path itself (the
    /// packet arrived as bytes, without its source's NixVector) and caches that vector;
    /// the routes it uses (IpRouteCache) are the simulated ones.
    static std::string Routes(const std::string& tables)
    {
        std::istringstream in(tables);
        std::string line, out;
        bool nixCache = false;
        while (std::getline(in, line))
        {
            if (line == "NixCache:" || line == "IpRouteCache:")
            {
                nixCache = line == "NixCache:";
                out += line + "\n";
            }
            else if (!nixCache || line.empty())
            {
                out += line + "\n";
            }
        }
        return out;
    }

    /// Simulated, then emulated: the same tables and the same flows.
    void ExpectSameAsSimulated(const std::string& routing)
    {
        std::string simTables, emuTables;
        auto sim = Run(routing, false, simTables);
        ASSERT_NO_FATAL_FAILURE(StartFastpathd());
        auto emu = Run(routing, true, emuTables);
        EXPECT_EQ(sim["emulated"], "0");
        EXPECT_EQ(emu["emulated"], "1");
        ASSERT_FALSE(simTables.empty());
        EXPECT_NE(simTables.find("10.1.3.1"), std::string::npos) << simTables;
        EXPECT_EQ(Routes(emuTables), Routes(simTables));
        EXPECT_EQ(Num(sim, "flows"), 2);
        EXPECT_EQ(Num(emu, "flows"), 2);
        for (const char* flow : {"flow.1.", "flow.2."})
        {
            const std::string f = flow;
            EXPECT_EQ(emu[f + "src"], sim[f + "src"]);
            EXPECT_EQ(emu[f + "dst"], sim[f + "dst"]);
            const double simRx = Num(sim, f + "rx_packets");
            const double emuRx = Num(emu, f + "rx_packets");
            EXPECT_GT(simRx, 150);
            EXPECT_NEAR(emuRx, simRx, 0.02 * simRx) << f;
            EXPECT_NEAR(Num(emu, f + "rx_bytes"), Num(sim, f + "rx_bytes"),
                        0.02 * Num(sim, f + "rx_bytes"))
                << f;
            std::cout << "[ " << routing << " ] " << sim[f + "src"] << " -> " << sim[f + "dst"]
                      << ": simulated " << simRx << "/" << sim[f + "tx_packets"] << " packets, "
                      << sim[f + "mean_delay_ms"] << " ms; emulated " << emuRx << "/"
                      << emu[f + "tx_packets"] << ", " << emu[f + "mean_delay_ms"] << " ms\n";
        }
        // Nothing of the script is left in fastpathd.
        EXPECT_TRUE(NodesTagged().empty()) << ::testing::PrintToString(NodesTagged());
    }
};

TEST_F(RoutingTest, GlobalRoutingSameTablesAndFlows)
{
    ExpectSameAsSimulated("global");
}

TEST_F(RoutingTest, RecomputedGlobalRoutingSameTablesAndFlows)
{
    ExpectSameAsSimulated("recompute");
}

TEST_F(RoutingTest, NixVectorRoutingSameTablesAndFlows)
{
    ExpectSameAsSimulated("nix");
}

TEST_F(RoutingTest, StaticOverGlobalListRoutingSameTablesAndFlows)
{
    ExpectSameAsSimulated("static");
}

TEST_F(RoutingTest, APlainHelpersLinkIsRefusedAtStartNamingIt)
{
    ASSERT_NO_FATAL_FAILURE(StartFastpathd());
    const std::string log = dir_ + "/plain.log";
    std::vector<std::string> argv = {ROUTING_SCRIPT_BIN, "--plain-link=1",
                                     "--FastPathEmulation=1", "--FastPathSocket=" + sock_,
                                     std::string("--FastPathTag=") + kTag};
    if (haveNobody_)
    {
        argv.insert(argv.begin(),
                    {"setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"});
    }
    pid_t pid = topo_->spawn(R_, argv, log);
    siginfo_t info{};
    for (int i = 0; i < 100; ++i)
    {
        if (waitid(P_PID, pid, &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == pid)
        {
            break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    EXPECT_EQ(topo_->stop(pid, 5000), 1);
    const std::string out = Slurp(log);
    EXPECT_NE(out.find("/NodeList/0/DeviceList/2: ns3::PointToPointNetDevice on "
                       "ns3::PointToPointChannel from a plain PointToPointHelper"),
              std::string::npos)
        << out;
    EXPECT_NE(out.find("/NodeList/1/DeviceList/2"), std::string::npos) << out;
    EXPECT_EQ(out.find("flow 1"), std::string::npos) << "the script ran: " << out;
    // What it had created in fastpathd is gone.
    EXPECT_TRUE(NodesTagged().empty()) << ::testing::PrintToString(NodesTagged());
}

} // namespace
