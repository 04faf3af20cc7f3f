// SPDX-License-Identifier: GPL-2.0-only
// FastPathHostsFile: the hosts of a run over several machines (--FastPathHosts=FILE), one
// line per host in rank order: its name, its fastpathd's control socket, its wires.
#pragma once

#include "fastpath/control_types.h"
#include "fastpath/result.h"

#include <map>

#include <string>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup fastpath
 * \brief The hosts file of a run over several hosts.
 *
 * One line per host; process (rank) i runs on the host of the i-th line:
 *
 *     # HOST  SOCKET                          WIRES: PEER=INTERFACE ...
 *     a       /run/fastpathd/fastpathd.sock   b=eth1
 *     b       /run/fastpathd/fastpathd.sock   a=eth1
 *
 * HOST is the host's name in the run (1-31 of [A-Za-z0-9_.-]), SOCKET the control socket
 * of the fastpathd on that host, and each PEER=INTERFACE says which of this host's
 * interfaces reaches host PEER (the wire the links between the two cross, tagged 802.1Q).
 * Hosts without a shared segment use VXLAN over their routed underlay:
 *
 *     a  /run/fastpathd/fastpathd.sock  b=eth2,encap=vxlan,underlay=198.18.10.2,peer_underlay=198.18.20.2
 *     b  /run/fastpathd/fastpathd.sock  a=eth2,encap=vxlan,underlay=198.18.20.2,peer_underlay=198.18.10.2
 *
 * (`,port=P` when not 4789; each end's underlay is the other's peer_underlay.) '#' starts a
 * comment. Pure functions: nothing is read but the file, nothing is contacted.
 */
class FastPathHostsFile
{
  public:
    struct Host
    {
        std::string name;
        std::string socket;
        std::vector<std::pair<std::string, std::string>> wires; ///< {peer host, interface}
        /// By interface: the wires that carry VXLAN; the others carry 802.1Q.
        std::map<std::string, fastpath::WireVxlan> vxlan;
        int line = 0;
    };

    /// Parses the text of a hosts file (`origin` names it in errors): every host named
    /// once, every peer a host of the file but not the line's own, each peer once per line,
    /// interface names the kernel accepts. Errors name the line and what to write.
    static fastpath::Result<std::vector<Host>> Parse(const std::string& text,
                                                     const std::string& origin);
    /// Reads and parses `path`.
    static fastpath::Result<std::vector<Host>> Read(const std::string& path);
    /// This host's interface to `peer`, or "" when the file gives it no wire to `peer`.
    static std::string WireTo(const Host& host, const std::string& peer);
};

} // namespace ns3
