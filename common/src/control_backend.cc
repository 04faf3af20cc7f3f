// SPDX-License-Identifier: GPL-2.0-only
// SingleNodeTopology: the topology of a data plane with one node (tests' backends, and any
// backend that does not host several nodes), which refuses every change.
#include "fastpath/control_backend.h"

#include <cerrno>

namespace fastpath {

Error singleNodeRefusal(const std::string& what) {
  return Error{-ENOTSUP, what + ": this data plane has one node, \"" +
                            std::string(kDefaultNodeName) + "\"; it cannot create or delete "
                            "nodes or links"};
}

namespace {
Error noMedia(const std::string& what) {
  return Error{-ENOTSUP, what + ": this data plane has no radio media"};
}
}  // namespace

std::vector<MediumInfo> TopologyControl::media(const std::string&) const { return {}; }
Status TopologyControl::createMedium(const MediumSpec& spec) {
  return noMedia("create medium \"" + spec.name + "\"");
}
Status TopologyControl::deleteMedium(const std::string& name) {
  return noMedia("delete medium \"" + name + "\"");
}
Status TopologyControl::updateMedium(const std::string& name, const MediumUpdate&) {
  return noMedia("update medium \"" + name + "\"");
}

namespace {
Error noWires(const std::string& what) {
  return Error{-ENOTSUP, what + ": this data plane has no wires to other hosts"};
}
}  // namespace

Result<MultiHostInfo> TopologyControl::declareMultiHost(const MultiHostDeclaration& d) {
  return noWires("declare host \"" + d.host + "\"");
}
Result<CrossLinkInfo> TopologyControl::createCrossLink(const CrossLinkSpec& spec) {
  return noWires("create cross-host link \"" + spec.name + "\"");
}
Status TopologyControl::deleteCrossLink(const std::string& name) {
  return noWires("delete cross-host link \"" + name + "\"");
}
MultiHostInfo TopologyControl::multiHost() const { return {}; }

Result<NodeControl*> SingleNodeTopology::node(const std::string& name) {
  if (name.empty() || name == kDefaultNodeName) return &node_;
  return Error{-ENOENT, "node \"" + name + "\": no such node (this data plane has one node, \"" +
                           std::string(kDefaultNodeName) + "\")"};
}
Status SingleNodeTopology::createNode(const NodeSpec& spec) {
  return singleNodeRefusal("create node \"" + spec.name + "\"");
}
Status SingleNodeTopology::deleteNode(const std::string& name) {
  return singleNodeRefusal("delete node \"" + name + "\"");
}
std::vector<NodeInfo> SingleNodeTopology::nodes() const {
  NodeInfo n;
  n.name = kDefaultNodeName;
  for (const auto& p : node_.ports()) n.ports.push_back(p.id);
  n.routes = node_.routes().size();
  n.neighbours = node_.neighbours().size();
  return {n};
}
Status SingleNodeTopology::createLink(const LinkSpec& spec) {
  return singleNodeRefusal("create link \"" + spec.name + "\"");
}
Status SingleNodeTopology::deleteLink(const std::string& name) {
  return singleNodeRefusal("delete link \"" + name + "\"");
}
Status SingleNodeTopology::setLinkState(const std::string& name, bool, const std::string&) {
  return Error{-ENOENT, "link \"" + name + "\": no such link"};
}
Status SingleNodeTopology::setLinkParams(const std::string& name, LinkDirection,
                                         const LinkParams&) {
  return Error{-ENOENT, "link \"" + name + "\": no such link"};
}
std::vector<LinkInfo> SingleNodeTopology::links() const { return {}; }
Status SingleNodeTopology::createSegment(const SegmentSpec& spec) {
  return singleNodeRefusal("create segment \"" + spec.name + "\"");
}
Status SingleNodeTopology::deleteSegment(const std::string& name) {
  return Error{-ENOENT, "segment \"" + name + "\": no such segment"};
}
Status SingleNodeTopology::setSegmentState(const std::string& name, bool, const std::string&) {
  return Error{-ENOENT, "segment \"" + name + "\": no such segment"};
}
Status SingleNodeTopology::setSegmentParams(const std::string& name, const LinkParams&) {
  return Error{-ENOENT, "segment \"" + name + "\": no such segment"};
}
std::vector<SegmentInfo> SingleNodeTopology::segments() const { return {}; }
Result<PortInfo> SingleNodeTopology::attachInterface(const std::string&,
                                                     const std::string& ifname) {
  return singleNodeRefusal("attach interface \"" + ifname + "\"");
}
Status SingleNodeTopology::detachInterface(const std::string&, const std::string& ifname) {
  return Error{-ENOENT, "interface \"" + ifname + "\" is no port attached at run time"};
}
Result<HostInfo> SingleNodeTopology::createHost(const HostSpec& spec) {
  return singleNodeRefusal("create host \"" + spec.name + "\"");
}
Status SingleNodeTopology::deleteHost(const std::string& name) {
  return Error{-ENOENT, "host \"" + name + "\": no such host"};
}
std::vector<HostInfo> SingleNodeTopology::hosts() const { return {}; }

Status TopologyControl::mayAttachInterface(const std::string&, bool) const { return {}; }

Result<CaptureInfo> TopologyControl::startCapture(const CaptureSpec& spec) {
  return Error{-ENOTSUP, "capture \"" + spec.target + "\": this data plane carries no frames"};
}
CaptureCounters TopologyControl::readCapture(uint64_t, std::vector<CapturedFrame>*, size_t) {
  CaptureCounters c;
  c.done = true;
  return c;
}
void TopologyControl::stopCapture(uint64_t) {}

}  // namespace fastpath
