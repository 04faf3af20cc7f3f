// SPDX-License-Identifier: GPL-2.0-only
// What the ns-3 module's veth tests share: S — R — D namespaces with fastpathd and an ns-3
// router at R, a scratch directory for logs and reports, and queries of fastpathd through
// the client library. Each test's fixture builds its own topology and processes.
#pragma once

#include "fastpath/ctrl/client.h"
#include "netns.h"

#include <gtest/gtest.h>

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
