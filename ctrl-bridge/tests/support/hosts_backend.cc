// SPDX-License-Identifier: GPL-2.0-only
#include "hosts_backend.h"

#include <cerrno>

#include "daemon/attach_policy.h"
#include "fastpath/host_rules.h"

namespace fastpath::ctrl::testing {

namespace {

InterfaceFacts imagined(const std::string& ifname) {
  InterfaceFacts f;
  f.ifname = ifname;
  f.loopback = ifname == "lo";
  if (ifname.rfind("bond-m", 0) == 0) {
    f.bond_member = true;
    f.master = "bond0";
  }
  if (ifname.rfind("xdp", 0) == 0) f.xdp_prog_id = 7;
  f.default_route = ifname == "eth0";
  return f;
}

}  // namespace

void HostsBackend::resetExtras() {
  hosts_.clear();
  attached_.clear();
  segments_.clear();
  media_.clear();
}

Status HostsBackend::mayAttachInterface(const std::string& ifname, bool root) const {
  std::vector<std::string> owned;
  for (const auto& [name, h] : hosts_) owned.push_back(h.port);
  return AttachPolicy(attachable_, owned)
      .check(imagined(ifname), root ? AttachRequester::kRoot : AttachRequester::kOperator);
}

Result<PortInfo> HostsBackend::attachInterface(const std::string& node, const std::string& ifname) {
  if (auto be = this->node(node); !be) return be.error();
  if (attached_.count(ifname)) return makeError(-EEXIST, ifname + " is attached already");
  attached_[ifname] = node;
  PortInfo p;
  p.id = next_port_++;
  p.ifname = ifname;
  p.node = node;
  p.mac = *MacAddress::parse("02:00:00:00:10:01");
  p.mtu = 1500;
  return p;
}

Status HostsBackend::detachInterface(const std::string& node, const std::string& ifname) {
  auto it = attached_.find(ifname);
  if (it == attached_.end() || (!node.empty() && it->second != node))
    return makeError(-ENOENT, ifname + " is not attached to node " + node);
  attached_.erase(it);
  return {};
}

Result<HostInfo> HostsBackend::createHost(const HostSpec& spec) {
  auto be = node(spec.node);
  if (!be) return be.error();
  if (hosts_.count(spec.name)) return makeError(-EEXIST, "host " + spec.name + " exists already");
  // The daemon's own check, as fastpathd's createHost makes it.
  if (auto st = checkHostAddresses(spec, hosts(), (*be)->controlRules()); !st) return st.error();
  HostInfo h;
  h.spec = spec;
  h.netns = "fp-" + spec.name;
  h.port = "fh-" + spec.name.substr(0, 12);
  h.port_id = next_port_++;
  h.mac = *MacAddress::parse("02:00:00:00:20:01");
  hosts_[spec.name] = h;
  return h;
}

Status HostsBackend::deleteHost(const std::string& name) {
  if (!hosts_.erase(name)) return makeError(-ENOENT, "host " + name + ": no such host");
  return {};
}

std::vector<HostInfo> HostsBackend::hosts() const {
  std::vector<HostInfo> out;
  for (const auto& [name, h] : hosts_) out.push_back(h);
  return out;
}

Status HostsBackend::createSegment(const SegmentSpec& spec) {
  if (segments_.count(spec.name)) return makeError(-EEXIST, "segment " + spec.name + " exists");
  for (const auto& p : spec.ports)
    if (auto be = node(p.node); !be) return be.error();
  SegmentInfo s;
  s.name = spec.name;
  s.up = spec.up;
  for (const auto& p : spec.ports) {
    SegmentInfo::Port port;
    port.node = p.node;
    port.port = p.port;
    port.mac = p.mac;
    port.mtu = p.mtu;
    s.ports.push_back(port);
  }
  segments_[spec.name] = s;
  return {};
}

Status HostsBackend::deleteSegment(const std::string& name) {
  if (!segments_.erase(name)) return makeError(-ENOENT, "segment " + name + ": no such segment");
  return {};
}

Status HostsBackend::setSegmentState(const std::string& name, bool up, const std::string& node) {
  auto it = segments_.find(name);
  if (it == segments_.end()) return makeError(-ENOENT, "segment " + name + ": no such segment");
  if (node.empty()) it->second.up = up;
  return {};
}

bool HostsBackend::setSegmentStats(const std::string& name, const LinkDirectionStats& stats) {
  auto it = segments_.find(name);
  if (it == segments_.end()) return false;
  it->second.stats = stats;
  return true;
}

std::vector<SegmentInfo> HostsBackend::segments() const {
  std::vector<SegmentInfo> out;
  for (const auto& [name, s] : segments_) out.push_back(s);
  return out;
}

std::vector<MediumInfo> HostsBackend::media(const std::string& name) const {
  std::vector<MediumInfo> out;
  for (const auto& [n, m] : media_)
    if (name.empty() || n == name) out.push_back(m);
  return out;
}

}  // namespace fastpath::ctrl::testing
