// SPDX-License-Identifier: GPL-2.0-only
// What the ns-3 module's veth tests share: S — R — D namespaces with fastpathd and an ns-3
// router at R, a scratch directory for logs and reports, and queries of fastpathd through
// the client library. Each test's fixture builds its own topology and processes.
#pragma once

#include "fastpath/ctrl/client.h"
#include "netns.h"

#include <gtest/gtest.h>

#include <grp.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <functional>
#include <initializer_list>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>
#include <thread>

namespace fastpath_ns3_test
{

inline std::string
Slurp(const std::string& path)
{
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

/// The key=value lines of an example's --report file (route= lines left out).
inline std::map<std::string, std::string>
ReadReport(const std::string& path)
{
    std::map<std::string, std::string> out;
    std::istringstream in(Slurp(path));
    std::string line;
    while (std::getline(in, line))
    {
        auto eq = line.find('=');
        if (eq != std::string::npos && line.compare(0, 6, "route=") != 0)
        {
            out[line.substr(0, eq)] = line.substr(eq + 1);
        }
    }
    return out;
}

class FastPathVethFixture : public ::testing::Test
{
  protected:
    /// Why the test cannot run here (no privileges, or one of `programs` not built), or "".
    static std::string WhyNot(std::initializer_list<std::string> programs)
    {
        std::string why;
        if (!fastpath::testing::havePrivileges(&why))
        {
            return why;
        }
        for (const auto& p : programs)
        {
            if (access(p.c_str(), X_OK) != 0)
            {
                return p + " not built";
            }
        }
        return "";
    }

    /// S — R — D in namespaces of a new topology named `prefix`: veths s0 – `rToS` and
    /// d0 – `rToD`, S's and D's transmit checksum offload off (ns-3 checks checksums; the
    /// kernels' veth offload would leave them partial).
    void BuildSRD(const std::string& prefix, const std::string& rToS, const std::string& rToD)
    {
        topo_ = std::make_unique<fastpath::testing::Topology>(prefix);
        S_ = topo_->addNamespace("s");
        R_ = topo_->addNamespace("r");
        D_ = topo_->addNamespace("d");
        topo_->addVeth(S_, "s0", R_, rToS);
        topo_->addVeth(D_, "d0", R_, rToD);
        topo_->exec(S_, "ethtool -K s0 tx off >/dev/null");
        topo_->exec(D_, "ethtool -K d0 tx off >/dev/null");
    }

    /// dir_: a new scratch directory from the mkdtemp template `tmpl`, readable by all (an
    /// unprivileged simulation runs from there); sock_: fastpathd's socket in it.
    ::testing::AssertionResult MakeScratch(std::string tmpl)
    {
        if (mkdtemp(&tmpl[0]) == nullptr)
        {
            return ::testing::AssertionFailure() << "mkdtemp " << tmpl << " failed";
        }
        dir_ = tmpl;
        chmod(dir_.c_str(), 0755);
        sock_ = dir_ + "/fastpathd.sock";
        return ::testing::AssertionSuccess();
    }

    /// fastpathd's command line: `args`, then the socket, the log level and, with
    /// `forNobody`, the socket's owner nobody:nogroup (the simulation then runs as nobody).
    std::vector<std::string> FastpathdArgv(std::vector<std::string> args, bool forNobody) const
    {
        args.insert(args.begin(), FASTPATHD_BIN);
        args.insert(args.end(), {"--socket", sock_, "--log-level", "info"});
        if (forNobody)
        {
            args.insert(args.end(),
                        {"--socket-uid", std::to_string(getpwnam("nobody")->pw_uid),
                         "--socket-gid", std::to_string(getgrnam("nogroup")->gr_gid)});
        }
        return args;
    }

    /// Waits (10 s at most) for fastpathd to create its socket (`socket`; "" = sock_).
    ::testing::AssertionResult WaitForSocket(std::string socket = "")
    {
        if (socket.empty())
        {
            socket = sock_;
        }
        for (int i = 0; i < 100 && access(socket.c_str(), F_OK) != 0; ++i)
        {
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
        }
        if (access(socket.c_str(), F_OK) != 0)
        {
            return ::testing::AssertionFailure() << "fastpathd did not create " << socket;
        }
        return ::testing::AssertionSuccess();
    }

    /// Prints `logs` (files in dir_) when the test failed, then stops every spawned process,
    /// removes the namespaces and the scratch directory.
    void CleanUp(std::initializer_list<const char*> logs)
    {
        client_.reset();
        if (HasFailure() && !dir_.empty())
        {
            for (auto f : logs)
            {
                std::cerr << "---- " << f << "\n" << Slurp(dir_ + "/" + f).substr(0, 4000);
            }
        }
        topo_.reset();
        if (!dir_.empty())
        {
            fastpath::testing::sh("rm -rf " + dir_);
        }
    }

    /// A connected client of fastpathd's socket, or nullptr (then the next call retries).
    fastpath::ctrl::Client* Client()
    {
        if (!client_)
        {
            auto c = fastpath::ctrl::Client::connect(sock_);
            if (!c.ok())
            {
                return nullptr;
            }
            client_ = std::move(c.value());
        }
        return client_.get();
    }

    /// `ask(client)` on a connected client, or `none` when fastpathd cannot be reached or
    /// the request fails (the connection is dropped then, so the next call reconnects).
    template <class T, class Ask>
    T Query(Ask ask, T none)
    {
        auto* c = Client();
        if (!c)
        {
            return none;
        }
        auto r = ask(*c);
        if (!r.ok())
        {
            client_.reset();
            return none;
        }
        return std::move(r.value());
    }

    /// The route fastpathd (its node `node`; "" = the default node) has for exactly
    /// `prefix`, as "via X port N", or "".
    std::string RouteIn(const std::string& prefix, const std::string& node = "")
    {
        auto routes =
            Query([&node](auto& c) { return c.routes(node); }, std::vector<fastpath::Route>{});
        for (const auto& route : routes)
        {
            if (route.prefix.toString() == prefix)
            {
                return "via " +
                       (route.next_hop.isUnspecified() ? std::string("on-link")
                                                       : route.next_hop.toString()) +
                       " port " + std::to_string(route.port);
            }
        }
        return "";
    }

    /// fastpathd's neighbour entry for `ip` (in node `node`), as "<mac> port N", or "".
    std::string NeighbourIn(const std::string& ip, const std::string& node = "")
    {
        auto neighbours = Query([&node](auto& c) { return c.neighbours(node); },
                                std::vector<fastpath::Neighbour>{});
        for (const auto& e : neighbours)
        {
            if (e.ip.toString() == ip)
            {
                return e.mac.toString() + " port " + std::to_string(e.port);
            }
        }
        return "";
    }

    /// fastpathd's counter `name` in `scope` ("port r0", "control-server", ...) of node
    /// `node`, or 0.
    uint64_t Counter(const std::string& scope,
                     const std::string& name,
                     const std::string& node = "")
    {
        auto sets = Query([&node](auto& c) { return c.stats(node); },
                          std::vector<fastpath::CounterSet>{});
        for (const auto& cs : sets)
        {
            if (cs.scope == scope)
            {
                for (const auto& kv : cs.counters)
                {
                    if (kv.first == name)
                    {
                        return kv.second;
                    }
                }
            }
        }
        return 0;
    }

    bool WaitFor(const std::function<bool()>& cond, std::chrono::milliseconds timeout)
    {
        auto end = std::chrono::steady_clock::now() + timeout;
        while (std::chrono::steady_clock::now() < end)
        {
            if (cond())
            {
                return true;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
        }
        return cond();
    }

    std::unique_ptr<fastpath::testing::Topology> topo_;
    std::string S_, R_, D_, dir_, sock_;
    std::unique_ptr<fastpath::ctrl::Client> client_;
};

} // namespace fastpath_ns3_test
