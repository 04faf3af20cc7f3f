// SPDX-License-Identifier: GPL-2.0-only
// FastPathPlan: what an emulated script generated in fastpathd, written as a fastpathd
// topology file (`fastpathd --topology FILE` reads it back).
#pragma once

#include "fastpath/control_types.h"
#include "fastpath/result.h"

#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup fastpath
 * \brief The generated plan: the nodes, links, segments and bridges an emulated script
 * created in fastpathd (names starting with `TAG-`, TAG the global value FastPathTag), as a
 * topology file in fastpathd's syntax (docs/reference/topology.md): each node with its
 * `host` (`local` for now, so that a scenario can later be split over machines without a
 * new format), each link's ends (node, port, MAC, MTU), state and the emulation of each
 * direction, each segment's ports and medium, each bridge's node, segment ports and ageing
 * time (in whole seconds, as the file has it: a fraction is rounded up, and the file says
 * so in a comment).
 *
 * With the global value FastPathPlan set to a file name (`--FastPathPlan=FILE`), the
 * emulating helpers (FastPathPointToPointHelper, FastPathCsmaHelper) schedule Write() at
 * simulation time 0, when their Install() calls have created everything; nothing is
 * written otherwise.
 */
class FastPathPlan
{
  public:
    /// The topology file text of the nodes, links, segments and bridges whose names start
    /// with `prefix` (all when empty; node `default` never).
    static std::string Text(const std::vector<fastpath::NodeInfo>& nodes,
                            const std::vector<fastpath::LinkInfo>& links,
                            const std::vector<fastpath::SegmentInfo>& segments,
                            const std::string& prefix,
                            const std::vector<fastpath::BridgeInfo>& bridges = {});
    /// Asks the fastpathd at `socket` for its nodes, links, segments and bridges and writes
    /// those of `prefix` to `path`.
    static fastpath::Status Write(const std::string& socket,
                                  const std::string& prefix,
                                  const std::string& path);
    /// With FastPathPlan set: schedules, once per process, Write() of the names starting
    /// with `prefix` at simulation time 0 (a failure ends the simulation: the plan was
    /// asked for). FastPathEmulation calls it when it connects.
    static void ScheduleIfAsked(const std::string& socket, const std::string& prefix);
    /// The value of the global value FastPathPlan ("" if unset).
    static std::string GetPlanFile();
};

} // namespace ns3
