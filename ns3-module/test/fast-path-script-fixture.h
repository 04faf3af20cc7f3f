// SPDX-License-Identifier: GPL-2.0-only
// What the one-script tests share: an example run twice, unchanged, simulated and then
// emulated on a fastpathd in namespace R that starts with no node but the default one (the
// script creates its own nodes, links and segments there, as nobody when it can:
// fastpathd --socket-uid), with its report and the fastpathd nodes of its tag. The test
// target defines FASTPATHD_BIN.
#pragma once

#include "fast-path-veth-fixture.h"

#include <gtest/gtest.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <functional>
#include <map>
#include <regex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace fastpath_ns3_test
{

/// The example a one-script test runs, and where.
struct ScriptUnderTest
{
    std::string bin;               //!< the example's binary
    std::string name;              //!< the example in messages
    std::string file;              //!< base name of its log and report in the scratch dir
    std::string topology;          //!< prefix of the test's namespaces
    std::string scratch;           //!< mkdtemp template of the scratch directory
    std::string tag;               //!< its FastPathTag
    std::vector<std::string> args; //!< its arguments in both runs
    bool ranks = false;            //!< run as Open MPI ranks (RunRanks): skipped without mpirun
};

class FastPathScriptFixture : public FastPathVethFixture
{
  protected:
    explicit FastPathScriptFixture(ScriptUnderTest script)
        : script_(std::move(script))
    {
    }

    void SetUp() override
    {
        if (std::string why = WhyNot({FASTPATHD_BIN, script_.bin}); !why.empty())
        {
            GTEST_SKIP() << why;
        }
        if (script_.ranks && fastpath::testing::sh("command -v mpirun >/dev/null") != 0)
        {
            GTEST_SKIP() << "mpirun (openmpi-bin) is not installed";
        }
        topo_ = std::make_unique<fastpath::testing::Topology>(script_.topology);
        R_ = topo_->addNamespace("r");
        ASSERT_TRUE(MakeScratch(script_.scratch));
        haveNobody_ = getpwnam("nobody") && getgrnam("nogroup") &&
                      fastpath::testing::sh(
                          "setpriv --reuid=nobody --regid=nogroup --clear-groups test -x " +
                          script_.bin) == 0;
    }

    void TearDown() override
    {
        const std::string log = script_.file + ".log";
        CleanUp({log.c_str(), "fastpathd.log"});
    }

    /// fastpathd from an empty topology file: no node but the default one, no port (the
    /// script creates its nodes, links and segments).
    void StartFastpathd()
    {
        std::ofstream(dir_ + "/empty.yaml") << "nodes: []\n";
        topo_->spawn(R_, FastpathdArgv({"--topology", dir_ + "/empty.yaml"}, haveNobody_),
                     dir_ + "/fastpathd.log");
        ASSERT_TRUE(WaitForSocket());
        // A supported start: fastpathd runs, and its default node has no port.
        ASSERT_NE(Client(), nullptr) << "fastpathd at " << sock_ << " does not answer";
        auto ports = Client()->ports();
        ASSERT_TRUE(ports.ok()) << ports.error().message;
        EXPECT_TRUE(ports.value().empty()) << ports.value().size() << " ports";
    }

    /// Runs the script (as nobody when it can) until it exits (at most 90 s), calling
    /// `during` every 100 ms meanwhile; returns its report.
    std::map<std::string, std::string> RunScript(const std::vector<std::string>& extra,
                                                 const std::function<void()>& during)
    {
        const std::string report = dir_ + "/" + script_.file + ".report";
        const std::string log = dir_ + "/" + script_.file + ".log";
        std::vector<std::string> argv = {script_.bin, "--report=" + report};
        argv.insert(argv.end(), script_.args.begin(), script_.args.end());
        argv.insert(argv.end(), extra.begin(), extra.end());
        if (haveNobody_)
        {
            fastpath::testing::sh("install -m 644 -o nobody /dev/null " + report);
            argv.insert(argv.begin(),
                        {"setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"});
        }
        auto everyTick = [&during](pid_t) {
            if (during)
            {
                during();
            }
        };
        const int exitCode = RunUntilExit(argv, log, std::chrono::seconds(90), everyTick);
        EXPECT_EQ(exitCode, 0) << Slurp(log).substr(0, 4000);
        auto values = ReadReport(report);
        EXPECT_TRUE(values.count("udp_received")) << "report: " << Slurp(report);
        return values;
    }

    /// Runs the script as `mpirun --allow-run-as-root -np 2` in R (shared memory between
    /// the ranks, no network transport), with its arguments, `extra` and a JSON report that
    /// each rank writes to its own file (RankValue reads it), until mpirun exits (at most
    /// `limit`), calling `during` every 100 ms with mpirun's PID; mpirun's exit code.
    int RunRanks(const std::vector<std::string>& extra,
                 const std::function<void(pid_t)>& during = nullptr,
                 std::chrono::seconds limit = std::chrono::seconds(80))
    {
        std::vector<std::string> argv = {"mpirun", "--allow-run-as-root", "-np", "2", "--mca",
                                         "btl", "self,vader", script_.bin,
                                         "--report=" + RanksReport()};
        argv.insert(argv.end(), script_.args.begin(), script_.args.end());
        argv.insert(argv.end(), extra.begin(), extra.end());
        return RunUntilExit(argv, dir_ + "/" + script_.file + ".log", limit, during);
    }

    /// A number ("key":value) of the JSON report rank `rank` wrote in the last RunRanks, or
    /// -1 with a test failure when it has none.
    double RankValue(int rank, const std::string& key)
    {
        const std::string text = Slurp(RanksReport() + ".rank" + std::to_string(rank));
        std::smatch m;
        if (!std::regex_search(text, m, std::regex("\"" + key + "\":(-?[0-9.e+-]+)")))
        {
            ADD_FAILURE() << "rank " << rank << " report has no " << key << ": " << text;
            return -1;
        }
        return std::stod(m[1]);
    }

    static double Num(std::map<std::string, std::string>& report, const std::string& key)
    {
        auto it = report.find(key);
        return it == report.end() || it->second.empty() ? -1 : std::stod(it->second);
    }

    /// fastpathd's nodes named after the script's tag.
    std::vector<std::string> NodesTagged()
    {
        return Tagged(
            Query([](auto& c) { return c.nodes(); }, std::vector<fastpath::NodeInfo>{}));
    }

    /// The nodes named after the script's tag of the fastpathd at `socket` (another host's).
    std::vector<std::string> NodesTaggedAt(const std::string& socket)
    {
        auto c = fastpath::ctrl::Client::connect(socket);
        if (!c.ok())
        {
            ADD_FAILURE() << c.error().message;
            return {};
        }
        auto nodes = c.value()->nodes();
        return Tagged(nodes.ok() ? nodes.value() : std::vector<fastpath::NodeInfo>{});
    }

    ScriptUnderTest script_;
    bool haveNobody_ = false;
    double seconds_ = 0; //!< how long the last RunScript or RunRanks took

  private:
    /// Spawns `argv` in R (output to `log`) and waits until it exits (at most `limit`),
    /// calling `during` every 100 ms with its PID; stops it if it is still running, fails
    /// the test if it had to; its exit code. Sets seconds_.
    int RunUntilExit(const std::vector<std::string>& argv,
                     const std::string& log,
                     std::chrono::seconds limit,
                     const std::function<void(pid_t)>& during)
    {
        using Clock = std::chrono::steady_clock;
        const auto t0 = Clock::now();
        pid_t pid = topo_->spawn(R_, argv, log);
        bool exited = false;
        while (Clock::now() - t0 < limit)
        {
            siginfo_t info{};
            // WNOWAIT: the Topology reaps it (stop), so its PID is never reused meanwhile.
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
        const int exitCode = topo_->stop(pid, 20000);
        seconds_ = std::chrono::duration<double>(Clock::now() - t0).count();
        EXPECT_TRUE(exited) << script_.name << " did not exit within " << limit.count() << " s";
        return exitCode;
    }

    std::string RanksReport() const
    {
        return dir_ + "/" + script_.file + ".json";
    }

    std::vector<std::string> Tagged(const std::vector<fastpath::NodeInfo>& nodes) const
    {
        std::vector<std::string> out;
        for (const auto& n : nodes)
        {
            if (n.name.rfind(script_.tag + "-", 0) == 0)
            {
                out.push_back(n.name);
            }
        }
        return out;
    }
};

} // namespace fastpath_ns3_test
