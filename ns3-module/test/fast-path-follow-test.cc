// SPDX-License-Identifier: GPL-2.0-only
// Interfaces set down or up in ns-3 reach fastpathd within FastPathFollowInterval (ns-3
// tells only the routing protocol of Ipv4::SetDown/SetUp, so the helpers look at their
// links' and segments' interfaces every interval): a point-to-point link's end follows its
// node's interface down and up again, the other end keeps its state. Against fastpathd's
// control server over an in-memory network (no fastpathd, no privileges; it has no
// segments: a segment's port is checked on veth, CsmaLanTest), in real time as emulated
// scripts run.
#include "fast-path-in-memory-fixture.h"

#include "ns3/core-module.h"
#include "ns3/fast-path-point-to-point-helper.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"

#include "fastpath/ctrl/client.h"

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

class FollowTest : public fastpath_ns3_test::InMemoryEmulationTest
{
  protected:
    FollowTest()
        : InMemoryEmulationTest("follow")
    {
    }

    /// What fastpathd says of the link's ends at one moment.
    struct States
    {
        bool found = false;
        bool endADown = false;
        bool endBDown = false;
    };

    States Ask(const std::string& link)
    {
        States st;
        auto c = fastpath::ctrl::Client::connect(server_.SocketPath());
        if (!c.ok() || !c.value()->hello("test").ok())
        {
            return st;
        }
        auto links = c.value()->links();
        for (const auto& l : links.ok() ? links.value() : std::vector<fastpath::LinkInfo>{})
        {
            if (l.name == link)
            {
                st.found = true;
                st.endADown = l.a.down;
                st.endBDown = l.b.down;
            }
        }
        return st;
    }
};

// n0 -- n1 point-to-point, the interval its default (2 ms). n0's interface goes down at
// 20 ms and up at 40 ms; fastpathd is asked before and 2.5 ms after each change.
TEST_F(FollowTest, AnInterfaceSetDownOrUpReachesFastpathdWithinTheInterval)
{
    Emulate(true);
    NodeContainer nodes;
    nodes.Create(2);
    InternetStackHelper().Install(nodes);
    FastPathPointToPointHelper p2p;
    NetDeviceContainer link = p2p.Install(nodes.Get(0), nodes.Get(1));
    Ipv4AddressHelper("198.18.7.0", "255.255.255.0").Assign(link);

    const std::string name = FastPathPointToPointHelper::GetFastPathLinkName(link.Get(0));
    std::vector<States> seen(3);
    Ptr<Ipv4> ipv4 = nodes.Get(0)->GetObject<Ipv4>();
    const int32_t i = ipv4->GetInterfaceForDevice(link.Get(0));
    Simulator::Schedule(MilliSeconds(10), [&]() { seen[0] = Ask(name); });
    Simulator::Schedule(MilliSeconds(20), &Ipv4::SetDown, ipv4, i);
    Simulator::Schedule(MicroSeconds(22500), [&]() { seen[1] = Ask(name); });
    Simulator::Schedule(MilliSeconds(40), &Ipv4::SetUp, ipv4, i);
    Simulator::Schedule(MicroSeconds(42500), [&]() { seen[2] = Ask(name); });
    Simulator::Stop(MilliSeconds(45));
    Simulator::Run();
    Simulator::Destroy();

    for (int k = 0; k < 3; ++k)
    {
        ASSERT_TRUE(seen[k].found) << k;
        // n1's interface stays up: its end too.
        EXPECT_FALSE(seen[k].endBDown) << k;
    }
    EXPECT_FALSE(seen[0].endADown);
    EXPECT_TRUE(seen[1].endADown);
    EXPECT_FALSE(seen[2].endADown);
}

} // namespace
