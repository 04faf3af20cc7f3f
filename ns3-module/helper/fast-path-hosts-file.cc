// SPDX-License-Identifier: GPL-2.0-only
#include "fast-path-hosts-file.h"

#include "fastpath/names.h"

#include <cerrno>
#include <fstream>
#include <set>
#include <sstream>

namespace ns3
{

fastpath::Result<std::vector<FastPathHostsFile::Host>>
FastPathHostsFile::Parse(const std::string& text, const std::string& origin)
{
    std::vector<Host> hosts;
    std::istringstream in(text);
    int n = 0;
    auto fail = [&](const std::string& what) {
        return fastpath::makeError(-EINVAL, origin + " line " + std::to_string(n) + ": " + what);
    };
    for (std::string line; std::getline(in, line);)
    {
        ++n;
        if (auto hash = line.find('#'); hash != std::string::npos)
        {
            line.resize(hash);
        }
        std::istringstream words(line);
        Host h;
        h.line = n;
        if (!(words >> h.name))
        {
            continue;
        }
        if (!fastpath::validName(h.name))
        {
            return fail(fastpath::nameRule("host", h.name));
        }
        if (!(words >> h.socket))
        {
            return fail("host " + h.name +
                        " has no control socket: write HOST SOCKET [PEER=INTERFACE...]");
        }
        if (h.socket.find('=') != std::string::npos)
        {
            return fail("host " + h.name + ": '" + h.socket +
                        "' is where the control socket goes: write HOST SOCKET "
                        "[PEER=INTERFACE...]");
        }
        std::set<std::string> peers;
        for (std::string w; words >> w;)
        {
            const auto eq = w.find('=');
            if (eq == std::string::npos || eq == 0 || eq + 1 == w.size())
            {
                return fail("'" + w + "' is no wire: write PEER=INTERFACE (e.g. b=eth1)");
            }
            const std::string peer = w.substr(0, eq);
            const std::string ifname = w.substr(eq + 1);
            if (peer == h.name)
            {
                return fail("host " + h.name + " has a wire to itself: a wire joins two hosts");
            }
            if (!peers.insert(peer).second)
            {
                return fail("host " + h.name + " has two wires to " + peer + ": one per peer");
            }
            if (!fastpath::validIfname(ifname))
            {
                return fail(fastpath::ifnameRule(ifname));
            }
            h.wires.emplace_back(peer, ifname);
        }
        for (const auto& o : hosts)
        {
            if (o.name == h.name)
            {
                return fail("host " + h.name + " is also on line " + std::to_string(o.line) +
                            ": one line per host");
            }
        }
        hosts.push_back(std::move(h));
    }
    if (hosts.empty())
    {
        return fastpath::makeError(-EINVAL, origin + ": no host: write one line per host, "
                                                     "HOST SOCKET [PEER=INTERFACE...]");
    }
    for (const auto& h : hosts)
    {
        for (const auto& [peer, ifname] : h.wires)
        {
            bool known = false;
            for (const auto& o : hosts)
            {
                known = known || o.name == peer;
            }
            if (!known)
            {
                n = h.line;
                return fail("host " + h.name + " has a wire to " + peer +
                            ", which is not a host of the file");
            }
        }
    }
    return hosts;
}

fastpath::Result<std::vector<FastPathHostsFile::Host>>
FastPathHostsFile::Read(const std::string& path)
{
    std::ifstream f(path);
    if (!f)
    {
        return fastpath::makeError(-ENOENT, "cannot read the hosts file " + path);
    }
    std::stringstream ss;
    ss << f.rdbuf();
    return Parse(ss.str(), path);
}

std::string
FastPathHostsFile::WireTo(const Host& host, const std::string& peer)
{
    for (const auto& [p, ifname] : host.wires)
    {
        if (p == peer)
        {
            return ifname;
        }
    }
    return "";
}

} // namespace ns3
