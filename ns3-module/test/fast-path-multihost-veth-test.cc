// SPDX-License-Identifier: GPL-2.0-only
// One script over two "hosts": namespaces A (the fixture's R) and B, each with its own
// fastpathd (its own control socket), joined by a veth pair standing for the wire (wa - wb).
// examples/grid (4x4 OLSR routers, s and d at opposite corners) runs as
// `mpirun --allow-run-as-root -np 2 ... --FastPathHosts=FILE`: process 0 on host a, process
// 1 on host b, rows placed by system id (rows 0-1 and s on a, rows 2-3 and d on b).
//
//   - each host's fastpathd holds its own nodes and links, and the ends of the four links
//     between the hosts (ports on the wire, one 802.1Q VLAN each); OLSR converges across
//     the wire, the UDP flow s -> d and the pings cross it, the links' delay is applied at
//     the sender (the ping's round trip is not shorter than the simulated one's), a
//     Config::Set of every link's Delay is followed on both hosts, each host's clock offset
//     is printed at the start, and nothing of the run is left on either host afterwards;
//   - the same over a VXLAN wire (the hosts file gives the wire's underlay): the links
//     between the hosts travel as VNIs;
//   - refused, saying why: a host without a wire to the host of a link's other end, and a
//     link delay below the wire's measured latency.
#include "fast-path-script-fixture.h"

#include <fstream>
#include <regex>
#include <string>
#include <tuple>
#include <vector>

using namespace fastpath_ns3_test;

namespace
{

const char* kTag = "mhost";

class MultiHostTest : public FastPathScriptFixture
{
  protected:
    MultiHostTest()
        : FastPathScriptFixture({GRID_BIN, "grid", "grid", "mh", "/tmp/fp-ns3-mh-XXXXXX", kTag,
                                 GridArgs(), true})
    {
    }

    void SetUp() override
    {
        FastPathScriptFixture::SetUp();
        if (IsSkipped())
        {
            return;
        }
        B_ = topo_->addNamespace("b");
        topo_->addVeth(R_, "wa", B_, "wb");
        sockB_ = dir_ + "/b.sock";
    }

    /// The grid's arguments in every run: 4x4 routers placed by system id (rows 0-1 and s
    /// on process 0), a short flow and pings after OLSR's warm-up, emulated.
    static std::vector<std::string> GridArgs()
    {
        return {"--side=4", "--system-ids=1", "--traffic-start=8", "--pings=20", "--warmup=3",
                "--udp-seconds=3", "--udp-rate=2", "--FastPathEmulation=1",
                std::string("--FastPathTag=") + kTag};
    }

    /// A fastpathd on each host, from an empty topology (the script creates its nodes).
    void StartHosts()
    {
        std::ofstream(dir_ + "/empty.yaml") << "nodes: []\n";
        // The UMEM is sized for the ports of the start (none): the four cross-host ports
        // made later need frames for their rings.
        const std::vector<std::string> common = {"--topology", dir_ + "/empty.yaml",
                                                 "--ring-size", "512", "--umem-frames", "8192"};
        auto argv = common;
        argv.insert(argv.end(), {"--cores", "0"});
        topo_->spawn(R_, FastpathdArgv(argv, false), dir_ + "/fastpathd.log");
        argv = common;
        argv.insert(argv.begin(), FASTPATHD_BIN);
        argv.insert(argv.end(), {"--cores", "1", "--socket", sockB_, "--log-level", "info"});
        topo_->spawn(B_, argv, dir_ + "/fastpathd-b.log");
        ASSERT_TRUE(WaitForSocket());
        ASSERT_TRUE(WaitForSocket(sockB_)) << "fastpathd of host b did not start";
    }

    /// The hosts file: host a with `wiresA`, host b with `wiresB`.
    std::string HostsFile(const std::string& wiresA = "b=wa", const std::string& wiresB = "a=wb")
    {
        const std::string path = dir_ + "/hosts";
        std::ofstream(path) << "# host  socket  wires\n"
                            << "a " << sock_ << " " << wiresA << "\n"
                            << "b " << sockB_ << " " << wiresB << "\n";
        return path;
    }

    void TearDown() override
    {
        CleanUp({"grid.log", "fastpathd.log", "fastpathd-b.log"});
    }

    std::string B_;
    std::string sockB_;
};

TEST_F(MultiHostTest, TwoHostsRunOneScriptAcrossTheWire)
{
    ASSERT_NO_FATAL_FAILURE(StartHosts());
    // At 1 s every link's Delay becomes 2 ms (Config::Set): the links within each host and
    // the four between them follow, each direction on the host that sends it.
    ASSERT_EQ(RunRanks({"--FastPathHosts=" + HostsFile(), "--delay-at=1", "--delay-then=2ms"}), 0)
        << Slurp(dir_ + "/grid.log").substr(0, 6000) << Slurp(dir_ + "/fastpathd-b.log");
    const std::string log = Slurp(dir_ + "/grid.log");
    // 16 routers, s and d: 8 routers and an end host on each, the four column links of the
    // middle row cut, each an end on both hosts.
    EXPECT_NE(log.find("fastpath: host a (" + sock_ + "): 9 nodes, 11 links, 4 links to other "
                       "hosts"),
              std::string::npos)
        << log.substr(0, 3000);
    EXPECT_NE(log.find("fastpath: host b (" + sockB_ + "): 9 nodes, 11 links, 4 links to other "
                       "hosts"),
              std::string::npos)
        << log.substr(0, 3000);
    EXPECT_EQ(RankValue(0, "has_s"), 1);
    EXPECT_EQ(RankValue(1, "has_d"), 1);
    // OLSR converged on both hosts, the flow and the pings crossed the wire.
    EXPECT_GT(RankValue(0, "all_converged_s"), 0);
    EXPECT_GT(RankValue(1, "all_converged_s"), 0);
    EXPECT_GE(RankValue(1, "udp_received"), 0.995 * RankValue(0, "udp_sent"));
    EXPECT_GE(RankValue(0, "ping_replies"), 15);
    // s -> d: 8 links of 2 ms each way (since 1 s), one of them across the wire. Its delay is
    // applied at the sender with the wire's latency taken off: no round trip is shorter than
    // 32 ms (30 ms if the link across the wire had kept its first 1 ms).
    EXPECT_GE(RankValue(0, "rtt_min_ms"), 31.95);
    EXPECT_LT(RankValue(0, "rtt_min_ms"), 36);
    // Each host's clock offset, as its fastpathd read it, once at the start.
    EXPECT_NE(log.find("fastpath: host a: clock offset "), std::string::npos) << log.substr(0, 3000);
    EXPECT_NE(log.find("fastpath: host b: clock offset "), std::string::npos) << log.substr(0, 3000);
    const std::string la = Slurp(dir_ + "/fastpathd.log");
    // Host b's fastpathd took the new delay for the direction it sends on each of its ends.
    const std::string lb = Slurp(dir_ + "/fastpathd-b.log");
    EXPECT_TRUE(std::regex_search(
        lb, std::regex("cross-host link mhost-l[0-9]+: egress [^\n]*delay 1\\.9[0-9]*ms[^\n]* "
                       "\\(configured [^\n]*delay 2ms")))
        << lb;
    EXPECT_NE(la.find("wire wa to host b: one-way latency"), std::string::npos) << la;
    EXPECT_TRUE(std::regex_search(la, std::regex("cross-host link mhost-l[0-9]+: node mhost-r[0-9]_[0-9] "
                                                 "port fpwmhost-[0-9]+ \\([0-9]+\\), VLAN [0-9]+ "
                                                 "on wire wa to host b")))
        << la;
    // Nothing of the run is left on either host.
    EXPECT_TRUE(NodesTagged().empty()) << ::testing::PrintToString(NodesTagged());
    EXPECT_TRUE(NodesTaggedAt(sockB_).empty());
    EXPECT_EQ(topo_->execOutput(R_, "ip -o link show").find("fpwmhost"), std::string::npos);
    EXPECT_EQ(topo_->execOutput(B_, "ip -o link show").find("fpwmhost"), std::string::npos);
}

TEST_F(MultiHostTest, TwoHostsRunOneScriptOverAVxlanWire)
{
    // The wire as an IPv4 underlay (one subnet: the next hop is the peer itself), MTU 1600
    // so that the links' 1500 fit with VXLAN's 50 bytes.
    for (const auto& [ns, ifname, addr] : {std::tuple{R_, "wa", "198.18.10.2/24"},
                                           std::tuple{B_, "wb", "198.18.10.3/24"}})
    {
        ASSERT_EQ(topo_->exec(ns, std::string("ip addr add ") + addr + " dev " + ifname), 0);
        ASSERT_EQ(topo_->exec(ns, std::string("ip link set ") + ifname + " mtu 1600"), 0);
    }
    ASSERT_NO_FATAL_FAILURE(StartHosts());
    const std::string hosts =
        HostsFile("b=wa,encap=vxlan,underlay=198.18.10.2,peer_underlay=198.18.10.3",
                  "a=wb,encap=vxlan,underlay=198.18.10.3,peer_underlay=198.18.10.2");
    ASSERT_EQ(RunRanks({"--FastPathHosts=" + hosts}), 0)
        << Slurp(dir_ + "/grid.log").substr(0, 6000) << Slurp(dir_ + "/fastpathd-b.log");
    EXPECT_GT(RankValue(0, "all_converged_s"), 0);
    EXPECT_GT(RankValue(1, "all_converged_s"), 0);
    EXPECT_GE(RankValue(1, "udp_received"), 0.995 * RankValue(0, "udp_sent"));
    EXPECT_GE(RankValue(0, "ping_replies"), 15);
    const std::string la = Slurp(dir_ + "/fastpathd.log");
    EXPECT_NE(la.find("wire wa to host b: VXLAN 198.18.10.2 -> 198.18.10.3 port 4789, next hop "
                      "198.18.10.3"),
              std::string::npos)
        << la;
    // The four links between the hosts, each with its VNI.
    EXPECT_TRUE(std::regex_search(la, std::regex("cross-host link mhost-l[0-9]+: node mhost-r[0-9]_[0-9] "
                                                 "port fpwmhost-[0-9]+ \\([0-9]+\\), VNI [0-9]+ "
                                                 "on wire wa to host b")))
        << la;
    EXPECT_EQ(topo_->execOutput(B_, "ip -o link show").find("fpwmhost"), std::string::npos);
    EXPECT_EQ(topo_->execOutput(R_, "ip -o link show").find("fpwmhost"), std::string::npos);
}

TEST_F(MultiHostTest, BadPlacementsAreRefusedSayingWhy)
{
    ASSERT_NO_FATAL_FAILURE(StartHosts());
    // Host a has no wire to host b, where the other ends of its links are.
    EXPECT_NE(RunRanks({"--FastPathHosts=" + HostsFile("")}), 0);
    std::string log = Slurp(dir_ + "/grid.log");
    EXPECT_NE(log.find("but " + dir_ + "/hosts gives host a no wire to host b: add b=INTERFACE "
                       "to host a's line"),
              std::string::npos)
        << log.substr(0, 3000);
    // A link the wire cannot take: refused by a host's fastpathd, naming the link.
    auto refusedLink = [&](const std::string& arg, const std::string& why) {
        EXPECT_NE(RunRanks({"--FastPathHosts=" + HostsFile(), arg}), 0) << arg;
        const std::string out = Slurp(dir_ + "/grid.log");
        EXPECT_TRUE(std::regex_search(
            out,
            std::regex("fastpath: host [ab]: multi_host_create_link: link mhost-l[0-9]+ \\(VLAN "
                       "[0-9]+ on wire w[ab] to host [ab]\\): " +
                       why)))
            << arg << "\n"
            << out.substr(0, 3000);
    };
    // A link delay below the wire's measured one-way latency.
    refusedLink("--delay=1us", "delay 1us is below the wire's one-way latency");
    // A link MTU the wire (a veth of MTU 1500) cannot carry with its 802.1Q tag.
    refusedLink("--mtu=1600", "mtu 1600 is more than the wire carries \\(1500");
    // A run of the wrong number of processes for the hosts file.
    std::ofstream(dir_ + "/three") << "a " << sock_ << "\nb " << sockB_ << "\nc /nowhere\n";
    EXPECT_NE(RunRanks({"--FastPathHosts=" + dir_ + "/three"}), 0);
    EXPECT_NE(Slurp(dir_ + "/grid.log")
                  .find("lists 3 hosts for 2 processes: run one process per host"),
              std::string::npos)
        << Slurp(dir_ + "/grid.log").substr(0, 3000);
}

} // namespace
