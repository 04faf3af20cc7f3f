// SPDX-License-Identifier: GPL-2.0-only
// Helpers shared by the daemon's source files (not a public header).
#pragma once

#include <string>

#include "fastpath/control_backend.h"
#include "fastpath/result.h"

namespace fastpath {

/// MAC, MTU, ifindex, up flag and queue count of an interface in the current netns.
Result<PortInfo> readPortInfo(const std::string& ifname, PortId id);

}  // namespace fastpath
