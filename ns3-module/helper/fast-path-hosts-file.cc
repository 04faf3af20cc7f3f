// SPDX-License-Identifier: GPL-2.0-only
#include "fast-path-hosts-file.h"

#include "fastpath/names.h"
#include "fastpath/wire_word.h"

#include <cerrno>
#include <fstream>
#include <set>
#include <sstream>

namespace ns3
{

namespace
{

const fastpath::WireVxlan*
VxlanOf(const FastPathHostsFile::Host& h, const std::string& ifname)
{
    auto v = h.vxlan.find(ifname);
    return v == h.vxlan.end() ? nullptr : &v->second;
}

/// Both ends of a wire agree on its encapsulation: 802.1Q on both, or VXLAN with each
/// end's underlay the other's peer_underlay and one port (as a topology file's wires).
fastpath::Status
CheckEncap(const FastPathHostsFile::Host& h,
           const std::string& ifname,
           const std::vector<FastPathHostsFile::Host>& hosts,
           const std::string& peer)
{
    const FastPathHostsFile::Host* other = nullptr;
    for (const auto& o : hosts)
    {
        other = o.name == peer ? &o : other;
    }
    const std::string back = other ? FastPathHostsFile::WireTo(*other, h.name) : "";
    if (back.empty())
    {
        return {}; // a wire one way only: refused where a link needs it
    }
    const fastpath::WireVxlan* mine = VxlanOf(h, ifname);
    const fastpath::WireVxlan* theirs = VxlanOf(*other, back);
    const std::string what = "host " + h.name + "'s wire to " + peer;
    if (!mine != !theirs)
    {
        return fastpath::makeError(-EINVAL,
                                   what + " is " + (mine ? "VXLAN" : "802.1Q") + ", host " +
                                       peer + "'s wire back (line " +
                                       std::to_string(other->line) + ") is " +
                                       (theirs ? "VXLAN" : "802.1Q") + ": give both the same");
    }
    if (mine && (mine->underlay != theirs->peer_underlay ||
                 mine->peer_underlay != theirs->underlay || mine->port != theirs->port))
    {
        return fastpath::makeError(
            -EINVAL,
            what + ": underlay " + mine->underlay.toString() + ", peer_underlay " +
                mine->peer_underlay.toString() + ", port " + std::to_string(mine->port) +
                " do not match host " + peer + "'s (underlay " + theirs->underlay.toString() +
                ", peer_underlay " + theirs->peer_underlay.toString() + ", port " +
                std::to_string(theirs->port) +
                "): each end's underlay is the other's peer_underlay, and the port is the same");
    }
    return {};
}

} // namespace

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
            auto word = fastpath::parseWireWord(w);
            if (!word.ok())
            {
                return fail(word.error().message);
            }
            const std::string& peer = word.value().peer;
            const std::string& ifname = word.value().ifname;
            if (peer == h.name)
            {
                return fail("host " + h.name + " has a wire to itself: a wire joins two hosts");
            }
            if (!peers.insert(peer).second)
            {
                return fail("host " + h.name + " has two wires to " + peer + ": one per peer");
            }
            if (word.value().vxlan)
            {
                h.vxlan[ifname] = *word.value().vxlan;
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
            n = h.line;
            if (auto st = CheckEncap(h, ifname, hosts, peer); !st.ok())
            {
                return fail(st.error().message);
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
