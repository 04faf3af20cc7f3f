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
//     the sender (the ping's round trip is not shorter than the simulated one's), and
//     nothing of the run is left on either host afterwards;
//   - refused, saying why: a host without a wire to the host of a link's other end, and a
//     link delay below the wire's measured latency.
#include "fast-path-script-fixture.h"

#include <fstream>
#include <regex>
#include <string>
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
                                 {}})
    {
    }

    void SetUp() override
    {
        FastPathScriptFixture::SetUp();
        if (IsSkipped())
        {
            return;
        }
        if (fastpath::testing::sh("command -v mpirun >/dev/null") != 0)
        {
            GTEST_SKIP() << "mpirun (openmpi-bin) is not installed";
        }
        B_ = topo_->addNamespace("b");
        topo_->addVeth(R_, "wa", B_, "wb");
        sockB_ = dir_ + "/b.sock";
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
        for (int i = 0; i < 100 && access(sockB_.c_str(), F_OK) != 0; ++i)
        {
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
        }
        ASSERT_EQ(access(sockB_.c_str(), F_OK), 0) << "fastpathd of host b did not start";
    }

    /// The hosts file: host a with `wiresA`, host b with a wire to a.
    std::string HostsFile(const std::string& wiresA = "b=wa")
    {
        const std::string path = dir_ + "/hosts";
        std::ofstream(path) << "# host  socket  wires\n"
                            << "a " << sock_ << " " << wiresA << "\n"
                            << "b " << sockB_ << " a=wb\n";
        return path;
    }

    /// `mpirun -np 2 grid ...` with the hosts file, until it exits; its exit code.
    int RunRanks(const std::vector<std::string>& extra)
    {
        std::vector<std::string> argv = {"mpirun", "--allow-run-as-root", "-np", "2", "--mca",
                                         "btl", "self,vader", GRID_BIN, "--side=4",
                                         "--system-ids=1", "--traffic-start=8", "--pings=20",
                                         "--warmup=3", "--udp-seconds=3", "--udp-rate=2",
                                         "--FastPathEmulation=1",
                                         std::string("--FastPathTag=") + kTag,
                                         "--report=" + dir_ + "/grid.json"};
        argv.insert(argv.end(), extra.begin(), extra.end());
        pid_t pid = topo_->spawn(R_, argv, dir_ + "/grid.log");
        const auto t0 = std::chrono::steady_clock::now();
        while (std::chrono::steady_clock::now() - t0 < std::chrono::seconds(80))
        {
            siginfo_t info{};
            if (waitid(P_PID, pid, &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == pid)
            {
                break;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
        }
        return topo_->stop(pid, 20000);
    }

    double Value(int rank, const std::string& key)
    {
        const std::string text = Slurp(dir_ + "/grid.json.rank" + std::to_string(rank));
        std::smatch m;
        if (!std::regex_search(text, m, std::regex("\"" + key + "\":(-?[0-9.e+-]+)")))
        {
            ADD_FAILURE() << "rank " << rank << " report has no " << key << ": " << text;
            return -1;
        }
        return std::stod(m[1]);
    }

    /// The nodes of the run's tag on host b's fastpathd.
    std::vector<std::string> NodesTaggedOnB()
    {
        std::vector<std::string> out;
        auto c = fastpath::ctrl::Client::connect(sockB_);
        if (!c.ok())
        {
            ADD_FAILURE() << c.error().message;
            return out;
        }
        auto nodes = c.value()->nodes();
        for (const auto& n : nodes.ok() ? nodes.value() : std::vector<fastpath::NodeInfo>{})
        {
            if (n.name.rfind(std::string(kTag) + "-", 0) == 0)
            {
                out.push_back(n.name);
            }
        }
        return out;
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
    ASSERT_EQ(RunRanks({"--FastPathHosts=" + HostsFile()}), 0)
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
    EXPECT_EQ(Value(0, "has_s"), 1);
    EXPECT_EQ(Value(1, "has_d"), 1);
    // OLSR converged on both hosts, the flow and the pings crossed the wire.
    EXPECT_GT(Value(0, "all_converged_s"), 0);
    EXPECT_GT(Value(1, "all_converged_s"), 0);
    EXPECT_GE(Value(1, "udp_received"), 0.995 * Value(0, "udp_sent"));
    EXPECT_GE(Value(0, "ping_replies"), 15);
    // s -> d: 8 links of 1 ms each way, one of them across the wire. Its delay is applied at
    // the sender with the wire's latency taken off: no round trip is shorter than 16 ms.
    EXPECT_GE(Value(0, "rtt_min_ms"), 15.95);
    EXPECT_LT(Value(0, "rtt_min_ms"), 20);
    const std::string la = Slurp(dir_ + "/fastpathd.log");
    EXPECT_NE(la.find("wire wa to host b: one-way latency"), std::string::npos) << la;
    EXPECT_TRUE(std::regex_search(la, std::regex("cross-host link mhost-l[0-9]+: node mhost-r[0-9]_[0-9] "
                                                 "port fpwmhost-[0-9]+ \\([0-9]+\\), VLAN [0-9]+ "
                                                 "on wire wa to host b")))
        << la;
    // Nothing of the run is left on either host.
    EXPECT_TRUE(NodesTagged().empty()) << ::testing::PrintToString(NodesTagged());
    EXPECT_TRUE(NodesTaggedOnB().empty());
    EXPECT_EQ(topo_->execOutput(R_, "ip -o link show").find("fpwmhost"), std::string::npos);
    EXPECT_EQ(topo_->execOutput(B_, "ip -o link show").find("fpwmhost"), std::string::npos);
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
    // A link delay below the wire's measured one-way latency.
    EXPECT_NE(RunRanks({"--FastPathHosts=" + HostsFile(), "--delay=1us"}), 0);
    log = Slurp(dir_ + "/grid.log");
    EXPECT_TRUE(std::regex_search(log, std::regex("fastpath: host [ab]: multi_host_create_link: link mhost-l[0-9]+ \\(VLAN "
                                                  "[0-9]+ on wire w[ab] to host [ab]\\): delay "
                                                  "1us is below the wire's one-way latency")))
        << log.substr(0, 3000);
    // A run of the wrong number of processes for the hosts file.
    std::ofstream(dir_ + "/three") << "a " << sock_ << "\nb " << sockB_ << "\nc /nowhere\n";
    EXPECT_NE(RunRanks({"--FastPathHosts=" + dir_ + "/three"}), 0);
    EXPECT_NE(Slurp(dir_ + "/grid.log")
                  .find("lists 3 hosts for 2 processes: run one process per host"),
              std::string::npos)
        << Slurp(dir_ + "/grid.log").substr(0, 3000);
}

} // namespace
