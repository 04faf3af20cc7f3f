// SPDX-License-Identifier: GPL-2.0-only
// What the tracing tests without fastpathd share: a scratch directory per test, and the one
// scenario they trace (two nodes joined by a helper's devices, three UDP echoes), built by
// any point-to-point or CSMA helper, stock or emulating.
#pragma once

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <string>
#include <utility>

namespace fastpath_ns3_test
{

/// The echo scenario's objects, for the test to trace and run.
struct EchoScenario
{
    ns3::NodeContainer nodes;        //!< the client (0) and the server (1)
    ns3::NetDeviceContainer devices; //!< the helper's devices, one on each node
    ns3::Ipv4InterfaceContainer ifs; //!< their addresses, from 198.18.1.0/24
};

/// Two nodes joined by `helper`'s devices (2 ms channel delay), addressed from
/// 198.18.1.0/24; node 0 sends three UDP echoes to node 1 from 1 s, 100 ms apart.
template <class Helper>
EchoScenario
BuildEchoScenario(Helper& helper)
{
    using namespace ns3;
    EchoScenario s;
    s.nodes.Create(2);
    InternetStackHelper().Install(s.nodes);
    helper.SetChannelAttribute("Delay", StringValue("2ms"));
    s.devices = helper.Install(s.nodes);
    Ipv4AddressHelper address("198.18.1.0", "255.255.255.0");
    s.ifs = address.Assign(s.devices);
    UdpEchoServerHelper server(9);
    server.Install(s.nodes.Get(1)).Start(Seconds(0));
    UdpEchoClientHelper client(s.ifs.GetAddress(1), 9);
    client.SetAttribute("MaxPackets", UintegerValue(3));
    client.SetAttribute("Interval", TimeValue(MilliSeconds(100)));
    client.Install(s.nodes.Get(0)).Start(Seconds(1));
    return s;
}

/// Runs the simulation to 2 s (the echoes are done) and destroys it: every trace file ns-3
/// opened is closed once the test's own references are gone.
inline void
RunEchoScenario()
{
    ns3::Simulator::Stop(ns3::Seconds(2));
    ns3::Simulator::Run();
    ns3::Simulator::Destroy();
}

/// A test with its own scratch directory m_dir (from the mkdtemp template `tmpl`), removed
/// with the simulation after the test.
class FastPathScratchTest : public ::testing::Test
{
  protected:
    explicit FastPathScratchTest(std::string tmpl)
        : m_tmpl(std::move(tmpl))
    {
    }

    void SetUp() override
    {
        ASSERT_NE(mkdtemp(&m_tmpl[0]), nullptr) << "mkdtemp " << m_tmpl;
        m_dir = m_tmpl;
    }

    void TearDown() override
    {
        ns3::Simulator::Destroy();
        if (!m_dir.empty())
        {
            std::system(("rm -rf " + m_dir).c_str());
        }
    }

    std::string m_tmpl;
    std::string m_dir;
};

} // namespace fastpath_ns3_test
