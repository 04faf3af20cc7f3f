// SPDX-License-Identifier: GPL-2.0-only
// FastPathClockCheck: a host's clock offset in a run over several hosts, as its fastpathd
// read it (chrony or PTP), weighed against the delay budgets of the host's links to other
// hosts.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup fastpath
 * \brief A host's clock against its reference, as its time service (chrony, ptp4l) says.
 */
struct FastPathClockOffset
{
    bool known = false;   ///< false: no time service runs, or it has no reference
    int64_t offsetNs = 0; ///< signed
    std::string source;   ///< "chrony", "ptp", or why the offset is unknown
    /// "+12 us (chrony)" or "unknown (neither chronyd nor ptp4l runs)".
    std::string Text() const;
};

/**
 * \ingroup fastpath
 * \brief The start-up line about a host's clock offset, and whether it is a warning.
 *
 * A link between two hosts is emulated at its sender with its delay less the wire's
 * measured one-way latency: that remainder is the link's delay budget. Nothing the emulation
 * does depends on the hosts' clocks (each host times the direction it sends on its own clock,
 * the wire is measured by round trip, the processes start at the launcher's barrier), so an
 * offset is reported, never refused. But where it exceeds a link's budget, times taken on the
 * two hosts (captures, logs, the links' lateness) cannot even order a frame's sending before
 * its arrival: that is a warning, naming the link. Pure: nothing is contacted.
 */
class FastPathClockCheck
{
  public:
    /// A link to another host and its delay budget (its delay less the wire's latency).
    struct Budget
    {
        std::string link;
        uint64_t delayNs = 0;
    };

    struct Verdict
    {
        std::string line; ///< "fastpath: host H: clock offset ..." (one line)
        bool warning = false;
    };

    /// The line for host `host` with offset `clock` and the budgets of its links to other
    /// hosts (none: the offset alone).
    static Verdict Check(const std::string& host,
                         const FastPathClockOffset& clock,
                         const std::vector<Budget>& budgets);
};

} // namespace ns3
