// SPDX-License-Identifier: GPL-2.0-only
// One script as two processes on one fastpathd: examples/grid (4x4 OLSR routers, s and d at
// opposite corners) launched by Open MPI's `mpirun --allow-run-as-root -np 2` with
// --FastPathEmulation=1, in a namespace with a fastpathd that starts empty.
//
//   - placed by METIS: rank 0 creates the plan once (18 nodes), each rank runs the control
//     planes of its own half, the UDP flow s -> d crosses from one to the other and
//     arrives, both see OLSR converge, nothing is left in fastpathd after mpirun exits;
//   - placed by system id (grid --system-ids=1): rows 0-1 and s on rank 0, rows 2-3 and d
//     on rank 1, exactly;
//   - a rank killed (SIGKILL): mpirun ends the other and fails, in bounded time; the next
//     run of the same tag removes what the killed run left.
#include "fast-path-script-fixture.h"

#include <signal.h>

#include <fstream>
#include <iostream>
#include <regex>
#include <string>
#include <vector>

using namespace fastpath_ns3_test;

namespace
{

const char* kTag = "ranks";

class RanksTest : public FastPathScriptFixture
{
  protected:
    RanksTest()
        : FastPathScriptFixture({GRID_BIN, "grid", "grid", "rk", "/tmp/fp-ns3-ranks-XXXXXX",
                                 kTag, {}})
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
    }

    /// Runs `mpirun -np 2 grid ...` in the test's namespace until it exits (at most
    /// `limit`), calling `during` every 100 ms with mpirun's PID; its exit code.
    int RunRanks(const std::vector<std::string>& extra,
                 const std::function<void(pid_t)>& during,
                 std::chrono::seconds limit = std::chrono::seconds(80))
    {
        using Clock = std::chrono::steady_clock;
        std::vector<std::string> argv = {"mpirun", "--allow-run-as-root", "-np", "2",
                                         "--mca", "btl", "self,vader", GRID_BIN,
                                         "--side=4", "--traffic-start=8", "--pings=20",
                                         "--warmup=3", "--udp-seconds=3", "--udp-rate=2",
                                         "--FastPathEmulation=1", "--FastPathSocket=" + sock_,
                                         std::string("--FastPathTag=") + kTag,
                                         "--report=" + dir_ + "/grid.json"};
        argv.insert(argv.end(), extra.begin(), extra.end());
        const auto t0 = Clock::now();
        pid_t pid = topo_->spawn(R_, argv, dir_ + "/grid.log");
        bool exited = false;
        while (Clock::now() - t0 < limit)
        {
            siginfo_t info{};
            if (waitid(P_PID, pid, &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == pid)
            {
                exited = true;
                break;
            }
            if (during)
            {
                during(pid);
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
        }
        seconds_ = std::chrono::duration<double>(Clock::now() - t0).count();
        EXPECT_TRUE(exited) << "mpirun did not exit within " << limit.count() << " s";
        return topo_->stop(pid, 20000);
    }

    /// A number of rank `rank`'s JSON report ("key":value).
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

    void TearDown() override
    {
        CleanUp({"grid.log", "fastpathd.log"});
    }
};

TEST_F(RanksTest, TwoRanksPlacedByMetisRunOneScriptOnOneFastpathd)
{
    ASSERT_NO_FATAL_FAILURE(StartFastpathd());
    size_t most = 0;
    auto during = [&](pid_t) { most = std::max(most, NodesTagged().size()); };
    ASSERT_EQ(RunRanks({}, during), 0) << Slurp(dir_ + "/grid.log").substr(0, 4000);
    const std::string log = Slurp(dir_ + "/grid.log");
    EXPECT_NE(log.find("fastpath: 2 processes (balanced by METIS), nodes per process 9 9"),
              std::string::npos)
        << log.substr(0, 2000);
    // The plan was created once: 16 routers, s and d.
    EXPECT_EQ(most, 18u);
    // Each rank ran half of the routers; s on one, d on the other or the same.
    EXPECT_EQ(Value(0, "ranks"), 2);
    EXPECT_EQ(Value(0, "local_routers") + Value(1, "local_routers"), 16);
    EXPECT_GE(Value(0, "local_routers"), 7);
    EXPECT_GE(Value(1, "local_routers"), 7);
    EXPECT_EQ(Value(0, "has_s") + Value(1, "has_s"), 1);
    EXPECT_EQ(Value(0, "has_d") + Value(1, "has_d"), 1);
    const int s = Value(0, "has_s") == 1 ? 0 : 1;
    const int d = Value(0, "has_d") == 1 ? 0 : 1;
    // Both saw their nodes converge; the flow crossed fastpathd between the ranks' nodes.
    EXPECT_GT(Value(0, "all_converged_s"), 0);
    EXPECT_GT(Value(1, "all_converged_s"), 0);
    EXPECT_LT(std::max(Value(0, "all_converged_s"), Value(1, "all_converged_s")), 8);
    EXPECT_GE(Value(d, "udp_received"), 0.995 * Value(s, "udp_sent"));
    EXPECT_GE(Value(s, "ping_replies"), 15);
    // mpirun exited: nothing of the run is left in fastpathd.
    EXPECT_TRUE(NodesTagged().empty()) << ::testing::PrintToString(NodesTagged());
    std::cout << "[ ranks ] METIS: routers " << Value(0, "local_routers") << " + "
              << Value(1, "local_routers") << ", converged at "
              << std::max(Value(0, "all_converged_s"), Value(1, "all_converged_s"))
              << " s, UDP " << Value(d, "udp_received") << "/" << Value(s, "udp_sent")
              << ", run " << seconds_ << " s\n";
}

TEST_F(RanksTest, SystemIdsPlaceTheNodes)
{
    ASSERT_NO_FATAL_FAILURE(StartFastpathd());
    ASSERT_EQ(RunRanks({"--system-ids=1"}, nullptr), 0)
        << Slurp(dir_ + "/grid.log").substr(0, 4000);
    EXPECT_NE(Slurp(dir_ + "/grid.log").find("2 processes (system ids), nodes per process 9 9"),
              std::string::npos);
    EXPECT_EQ(Value(0, "local_routers"), 8);
    EXPECT_EQ(Value(1, "local_routers"), 8);
    EXPECT_EQ(Value(0, "has_s"), 1);
    EXPECT_EQ(Value(1, "has_d"), 1);
    EXPECT_GE(Value(1, "udp_received"), 0.995 * Value(0, "udp_sent"));
    EXPECT_TRUE(NodesTagged().empty());
}

TEST_F(RanksTest, AKilledRankEndsTheRunAndTheNextRunCleansUp)
{
    ASSERT_NO_FATAL_FAILURE(StartFastpathd());
    // Once the plan exists, SIGKILL one rank (a grid process that is not mpirun).
    bool killed = false;
    auto during = [&](pid_t mpirun) {
        if (killed || NodesTagged().size() < 18)
        {
            return;
        }
        std::this_thread::sleep_for(std::chrono::seconds(2));
        const std::string pids = fastpath::testing::shOutput(
            "pgrep -P " + std::to_string(mpirun) + " -f " + std::string(GRID_BIN) +
            " | head -1");
        if (!pids.empty())
        {
            killed = ::kill(std::stoi(pids), SIGKILL) == 0;
        }
    };
    const int code = RunRanks({"--udp-seconds=30"}, during, std::chrono::seconds(40));
    EXPECT_TRUE(killed);
    EXPECT_NE(code, 0) << "mpirun should fail when a rank is killed";
    EXPECT_LT(seconds_, 30) << "the other rank was not ended";
    // The next run of the same tag removes the leftovers and runs.
    ASSERT_EQ(RunRanks({}, nullptr), 0) << Slurp(dir_ + "/grid.log").substr(0, 4000);
    EXPECT_TRUE(NodesTagged().empty());
}

} // namespace
