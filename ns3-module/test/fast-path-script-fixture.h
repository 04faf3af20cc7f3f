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
        using namespace std::chrono_literals;
        using Clock = std::chrono::steady_clock;
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
        auto t0 = Clock::now();
        pid_t pid = topo_->spawn(R_, argv, log);
        bool exited = false;
        while (Clock::now() - t0 < 90s)
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
                during();
            }
            std::this_thread::sleep_for(100ms);
        }
        const int exitCode = topo_->stop(pid, 20000);
        seconds_ = std::chrono::duration<double>(Clock::now() - t0).count();
        EXPECT_TRUE(exited) << script_.name << " did not exit within 90 s";
        EXPECT_EQ(exitCode, 0) << Slurp(log).substr(0, 4000);
        auto values = ReadReport(report);
        EXPECT_TRUE(values.count("udp_received")) << "report: " << Slurp(report);
        return values;
    }

    static double Num(std::map<std::string, std::string>& report, const std::string& key)
    {
        auto it = report.find(key);
        return it == report.end() || it->second.empty() ? -1 : std::stod(it->second);
    }

    /// fastpathd's nodes named after the script's tag.
    std::vector<std::string> NodesTagged()
    {
        std::vector<std::string> out;
        auto nodes = Query([](auto& c) { return c.nodes(); }, std::vector<fastpath::NodeInfo>{});
        for (const auto& n : nodes)
        {
            if (n.name.rfind(script_.tag + "-", 0) == 0)
            {
                out.push_back(n.name);
            }
        }
        return out;
    }

    ScriptUnderTest script_;
    bool haveNobody_ = false;
    double seconds_ = 0; //!< how long the last RunScript took
};

} // namespace fastpath_ns3_test
