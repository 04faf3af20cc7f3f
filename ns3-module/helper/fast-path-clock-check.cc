// SPDX-License-Identifier: GPL-2.0-only
#include "fast-path-clock-check.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace ns3
{

namespace
{

std::string
Micros(uint64_t ns)
{
    return std::to_string((ns + 500) / 1000) + " us";
}

} // namespace

std::string
FastPathClockOffset::Text() const
{
    if (!known)
    {
        return "unknown (" + source + ")";
    }
    char b[64];
    std::snprintf(b, sizeof(b), "%+.0f us (%s)", static_cast<double>(offsetNs) / 1e3,
                  source.c_str());
    return b;
}

FastPathClockCheck::Verdict
FastPathClockCheck::Check(const std::string& host,
                          const FastPathClockOffset& clock,
                          const std::vector<Budget>& budgets)
{
    Verdict v;
    const std::string head = "host " + host + ": clock offset " + clock.Text();
    if (!clock.known)
    {
        v.line = "fastpath: " + head + ": times taken on this host and on the others cannot "
                 "be compared (the emulation does not need them to)";
        return v;
    }
    if (budgets.empty())
    {
        v.line = "fastpath: " + head;
        return v;
    }
    const auto tightest = std::min_element(
        budgets.begin(), budgets.end(),
        [](const Budget& a, const Budget& b) { return a.delayNs < b.delayNs; });
    const uint64_t offset = static_cast<uint64_t>(std::llabs(clock.offsetNs));
    if (offset <= tightest->delayNs)
    {
        v.line = "fastpath: " + head + ", within the delay budget of its links to other hosts "
                 "(the smallest: " + Micros(tightest->delayNs) + ", link " + tightest->link + ")";
        return v;
    }
    v.warning = true;
    v.line = "fastpath: warning: " + head + " exceeds the delay budget of link " +
             tightest->link + " (" + Micros(tightest->delayNs) +
             ": its delay less the wire's latency): times taken on two hosts (captures, logs, "
             "the links' lateness) cannot order a frame's sending and its arrival; synchronise "
             "the hosts' clocks (chrony, ptp4l). The emulation does not depend on them: the run "
             "goes on";
    return v;
}

} // namespace ns3
