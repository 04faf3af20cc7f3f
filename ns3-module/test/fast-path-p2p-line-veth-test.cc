// SPDX-License-Identifier: GPL-2.0-only
// One script, simulated or emulated: examples/p2p-line (a line of 4 OLSR routers built with
// FastPathPointToPointHelper, UDP and ping from node 0 to node 3 with ns-3 applications)
// run twice, unchanged:
//
//   - --FastPathEmulation=0: pure simulation (PointToPointNetDevice, PointToPointChannel);
//   - --FastPathEmulation=1: in a namespace with a fastpathd that starts with no node but
//     the default one (and one idle port: fastpathd needs one to start); the script creates its four nodes and three links there
//     (as nobody: fastpathd --socket-uid), attaches its nodes to them, and deletes them at
//     Simulator::Destroy().
//
// Both runs pass the same end-to-end checks (OLSR converged, the UDP flow and the pings
// received). Emulated, the data crosses fastpathd's link ports (counters) while the middle
// routers' ns-3 receives OLSR only, a node left by a crashed run of the same tag is deleted,
// taking an interface down in ns-3 (Ipv4::SetDown) sets that end of the fastpathd link down
// (the link and the other end, whose ns-3 interface stays up, keep their state), and
// nothing of the script is left in fastpathd after it exits.
#include "fast-path-script-fixture.h"

#include <algorithm>
#include <iostream>
#include <string>
#include <vector>

using namespace fastpath_ns3_test;

namespace
{

const char* kTag = "p2pline";

/// The script's arguments common to both runs: 4 routers, 200 UDP datagrams from 10 s,
/// every channel's Delay 1 ms -> 5 ms at 14.5 s, node 1's DataRate 100 -> 10 Mbit/s at
/// 15 s, node 1's interface towards node 2 down at 16 s, stop at 18 s.
const std::vector<std::string> kScriptArgs = {"--nodes=4",
                                              "--hello=0.5",
                                              "--tc=1",
                                              "--traffic-start=10",
                                              "--packets=200",
                                              "--interval=0.02",
                                              "--delay-at=14.5",
                                              "--rate-at=15",
                                              "--down-at=16",
                                              "--duration=18"};

class P2pLineTest : public FastPathScriptFixture
{
  protected:
    P2pLineTest()
        : FastPathScriptFixture({P2P_LINE_BIN, "p2p-line", "line", "p2p", "/tmp/fp-ns3-p2p-XXXXXX", kTag, kScriptArgs})
    {
    }

    /// What both runs must show: OLSR converged before the traffic, the UDP flow and the
    /// pings from node 0 reached node 3.
    void ExpectEndToEnd(std::map<std::string, std::string>& r)
    {
        EXPECT_GT(Num(r, "converged_s"), 0) << "node 0 never had a route to node 3";
        EXPECT_LT(Num(r, "converged_s"), 10) << "OLSR converged after the traffic started";
        EXPECT_GE(Num(r, "udp_received"), 0.95 * Num(r, "udp_sent"));
        EXPECT_GE(Num(r, "ping_replies"), 5);
        // Node 1 set its interface towards node 2 down: node 2's stays up.
        EXPECT_EQ(r["peer_interface_up"], "1");
        EXPECT_GE(Num(r, "n3.ns3_rx_data"), Num(r, "udp_received"));
        std::cout << "[ p2p-line ] emulated=" << r["emulated"] << " converged at "
                  << r["converged_s"] << " s, UDP " << r["udp_received"] << "/"
                  << r["udp_sent"] << ", ping replies " << r["ping_replies"] << " (rtt min "
                  << r["ping_rtt_min_ms"] << " first " << r["ping_rtt_first_ms"] << " mean "
                  << r["ping_rtt_ms"] << " ms), ns-3 data rx n1 " << r["n1.ns3_rx_data"]
                  << " n2 " << r["n2.ns3_rx_data"] << ", run " << seconds_ << " s\n";
    }
};

TEST_F(P2pLineTest, SimulatedLineDeliversEndToEnd)
{
    auto r = RunScript({"--FastPathEmulation=0"}, nullptr);
    EXPECT_EQ(r["emulated"], "0");
    ExpectEndToEnd(r);
    // Simulated, the middle routers' ns-3 forwards the data itself.
    EXPECT_GE(Num(r, "n1.ns3_rx_data"), Num(r, "udp_received"));
    EXPECT_EQ(r["n1.fastpathd_node"], "");
}

TEST_F(P2pLineTest, EmulatedLineSameScriptDataThroughFastpathd)
{
    ASSERT_NO_FATAL_FAILURE(StartFastpathd());
    // What a crashed run of the same script would have left.
    auto* c = Client();
    ASSERT_NE(c, nullptr);
    ASSERT_TRUE(c->createNode({std::string(kTag) + "-stale"}).ok());

    // While it runs: the script's nodes and links, the link ports' counters (n1 sends the
    // data towards n2 on its port "n2"), the state of link l1 (n1 - n2).
    std::vector<std::string> seenNodes;
    uint64_t n1TxToN2 = 0, n2TxToN3 = 0, toControlN1 = 0;
    bool l1Down = false, l1N1EndDown = false, l1N2EndDown = false;
    fastpath::LinkParams l0AtStart, l0Later, l1Later;
    bool l0Seen = false;
    const std::string n1 = std::string(kTag) + "-n1", n2 = std::string(kTag) + "-n2";
    auto during = [&]() {
        auto now = NodesTagged();
        if (now.size() > seenNodes.size())
        {
            seenNodes = now;
        }
        n1TxToN2 = std::max(n1TxToN2, Counter("port n2", "tx_packets", n1));
        n2TxToN3 = std::max(n2TxToN3, Counter("port n3", "tx_packets", n2));
        toControlN1 = std::max(toControlN1, Counter("port n2", "to_control", n1));
        auto links =
            Query([](auto& cl) { return cl.links(); }, std::vector<fastpath::LinkInfo>{});
        for (const auto& l : links)
        {
            if (l.name == std::string(kTag) + "-l1")
            {
                l1Down |= !l.up;
                l1N1EndDown |= (l.a.node == n1 && l.a.down) || (l.b.node == n1 && l.b.down);
                l1N2EndDown |= (l.a.node == n2 && l.a.down) || (l.b.node == n2 && l.b.down);
            }
            if (l.name == std::string(kTag) + "-l0")
            {
                if (!l0Seen)
                {
                    l0AtStart = l.a_to_b;
                    l0Seen = true;
                }
                l0Later = l.b_to_a;
            }
            if (l.name == std::string(kTag) + "-l1")
            {
                l1Later = l.a_to_b;
            }
        }
    };
    auto r = RunScript({"--FastPathEmulation=1", "--FastPathSocket=" + sock_,
                        std::string("--FastPathTag=") + kTag},
                       during);
    EXPECT_EQ(r["emulated"], "1");
    ExpectEndToEnd(r);

    // The script's four nodes (the stale one deleted before they were created).
    EXPECT_EQ(seenNodes.size(), 4u) << ::testing::PrintToString(seenNodes);
    EXPECT_EQ(std::count(seenNodes.begin(), seenNodes.end(), std::string(kTag) + "-stale"), 0);
    EXPECT_EQ(r["n1.fastpathd_node"], n1);
    // The data went through fastpathd's link ports; the middle routers' ns-3 saw only the
    // first frames, punted while their next hop was not yet resolved (OLSR speaks in
    // broadcasts: the first unicast frame is what makes ns-3 ask ARP), of 210 per node.
    const double received = Num(r, "udp_received");
    EXPECT_GE(double(n1TxToN2), received);
    EXPECT_GE(double(n2TxToN3), received);
    EXPECT_LE(Num(r, "n1.ns3_rx_data"), 10);
    EXPECT_LE(Num(r, "n2.ns3_rx_data"), 10);
    EXPECT_GT(Num(r, "n1.ns3_rx_other"), 0) << "n1's ns-3 received no OLSR";
    // The links carry the helper's parameters: 100 Mbit/s + 2 bytes per frame, 1 ms,
    // DropTailQueue's 100 packets; then the Config::Set changes (the delay everywhere, n1's
    // rate: l0 from n1 to n0 and l1 from n1 to n2).
    ASSERT_TRUE(l0Seen);
    EXPECT_EQ(l0AtStart.rate_bps, 100000000u);
    EXPECT_EQ(l0AtStart.overhead_bytes, -12);
    EXPECT_EQ(l0AtStart.mpu_bytes, 0u);
    EXPECT_EQ(l0AtStart.delay_ns, 1000000u);
    EXPECT_EQ(l0AtStart.limit_packets, 100u);
    EXPECT_EQ(l0Later.delay_ns, 5000000u);
    EXPECT_EQ(l0Later.rate_bps, 10000000u);
    EXPECT_EQ(l1Later.rate_bps, 10000000u);
    EXPECT_GT(Num(r, "delay_latency_us"), 0);
    EXPECT_LE(Num(r, "delay_latency_us"), 10000);
    EXPECT_GT(Num(r, "rate_latency_us"), 0);
    EXPECT_LE(Num(r, "rate_latency_us"), 10000);
    // Emulated like simulated (6.04 ms): 3 hops of 1 ms each way, plus the ns-3 ends'
    // scheduling (loose bound: the machine is shared).
    EXPECT_GE(Num(r, "ping_rtt_min_ms"), 6);
    EXPECT_LE(Num(r, "ping_rtt_min_ms"), 12);
    // Ipv4::SetDown on n1's interface towards n2 set n1's end of link l1 down in fastpathd;
    // the link and n2's end stayed up.
    EXPECT_TRUE(l1N1EndDown);
    EXPECT_FALSE(l1N2EndDown);
    EXPECT_FALSE(l1Down);
    EXPECT_GT(Num(r, "down_latency_us"), 0);
    EXPECT_LE(Num(r, "down_latency_us"), 10000);
    // The changes were notified, not found by reading every link's parameters on a timer
    // (18 s every 2 ms would be thousands of reads): 2 per link at Install(), at its
    // first push and again at time 0 (with the queue discs installed after the links), 2
    // per link after each change (Delay of all 3, DataRate of node 1's 2).
    EXPECT_GT(Num(r, "param_reads"), 0);
    EXPECT_LE(Num(r, "param_reads"), 2 * (3 + 3 + 3 + 3 + 2));
    std::cout << "[ p2p-line ] fastpathd: n1 port n2 tx " << n1TxToN2 << ", n2 port n3 tx "
              << n2TxToN3 << ", n1 port n2 to ns-3 " << toControlN1
              << "; Config::Set -> fastpathd acknowledged: Delay " << r["delay_latency_us"]
              << " us, DataRate " << r["rate_latency_us"] << " us, interface down -> link end down "
              << r["down_latency_us"] << " us\n";
    // Nothing of the script is left in fastpathd.
    EXPECT_TRUE(NodesTagged().empty()) << ::testing::PrintToString(NodesTagged());
    auto links = Query([](auto& cl) { return cl.links(); }, std::vector<fastpath::LinkInfo>{});
    EXPECT_TRUE(links.empty());
}

} // namespace
