// SPDX-License-Identifier: GPL-2.0-only
// The emulation's switch and its companions: the global values FastPathEmulation (which also
// selects the realtime simulator and real checksums), FastPathPartition, FastPathSocket,
// FastPathHosts, FastPathFollowInterval and FastPathTag.
#pragma once

#include <string>

namespace ns3
{
namespace fastpathswitch
{

/// The value of a string global value; empty when it is not constructed yet.
std::string GlobalString(const std::string& name);

/// The tag: FastPathTag, else the program's name, cut to what fastpathd's names allow.
std::string TagOfProgram();

} // namespace fastpathswitch
} // namespace ns3
