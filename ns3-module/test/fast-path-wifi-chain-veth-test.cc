// SPDX-License-Identifier: GPL-2.0-only
// One Wi-Fi script, simulated or emulated: examples/wifi-chain (five AODV nodes on ad hoc
// Wi-Fi built with FastPathWifiHelper, UDP from n0 to n3 through n1 and n2; n4 comes into
// range, then n2 walks out of it) run twice, unchanged:
//
//   - --FastPathEmulation=0: pure simulation (WifiNetDevice, YansWifiChannel);
//   - --FastPathEmulation=1: in a namespace with a fastpathd that starts with no node; the
//     script creates its five nodes and one radio medium there, hands the pairs as the
//     nodes move, and deletes everything at Simulator::Destroy().
//
// Both runs pass the same checks: the flow is delivered before the move, AODV reroutes
// through n4 after n2 left (n1's route to n3 goes through n4) and the flow resumes;
// emulated, within kRecoveryBoundS of the move (AODV told of the failed link by the MAC).
#include "fast-path-script-fixture.h"

#include <cerrno>
#include <chrono>
#include <thread>
#include <iostream>
#include <string>
#include <vector>

using namespace fastpath_ns3_test;

namespace
{

const char* kTag = "wifichain";

/// Emulated, the first datagram after n2 left arrives within this (seconds).
constexpr double kRecoveryBoundS = 0.5;

/// 20 datagrams/s from 2 s, n4 in range at 4 s, n2 gone at 10 s, stop at 20 s.
const std::vector<std::string> kScriptArgs = {"--traffic-start=2",
                                              "--rate=20",
                                              "--join-at=4",
                                              "--leave-at=10",
                                              "--duration=20"};

class WifiChainTest : public FastPathScriptFixture
{
  protected:
    WifiChainTest()
        : FastPathScriptFixture({WIFI_CHAIN_BIN, "wifi-chain", "chain", "wifi",
                                 "/tmp/fp-ns3-wifi-XXXXXX", kTag, kScriptArgs})
    {
    }

    /// What both runs must show: 8 s of traffic before the move (160 datagrams; AODV's
    /// first discovery costs a few, `minBefore` at least), 9.5 s after it (190), rerouted
    /// through n4 within 3 s.
    void ExpectRerouted(std::map<std::string, std::string>& r, int minBefore)
    {
        EXPECT_GE(Num(r, "received_before"), minBefore);
        EXPECT_GE(Num(r, "received_after"), 0.8 * 190);
        EXPECT_GE(Num(r, "first_after_s"), 0);
        EXPECT_LE(Num(r, "first_after_s"), 3);
        EXPECT_EQ(r["n1_via_n4"], "1") << "n1's route to n3 does not go through n4";
        std::cout << "[ wifi-chain ] emulated=" << r["emulated"] << " UDP "
                  << r["udp_received"] << "/" << r["udp_sent"] << " (before the move "
                  << r["received_before"] << ", after " << r["received_after"]
                  << ", first after " << r["first_after_s"] << " s), run " << seconds_
                  << " s\n";
    }
};

TEST_F(WifiChainTest, SimulatedAodvReroutesAroundTheRelayThatLeft)
{
    auto r = RunScript({"--FastPathEmulation=0"}, nullptr);
    EXPECT_EQ(r["emulated"], "0");
    ExpectRerouted(r, 150);
}

TEST_F(WifiChainTest, EmulatedSameScriptOnARadioMedium)
{
    ASSERT_NO_FATAL_FAILURE(StartFastpathd());
    // Does this fastpathd's data plane have radio media? A medium of the default node only.
    fastpath::MediumSpec probe;
    probe.name = std::string(kTag) + "-probe";
    probe.ports.push_back({"default", "probe", {}, 1500});
    auto made = Client()->createMedium(probe);
    if (!made.ok() && (made.error().code == -ENOTSUP || made.error().code == -ENOSYS))
    {
        // Without media the script is refused, with its cleanup: exit status 1, the reason,
        // none of its nodes left.
        const std::string log = dir_ + "/refused.log";
        std::vector<std::string> argv = {script_.bin, "--FastPathEmulation=1",
                                         "--FastPathSocket=" + sock_,
                                         std::string("--FastPathTag=") + kTag};
        if (haveNobody_)
        {
            argv.insert(argv.begin(),
                        {"setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"});
        }
        pid_t pid = topo_->spawn(R_, argv, log);
        for (int i = 0; i < 200; ++i)
        {
            siginfo_t info{};
            if (waitid(P_PID, pid, &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == pid)
            {
                break;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
        }
        EXPECT_EQ(topo_->stop(pid, 1000), 1) << Slurp(log);
        EXPECT_NE(Slurp(log).find("has no radio media"), std::string::npos) << Slurp(log);
        EXPECT_TRUE(NodesTagged().empty()) << ::testing::PrintToString(NodesTagged());
        GTEST_SKIP() << "this fastpathd has no radio media (" << made.error().message
                     << "): the script was refused as it should, the emulated run is skipped";
    }
    ASSERT_TRUE(made.ok()) << made.error().message;
    ASSERT_TRUE(Client()->deleteMedium(probe.name).ok());

    size_t members = 0;
    uint64_t updates = 0;
    auto during = [&]() {
        auto m = Query([](auto& c) { return c.media(); }, std::vector<fastpath::MediumInfo>{});
        for (const auto& one : m)
        {
            if (one.name == std::string(kTag) + "-wifi0")
            {
                members = std::max(members, one.ports.size());
                updates = std::max(updates, one.updates);
            }
        }
    };
    auto r = RunScript({"--FastPathEmulation=1", "--FastPathSocket=" + sock_,
                        std::string("--FastPathTag=") + kTag},
                       during);
    EXPECT_EQ(r["emulated"], "1");
    // AODV's first discovery is an expanding ring (TTL 1, then 3, 5: 240, 400, 560 ms of
    // waiting). When the TTL-3 round gets no answer (one of its frames lost to a collision:
    // the RREQ relayed by n1 and n2, the RREP, an ARP exchange on the way back), the route
    // comes a ring later and the datagrams AODV queued meanwhile are flushed at once into
    // an ARP queue that keeps 3 (ArpCache PendingQueueSize): about 20 more are lost. ns-3
    // shows the same simulated with --RngRun=15 (136 before the move; 155-156 with runs 1-14
    // and 16): one lost ring is the scenario's behaviour, not the emulation's. The bound
    // admits one (136) and not two.
    ExpectRerouted(r, 130);
    // fastpathd reports n1's frames that n2 no longer acknowledges to n1's MAC (its
    // DroppedMpdu trace, as ns-3's MAC fires it): AODV sees the link break at once, as
    // simulated (71 ms), instead of when n2's HELLOs time out (about 1.1 s).
    EXPECT_LE(Num(r, "first_after_s"), kRecoveryBoundS);
    // One medium of the five nodes; the pairs at time 0, then n4's and n2's moves.
    EXPECT_EQ(members, 5u);
    EXPECT_GE(updates, 3u);
    // Nothing of the script is left in fastpathd.
    EXPECT_TRUE(NodesTagged().empty()) << ::testing::PrintToString(NodesTagged());
    auto left = Query([](auto& c) { return c.media(); }, std::vector<fastpath::MediumInfo>{});
    EXPECT_TRUE(left.empty());
}

} // namespace
