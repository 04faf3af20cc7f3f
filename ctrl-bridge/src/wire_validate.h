// SPDX-License-Identifier: GPL-2.0-only
// A client's request -> validated domain values (server side). Everything coming from a
// client is checked here; a refusal names the offending field
// ("apply_routes.add[3].prefix.length: 33 > 32 (IPv4)"). Internal to ctrl-bridge.
#pragma once

#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "fastpath/control_backend.h"
#include "fastpath/net_types.h"
#include "wire_error.h"

namespace fastpath::ctrl {

/// Ports known to the backend, snapshotted for one request.
class PortDirectory {
 public:
  PortDirectory() = default;
  explicit PortDirectory(const std::vector<PortInfo>& ports);
  /// Resolves a PortRef; `field` names it in errors.
  WireResult<PortId> resolve(const v1::PortRef& ref, const std::string& field) const;
  bool hasId(PortId id) const { return ids_.count(id) != 0; }

 private:
  std::unordered_set<PortId> ids_;
  std::unordered_map<std::string, PortId> names_;
};

/// `allow_empty`: no bytes at all is the unspecified address (an optional field).
WireResult<IpAddress> addressFromWire(const v1::IpAddress& in, const std::string& field,
                                      bool allow_empty);
WireResult<IpPrefix> prefixFromWire(const v1::Prefix& in, const std::string& field);
WireResult<Route> routeFromWire(const v1::Route& in, const std::string& field,
                                const PortDirectory& ports);
WireResult<Neighbour> neighbourFromWire(const v1::Neighbour& in, const std::string& field,
                                        const PortDirectory& ports);
WireResult<std::vector<ControlRule>> controlRulesFromWire(const v1::SetControlRules& in,
                                                          const std::string& field);
/// The event kinds to deliver (empty input = all).
WireResult<std::vector<FastPathEvent::Kind>> subscriptionFromWire(const v1::Subscribe& in,
                                                                  const std::string& field);

/// "<field>.<name>[<i>]", the path of a repeated field's element in errors.
std::string elementField(const std::string& field, const char* name, std::size_t i);

}  // namespace fastpath::ctrl
