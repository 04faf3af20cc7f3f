// SPDX-License-Identifier: GPL-2.0-only
// iproute2-like route/neighbour/rule arguments for fpctl, and route files.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "fastpath/control_backend.h"
#include "fastpath/net_types.h"
#include "fastpath/result.h"

namespace fastpath::ctrl::fpctl {

/// Resolves "fp1" (or a numeric id) to a PortId.
using PortLookup = std::function<Result<PortId>(const std::string&)>;

/// "PREFIX [via ADDR] (dev IFNAME | port ID) [metric N]"
Result<Route> parseRoute(const std::vector<std::string>& args, const PortLookup& ports);
/// One route per line in parseRoute's syntax; '#' starts a comment; blank lines skipped.
/// Errors name the file and line.
Result<std::vector<Route>> readRouteFile(const std::string& path, const PortLookup& ports);
/// `count` synthetic /24 routes: 11.0.0.0/24, 11.0.1.0/24, ... (table entries only; no
/// traffic is ever sent to them), all through `port` (and `via` when given).
Result<std::vector<Route>> generateRoutes(std::size_t count, PortId port, const IpAddress& via);

/// "ADDR lladdr MAC dev IFNAME"
Result<Neighbour> parseNeighbour(const std::vector<std::string>& args, const PortLookup& ports);

/// "ethertype 0x0806 | proto 89 | udp 521 | tcp 179 | local ADDR", each optionally followed
/// by "pass" (to the host kernel) or "control" (default); several rules in a row.
Result<std::vector<ControlRule>> parseRules(const std::vector<std::string>& args);
std::string ruleToString(const ControlRule& r);

}  // namespace fastpath::ctrl::fpctl
