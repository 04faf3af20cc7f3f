// SPDX-License-Identifier: GPL-2.0-only
// One script, simulated or emulated, with a shared medium: examples/csma-lan (three OLSR
// routers r0, r1, r2 on a CSMA LAN built with FastPathCsmaHelper, end nodes a - r0 and
// r2 - b on point-to-point links, UDP and ping from a to b) run twice, unchanged:
//
//   - --FastPathEmulation=0: pure simulation (CsmaChannel, PointToPointChannel);
//   - --FastPathEmulation=1: in a namespace with a fastpathd that starts with no node but
//     the default one (and one idle port); the script creates its five nodes, one segment
//     and two links there (as nobody: fastpathd --socket-uid), attaches its nodes to them,
//     and deletes them at Simulator::Destroy().
//
// Both runs pass the same end-to-end checks (OLSR converged, the UDP flow and the pings
// received, r1 never saw the data). Emulated, the data crosses the segment from r0's port
// to r2's (counters) and not to r1's, the routers' ns-3 receives OLSR and the few frames
// punted while ARP resolves, the segment carries the helper's parameters and follows a
// Config::Set of the channel's DataRate, and nothing of the script is left afterwards.
#include "fast-path-script-fixture.h"

#include <algorithm>
#include <iostream>
#include <string>
#include <vector>

using namespace fastpath_ns3_test;

namespace
{

const char* kTag = "csmalan";

/// The script's arguments common to both runs: traffic from 8 s, the LAN's DataRate
/// 100 -> 10 Mbit/s at 12 s, r1's LAN interface down at 13 s, stop at 14 s.
const std::vector<std::string> kScriptArgs = {"--hello=0.5",
                                              "--tc=1",
                                              "--traffic-start=8",
                                              "--packets=150",
                                              "--interval=0.02",
                                              "--rate-at=12",
                                              "--down-at=13",
                                              "--duration=14"};

class CsmaLanTest : public FastPathScriptFixture
{
  protected:
    CsmaLanTest()
        : FastPathScriptFixture({CSMA_LAN_BIN, "csma-lan", "lan", "csma", "/tmp/fp-ns3-csma-XXXXXX", kTag, kScriptArgs})
    {
    }

    /// What both runs must show: OLSR converged across the LAN before the traffic, the UDP
    /// flow and the pings from a reached b, and r1 (on the LAN, not on the path) never saw
    /// the data.
    void ExpectEndToEnd(std::map<std::string, std::string>& r)
    {
        EXPECT_GT(Num(r, "converged_s"), 0) << "a never had a route to b";
        EXPECT_LT(Num(r, "converged_s"), 8) << "OLSR converged after the traffic started";
        EXPECT_GE(Num(r, "udp_received"), 0.95 * Num(r, "udp_sent"));
        EXPECT_GE(Num(r, "ping_replies"), 5);
        EXPECT_GE(Num(r, "b.ns3_rx_data"), Num(r, "udp_received"));
        EXPECT_EQ(Num(r, "r1.ns3_rx_data"), 0) << "unicast data reached r1";
        EXPECT_GT(Num(r, "r1.ns3_rx_other"), 0) << "r1 heard no OLSR on the LAN";
        std::cout << "[ csma-lan ] emulated=" << r["emulated"] << " converged at "
                  << r["converged_s"] << " s, UDP " << r["udp_received"] << "/"
                  << r["udp_sent"] << ", ping replies " << r["ping_replies"] << " (rtt min "
                  << r["ping_rtt_min_ms"] << " ms), ns-3 data rx r0 " << r["r0.ns3_rx_data"]
                  << " r1 " << r["r1.ns3_rx_data"] << " r2 " << r["r2.ns3_rx_data"]
                  << ", run " << seconds_ << " s\n";
    }
};

TEST_F(CsmaLanTest, SimulatedLanDeliversEndToEnd)
{
    auto r = RunScript({"--FastPathEmulation=0"}, nullptr);
    EXPECT_EQ(r["emulated"], "0");
    ExpectEndToEnd(r);
    // Simulated, the routers' ns-3 forwards the data itself.
    EXPECT_GE(Num(r, "r0.ns3_rx_data"), Num(r, "udp_received"));
    EXPECT_EQ(r["segment"], "");
}

TEST_F(CsmaLanTest, EmulatedLanSameScriptDataThroughAFastpathdSegment)
{
    ASSERT_NO_FATAL_FAILURE(StartFastpathd());
    // What a crashed run of the same script would have left: a node and a segment.
    auto* c = Client();
    ASSERT_NE(c, nullptr);
    ASSERT_TRUE(c->createNode({std::string(kTag) + "-stale"}).ok());
    fastpath::SegmentSpec stale;
    stale.name = std::string(kTag) + "-csma9";
    stale.ports = {fastpath::SegmentPortSpec{std::string(kTag) + "-stale", "", {}, 1500}};
    ASSERT_TRUE(c->createSegment(stale).ok());

    const std::string seg = std::string(kTag) + "-csma0";
    std::vector<std::string> seenNodes;
    fastpath::SegmentInfo first, last;
    bool seen = false, staleSeen = false, r1Down = false, othersUp = true;
    auto during = [&]() {
        auto now = NodesTagged();
        if (now.size() > seenNodes.size())
        {
            seenNodes = now;
        }
        auto segs = Query([](auto& cl) { return cl.segments(); },
                          std::vector<fastpath::SegmentInfo>{});
        for (const auto& s : segs)
        {
            staleSeen |= s.name == stale.name && seen;
            if (s.name == seg)
            {
                if (!seen)
                {
                    first = s;
                    seen = true;
                }
                last = s;
                if (s.ports.size() == 3 && !s.ports[1].up)
                {
                    r1Down = true;
                    othersUp &= s.ports[0].up && s.ports[2].up;
                }
            }
        }
    };
    auto r = RunScript({"--FastPathEmulation=1", "--FastPathSocket=" + sock_,
                        std::string("--FastPathTag=") + kTag},
                       during);
    EXPECT_EQ(r["emulated"], "1");
    ExpectEndToEnd(r);
    EXPECT_EQ(r["segment"], seg);
    EXPECT_EQ(seenNodes.size(), 5u) << ::testing::PrintToString(seenNodes);
    EXPECT_FALSE(staleSeen) << "the stale segment was not removed";
    ASSERT_TRUE(seen) << "segment " << seg << " never seen";
    // One port per LAN router, in the container's order, with the helper's parameters:
    // 100 Mbit/s + 4 bytes per frame, 1 ms, DropTailQueue's 100 packets; then the
    // Config::Set of the channel's DataRate.
    ASSERT_EQ(first.ports.size(), 3u);
    EXPECT_EQ(first.ports[0].node, std::string(kTag) + "-r0");
    EXPECT_EQ(first.ports[2].node, std::string(kTag) + "-r2");
    EXPECT_EQ(first.params.rate_bps, 100000000u);
    // CsmaNetDevice: payload padded to 46 bytes (frame to 60), plus the 4-byte FCS.
    EXPECT_EQ(first.params.overhead_bytes, 4);
    EXPECT_EQ(first.params.mpu_bytes, 60u);
    EXPECT_EQ(first.params.delay_ns, 1000000u);
    EXPECT_EQ(first.params.limit_packets, 100u);
    EXPECT_EQ(last.params.rate_bps, 10000000u);
    EXPECT_GT(Num(r, "rate_latency_us"), 0);
    EXPECT_LE(Num(r, "rate_latency_us"), 10000);
    // Ipv4::SetDown on r1's LAN interface took r1's port down, the others stayed up.
    EXPECT_TRUE(r1Down);
    EXPECT_TRUE(othersUp);
    EXPECT_GT(Num(r, "down_latency_us"), 0);
    EXPECT_LE(Num(r, "down_latency_us"), 10000);
    // The data crossed the segment from r0's port to r2's, never to r1's: r1 received
    // only the LAN's broadcasts (OLSR, ARP), r2 those and the data.
    ASSERT_EQ(last.ports.size(), 3u);
    const double received = Num(r, "udp_received");
    EXPECT_GE(double(last.ports[0].tx_packets), received);
    EXPECT_GE(double(last.ports[2].rx_packets), received);
    EXPECT_LT(double(last.ports[1].rx_packets), double(last.ports[2].rx_packets) - received / 2)
        << "r1 " << last.ports[1].rx_packets << " r2 " << last.ports[2].rx_packets;
    for (const auto& p : last.ports)
    {
        EXPECT_EQ(p.unknown_dst_drops + p.no_frame_drops + p.queue_full_drops, 0u) << p.node;
    }
    EXPECT_GE(last.stats.delivered, last.stats.enqueued - last.stats.in_flight);
    // The routers' ns-3 saw the first frames only, punted while ARP resolved.
    EXPECT_LE(Num(r, "r0.ns3_rx_data"), 10);
    EXPECT_LE(Num(r, "r2.ns3_rx_data"), 10);
    std::cout << "[ csma-lan ] fastpathd segment " << seg << ": r0 tx " << last.ports[0].tx_packets
              << ", r1 rx " << last.ports[1].rx_packets << ", r2 rx " << last.ports[2].rx_packets
              << ", medium delivered " << last.stats.delivered << "; DataRate -> fastpathd "
              << r["rate_latency_us"] << " us, r1's interface down -> its port down "
              << r["down_latency_us"] << " us\n";
    // Nothing of the script is left in fastpathd.
    EXPECT_TRUE(NodesTagged().empty()) << ::testing::PrintToString(NodesTagged());
    auto segs =
        Query([](auto& cl) { return cl.segments(); }, std::vector<fastpath::SegmentInfo>{});
    EXPECT_TRUE(segs.empty());
    auto links = Query([](auto& cl) { return cl.links(); }, std::vector<fastpath::LinkInfo>{});
    EXPECT_TRUE(links.empty());
}

} // namespace
