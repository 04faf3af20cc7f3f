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
                                 kTag, GridArgs(), true})
    {
    }

    /// The grid's arguments in every run: 4x4 routers, a short flow and pings after OLSR's
    /// warm-up, emulated on the fixture's fastpathd.
    static std::vector<std::string> GridArgs()
    {
        return {"--side=4", "--traffic-start=8", "--pings=20", "--warmup=3", "--udp-seconds=3",
                "--udp-rate=2", "--FastPathEmulation=1", std::string("--FastPathTag=") + kTag};
    }

    /// Runs the ranks on the fixture's fastpathd.
    int RunRanks(const std::vector<std::string>& extra,
                 const std::function<void(pid_t)>& during,
                 std::chrono::seconds limit = std::chrono::seconds(80))
    {
        std::vector<std::string> args = {"--FastPathSocket=" + sock_};
        args.insert(args.end(), extra.begin(), extra.end());
        return FastPathScriptFixture::RunRanks(args, during, limit);
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
    EXPECT_EQ(RankValue(0, "ranks"), 2);
    EXPECT_EQ(RankValue(0, "local_routers") + RankValue(1, "local_routers"), 16);
    EXPECT_GE(RankValue(0, "local_routers"), 7);
    EXPECT_GE(RankValue(1, "local_routers"), 7);
    EXPECT_EQ(RankValue(0, "has_s") + RankValue(1, "has_s"), 1);
    EXPECT_EQ(RankValue(0, "has_d") + RankValue(1, "has_d"), 1);
    const int s = RankValue(0, "has_s") == 1 ? 0 : 1;
    const int d = RankValue(0, "has_d") == 1 ? 0 : 1;
    // Both saw their nodes converge; the flow crossed fastpathd between the ranks' nodes.
    EXPECT_GT(RankValue(0, "all_converged_s"), 0);
    EXPECT_GT(RankValue(1, "all_converged_s"), 0);
    EXPECT_LT(std::max(RankValue(0, "all_converged_s"), RankValue(1, "all_converged_s")), 8);
    EXPECT_GE(RankValue(d, "udp_received"), 0.995 * RankValue(s, "udp_sent"));
    EXPECT_GE(RankValue(s, "ping_replies"), 15);
    // mpirun exited: nothing of the run is left in fastpathd.
    EXPECT_TRUE(NodesTagged().empty()) << ::testing::PrintToString(NodesTagged());
    std::cout << "[ ranks ] METIS: routers " << RankValue(0, "local_routers") << " + "
              << RankValue(1, "local_routers") << ", converged at "
              << std::max(RankValue(0, "all_converged_s"), RankValue(1, "all_converged_s"))
              << " s, UDP " << RankValue(d, "udp_received") << "/" << RankValue(s, "udp_sent")
              << ", run " << seconds_ << " s\n";
}

TEST_F(RanksTest, SystemIdsPlaceTheNodes)
{
    ASSERT_NO_FATAL_FAILURE(StartFastpathd());
    ASSERT_EQ(RunRanks({"--system-ids=1"}, nullptr), 0)
        << Slurp(dir_ + "/grid.log").substr(0, 4000);
    EXPECT_NE(Slurp(dir_ + "/grid.log").find("2 processes (system ids), nodes per process 9 9"),
              std::string::npos);
    EXPECT_EQ(RankValue(0, "local_routers"), 8);
    EXPECT_EQ(RankValue(1, "local_routers"), 8);
    EXPECT_EQ(RankValue(0, "has_s"), 1);
    EXPECT_EQ(RankValue(1, "has_d"), 1);
    EXPECT_GE(RankValue(1, "udp_received"), 0.995 * RankValue(0, "udp_sent"));
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
