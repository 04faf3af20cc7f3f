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

/// Ports of one node, snapshotted for one request: a port of another node is unknown.
class PortDirectory {
 public:
  PortDirectory() = default;
  /// `node`: the canonical name of the node the request is for (kDefaultNodeName for the
  /// default node). Ports that name another node (PortInfo::node) are left out; errors
  /// about a node other than the default one say which node was searched.
  explicit PortDirectory(const std::vector<PortInfo>& ports,
                         const std::string& node = kDefaultNodeName);
  /// Resolves a PortRef; `field` names it in errors.
  WireResult<PortId> resolve(const v1::PortRef& ref, const std::string& field) const;
  bool hasId(PortId id) const { return ids_.count(id) != 0; }

 private:
  std::string where() const;
  std::unordered_set<PortId> ids_;
  std::unordered_map<std::string, PortId> names_;
  std::string node_;
};

/// The longest node, link or link port name (kernel interface names are shorter still).
inline constexpr std::size_t kMaxNodeNameLength = 31;

/// "" and "default" are the default node: its canonical name is kDefaultNodeName.
std::string canonicalNode(const std::string& name);
/// A node, link or link port name: 1..31 characters of [A-Za-z0-9_.-].
WireStatus nameFromWire(const std::string& name, const std::string& field, const char* what);
/// A node reference that may be empty (= the connection's node); checked when not.
WireStatus optionalNodeFromWire(const std::string& name, const std::string& field);
/// A port MAC: 6 bytes, not multicast; `allow_generated`: empty or all-zero = "generate one".
WireResult<MacAddress> portMacFromWire(const std::string& bytes, const std::string& field,
                                       bool allow_generated);
WireResult<NodeSpec> nodeSpecFromWire(const v1::CreateNode& in, const std::string& field);
/// Both ends checked (names, MACs, MTUs, two different nodes); an empty port name
/// becomes the link's name; an unset `up` is up; unset a_to_b/b_to_a pass frames at once.
/// One port of a link, segment or medium: node and port names (an empty port is
/// `default_name`), MAC (zero = generated) and MTU (0 = 1500).
WireResult<LinkEndSpec> linkEndFromWire(const v1::LinkEnd& in, const std::string& field,
                                        const std::string& default_name);
WireResult<LinkSpec> linkSpecFromWire(const v1::CreateLink& in, const std::string& field);
/// CreateSegment: the name, 1 .. kMaxSegmentPorts ports (names, MACs, MTUs as a link end's),
/// each node once, the medium's parameters.
WireResult<SegmentSpec> segmentSpecFromWire(const v1::CreateSegment& in,
                                            const std::string& field);
/// Link emulation parameters (1.4), every value checked with validateLinkParams' rules;
/// a refusal names the wire field ("set_link_params.params.loss: 150% is outside 0% ..
/// 100%"). limit_packets 0 is the default, 100.
WireResult<LinkParams> linkParamsFromWire(const v1::LinkParams& in, const std::string& field);
WireResult<LinkDirection> linkDirectionFromWire(int direction, const std::string& field);

/// CreateHost (wire_validate_hosts.cc): names, MTU, addresses and gateways, and the host
/// address rule (checkHostAddresses) against the daemon's `hosts` and the node's rules.
WireResult<HostSpec> hostSpecFromWire(const v1::CreateHost& in, const std::string& field,
                                      const std::vector<HostInfo>& hosts,
                                      const std::vector<ControlRule>& node_rules);
/// A node named in a segment request (`field`) must be one of the segment's; an unknown
/// segment passes (the backend's NOT_FOUND names it).
WireStatus segmentNodeFromWire(const std::string& segment, const std::string& node,
                               const std::string& field,
                               const std::vector<SegmentInfo>& segments);

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
