// SPDX-License-Identifier: GPL-2.0-only
// ControlBackend's defaults for a data plane with one node (tests' backends, and any
// backend that does not host several nodes): the backend is its own default node.
#include "fastpath/control_backend.h"

#include <cerrno>

namespace fastpath {

namespace {
Error oneNode(const std::string& what) {
  return Error{-ENOTSUP, what + ": this data plane has one node, \"" +
                            std::string(kDefaultNodeName) + "\"; it cannot create or delete "
                            "nodes or links"};
}
}  // namespace

Result<ControlBackend*> ControlBackend::node(const std::string& name) {
  if (name.empty() || name == kDefaultNodeName) return this;
  return Error{-ENOENT, "node \"" + name + "\": no such node (this data plane has one node, \"" +
                           std::string(kDefaultNodeName) + "\")"};
}
Status ControlBackend::createNode(const NodeSpec& spec) {
  return oneNode("create node \"" + spec.name + "\"");
}
Status ControlBackend::deleteNode(const std::string& name) {
  return oneNode("delete node \"" + name + "\"");
}
std::vector<NodeInfo> ControlBackend::nodes() const {
  NodeInfo n;
  n.name = kDefaultNodeName;
  for (const auto& p : ports()) n.ports.push_back(p.id);
  n.routes = routes().size();
  n.neighbours = neighbours().size();
  return {n};
}
Status ControlBackend::createLink(const LinkSpec& spec) {
  return oneNode("create link \"" + spec.name + "\"");
}
Status ControlBackend::deleteLink(const std::string& name) {
  return oneNode("delete link \"" + name + "\"");
}
Status ControlBackend::setLinkState(const std::string& name, bool) {
  return Error{-ENOENT, "link \"" + name + "\": no such link"};
}
Status ControlBackend::setLinkParams(const std::string& name, LinkDirection,
                                     const LinkParams&) {
  return Error{-ENOENT, "link \"" + name + "\": no such link"};
}
std::vector<LinkInfo> ControlBackend::links() const { return {}; }
Status ControlBackend::setPortParams(PortId port, const LinkParams&) {
  return oneNode("emulate the egress of port " + std::to_string(port));
}
Status ControlBackend::createSegment(const SegmentSpec& spec) {
  return oneNode("create segment \"" + spec.name + "\"");
}
Status ControlBackend::deleteSegment(const std::string& name) {
  return Error{-ENOENT, "segment \"" + name + "\": no such segment"};
}
Status ControlBackend::setSegmentState(const std::string& name, bool, const std::string&) {
  return Error{-ENOENT, "segment \"" + name + "\": no such segment"};
}
Status ControlBackend::setSegmentParams(const std::string& name, const LinkParams&) {
  return Error{-ENOENT, "segment \"" + name + "\": no such segment"};
}
std::vector<SegmentInfo> ControlBackend::segments() const { return {}; }
Result<PortInfo> ControlBackend::attachInterface(const std::string&, const std::string& ifname) {
  return oneNode("attach interface \"" + ifname + "\"");
}
Status ControlBackend::detachInterface(const std::string&, const std::string& ifname) {
  return Error{-ENOENT, "interface \"" + ifname + "\" is no port attached at run time"};
}
Status ControlBackend::mayAttachInterface(const std::string&, bool) const { return {}; }
Result<HostInfo> ControlBackend::createHost(const HostSpec& spec) {
  return oneNode("create host \"" + spec.name + "\"");
}
Status ControlBackend::deleteHost(const std::string& name) {
  return Error{-ENOENT, "host \"" + name + "\": no such host"};
}
std::vector<HostInfo> ControlBackend::hosts() const { return {}; }

}  // namespace fastpath
